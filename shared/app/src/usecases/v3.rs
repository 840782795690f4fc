//! The reads behind a `/v3` page (seed 000 §4.5-§4.9): what a page's expansions need —
//! child goals and ads (batch gets), the account's device containers when an ad names
//! none, and the counters of the shown records — in a bounded number of round trips.
//! Rendering (`api/queries/render.rs`) is pure over what this loads.

use crate::ids::AccountId;
use std::collections::HashMap;

use super::v3_rows::{offset, page, select_campaigns, select_goals, CampaignFilter, CampaignRow, GoalFilter, GoalRow};
use super::UseCaseResult;
use crate::delivery::counters::Counters;
use crate::model::account::Account;
use crate::model::ad::Ad;
use crate::model::campaign::Campaign;
use crate::model::enums::Counter;
use crate::model::goal::Goal;
use crate::repo;
use crate::repo::metrics::{self, Level};
use crate::repo::reference::Kind;
use crate::state::AppState;
use chrono::{DateTime, Utc};

/// What a page's objects are rendered with.
#[derive(Default)]
pub struct Expansion {
    pub goals: HashMap<String, Goal>,
    pub ads: HashMap<String, Ad>,
    /// The account's device containers (only when an expanded ad names none of its own).
    pub devices: Vec<String>,
    pub counters: HashMap<String, Counters>,
    /// The goals' pacing (`embed=projections`).
    pub pacing: HashMap<String, crate::usecases::pacing::Pacing>,
}

/// What a campaign page expands.
pub struct CampaignExpand {
    pub goals: bool,
    pub ads: bool,
    pub include_deleted_goals: bool,
    pub metrics: bool,
}

pub async fn for_campaigns(st: &AppState, account: &AccountId, list: &[Campaign], e: &CampaignExpand) -> UseCaseResult<Expansion> {
    let mut x = Expansion::default();
    if e.goals {
        let ids: Vec<String> =
            list.iter().flat_map(|c| c.goals.iter().filter(|g| e.include_deleted_goals || !g.deleted).map(|g| g.id.clone())).collect();
        x.goals = repo::goals::by_ids(st.store.as_ref(), account, &ids).await?.into_iter().map(|g| (g.id.clone(), g)).collect();
        if e.ads {
            let ad_ids: Vec<String> = x.goals.values().flat_map(|g| g.ads.iter().map(|s| s.id.clone())).collect();
            x.ads = ads_by_id(st, account, &ad_ids).await?;
        }
    }
    x.devices = account_devices(st, account, x.ads.values()).await?;
    if e.metrics {
        x.counters =
            metrics::read(st.store.as_ref(), account, Level::Campaign, &list.iter().map(|c| c.id.clone()).collect::<Vec<_>>()).await?;
    }
    Ok(x)
}

/// A goal page: its ads when expanded, the goals' counters when metrics or projections show.
pub async fn for_goals(
    st: &AppState,
    account: &AccountId,
    list: &[(Goal, Campaign)],
    ads: bool,
    counters: bool,
) -> UseCaseResult<Expansion> {
    let mut x = Expansion::default();
    if ads {
        x.ads = ads_by_id(st, account, &list.iter().flat_map(|(g, _)| g.ads.iter().map(|s| s.id.clone())).collect::<Vec<_>>()).await?;
    }
    if counters {
        x.counters =
            metrics::read(st.store.as_ref(), account, Level::Goal, &list.iter().map(|(g, _)| g.id.clone()).collect::<Vec<_>>()).await?;
    }
    x.devices = account_devices(st, account, x.ads.values()).await?;
    Ok(x)
}

/// The goals' projections (`embed=projections`): one replay of the traffic model for the
/// page (`usecases::pacing`), their delivered counters read with the metrics.
pub async fn add_projections(
    st: &AppState,
    account: &crate::model::account::Account,
    list: &[(Goal, Campaign)],
    x: &mut Expansion,
) -> UseCaseResult<()> {
    let goals: Vec<(&Goal, &Campaign, f64)> =
        list.iter().map(|(g, c)| (g, c, x.counters.get(&g.id).map_or(0, |n| n.get(Counter::Delivered)) as f64)).collect();
    x.pacing = crate::usecases::pacing::pacing(st, account, &goals, false).await?;
    Ok(())
}

/// An ad page: the account's device containers when needed, the ads' counters on demand.
pub async fn for_ads(st: &AppState, account: &AccountId, list: &[(Ad, Goal, Campaign)], counters: bool) -> UseCaseResult<Expansion> {
    let mut x = Expansion::default();
    if counters {
        x.counters =
            metrics::read(st.store.as_ref(), account, Level::Ad, &list.iter().map(|(ad, _, _)| ad.id.clone()).collect::<Vec<_>>()).await?;
    }
    x.devices = account_devices(st, account, list.iter().map(|(ad, _, _)| ad)).await?;
    Ok(x)
}

/// The ads of `/v3/ads` with their goal and campaign (deleted parents left out): a goal's
/// ads in its order, or every ad of the account newest first; an unknown goal has none.
pub async fn ads_with_parents(st: &AppState, account: &AccountId, goal_id: Option<&str>) -> UseCaseResult<Vec<(Ad, Goal, Campaign)>> {
    let (ads, goals, campaigns): (Vec<Ad>, HashMap<String, Goal>, HashMap<String, Campaign>) = match goal_id {
        Some(gid) => match repo::goals::find(st.store.as_ref(), account, gid).await? {
            Some((g, c)) => {
                let ids: Vec<String> = g.value.ads.iter().map(|s| s.id.clone()).collect();
                let ads = ads_by_id(st, account, &ids).await?;
                let ordered = ids.iter().filter_map(|id| ads.get(id).cloned()).collect();
                (ordered, HashMap::from([(g.value.id.clone(), g.value)]), HashMap::from([(c.value.id.clone(), c.value)]))
            }
            // An unknown goal has no ads.
            None => (vec![], HashMap::new(), HashMap::new()),
        },
        None => {
            let ads = repo::ads::all_newest_first(st.store.as_ref(), account).await?;
            let g = repo::goals::all(st.store.as_ref(), account).await?;
            let c = repo::campaigns::all(st.store.as_ref(), account).await?;
            (ads, g.into_iter().map(|g| (g.id.clone(), g)).collect(), c.into_iter().map(|c| (c.id.clone(), c)).collect())
        }
    };
    Ok(ads
        .into_iter()
        .filter_map(|ad| {
            let g = goals.get(&ad.goal_id).filter(|g| g.deleted_at.is_none())?.clone();
            let c = campaigns.get(&g.campaign_id).filter(|c| c.deleted_at.is_none())?.clone();
            Some((ad, g, c))
        })
        .collect())
}

/// The account's device containers, read only when one of `ads` names none of its own
/// (those run on all of them).
async fn account_devices<'a>(st: &AppState, account: &AccountId, mut ads: impl Iterator<Item = &'a Ad>) -> UseCaseResult<Vec<String>> {
    if ads.any(|ad| ad.device_containers.is_none()) {
        Ok(repo::reference::ids(st.store.as_ref(), account, Kind::DeviceContainer).await?)
    } else {
        Ok(Vec::new())
    }
}

/// Ads by id (batch gets), keyed by id.
async fn ads_by_id(st: &AppState, account: &AccountId, ids: &[String]) -> UseCaseResult<HashMap<String, Ad>> {
    Ok(repo::ads::by_ids(st.store.as_ref(), account, ids).await?.into_iter().map(|a| (a.id.clone(), a)).collect())
}

/// The account's stored campaigns, decoded lazily by the query (`Stored::rows`, `full`).
pub async fn stored_campaigns(st: &AppState, account: &AccountId) -> UseCaseResult<repo::Stored> {
    Ok(repo::campaigns::stored(st.store.as_ref(), account).await?)
}

/// The stored goals and campaigns a goal query looks at: one campaign's, or the account's.
pub async fn stored_goals(st: &AppState, account: &AccountId, campaign: Option<&str>) -> UseCaseResult<(repo::Stored, repo::Stored)> {
    Ok(match campaign {
        Some(cid) => repo::goals::stored_of_campaign(st.store.as_ref(), account, cid).await?,
        None => (repo::goals::stored(st.store.as_ref(), account).await?, repo::campaigns::stored(st.store.as_ref(), account).await?),
    })
}

/// The default campaign page (live campaigns by name) from the name index: the live count
/// and the page; `None` when the account's indexes are not complete (read the records).
pub async fn campaigns_by_name(
    st: &AppState,
    account: &AccountId,
    offset: usize,
    size: usize,
) -> UseCaseResult<Option<(usize, Vec<Campaign>)>> {
    let Some((total, items)) = repo::name_index::campaign_page(st.store.as_ref(), account, offset, size).await? else { return Ok(None) };
    let list = items.into_iter().map(|i| repo::decode::<Campaign>(i).map(|v| v.value)).collect::<Result<_, _>>()?;
    Ok(Some((total, list)))
}

/// The default goal page (live goals of live campaigns by name) from the name index, each
/// goal with its campaign; `None` when the account's indexes are not complete.
pub async fn goals_by_name(
    st: &AppState,
    account: &AccountId,
    offset: usize,
    size: usize,
    descending: bool,
) -> UseCaseResult<Option<(usize, Vec<(Goal, Campaign)>)>> {
    let Some((total, goals, campaigns)) = repo::name_index::goal_page(st.store.as_ref(), account, offset, size, descending).await? else {
        return Ok(None);
    };
    let campaigns: HashMap<String, Campaign> =
        campaigns.into_iter().map(|i| repo::decode::<Campaign>(i).map(|v| (v.value.id.clone(), v.value))).collect::<Result<_, _>>()?;
    let mut list = Vec::with_capacity(goals.len());
    for item in goals {
        let g = repo::decode::<Goal>(item)?.value;
        if let Some(c) = campaigns.get(&g.campaign_id) {
            list.push((g, c.clone()));
        }
    }
    Ok(Some((total, list)))
}

/// A campaign of the account, deleted ones too (404 when there is none).
pub async fn campaign_any(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Campaign> {
    repo::campaigns::get_any(st.store.as_ref(), account, id).await?.ok_or_else(|| super::UseCaseError::not_found("campaign", id))
}

/// A goal of the account and its campaign, deleted ones too (404 when there is none).
pub async fn goal_any(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<(Goal, Campaign)> {
    repo::goals::get_any(st.store.as_ref(), account, id).await?.ok_or_else(|| super::UseCaseError::not_found("goal", id))
}

/// An ad with its goal and campaign; an ad of a deleted goal or campaign is gone with it.
pub async fn ad_with_parents(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<(Ad, Goal, Campaign)> {
    let ad = repo::ads::load(st.store.as_ref(), account, id).await?.value;
    let (g, c) =
        repo::goals::find(st.store.as_ref(), account, &ad.goal_id).await?.ok_or_else(|| super::UseCaseError::not_found("ad", id))?;
    Ok((ad, g.value, c.value))
}

/// A page of `/v3/campaigns`: from the name index when nothing filters (live campaigns by
/// name), otherwise every record, filtered and sorted; then what the page expands. The
/// total, the page and its expansion.
pub async fn campaign_page(
    st: &AppState,
    account: &AccountId,
    f: &CampaignFilter,
    e: &CampaignExpand,
    size: usize,
    number: usize,
) -> UseCaseResult<(usize, Vec<Campaign>, Expansion)> {
    let indexed = if f.is_none() { campaigns_by_name(st, account, offset(size, number), size).await? } else { None };
    let (total, shown) = match indexed {
        Some(found) => found,
        None => {
            let stored = stored_campaigns(st, account).await?;
            let picked = select_campaigns(&stored.rows::<CampaignRow>()?, f);
            (picked.len(), page(&picked, size, number).iter().map(|i| stored.full(*i)).collect::<Result<_, _>>()?)
        }
    };
    let x = for_campaigns(st, account, &shown, e).await?;
    Ok((total, shown, x))
}

/// `/v3/campaigns/{id}`: the campaign (deleted ones too) and what it expands.
pub async fn campaign_one(st: &AppState, account: &AccountId, id: &str, e: &CampaignExpand) -> UseCaseResult<(Campaign, Expansion)> {
    let c = campaign_any(st, account, id).await?;
    let x = for_campaigns(st, account, std::slice::from_ref(&c), e).await?;
    Ok((c, x))
}

/// What a goal page shows of each goal besides the goal itself.
#[derive(Debug, Clone, Copy, Default)]
pub struct GoalExpand {
    pub ads: bool,
    pub counters: bool,
    pub projections: bool,
}

/// A page of `/v3/goals`: from the name index when only the name order is asked for and
/// no campaign is named; one campaign's goals; otherwise every goal and campaign of the
/// account, filtered and sorted. Then what the page expands.
pub async fn goal_page(
    st: &AppState,
    a: &Account,
    f: &GoalFilter,
    campaign_id: Option<&str>,
    e: GoalExpand,
    size: usize,
    number: usize,
) -> UseCaseResult<(usize, Vec<(Goal, Campaign)>, Expansion)> {
    let indexed = if campaign_id.is_none() && f.by_name_only() {
        goals_by_name(st, &a.id, offset(size, number), size, f.descending).await?
    } else {
        None
    };
    let (total, shown) = match indexed {
        Some(found) => found,
        None => {
            let (goals, campaigns) = stored_goals(st, &a.id, campaign_id).await?;
            let picked = select_goals(&goals.rows::<GoalRow>()?, &campaigns.rows::<CampaignRow>()?, f);
            let shown: Vec<(Goal, Campaign)> = page(&picked, size, number)
                .iter()
                .map(|(gi, ci)| Ok((goals.full::<Goal>(*gi)?, campaigns.full::<Campaign>(*ci)?)))
                .collect::<Result<_, repo::RepoError>>()?;
            (picked.len(), shown)
        }
    };
    let x = expand_goals(st, a, &shown, e).await?;
    Ok((total, shown, x))
}

/// `/v3/goals/{id}`: the goal (deleted ones too) with its campaign, and what it expands.
pub async fn goal_one(st: &AppState, a: &Account, id: &str, e: GoalExpand) -> UseCaseResult<((Goal, Campaign), Expansion)> {
    let list = [goal_any(st, &a.id, id).await?];
    let x = expand_goals(st, a, &list, e).await?;
    let [one] = list;
    Ok((one, x))
}

async fn expand_goals(st: &AppState, a: &Account, list: &[(Goal, Campaign)], e: GoalExpand) -> UseCaseResult<Expansion> {
    let mut x = for_goals(st, &a.id, list, e.ads, e.counters || e.projections).await?;
    if e.projections {
        add_projections(st, a, list, &mut x).await?;
    }
    Ok(x)
}

/// A page of `/v3/ads`: a goal's ads in its order or the account's newest first, those
/// created in the window, and their expansion. The total, the page and its expansion.
pub async fn ad_page(
    st: &AppState,
    account: &AccountId,
    goal_id: Option<&str>,
    created: (Option<DateTime<Utc>>, Option<DateTime<Utc>>),
    counters: bool,
    size: usize,
    number: usize,
) -> UseCaseResult<(usize, Vec<(Ad, Goal, Campaign)>, Expansion)> {
    let (before, after) = created;
    let all: Vec<(Ad, Goal, Campaign)> = ads_with_parents(st, account, goal_id)
        .await?
        .into_iter()
        .filter(|(ad, _, _)| before.is_none_or(|d| ad.created < d) && after.is_none_or(|d| ad.created > d))
        .collect();
    let shown = page(&all, size, number);
    let x = for_ads(st, account, &shown, counters).await?;
    Ok((all.len(), shown, x))
}

/// `/v3/ads/{id}`: the ad with its goal and campaign, and what it expands.
pub async fn ad_one(st: &AppState, account: &AccountId, id: &str, counters: bool) -> UseCaseResult<((Ad, Goal, Campaign), Expansion)> {
    let list = [ad_with_parents(st, account, id).await?];
    let x = for_ads(st, account, &list, counters).await?;
    let [one] = list;
    Ok((one, x))
}
