//! Audience batches: the record (GSI1: a provider's batches by creation), the provider's
//! one-batch-per-day slot, taken in the same transaction; and the audience providers.

use serde::{Deserialize, Serialize};

use super::{RepoError, RepoResult};
use crate::keys;
use crate::model::account::AudienceProvider;
use crate::model::audience::Batch;
use crate::store::{Cond, Item, Key, Query, Store, StoreError, TxOp};

use super::reference::{self, Kind};
use super::Versioned;

pub async fn provider(store: &dyn Store, account: &str, id: &str) -> RepoResult<AudienceProvider> {
    reference::one(store, account, Kind::AudienceProvider, id, "audience provider").await
}

pub async fn providers(store: &dyn Store, account: &str) -> RepoResult<Vec<AudienceProvider>> {
    reference::all(store, account, Kind::AudienceProvider).await
}

fn key(account: &str, id: &str) -> Key {
    keys::record(account, keys::BATCH, id)
}

pub async fn get(store: &dyn Store, account: &str, id: &str) -> RepoResult<Option<Versioned<Batch>>> {
    super::get(store, &key(account, id)).await
}

/// A batch of the account, else 404.
pub async fn load(store: &dyn Store, account: &str, id: &str) -> RepoResult<Versioned<Batch>> {
    if !crate::ids::plausible_id(id) {
        return Err(RepoError::not_found("audience batch", id));
    }
    get(store, account, id).await?.ok_or_else(|| RepoError::not_found("audience batch", id))
}

/// The item of a batch record (with its listing index).
pub fn item(b: &Batch, version: u64) -> RepoResult<Item> {
    let mut item = super::item(key(&b.account_id, &b.id), b, version)?;
    item.gsi1 = Some((keys::provider_batches(&b.account_id, &b.provider_id), format!("{}#{}", b.created.to_rfc3339(), b.id)));
    Ok(item)
}

/// Writes the next version of a batch read at `version`; `false` when it changed meanwhile.
pub async fn put_next(store: &dyn Store, b: &Batch, version: u64) -> RepoResult<bool> {
    match store.put(item(b, version + 1)?, Cond::Version(version)).await {
        Ok(()) => Ok(true),
        Err(StoreError::ConditionFailed) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The record as `put_next` wrote it at `version` (what a writer keeps as its current copy).
pub fn written(b: Batch, version: u64) -> RepoResult<Versioned<Batch>> {
    Ok(Versioned { item: item(&b, version)?, value: b })
}

/// Writes a flush of a batch's rows: each viewer record (or a deleted PID's tombstone) only
/// over an older one, by version (`model::audience::row_order`).
pub async fn write_viewers(store: &dyn Store, items: Vec<Item>) -> RepoResult<()> {
    store.put_newer(items).await?;
    Ok(())
}

/// Writes a batch that must not exist yet; `false` when it does.
pub async fn put_new(store: &dyn Store, b: &Batch) -> RepoResult<bool> {
    match store.put(item(b, 1)?, Cond::NotExists).await {
        Ok(()) => Ok(true),
        Err(StoreError::ConditionFailed) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The batch already holding a provider's day.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct DaySlot {
    pub batch: String,
}

pub enum Created {
    New(Box<Versioned<Batch>>),
    /// The day's slot is taken by this batch.
    SlotTaken(String),
}

/// Creates a batch (UPLOADED) and takes its provider's day slot, atomically. Creating the
/// same batch again (a redelivered event) finds it.
pub async fn create(store: &dyn Store, b: &Batch) -> RepoResult<Created> {
    let slot = keys::batch_day(&b.account_id, &b.provider_id, &b.day);
    let ops = vec![
        TxOp::Put(item(b, 1)?, Cond::NotExists),
        TxOp::Put(super::item(slot.clone(), &DaySlot { batch: b.id.clone() }, 1)?, Cond::NotExists),
    ];
    match store.transact(ops).await {
        Ok(()) => Ok(Created::New(Box::new(Versioned { value: b.clone(), item: item(b, 1)? }))),
        Err(StoreError::TransactionCanceled { .. }) => {
            if let Some(existing) = get(store, &b.account_id, &b.id).await? {
                return Ok(Created::New(Box::new(existing)));
            }
            let other = super::get::<DaySlot>(store, &slot).await?.map(|v| v.value.batch).unwrap_or_default();
            Ok(Created::SlotTaken(other))
        }
        Err(e) => Err(e.into()),
    }
}

/// Undoes a create whose file could not be stored: the batch and its day slot go.
pub async fn undo_create(store: &dyn Store, b: &Batch) -> RepoResult<()> {
    let undo = vec![
        TxOp::Delete(key(&b.account_id, &b.id), Cond::None),
        TxOp::Delete(keys::batch_day(&b.account_id, &b.provider_id, &b.day), Cond::None),
    ];
    store.transact(undo).await?;
    Ok(())
}

/// A provider's batches, oldest first.
/// A provider's most recent `n` batches, oldest first: what the worker needs to order and
/// start batches (one a day per provider, so a waiting batch is a recent one), without
/// reading the provider's whole history.
pub async fn recent_of_provider(store: &dyn Store, account: &str, provider: &str, n: usize) -> RepoResult<Vec<Batch>> {
    let found: Vec<Versioned<Batch>> =
        super::query_all(store, Query::gsi1(keys::provider_batches(account, provider)).backward().limit(n)).await?;
    Ok(found.into_iter().rev().map(|v| v.value).collect())
}

pub async fn of_provider(store: &dyn Store, account: &str, provider: &str) -> RepoResult<Vec<Batch>> {
    let found: Vec<Versioned<Batch>> = super::query_all(store, Query::gsi1(keys::provider_batches(account, provider))).await?;
    Ok(found.into_iter().map(|v| v.value).collect())
}

/// Every batch of the account (one query on its partition, paged through), in no order.
pub async fn of_account(store: &dyn Store, account: &str) -> RepoResult<Vec<Batch>> {
    let found: Vec<Versioned<Batch>> = super::query_all(store, Query::partition(keys::partition(account, keys::BATCH))).await?;
    Ok(found.into_iter().map(|v| v.value).collect())
}

/// What a cancel found.
pub enum Cancelled {
    /// Cancelled now (the batch as written).
    Now(Box<Batch>),
    /// It was cancelled already.
    Already(Box<Batch>),
    /// It is 100 % processed: too late.
    Finished,
}

/// Cancels a batch below 100 % (its lease dropped, so no worker commits another chunk).
pub async fn cancel(store: &dyn Store, account: &str, id: &str) -> RepoResult<Cancelled> {
    use crate::model::enums::BatchStatus;
    let mut tries = super::Attempts::new("audience batch", id, None);
    loop {
        let cur = load(store, account, id).await?;
        match cur.value.status {
            BatchStatus::Finished => return Ok(Cancelled::Finished),
            BatchStatus::Cancelled => return Ok(Cancelled::Already(Box::new(cur.value))),
            BatchStatus::Uploaded | BatchStatus::Processing => {}
        }
        tries.check(cur.version())?;
        let mut next = cur.value.clone();
        next.status = BatchStatus::Cancelled;
        next.leases.clear();
        next.running_bytes = 0;
        if put_next(store, &next, cur.version()).await? {
            return Ok(Cancelled::Now(Box::new(next)));
        }
    }
}
