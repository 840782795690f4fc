//! The forecast quota (docs/traffic-quality.md §4): at most `MAX_ACTIVE` jobs of an account
//! queued or running at once. Each holds one of `MAX_ACTIVE` slot records
//! (`A#<a>#FORECAST / SLOT#<n>`), claimed by a conditional write (absent, or at the version
//! read), so two concurrent submissions can never both take the last slot. A job frees its
//! slot when it ends; a slot whose job has ended or whose lease ran out (a worker that
//! died) is free again.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::RepoResult;
use crate::keys;
use crate::store::{Cond, Item, Key, Store, StoreError};

/// Forecast jobs an account may have queued or running at once.
pub const MAX_ACTIVE: usize = 3;
/// A slot is held at most this long (longer than a forecast worker may run: 15 minutes).
pub const LEASE_SECS: i64 = 20 * 60;
/// What a refused submission is told to wait (a forecast runs seconds to minutes).
pub const RETRY_AFTER_SECS: u64 = 15;

#[derive(Debug, Serialize, Deserialize)]
struct Slot {
    job: String,
    until: i64,
}

fn slot_key(account: &str, n: usize) -> Key {
    Key::new(keys::forecast_job(account, "").pk, format!("SLOT#{n}"))
}

/// Whether a slot is taken for `job`, or all are held by running jobs.
#[derive(Debug, PartialEq)]
pub enum Claim {
    Held,
    Full,
}

async fn is_free(store: &dyn Store, account: &str, item: &Item, now: DateTime<Utc>) -> RepoResult<bool> {
    let Ok(slot) = serde_json::from_str::<Slot>(&item.body) else { return Ok(true) };
    if slot.until <= now.timestamp() {
        return Ok(true);
    }
    // Held: free when its job has ended (or is gone) without releasing it.
    Ok(super::forecasts::get(store, account, &slot.job, now).await?.is_none_or(|j| j.value.status.is_final()))
}

/// Takes a free slot for `job`.
pub async fn claim(store: &dyn Store, account: &str, job: &str, now: DateTime<Utc>) -> RepoResult<Claim> {
    let keys: Vec<Key> = (0..MAX_ACTIVE).map(|n| slot_key(account, n)).collect();
    let body = serde_json::to_string(&Slot { job: job.to_string(), until: now.timestamp() + LEASE_SECS })?;
    for _ in 0..5 {
        let found = store.batch_get(&keys).await?;
        let mut lost_race = false;
        for k in &keys {
            let (cond, version) = match found.iter().find(|i| i.sk == k.sk) {
                None => (Cond::NotExists, 1),
                Some(item) if is_free(store, account, item, now).await? => (Cond::Version(item.version), item.version + 1),
                Some(_) => continue,
            };
            let item = Item { pk: k.pk.clone(), sk: k.sk.clone(), version, body: body.clone(), ..Item::default() };
            match store.put(item, cond).await {
                Ok(()) => return Ok(Claim::Held),
                Err(StoreError::ConditionFailed) => lost_race = true,
                Err(e) => return Err(e.into()),
            }
        }
        if !lost_race {
            return Ok(Claim::Full);
        }
    }
    Ok(Claim::Full)
}

/// Frees the slot `job` holds (nothing when it holds none).
pub async fn release(store: &dyn Store, account: &str, job: &str) -> RepoResult<()> {
    let keys: Vec<Key> = (0..MAX_ACTIVE).map(|n| slot_key(account, n)).collect();
    for item in store.batch_get(&keys).await? {
        if serde_json::from_str::<Slot>(&item.body).is_ok_and(|s| s.job == job) {
            match store.delete(&item.key(), Cond::Version(item.version)).await {
                Ok(()) | Err(StoreError::ConditionFailed) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    Ok(())
}
