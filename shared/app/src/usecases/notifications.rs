//! Campaign notifications (seed 001 §2.5; the rules in `model::notification`, listed in
//! docs/api.md): the campaign, its live goals with their ads, what keeps their media from
//! playing, and what delivery says of each goal now — its pace record in the account's
//! snapshot (caps, target, plan, projection) and how many of its ads can serve.

use crate::ids::AccountId;
use std::collections::HashMap;

use super::UseCaseResult;
use crate::delivery::pacing::{cap_reached, local_day_hour, pacing_holds, pacing_plan, Held, Pace};
use crate::delivery::snapshot::Snapshot;
use crate::forecast::projection::{Basis, Projection};
use crate::model::account::Account;
use crate::model::campaign::Campaign;
use crate::model::notification::{notifications, GoalDelivery, GoalDemand, GoalSummary, Notification};
use crate::repo;
use crate::state::AppState;

pub async fn for_campaign(st: &AppState, acc: &Account, campaign_id: &str) -> UseCaseResult<(Campaign, Vec<Notification>)> {
    let account = &acc.id;
    let c = repo::campaigns::load(st.store.as_ref(), account, campaign_id).await?.value;
    let goals = repo::goals::load_many(st.store.as_ref(), account, &c.live_goal_ids()).await?;
    let waiting = crate::usecases::assets::ads_without_media(st, account, &goals).await?;
    let now = st.clock.now();
    let (snapshot, pace) = st.delivery.latest(&st.store, &st.blobs, account, &st.settings, now).await?;
    // The projections: the same as `/v3` goals' (`usecases::pacing`).
    let delivered = |id: &str| snapshot.goal_index.get(id).and_then(|i| pace.get(*i as usize)).map_or(0.0, |p| p.delivered as f64);
    let with: Vec<(&crate::model::goal::Goal, &Campaign, f64)> = goals.iter().map(|g| (g, &c, delivered(&g.id))).collect();
    let projections: HashMap<String, Projection> = crate::usecases::pacing::pacing(st, acc, &with, false)
        .await?
        .into_iter()
        .filter_map(|(id, p)| p.projection.map(|p| (id, p)))
        .collect();
    let silent = silent_goals(st, account, &snapshot, now).await;
    // An ended goal is not in the snapshot (it cannot serve): what it delivered is its pace
    // record's, all of them read at once.
    let ended: Vec<String> = goals
        .iter()
        .filter(|g| g.end.is_some_and(|e| e <= now) && !snapshot.goal_index.contains_key(&g.id))
        .map(|g| g.id.clone())
        .collect();
    let ended_paces = repo::delivery::paces_of(st.store.as_ref(), account, &ended).await?;
    let mut summaries = Vec::new();
    for g in goals {
        let delivery = match delivery_of(&snapshot, &pace, &g.id, now.timestamp(), projections.get(&g.id)) {
            Some(d) => Some(d),
            None if ended.contains(&g.id) => Some(ended_delivery(&g, ended_paces.get(&g.id))),
            None => None,
        };
        summaries.push(GoalSummary {
            demand: demand_of(&snapshot, &g, &silent),
            name: g.name.clone().unwrap_or_else(|| g.id.clone()),
            start: Some(g.start),
            end: g.end,
            ads_total: g.ads.len(),
            ads_enabled: g.ads.iter().filter(|x| x.enabled).count(),
            ads_without_media: waiting.get(&g.id).cloned().unwrap_or_default(),
            delivery,
            id: g.id,
        });
    }
    let mut list = notifications(&c, &summaries, now);
    if let Some(why) = st.delivery.refusal(account).filter(|_| !c.is_archived() && c.deleted_at.is_none()) {
        list.insert(0, crate::model::notification::past_bound(&c, &why));
    }
    Ok((c, list))
}

/// A programmatic goal's demand: its marketplace (and, programmatic guaranteed, whether its
/// buyers were silent today), or none when it should have one.
fn demand_of(s: &Snapshot, g: &crate::model::goal::Goal, silent: &HashMap<String, i64>) -> Option<GoalDemand> {
    let market = g.marketplace_id.as_deref().and_then(|m| s.demand.market_index.get(m)).and_then(|i| s.demand.markets.get(*i as usize));
    match (g.kind, market) {
        (_, Some(m)) => {
            let pg = g.kind == crate::model::enums::GoalType::Impression;
            let quiet = silent.get(&g.id).filter(|_| pg).map(|n| (m.deals.iter().map(|d| d.id.clone()).collect(), *n));
            Some(GoalDemand::Auction { marketplace: m.name.clone(), silent: quiet })
        }
        (crate::model::enums::GoalType::Rtb, None) => Some(GoalDemand::NoMarketplace),
        (_, None) if g.marketplace_id.is_some() => Some(GoalDemand::NoMarketplace),
        _ => None,
    }
}

/// Bid requests at least this many today and no bid: the buyers are silent.
pub const SILENT_AFTER_REQUESTS: i64 = 10;

/// The programmatic goals whose bid requests of today (the account's local day) got no
/// bid at all, with their request count (one report partition read; none without
/// programmatic goals).
pub(crate) async fn silent_goals(
    st: &AppState,
    account: &AccountId,
    s: &Snapshot,
    now: chrono::DateTime<chrono::Utc>,
) -> HashMap<String, i64> {
    use crate::model::enums::Counter;
    if !s.goals.iter().any(|g| matches!(g.fill, crate::delivery::programmatic::Fill::Auction { .. })) {
        return HashMap::new();
    }
    let (day, _) = repo::reports::local_day_hour(now.timestamp(), s.zone.offset_at(now.timestamp()));
    let cells = match repo::reports::day(st.store.as_ref(), account, day).await {
        Ok(c) => c,
        Err(e) => {
            tracing::warn!(error = %e, "today's report cells were not read: no programmatic delivery notification");
            return HashMap::new();
        }
    };
    let mut per_goal: HashMap<String, (i64, i64)> = HashMap::new();
    for c in cells.iter().filter(|c| &*c.at.demand_partner != repo::reports::NONE) {
        let e = per_goal.entry(c.at.goal.to_string()).or_default();
        e.0 += c.counters.get(Counter::BidRequests);
        e.1 += c.counters.get(Counter::Bids);
    }
    per_goal.into_iter().filter(|(_, (req, bids))| *req >= SILENT_AFTER_REQUESTS && *bids == 0).map(|(g, (req, _))| (g, req)).collect()
}

/// A goal's delivery now, from the snapshot and its pace record (`None`: not in it).
/// What an ended goal delivered, from its pace record (its flight is over: no plan, no
/// projection, nothing to serve).
fn ended_delivery(g: &crate::model::goal::Goal, p: Option<&Pace>) -> GoalDelivery {
    GoalDelivery { target: g.pacing_target(), delivered: p.map_or(0, |p| p.delivered), elapsed: 1.0, ..GoalDelivery::default() }
}

fn delivery_of(s: &Snapshot, pace: &[Pace], goal_id: &str, now: i64, projection: Option<&Projection>) -> Option<GoalDelivery> {
    let gi = *s.goal_index.get(goal_id)? as usize;
    let g = &s.goals[gi];
    let p = pace.get(gi).cloned().unwrap_or_default();
    let (day, hour) = local_day_hour(now, s.zone.offset_at(now));
    let f = g.flight();
    let elapsed = match f.end {
        Some(end) if end > f.start => ((now - f.start) as f64 / (end - f.start) as f64).clamp(0.0, 1.0),
        _ => 0.0,
    };
    Some(GoalDelivery {
        target: g.target,
        delivered: p.delivered,
        plan_now: pacing_plan(&f, now),
        projected: projection.map(|p| p.expected),
        projected_from: match projection.map(|p| p.basis) {
            Some(Basis::RecentDelivery) => "at its delivery rate of the last 24 hours",
            Some(Basis::TrafficModel) => "from the account's traffic model",
            Some(Basis::NotServing | Basis::Ended) | None => "",
        },
        elapsed,
        cap_reached: cap_reached(g, &p, day, hour).map(|c| c.as_str()),
        ahead_of_plan: pacing_holds(g, &p, now) == Some(Held::AheadOfPlan),
        servable_ads: g.ads.iter().map(Vec::len).sum(),
    })
}
