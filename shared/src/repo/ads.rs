//! Ads: the record (GSI2: the account's ads by creation), the goal's summary of it, and the
//! asset it links, written in one transaction.

use crate::rule::Rule;
use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use super::{RepoError, RepoResult};
use crate::domain_error::FieldError;
use crate::ids::plausible_id;
use crate::keys;
use crate::model::ad::{check_in_goal, Ad};
use crate::model::asset::AssetStatus;
use crate::model::goal::Goal;
use crate::store::{Cond, Item, Key, Query, SkCond, Store, TxOp};

use super::reference::Kind;
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

/// The goal an ad names, for a write: a missing goal is the body's fault (400 naming goalId).
async fn goal_for(store: &dyn Store, account: &str, goal_id: &str) -> RepoResult<Versioned<Goal>> {
    match super::goals::load(store, account, goal_id).await {
        Ok((g, _)) => Ok(g),
        Err(e) if e.is_not_found() => {
            Err(RepoError::field("goalId", Rule::Reference, format!("goalId: no goal {goal_id} in this account")))
        }
        Err(e) => Err(e),
    }
}

/// Checks the ad against its goal and the account's references, then builds the
/// conditional writes: the ad, the goal's ad summary, and the asset it links (which stops
/// expiring).
async fn plan(
    store: &dyn Store,
    account: &str,
    cur: Option<&Versioned<Ad>>,
    ad: &Ad,
    goal: &Versioned<Goal>,
    now: DateTime<Utc>,
) -> RepoResult<Vec<TxOp>> {
    let g = &goal.value;
    let mut errors = check_in_goal(ad, g, cur.is_none());
    if let Some(dcs) = &ad.device_containers {
        let known = super::reference::ids(store, account, Kind::DeviceContainer).await?;
        for d in dcs {
            if !known.contains(d) {
                errors.push(FieldError::new(
                    "deviceContainers",
                    Rule::Reference,
                    format!("deviceContainers: no device container {d} in this account"),
                ));
            }
        }
    }
    let mut ops = Vec::new();
    if let Some(asset_id) = &ad.creative.asset_id {
        match super::assets::load(store, account, asset_id, now).await {
            Ok(asset)
                if asset.value.status == AssetStatus::Failed
                    && cur.is_none_or(|c| c.value.creative.asset_id.as_ref() != Some(asset_id)) =>
            {
                errors.push(FieldError::new(
                    "creative.assetId",
                    Rule::Media,
                    format!(
                        "creative.assetId: asset {asset_id} failed ({}); upload the file again",
                        asset.value.failure_reason.as_deref().unwrap_or("the file could not be processed")
                    ),
                ))
            }
            Ok(asset) if asset.value.linked => ops.push(TxOp::Check(asset.item.key(), Cond::Version(asset.version()))),
            Ok(asset) => ops.push(super::assets::link_op(&asset)?),
            Err(e) if e.is_not_found() => errors.push(FieldError::new(
                "creative.assetId",
                Rule::Reference,
                format!("creative.assetId: no asset {asset_id} in this account (or it expired)"),
            )),
            Err(e) => return Err(e),
        }
    }
    if !errors.is_empty() {
        return Err(RepoError::validation(errors));
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
pub async fn create(store: &dyn Store, account: &str, goal_id: &str, now: DateTime<Utc>, build: impl Fn() -> Ad) -> RepoResult<(Ad, Goal)> {
    let mut tries = super::Attempts::new("goal", goal_id, None);
    loop {
        let goal = goal_for(store, account, goal_id).await?;
        tries.check(goal.version())?;
        let ad = build();
        let ops = plan(store, account, None, &ad, &goal, now).await?;
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
) -> RepoResult<Option<(Ad, Goal, u64)>> {
    let id = first.0.value.id.clone();
    let mut tries = super::Attempts::new("ad", &id, expected);
    let (mut cur, mut goal) = first;
    loop {
        tries.check(cur.version())?;
        let Some(ad) = change(&cur.value)? else { return Ok(None) };
        let ops = plan(store, account, Some(&cur), &ad, &goal, now).await?;
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
