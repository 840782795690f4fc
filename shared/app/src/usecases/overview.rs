//! What the console's list and record pages show of campaigns and goals: the records from
//! the indexes `/v3` reads (`v3::campaign_page`), each with its advertiser's name, what it
//! delivered against what it booked, and its pace against plan (`delivery::pacing`).

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::v3::{self, CampaignExpand};
use super::v3_rows::CampaignFilter;
use super::UseCaseResult;
use crate::delivery::pacing::{ideal_delivery, pace_state, PaceState};
use crate::model::account::Account;
use crate::model::campaign::Campaign;
use crate::model::enums::Counter;
use crate::model::goal::Goal;
use crate::repo;
use crate::repo::metrics::Level;
use crate::repo::Versioned;
use crate::state::AppState;

/// Delivered against booked, and the pace.
#[derive(Debug, Clone, Copy, Default)]
pub struct Delivery {
    pub delivered: f64,
    /// What the goals booked (their targets); `None` when none has one.
    pub booked: Option<f64>,
    /// What the plan asks by now; `None` when nothing is paced.
    pub plan: Option<f64>,
    pub pace: Option<PaceState>,
}

/// A goal's delivery against its target and plan at `now`.
pub fn of_goal(g: &Goal, c: &Campaign, a: &Account, delivered: f64, now: DateTime<Utc>) -> Delivery {
    let f = super::pacing::flight(g, c, a);
    let plan = ideal_delivery(&f, now.timestamp().min(f.end.unwrap_or(i64::MAX)));
    Delivery { delivered, booked: f.target, plan, pace: plan.and_then(|p| pace_state(delivered, p)) }
}

/// A campaign's: its goals' targets and plans summed, against what the campaign delivered.
fn of_campaign(c: &Campaign, goals: &[&Goal], a: &Account, delivered: f64, now: DateTime<Utc>) -> Delivery {
    let each: Vec<Delivery> = goals.iter().map(|g| of_goal(g, c, a, 0.0, now)).collect();
    let sum = |f: fn(&Delivery) -> Option<f64>| each.iter().filter_map(f).reduce(|x, y| x + y);
    let plan = sum(|d| d.plan);
    Delivery { delivered, booked: sum(|d| d.booked), plan, pace: plan.and_then(|p| pace_state(delivered, p)) }
}

/// A campaign as its list row shows it.
pub struct CampaignLine {
    pub campaign: Campaign,
    pub advertiser: Option<String>,
    pub delivery: Delivery,
}

/// A page of campaigns (`size` a page, page `number` from 1), the total, and each row.
pub async fn campaigns(
    st: &AppState,
    a: &Account,
    f: &CampaignFilter,
    size: usize,
    number: usize,
) -> UseCaseResult<(usize, Vec<CampaignLine>)> {
    let e = CampaignExpand { goals: true, ads: false, include_deleted_goals: false, metrics: true };
    let (total, shown, x) = v3::campaign_page(st, &a.id, f, &e, size, number).await?;
    let advertisers = names(st, a, shown.iter().map(|c| c.advertiser_id.clone()).collect()).await?;
    let now = st.clock.now();
    let lines = shown
        .into_iter()
        .map(|c| {
            let goals: Vec<&Goal> = c.goals.iter().filter(|g| !g.deleted).filter_map(|g| x.goals.get(&g.id)).collect();
            let delivered = x.counters.get(&c.id).map_or(0, |n| n.get(Counter::Delivered)) as f64;
            let delivery = of_campaign(&c, &goals, a, delivered, now);
            CampaignLine { advertiser: advertisers.get(&c.advertiser_id).cloned(), delivery, campaign: c }
        })
        .collect();
    Ok((total, lines))
}

/// The clients' names by id.
async fn names(st: &AppState, a: &Account, mut ids: Vec<String>) -> UseCaseResult<HashMap<String, String>> {
    ids.sort();
    ids.dedup();
    Ok(repo::clients::by_ids(st.store.as_ref(), &a.id, &ids).await?.into_iter().map(|c| (c.id, c.name)).collect())
}

/// A goal as its campaign's page lists it.
pub struct GoalLine {
    pub goal: Goal,
    pub delivery: Delivery,
}

/// A campaign's page: the campaign (with its version), its advertiser's name, and its
/// live goals by start, name, then id, each with its delivery.
pub async fn campaign(st: &AppState, a: &Account, id: &str) -> UseCaseResult<(Versioned<Campaign>, Option<String>, Vec<GoalLine>)> {
    let c = super::campaigns::get(st, &a.id, id).await?;
    let goals = super::goals::live_of(st, &a.id, &c.value).await?;
    let ids: Vec<String> = goals.iter().map(|g| g.id.clone()).collect();
    let counters = repo::metrics::read(st.store.as_ref(), &a.id, Level::Goal, &ids).await?;
    let advertiser = names(st, a, vec![c.value.advertiser_id.clone()]).await?.remove(&c.value.advertiser_id);
    let now = st.clock.now();
    let lines = goals
        .into_iter()
        .map(|g| {
            let delivered = counters.get(&g.id).map_or(0, |n| n.get(Counter::Delivered)) as f64;
            GoalLine { delivery: of_goal(&g, &c.value, a, delivered, now), goal: g }
        })
        .collect();
    Ok((c, advertiser, lines))
}

/// A goal's page: the goal and its campaign (with their versions) and its delivery.
pub async fn goal(st: &AppState, a: &Account, id: &str) -> UseCaseResult<(Versioned<Goal>, Versioned<Campaign>, Delivery)> {
    let (g, c) = super::goals::get(st, &a.id, id).await?;
    let counters = repo::metrics::read(st.store.as_ref(), &a.id, Level::Goal, std::slice::from_ref(&g.value.id)).await?;
    let delivered = counters.get(&g.value.id).map_or(0, |n| n.get(Counter::Delivered)) as f64;
    let d = of_goal(&g.value, &c.value, a, delivered, st.clock.now());
    Ok((g, c, d))
}

/// The goals' starts by id (the inspector page's "flight starts ...").
pub async fn starts(st: &AppState, a: &Account, ids: &[String]) -> UseCaseResult<std::collections::HashMap<String, DateTime<Utc>>> {
    Ok(repo::goals::by_ids(st.store.as_ref(), &a.id, ids).await?.into_iter().map(|g| (g.id, g.start)).collect())
}
