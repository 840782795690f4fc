//! The reads behind a `/v3` page (seed 000 §4.5-§4.9): what a page's expansions need —
//! child goals and ads (batch gets), the account's device containers when an ad names
//! none, and the counters of the shown records — in a bounded number of round trips.
//! Rendering (`api/queries/render.rs`) is pure over what this loads.

use std::collections::HashMap;

use super::UseCaseResult;
use crate::delivery::counters::Counters;
use crate::model::ad::Ad;
use crate::model::campaign::Campaign;
use crate::model::enums::Counter;
use crate::model::goal::Goal;
use crate::repo;
use crate::repo::metrics::{self, Level};
use crate::repo::reference::Kind;
use crate::state::AppState;

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

pub async fn for_campaigns(st: &AppState, account: &str, list: &[Campaign], e: &CampaignExpand) -> UseCaseResult<Expansion> {
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
pub async fn for_goals(st: &AppState, account: &str, list: &[(Goal, Campaign)], ads: bool, counters: bool) -> UseCaseResult<Expansion> {
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
pub async fn for_ads(st: &AppState, account: &str, list: &[(Ad, Goal, Campaign)], counters: bool) -> UseCaseResult<Expansion> {
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
pub async fn ads_with_parents(st: &AppState, account: &str, goal_id: Option<&str>) -> UseCaseResult<Vec<(Ad, Goal, Campaign)>> {
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
async fn account_devices<'a>(st: &AppState, account: &str, mut ads: impl Iterator<Item = &'a Ad>) -> UseCaseResult<Vec<String>> {
    if ads.any(|ad| ad.device_containers.is_none()) {
        Ok(repo::reference::ids(st.store.as_ref(), account, Kind::DeviceContainer).await?)
    } else {
        Ok(Vec::new())
    }
}

/// Ads by id (batch gets), keyed by id.
async fn ads_by_id(st: &AppState, account: &str, ids: &[String]) -> UseCaseResult<HashMap<String, Ad>> {
    Ok(repo::ads::by_ids(st.store.as_ref(), account, ids).await?.into_iter().map(|a| (a.id.clone(), a)).collect())
}

/// The account's stored campaigns, decoded lazily by the query (`Stored::rows`, `full`).
pub async fn stored_campaigns(st: &AppState, account: &str) -> UseCaseResult<repo::Stored> {
    Ok(repo::campaigns::stored(st.store.as_ref(), account).await?)
}

/// The stored goals and campaigns a goal query looks at: one campaign's, or the account's.
pub async fn stored_goals(st: &AppState, account: &str, campaign: Option<&str>) -> UseCaseResult<(repo::Stored, repo::Stored)> {
    Ok(match campaign {
        Some(cid) => repo::goals::stored_of_campaign(st.store.as_ref(), account, cid).await?,
        None => (repo::goals::stored(st.store.as_ref(), account).await?, repo::campaigns::stored(st.store.as_ref(), account).await?),
    })
}

/// The default campaign page (live campaigns by name) from the name index: the live count
/// and the page; `None` when the account's indexes are not complete (read the records).
pub async fn campaigns_by_name(st: &AppState, account: &str, offset: usize, size: usize) -> UseCaseResult<Option<(usize, Vec<Campaign>)>> {
    let Some((total, items)) = repo::name_index::campaign_page(st.store.as_ref(), account, offset, size).await? else { return Ok(None) };
    let list = items.into_iter().map(|i| repo::decode::<Campaign>(i).map(|v| v.value)).collect::<Result<_, _>>()?;
    Ok(Some((total, list)))
}

/// The default goal page (live goals of live campaigns by name) from the name index, each
/// goal with its campaign; `None` when the account's indexes are not complete.
pub async fn goals_by_name(
    st: &AppState,
    account: &str,
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
pub async fn campaign_any(st: &AppState, account: &str, id: &str) -> UseCaseResult<Campaign> {
    repo::campaigns::get_any(st.store.as_ref(), account, id).await?.ok_or_else(|| super::UseCaseError::not_found("campaign", id))
}

/// A goal of the account and its campaign, deleted ones too (404 when there is none).
pub async fn goal_any(st: &AppState, account: &str, id: &str) -> UseCaseResult<(Goal, Campaign)> {
    repo::goals::get_any(st.store.as_ref(), account, id).await?.ok_or_else(|| super::UseCaseError::not_found("goal", id))
}

/// An ad with its goal and campaign; an ad of a deleted goal or campaign is gone with it.
pub async fn ad_with_parents(st: &AppState, account: &str, id: &str) -> UseCaseResult<(Ad, Goal, Campaign)> {
    let ad = repo::ads::load(st.store.as_ref(), account, id).await?.value;
    let (g, c) =
        repo::goals::find(st.store.as_ref(), account, &ad.goal_id).await?.ok_or_else(|| super::UseCaseError::not_found("ad", id))?;
    Ok((ad, g.value, c.value))
}
