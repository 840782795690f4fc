//! Video assets: the record with its expiry (DynamoDB TTL on the item, and a check on read,
//! since TTL deletes lag).

use chrono::{DateTime, Utc};

use super::{RepoError, RepoResult};
use crate::ids::plausible_id;
use crate::keys;
use crate::model::asset::Asset;
use crate::store::{Cond, Key, Store, StoreError, TxOp};

use super::Versioned;

fn key(account: &str, id: &str) -> Key {
    keys::record(account, keys::ASSET, id)
}

/// A visible asset of the account (expired unlinked ones are gone: 404).
pub async fn load(store: &dyn Store, account: &str, id: &str, now: DateTime<Utc>) -> RepoResult<Versioned<Asset>> {
    if !plausible_id(id) {
        return Err(RepoError::not_found("asset", id));
    }
    match super::get::<Asset>(store, &key(account, id)).await? {
        Some(a) if a.value.visible(now) => Ok(a),
        _ => Err(RepoError::not_found("asset", id)),
    }
}

/// The stored record whatever its expiry (the download worker).
pub async fn get(store: &dyn Store, account: &str, id: &str) -> RepoResult<Option<Versioned<Asset>>> {
    super::get::<Asset>(store, &key(account, id)).await
}

/// Assets by id (batch gets), in no particular order (expired ones included).
pub async fn by_ids(store: &dyn Store, account: &str, ids: &[String]) -> RepoResult<Vec<Asset>> {
    let keys: Vec<Key> = ids.iter().filter(|id| plausible_id(id)).map(|id| key(account, id)).collect();
    store.batch_get(&keys).await?.into_iter().map(|i| super::decode(i).map(|v| v.value)).collect()
}

pub async fn create(store: &dyn Store, account: &str, a: &Asset) -> RepoResult<()> {
    let mut item = super::item(key(account, &a.id), a, 1)?;
    item.expires_at = a.expires.map(|e| e.timestamp());
    store.put(item, Cond::NotExists).await?;
    Ok(())
}

/// Applies `change` to the stored record with a conditional write, re-reading on a lost
/// race (an ad may link the asset meanwhile); the TTL follows `expires`. `None` when the
/// asset is gone. Nothing is written when `change` changes nothing.
pub async fn update(store: &dyn Store, account: &str, id: &str, change: impl Fn(&mut Asset)) -> RepoResult<Option<Asset>> {
    for _ in 0..10 {
        let Some(cur) = get(store, account, id).await? else { return Ok(None) };
        let mut next = cur.value.clone();
        change(&mut next);
        if next == cur.value {
            return Ok(Some(next));
        }
        let mut item = super::next(&cur.item, &next)?;
        item.expires_at = next.expires.map(|e| e.timestamp());
        match store.put(item, Cond::Version(cur.version())).await {
            Ok(()) => {
                super::delivery::changed(store, account).await;
                return Ok(Some(next));
            }
            Err(StoreError::ConditionFailed) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(super::conflict())
}

/// `update` that also sets the modification time to `now` when `change` changed something.
pub async fn touch(
    store: &dyn Store,
    account: &str,
    id: &str,
    now: DateTime<Utc>,
    change: impl Fn(&mut Asset),
) -> RepoResult<Option<Asset>> {
    update(store, account, id, |a| {
        let before = a.clone();
        change(a);
        if *a != before {
            a.modified = now;
        }
    })
    .await
}

/// The write that links an asset to an ad (in the ad's transaction): it stops expiring.
pub fn link_op(asset: &Versioned<Asset>) -> RepoResult<TxOp> {
    let mut linked: Asset = asset.value.clone();
    linked.linked = true;
    linked.expires = None;
    let mut item = super::next(&asset.item, &linked)?;
    item.expires_at = None;
    Ok(TxOp::Put(item, Cond::Version(asset.version())))
}

/// Expires the asset now (`DELETE /v1/assets/video/{id}`): it is 404 at once, and the
/// table's TTL removes the record, whose objects the janitor then deletes. Conditional on
/// the version read: an ad linking it meanwhile makes this fail (`ConditionFailed`).
pub async fn expire_now(store: &dyn Store, account: &str, cur: &Versioned<Asset>, now: DateTime<Utc>) -> RepoResult<bool> {
    let mut next = cur.value.clone();
    next.linked = false;
    next.expires = Some(now);
    next.modified = now;
    let mut item = super::next(&cur.item, &next)?;
    item.expires_at = Some(now.timestamp());
    match store.put(item, Cond::Version(cur.version())).await {
        Ok(()) => {
            super::delivery::changed(store, account).await;
            Ok(true)
        }
        Err(StoreError::ConditionFailed) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// Assets one `GET /v1/assets/video` page lists at most (a record is at most ~4 KB).
pub const MAX_ASSET_PAGE: usize = 200;

/// The account's assets by id after `after`, at most `limit` records read; the visible
/// ones, and the id to continue after when more may follow.
pub async fn page(
    store: &dyn Store,
    account: &str,
    after: Option<&str>,
    limit: usize,
    now: DateTime<Utc>,
) -> RepoResult<(Vec<Asset>, Option<String>)> {
    let mut q = crate::store::Query::partition(keys::partition(account, keys::ASSET)).limit(limit.clamp(1, MAX_ASSET_PAGE));
    if let Some(a) = after {
        q = q.sk(crate::store::SkCond::Gt(a.to_string()));
    }
    let found = store.query(q).await?;
    let last = found.items.last().map(|i| i.sk.clone());
    let more = found.next.is_some();
    let assets: Vec<Asset> = found.items.into_iter().map(|i| super::decode::<Asset>(i).map(|v| v.value)).collect::<RepoResult<Vec<_>>>()?;
    Ok((assets.into_iter().filter(|a| a.visible(now)).collect(), if more { last } else { None }))
}

/// An asset record removed by TTL (an unlinked asset expired, or one deleted through the
/// API, which expires it at once): its account and the record as it was.
#[derive(Debug, Clone)]
pub struct Expired {
    pub account: String,
    pub asset: Asset,
}

impl Expired {
    /// The record's own objects (master, renditions, still), only under its account's
    /// prefix.
    pub fn objects(&self) -> Vec<String> {
        let own = format!("{}/assets/", self.account);
        let a = &self.asset;
        a.object_key
            .iter()
            .cloned()
            .chain(a.renditions.iter().map(|r| r.key.clone()))
            .chain(a.still.as_ref().map(|s| s.key.clone()))
            .filter(|k| k.starts_with(&own))
            .collect()
    }
}

/// A removed item as an expired asset (`None`: another record, or not an asset's body).
pub fn expired(pk: &str, body: &str) -> Option<Expired> {
    let account = crate::keys::assets_account(pk)?;
    let asset = serde_json::from_str::<Asset>(body).ok()?;
    Some(Expired { account: account.to_string(), asset })
}

/// The store's own TTL sweep (the embedded store; DynamoDB expires items itself and its
/// stream brings them): the expired asset records it removed.
pub async fn sweep_expired(store: &dyn Store, now: i64) -> RepoResult<Vec<Expired>> {
    Ok(store.sweep_expired(now).await?.iter().filter_map(|i| expired(&i.pk, &i.body)).collect())
}
