//! Idempotency records (`A#<a>#IDEMP / <hash of the key>`, TTL 24 h; docs/api.md,
//! "Retrying a create"): claimed before a create runs, filled with its answer after.

use serde::{Deserialize, Serialize};

use crate::error::AppResult;
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

/// What a claim found.
pub enum Claim {
    /// The key is ours: run the request.
    Claimed,
    /// The key was taken: what it holds (`None` when it has just been released).
    Taken(Option<Kept>),
}

fn key(account: &str, idem: &str) -> Key {
    keys::idempotency(account, &crate::ids::hash_key(idem))
}

fn item(key: &Key, k: &Kept, version: u64, expires: i64) -> AppResult<Item> {
    let mut it = super::item(key.clone(), k, version)?;
    it.expires_at = Some(expires);
    Ok(it)
}

/// Claims `idem` for `request` (version 1, not done) until `expires` (epoch seconds).
pub async fn claim(store: &dyn Store, account: &str, idem: &str, request: &str, expires: i64) -> AppResult<Claim> {
    let k = key(account, idem);
    let claim = Kept { request: request.to_string(), done: false, status: 0, headers: vec![], body: String::new() };
    match store.put(item(&k, &claim, 1, expires)?, Cond::NotExists).await {
        Ok(()) => Ok(Claim::Claimed),
        Err(StoreError::ConditionFailed) => {
            let kept = store.get(&k).await?.and_then(|i| serde_json::from_str::<Kept>(&i.body).ok());
            Ok(Claim::Taken(kept))
        }
        Err(e) => Err(e.into()),
    }
}

/// Forgets a claim that was not completed (the request failed: a retry runs again).
pub async fn release(store: &dyn Store, account: &str, idem: &str) -> AppResult<()> {
    store.delete(&key(account, idem), Cond::Version(1)).await?;
    Ok(())
}

/// Keeps the answer of a claimed request (only over the claim itself).
pub async fn keep(store: &dyn Store, account: &str, idem: &str, done: &Kept, expires: i64) -> AppResult<()> {
    let k = key(account, idem);
    store.put(item(&k, done, 2, expires)?, Cond::Version(1)).await?;
    Ok(())
}
