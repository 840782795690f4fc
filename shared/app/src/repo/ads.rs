//! Ads: the record (GSI2: the account's ads by creation), the goal's summary of it, and the
//! asset it links, written in one transaction.

use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use super::{RepoError, RepoResult};
use crate::domain_error::DomainError;
use crate::ids::plausible_id;
use crate::keys;
use crate::model::ad::Ad;
use crate::model::asset::Asset;
use crate::model::goal::Goal;
use crate::store::{Cond, Item, Key, Query, SkCond, Store, TxOp};

use super::Versioned;

fn key(account: &str, id: &str) -> Key {
    keys::record(account, keys::AD, id)
}

pub async fn load(store: &dyn Store, account: &str, id: &str) -> RepoResult<Versioned<Ad>> {
    if !plausible_id(id) {
        return Err(RepoError::not_found("ad", id));
    }
    super::get::<Ad>(store, &key(account, id)).await?.ok_or_else(|| RepoError::not_found("ad", id))
}

/// An ad whose goal and campaign are live, with its goal; else 404.
pub async fn load_live(store: &dyn Store, account: &str, id: &str) -> RepoResult<(Versioned<Ad>, Versioned<Goal>)> {
    let ad = load(store, account, id).await?;
    let goal = super::goals::find(store, account, &ad.value.goal_id).await?.ok_or_else(|| RepoError::not_found("ad", id))?.0;
    Ok((ad, goal))
}

/// Ads by id (batch gets), in no particular order.
pub async fn by_ids(store: &dyn Store, account: &str, ids: &[String]) -> RepoResult<Vec<Ad>> {
    let keys: Vec<Key> = ids.iter().map(|id| key(account, id)).collect();
    store.batch_get(&keys).await?.into_iter().map(|i| super::decode(i).map(|v| v.value)).collect()
}

fn sort_key(ad: &Ad) -> String {
    format!("{}#{}", ad.created.to_rfc3339_opts(chrono::SecondsFormat::Micros, true), ad.id)
}

/// The account's ads created after `after` and up to `before`, newest first, whose goal
/// (among the first 100 goals met) and campaign are live (`GET /v1/ads`).
/// Ads one `/v1/ads` answer lists at most (a list item is at most ~3 KB: ≤ 3 MB).
pub const MAX_AD_LIST: usize = 1000;

pub async fn newest(store: &dyn Store, account: &str, after: Option<DateTime<Utc>>, before: Option<DateTime<Utc>>) -> RepoResult<Vec<Ad>> {
    let fmt = |d: DateTime<Utc>| d.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let lo = after.map(|d| fmt(d + chrono::Duration::microseconds(1))).unwrap_or_else(|| "0".into());
    let hi = before.map(fmt).unwrap_or_else(|| "9".into());
    // The newest MAX_AD_LIST: older ones are asked for with `created.before` (docs/api.md).
    let page = store.query(Query::gsi2(keys::ads_by_created(account)).sk(SkCond::Between(lo, hi)).backward().limit(MAX_AD_LIST)).await?;
    let ads: Vec<Ad> = page.items.into_iter().map(|i| super::decode::<Ad>(i).map(|v| v.value)).collect::<RepoResult<_>>()?;
    let mut goal_ids: Vec<String> = Vec::new();
    for ad in &ads {
        if !goal_ids.contains(&ad.goal_id) && goal_ids.len() < 100 {
            goal_ids.push(ad.goal_id.clone());
        }
    }
    let goals = super::goals::load_many(store, account, &goal_ids).await?;
    let campaign_ids: Vec<String> = goals.iter().map(|g| g.campaign_id.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let live_campaign: HashMap<String, bool> = super::campaigns::by_ids(store, account, &campaign_ids)
        .await?
        .into_iter()
        .map(|c| (c.id.clone(), c.deleted_at.is_none()))
        .collect();
    let live: BTreeSet<&str> =
        goals.iter().filter(|g| live_campaign.get(&g.campaign_id).copied().unwrap_or(false)).map(|g| g.id.as_str()).collect();
    Ok(ads.iter().filter(|ad| live.contains(ad.goal_id.as_str())).cloned().collect())
}

/// What an ad's write is checked against, read within the write's attempt: the ad, the one
/// it replaces, its goal, and the asset it links. The caller's `check` holds the rules.
pub struct AdWrite<'a> {
    pub ad: &'a Ad,
    pub current: Option<&'a Ad>,
    pub goal: &'a Goal,
    /// The linked asset as stored (`None` inside: not in the account, or expired).
    pub asset: Option<Option<&'a Asset>>,
}

/// The rules of an ad's write, given what it is checked against (`AdWrite`).
pub type Check<'c> = &'c (dyn Fn(&AdWrite) -> Result<(), DomainError> + Send + Sync);

/// Reads what the ad is checked against, checks it with `check`, then builds the
/// conditional writes: the ad, the goal's ad summary, and the asset it links (which stops
/// expiring).
async fn plan(
    store: &dyn Store,
    account: &str,
    cur: Option<&Versioned<Ad>>,
    ad: &Ad,
    goal: &Versioned<Goal>,
    now: DateTime<Utc>,
    check: Check<'_>,
) -> RepoResult<Vec<TxOp>> {
    let g = &goal.value;
    let asset = match &ad.creative.asset_id {
        None => None,
        Some(asset_id) => match super::assets::load(store, account, asset_id, now).await {
            Ok(a) => Some(Some(a)),
            Err(e) if e.is_not_found() => Some(None),
            Err(e) => return Err(e),
        },
    };
    check(&AdWrite { ad, current: cur.map(|c| &c.value), goal: g, asset: asset.as_ref().map(|a| a.as_ref().map(|a| &a.value)) })?;
    let mut ops = Vec::new();
    if let Some(Some(asset)) = &asset {
        if asset.value.linked {
            ops.push(TxOp::Check(asset.item.key(), Cond::Version(asset.version())));
        } else {
            ops.push(super::assets::link_op(asset)?);
        }
    }
    let item = Item {
        pk: keys::partition(account, keys::AD),
        sk: ad.id.clone(),
        gsi2: Some((keys::ads_by_created(account), sort_key(ad))),
        version: cur.map_or(1, |c| c.version() + 1),
        body: serde_json::to_string(ad)?,
        ..Item::default()
    };
    ops.push(TxOp::Put(item, cur.map_or(Cond::NotExists, |c| Cond::Version(c.version()))));
    let mut next_goal = g.clone();
    match next_goal.ads.iter_mut().find(|s| s.id == ad.id) {
        Some(s) => *s = ad.summary(),
        None => next_goal.ads.push(ad.summary()),
    }
    ops.push(TxOp::Put(super::next(&goal.item, &next_goal)?, Cond::Version(goal.version())));
    Ok(ops)
}

/// Creates the ad `build` makes in the goal `goal_id`; returns it with its goal.
/// A goal the account does not have is `RepoError::not_found("goal", ..)`.
pub async fn create(
    store: &dyn Store,
    account: &str,
    goal_id: &str,
    now: DateTime<Utc>,
    build: impl Fn() -> Ad,
    check: Check<'_>,
) -> RepoResult<(Ad, Goal)> {
    let mut tries = super::Attempts::new("goal", goal_id, None);
    loop {
        let (goal, _) = super::goals::load(store, account, goal_id).await?;
        tries.check(goal.version())?;
        let ad = build();
        let ops = plan(store, account, None, &ad, &goal, now, check).await?;
        if tries.commit(store, ops).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok((ad, goal.value));
            }
        }
    }
}

/// Changes an ad read as `first`: `change` returns the new ad, or `None` when nothing
/// changes (nothing is written). Returns the written ad, its goal and its new version.
/// `first` is the caller's `load_live` (the ad with its goal), used by the first attempt.
pub async fn update(
    store: &dyn Store,
    account: &str,
    first: (Versioned<Ad>, Versioned<Goal>),
    expected: Option<u64>,
    now: DateTime<Utc>,
    change: impl Fn(&Ad) -> RepoResult<Option<Ad>>,
    check: Check<'_>,
) -> RepoResult<Option<(Ad, Goal, u64)>> {
    let id = first.0.value.id.clone();
    let mut tries = super::Attempts::new("ad", &id, expected);
    let (mut cur, mut goal) = first;
    loop {
        tries.check(cur.version())?;
        let Some(ad) = change(&cur.value)? else { return Ok(None) };
        let ops = plan(store, account, Some(&cur), &ad, &goal, now, check).await?;
        if tries.commit(store, ops).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(Some((ad, goal.value, cur.version() + 1)));
            }
        }
        (cur, goal) = load_live(store, account, &id).await?;
    }
}

/// Every ad of the account, newest first.
pub async fn all_newest_first(store: &dyn Store, account: &str) -> RepoResult<Vec<Ad>> {
    let found = store.query(Query::gsi2(keys::ads_by_created(account)).backward()).await?;
    found.items.into_iter().map(|i| super::decode::<Ad>(i).map(|v| v.value)).collect()
}

/// Deletes an ad: its record and its goal's summary of it, in one conditional transaction
/// (`expected`: the caller's If-Match). Its counters stay (the goal's and the campaign's
/// totals keep what it delivered); the asset it links stays (docs/goals-ads-assets.md).
pub async fn remove(store: &dyn Store, account: &str, id: &str, expected: Option<u64>) -> RepoResult<Ad> {
    let mut tries = super::Attempts::new("ad", id, expected);
    loop {
        let (ad, goal) = load_live(store, account, id).await?;
        tries.check(ad.version())?;
        let mut next_goal = goal.value.clone();
        next_goal.ads.retain(|s| s.id != id);
        let ops = vec![
            TxOp::Delete(ad.item.key(), Cond::Version(ad.version())),
            TxOp::Put(super::next(&goal.item, &next_goal)?, Cond::Version(goal.version())),
        ];
        if tries.commit(store, ops).await? {
            super::delivery::changed(store, account).await;
            return Ok(ad.value);
        }
    }
}
