//! The repository layer: one module per aggregate (keys from `keys.rs`, item encoding,
//! references, conditional writes), over the store port. Handlers call these and never
//! touch the store themselves (docs/architecture.md). This module holds what they share:
//! typed get/decode, and the optimistic read-modify-write loop.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::cause::Cause;
use crate::store::{Item, Key, Store};
pub use error::{RepoError, RepoResult};

pub mod access;
pub mod accounts;
pub mod ads;
pub mod assets;
pub mod auction_stats;
pub mod audience;
pub mod bulk;
pub mod campaigns;
pub mod changes;
pub mod clients;
pub mod collection;
pub mod compiled_read;
pub mod contacts;
pub mod delivery;
pub mod demand;
pub mod error;
pub mod events;
pub mod forecast_slots;
pub mod forecasts;
pub mod goals;
pub mod idempotency;
pub mod metrics;
pub mod name_index;
pub mod notices;
pub mod pace_view;
pub mod policies;
pub mod reference;
pub mod reindex;
pub mod reports;
pub mod revert;
pub mod rules;
pub mod secrets;
pub mod sessions;
pub mod snapshot_load;
pub mod sso;
pub mod stitchers;
pub mod templates;

/// A record read from the store with what a conditional write needs.
#[derive(Debug, Clone)]
pub struct Versioned<T> {
    pub value: T,
    pub item: Item,
}

impl<T> Versioned<T> {
    pub fn version(&self) -> u64 {
        self.item.version
    }
}

pub fn item<T: Serialize>(key: Key, value: &T, version: u64) -> Result<Item, serde_json::Error> {
    Ok(Item { pk: key.pk, sk: key.sk, version, body: serde_json::to_string(value)?, ..Item::default() })
}

/// The next version of a stored item with a new body (GSI keys and counters carried over).
pub fn next<T: Serialize>(prev: &Item, value: &T) -> RepoResult<Item> {
    Ok(Item { version: prev.version + 1, body: serde_json::to_string(value)?, ..prev.clone() })
}

pub fn decode<T: DeserializeOwned>(item: Item) -> RepoResult<Versioned<T>> {
    let value = serde_json::from_str(&item.body)
        .map_err(|e| RepoError::Internal(Cause::context(format!("corrupt record {}/{}", item.pk, item.sk), e)))?;
    Ok(Versioned { value, item })
}

pub async fn get<T: DeserializeOwned>(store: &dyn Store, key: &Key) -> RepoResult<Option<Versioned<T>>> {
    match store.get(key).await? {
        Some(item) => Ok(Some(decode(item)?)),
        None => Ok(None),
    }
}

/// Every item of a query, all its pages.
pub async fn all_items(store: &dyn Store, q: crate::store::Query) -> RepoResult<Vec<crate::store::Item>> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = store.query(q.clone().after(cursor)).await?;
        out.extend(page.items);
        match page.next {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
}

pub async fn query_all<T: DeserializeOwned>(store: &dyn Store, q: crate::store::Query) -> RepoResult<Vec<Versioned<T>>> {
    let page = store.query(q).await?;
    page.items.into_iter().map(decode).collect()
}

/// How many times a read-modify-write retries a lost race before answering 409.
pub const WRITE_ATTEMPTS: usize = 5;
/// The same for a background writer (a worker recording progress while a client cancels):
/// nobody waits on it, so it tries longer before giving the message back to the queue.
pub const WORKER_WRITE_ATTEMPTS: usize = crate::backoff::Backoff::WORKER_WRITE.attempts as usize;

pub fn conflict() -> RepoError {
    RepoError::conflict("the record was changed concurrently by another request; retry")
}

/// The loop of an optimistic read-modify-write:
///
/// ```text
/// let mut tries = Attempts::new("client", &id, if_match(&headers)?);
/// loop {
///     let cur = load(..).await?;
///     tries.check(cur.version())?;          // 412 on a stale If-Match, 409 when out of tries
///     let ops = /* the conditional writes */;
///     if tries.commit(store, ops).await? { break; }   // false: lost a race, read again
/// }
/// ```
pub struct Attempts {
    left: usize,
    expected: Option<u64>,
    what: &'static str,
    id: String,
}

impl Attempts {
    pub fn new(what: &'static str, id: &str, expected: Option<u64>) -> Self {
        Attempts { left: WRITE_ATTEMPTS, expected, what, id: id.to_string() }
    }

    /// A background writer's loop ([`WORKER_WRITE_ATTEMPTS`], no `If-Match`).
    pub fn worker(what: &'static str, id: &str) -> Self {
        Attempts { left: WORKER_WRITE_ATTEMPTS, expected: None, what, id: id.to_string() }
    }

    pub fn check(&mut self, version: u64) -> Result<(), RepoError> {
        if self.expected.is_some_and(|v| v != version) {
            return Err(RepoError::Stale(format!("{} {} has changed since the ETag was read", self.what, self.id)));
        }
        if self.left == 0 {
            return Err(conflict());
        }
        self.left -= 1;
        Ok(())
    }

    /// Counts one try of a loop without `If-Match` (a worker's): 409 when out of tries.
    pub fn next_try(&mut self) -> Result<(), RepoError> {
        self.check(self.expected.unwrap_or_default())
    }

    /// Counts one try of a background writer's loop, after a jittered pause from the
    /// second on (5 ms doubling, at most 320 ms) so racing workers spread out; 409 when out
    /// of tries.
    pub async fn next_worker_try(&mut self) -> Result<(), RepoError> {
        let done = WORKER_WRITE_ATTEMPTS.saturating_sub(self.left);
        if done > 0 {
            tokio::time::sleep(crate::backoff::Backoff::WORKER_WRITE.delay(done as u32)).await;
        }
        self.next_try()
    }

    /// Writes `ops` (one put, or a transaction); `Ok(false)` when a condition failed.
    pub async fn commit(&self, store: &dyn crate::store::Store, mut ops: Vec<crate::store::TxOp>) -> Result<bool, RepoError> {
        use crate::store::{StoreError, TxOp};
        let r = match (ops.len(), ops.pop()) {
            (1, Some(TxOp::Put(item, cond))) => store.put(item, cond).await,
            (_, Some(op)) => {
                ops.push(op);
                store.transact(ops).await
            }
            (_, None) => Ok(()),
        };
        match r {
            Ok(()) => Ok(true),
            Err(StoreError::ConditionFailed | StoreError::TransactionCanceled { .. }) => Ok(false),
            Err(e) => Err(e.into()),
        }
    }
}

/// Writes `change` into a record read as `first` (the caller's own read: its 404 check),
/// conditional on the version; on a lost race the record is read again with `reload` and
/// `change` applied again. `expected` is the client's `If-Match` (412 when stale).
pub async fn rewrite<T, R, Fut>(
    store: &dyn Store,
    what: &'static str,
    first: Versioned<T>,
    expected: Option<u64>,
    reload: R,
    change: impl Fn(&mut T) -> RepoResult<()>,
) -> RepoResult<T>
where
    T: Serialize + Clone,
    R: Fn() -> Fut,
    Fut: std::future::Future<Output = RepoResult<Versioned<T>>>,
{
    let id = first.item.sk.clone();
    let mut tries = Attempts::new(what, &id, expected);
    let mut cur = first;
    loop {
        tries.check(cur.version())?;
        let mut next = cur.value.clone();
        change(&mut next)?;
        let ops = vec![crate::store::TxOp::Put(self::next(&cur.item, &next)?, crate::store::Cond::Version(cur.version()))];
        if tries.commit(store, ops).await? {
            return Ok(next);
        }
        cur = reload().await?;
    }
}

/// Records as stored, for views that decode a light row of every record and the full record
/// of only the few they show (the /v3 lists: filtering and sorting thousands of records).
pub struct Stored(Vec<Item>);

impl Stored {
    /// Light rows borrowing from the stored bodies (no copies of the strings).
    pub fn rows<'a, T: serde::Deserialize<'a>>(&'a self) -> RepoResult<Vec<T>> {
        self.0
            .iter()
            .map(|i| {
                serde_json::from_str(&i.body)
                    .map_err(|e| RepoError::Internal(Cause::context(format!("corrupt record {}/{}", i.pk, i.sk), e)))
            })
            .collect()
    }

    /// The whole record at `index` (of the rows).
    pub fn full<T: DeserializeOwned>(&self, index: usize) -> RepoResult<T> {
        let item = self.0.get(index).ok_or_else(|| RepoError::internal_msg(format!("no stored record at {index}")))?;
        Ok(decode::<T>(item.clone())?.value)
    }

    pub fn empty() -> Stored {
        Stored(Vec::new())
    }
}
