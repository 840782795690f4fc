//! Idempotency records (`A#<a>#IDEMP / <hash of the key>`, TTL 24 h; docs/api.md,
//! "Retrying a create"): claimed before a create runs, filled with its answer after.

use serde::{Deserialize, Serialize};

use super::RepoResult;
use crate::keys;
use crate::store::{Cond, Item, Key, Store, StoreError};

/// What a key holds: the request it belongs to and, once done, the answer.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Kept {
    /// SHA-256 of method, path and query, and body: the request the key belongs to.
    pub request: String,
    pub done: bool,
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// How long a claim holds its key while its request runs: a handler that dies leaves the
/// claim, and after this the key can be used again (a handler that fails releases it at
/// once). Longer than any request runs (API Gateway's 30 s).
pub const LEASE_SECS: i64 = 60;

/// What a claim found.
pub enum Claim {
    /// The key is ours (at this version): run the request.
    Claimed(u64),
    /// The key was taken: what it holds (`None` when it has just been released).
    Taken(Option<Kept>),
}

fn key(account: &str, idem: &str) -> Key {
    keys::idempotency(account, &crate::ids::hash_key(idem))
}

fn item(key: &Key, k: &Kept, version: u64, expires: i64) -> RepoResult<Item> {
    let mut it = super::item(key.clone(), k, version)?;
    it.expires_at = Some(expires);
    Ok(it)
}

/// Claims `idem` for `request` (not done) for `LEASE_SECS` from `now`. A claim whose
/// lease ran out without an answer (its handler died) is taken over, at its version.
pub async fn claim(store: &dyn Store, account: &str, idem: &str, request: &str, now: i64) -> RepoResult<Claim> {
    let k = key(account, idem);
    let claim = Kept { request: request.to_string(), done: false, status: 0, headers: vec![], body: String::new() };
    let lease = now + LEASE_SECS;
    match store.put(item(&k, &claim, 1, lease)?, Cond::NotExists).await {
        Ok(()) => return Ok(Claim::Claimed(1)),
        Err(StoreError::ConditionFailed) => {}
        Err(e) => return Err(e.into()),
    }
    let Some(found) = store.get(&k).await? else { return Ok(Claim::Taken(None)) };
    let kept = serde_json::from_str::<Kept>(&found.body).ok();
    let abandoned = found.expires_at.is_some_and(|e| e <= now) && kept.as_ref().is_none_or(|k| !k.done);
    // An answer kept past its 24 h is gone too (TTL removes it within 48 h).
    let gone = found.expires_at.is_some_and(|e| e <= now);
    if abandoned || gone {
        let v = found.version + 1;
        return match store.put(item(&k, &claim, v, lease)?, Cond::Version(found.version)).await {
            Ok(()) => Ok(Claim::Claimed(v)),
            Err(StoreError::ConditionFailed) => Ok(Claim::Taken(None)),
            Err(e) => Err(e.into()),
        };
    }
    Ok(Claim::Taken(kept))
}

/// Forgets a claim that was not completed (the request failed: a retry runs again).
pub async fn release(store: &dyn Store, account: &str, idem: &str, version: u64) -> RepoResult<()> {
    store.delete(&key(account, idem), Cond::Version(version)).await?;
    Ok(())
}

/// Keeps the answer of a claimed request (only over the claim itself) until `expires`.
pub async fn keep(store: &dyn Store, account: &str, idem: &str, version: u64, done: &Kept, expires: i64) -> RepoResult<()> {
    let k = key(account, idem);
    store.put(item(&k, done, version + 1, expires)?, Cond::Version(version)).await?;
    Ok(())
}
