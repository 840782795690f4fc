//! The key-value port. It speaks DynamoDB's item model (see docs/store.md) so that the
//! DynamoDB adapter is a thin translation and the embedded adapter can honour exactly the
//! same semantics.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};

use async_trait::async_trait;

#[cfg(feature = "aws")]
pub mod dynamodb;
pub mod embedded;

pub use crate::limits::{MAX_ITEM_BYTES, MAX_TRANSACT_ACTIONS};

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Key {
    pub pk: String,
    pub sk: String,
}

impl Key {
    pub fn new(pk: impl Into<String>, sk: impl Into<String>) -> Self {
        Key { pk: pk.into(), sk: sk.into() }
    }
}

/// One stored item.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Item {
    pub pk: String,
    pub sk: String,
    pub gsi1: Option<(String, String)>,
    pub gsi2: Option<(String, String)>,
    /// Optimistic-concurrency version; the writer sets it (usually previous + 1).
    pub version: u64,
    /// Epoch seconds after which the item is expired (TTL attribute).
    pub expires_at: Option<i64>,
    /// Atomic counters. Read-only for writers: `put` never changes them (it keeps the
    /// stored ones; an item it creates starts with the ones it carries); only
    /// [`Store::add`] / [`TxOp::Add`] do, and those leave `version` alone.
    /// So a record's version moves with its body, and counters can change under it.
    pub counters: BTreeMap<String, i64>,
    /// The record, serialised as JSON.
    pub body: String,
}

impl Item {
    pub fn key(&self) -> Key {
        Key::new(self.pk.clone(), self.sk.clone())
    }
    pub fn counter(&self, name: &str) -> i64 {
        self.counters.get(name).copied().unwrap_or(0)
    }

    /// The item's size as DynamoDB counts it (attribute names plus values; a number counted
    /// at its widest, 21 bytes), an upper bound of the stored size.
    pub fn size(&self) -> usize {
        let s = |name: &str, v: &str| name.len() + v.len();
        let mut n = s("pk", &self.pk) + s("sk", &self.sk) + s("body", &self.body) + "ver".len() + 21;
        for (pk, sk, (a, b)) in
            [("g1pk", "g1sk", &self.gsi1), ("g2pk", "g2sk", &self.gsi2)].iter().filter_map(|(p, k, g)| g.as_ref().map(|g| (p, k, g)))
        {
            n += s(pk, a) + s(sk, b);
        }
        if self.expires_at.is_some() {
            n += "exp".len() + 21;
        }
        n + self.counters.keys().map(|c| "c_".len() + c.len() + 21).sum::<usize>()
    }
}

/// The longest partition key value DynamoDB takes (bytes).
pub const MAX_PK_BYTES: usize = 2048;
/// The longest sort key value DynamoDB takes (bytes).
pub const MAX_SK_BYTES: usize = 1024;

/// A key attribute's value: never empty, never over DynamoDB's length. Both adapters refuse
/// the same values with the same error (the store contract), before anything is read or
/// written; DynamoDB would refuse them with a ValidationException.
fn check_value(name: &str, value: &str, max: usize) -> StoreResult<()> {
    if value.is_empty() {
        return Err(StoreError::Invalid(format!("{name} is empty: a key value is never empty")));
    }
    if value.len() > max {
        return Err(StoreError::Invalid(format!("{name} is {} bytes: a key value is at most {max}", value.len())));
    }
    Ok(())
}

/// A key the store may be asked about.
pub(crate) fn check_key(key: &Key) -> StoreResult<()> {
    check_value("pk", &key.pk, MAX_PK_BYTES)?;
    check_value("sk", &key.sk, MAX_SK_BYTES)
}

/// Every key of `keys`.
pub(crate) fn check_keys<'a>(keys: impl IntoIterator<Item = &'a Key>) -> StoreResult<()> {
    keys.into_iter().try_for_each(check_key)
}

/// A query: its partition, its sort-key condition's values and its cursor.
pub(crate) fn check_query(q: &Query) -> StoreResult<()> {
    check_value("pk", &q.pk, MAX_PK_BYTES)?;
    let bounds: Vec<&String> = match &q.sk {
        SkCond::All => vec![],
        SkCond::Eq(v) | SkCond::BeginsWith(v) | SkCond::Gt(v) | SkCond::Lt(v) => vec![v],
        SkCond::Between(a, b) => vec![a, b],
    };
    bounds.into_iter().try_for_each(|v| check_value("sk condition", v, MAX_SK_BYTES))?;
    if let Some(c) = &q.start_after {
        check_key(&Key::new(c.pk.clone(), c.sk.clone()))?;
        if let Some((a, b)) = &c.index_key {
            check_value("cursor index pk", a, MAX_PK_BYTES)?;
            check_value("cursor index sk", b, MAX_SK_BYTES)?;
        }
    }
    Ok(())
}

/// An item to write: its keys (table and indexes) and its size.
pub(crate) fn check_item(item: &Item) -> StoreResult<()> {
    check_value("pk", &item.pk, MAX_PK_BYTES)?;
    check_value("sk", &item.sk, MAX_SK_BYTES)?;
    for (pk, sk) in [&item.gsi1, &item.gsi2].into_iter().flatten() {
        check_value("index pk", pk, MAX_PK_BYTES)?;
        check_value("index sk", sk, MAX_SK_BYTES)?;
    }
    check_item_size(item)
}

/// An item over DynamoDB's size limit is refused before it is written, by every adapter.
pub(crate) fn check_item_size(item: &Item) -> StoreResult<()> {
    let bytes = item.size();
    if bytes > MAX_ITEM_BYTES {
        return Err(StoreError::ItemTooLarge { key: format!("{}/{}", item.pk, item.sk), bytes });
    }
    Ok(())
}

/// Condition of a write, evaluated atomically with it.
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    None,
    NotExists,
    Exists,
    /// The stored item exists and has this version.
    Version(u64),
    /// The stored item exists and the counter is zero or absent.
    CounterZero(String),
    /// The stored item exists, has this version and the counter is zero or absent.
    VersionAndCounterZero(u64, String),
    /// The counter is absent or below the limit (room for one more; account limits).
    /// The item need not exist.
    CounterBelow(String, i64),
    /// The item is absent or its version is below this one (writes ordered by position).
    VersionBelow(u64),
}

#[derive(Debug, Clone, PartialEq)]
pub enum Index {
    Primary,
    Gsi1,
    Gsi2,
}

#[derive(Debug, Clone, PartialEq)]
pub enum SkCond {
    All,
    Eq(String),
    BeginsWith(String),
    /// Inclusive on both ends, like DynamoDB's BETWEEN.
    Between(String, String),
    Gt(String),
    Lt(String),
}

impl SkCond {
    pub fn matches(&self, sk: &str) -> bool {
        match self {
            SkCond::All => true,
            SkCond::Eq(v) => sk == v,
            SkCond::BeginsWith(p) => sk.starts_with(p.as_str()),
            SkCond::Between(a, b) => sk >= a.as_str() && sk <= b.as_str(),
            SkCond::Gt(v) => sk > v.as_str(),
            SkCond::Lt(v) => sk < v.as_str(),
        }
    }
}

/// Position after which a query continues (exclusive), as DynamoDB's LastEvaluatedKey.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cursor {
    pub pk: String,
    pub sk: String,
    /// The index key of the last item (for GSI queries).
    pub index_key: Option<(String, String)>,
}

#[derive(Debug, Clone)]
pub struct Query {
    pub index: Index,
    pub pk: String,
    pub sk: SkCond,
    pub forward: bool,
    pub limit: Option<usize>,
    pub start_after: Option<Cursor>,
    /// Only the keys (table and index keys, no body, counters or version): an index walked
    /// through to a page, whose records are then read by key.
    pub keys_only: bool,
}

impl Query {
    pub fn partition(pk: impl Into<String>) -> Self {
        Query { index: Index::Primary, pk: pk.into(), sk: SkCond::All, forward: true, limit: None, start_after: None, keys_only: false }
    }
    pub fn gsi1(pk: impl Into<String>) -> Self {
        Query { index: Index::Gsi1, ..Query::partition(pk) }
    }
    pub fn gsi2(pk: impl Into<String>) -> Self {
        Query { index: Index::Gsi2, ..Query::partition(pk) }
    }
    pub fn sk(mut self, c: SkCond) -> Self {
        self.sk = c;
        self
    }
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }
    pub fn keys_only(mut self) -> Self {
        self.keys_only = true;
        self
    }
    pub fn backward(mut self) -> Self {
        self.forward = false;
        self
    }
    pub fn after(mut self, c: Option<Cursor>) -> Self {
        self.start_after = c;
        self
    }
}

#[derive(Debug, Clone, Default)]
pub struct Page {
    pub items: Vec<Item>,
    /// Set when more items may follow (a limit was reached).
    pub next: Option<Cursor>,
}

#[derive(Debug, Clone)]
pub enum TxOp {
    Put(Item, Cond),
    Delete(Key, Cond),
    Check(Key, Cond),
    /// Atomic counter deltas on an existing item (the condition is checked first).
    Add(Key, Vec<(String, i64)>, Cond),
}

impl TxOp {
    pub fn key(&self) -> Key {
        match self {
            TxOp::Put(i, _) => i.key(),
            TxOp::Delete(k, _) | TxOp::Check(k, _) | TxOp::Add(k, _, _) => k.clone(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum StoreError {
    /// A single write's condition did not hold.
    #[error("condition failed")]
    ConditionFailed,
    /// A transaction was cancelled because a condition failed; `index` is the first action
    /// whose condition failed.
    #[error("transaction cancelled (action {index:?})")]
    TransactionCanceled { index: Option<usize> },
    /// The request itself is invalid (limits of the port, e.g. two actions on one item).
    #[error("invalid store request: {0}")]
    Invalid(String),
    /// A record would exceed DynamoDB's item size limit (`MAX_ITEM_BYTES`).
    #[error("item {key} would be {bytes} bytes, over the {MAX_ITEM_BYTES}-byte item limit")]
    ItemTooLarge { key: String, bytes: usize },
    /// The backend refused the request before applying it (throttling, capacity): safe to
    /// send again; `RetryingStore` does, with backoff.
    #[error("store throttled: {0}")]
    Throttled(String),
    /// No answer (timeout, connection lost, a 5xx): the request may or may not have been
    /// applied. Not retried here; the caller's retry must be idempotent (docs/security.md).
    #[error("store unavailable: {0}")]
    Unavailable(String),
    /// The backend failed (I/O, network, throttling after retries, a transaction cancelled
    /// for a reason other than a condition); `source` is the backend's own error.
    #[error("store backend error: {context}")]
    Backend {
        context: String,
        #[source]
        source: Option<crate::cause::Cause>,
    },
}

impl StoreError {
    /// A backend failure with its cause.
    pub fn backend(context: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> StoreError {
        StoreError::Backend { context: context.into(), source: Some(crate::cause::Cause::new(source)) }
    }

    /// A backend failure with no underlying error (a limit, an unexpected answer).
    pub fn backend_msg(context: impl Into<String>) -> StoreError {
        StoreError::Backend { context: context.into(), source: None }
    }
}

pub type StoreResult<T> = Result<T, StoreError>;

#[async_trait]
pub trait Store: Send + Sync {
    async fn get(&self, key: &Key) -> StoreResult<Option<Item>>;
    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()>;
    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()>;
    async fn query(&self, q: Query) -> StoreResult<Page>;
    /// Items for the keys that exist, in no particular order.
    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>>;
    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()>;
    /// Unconditional puts and deletes of many items (bulk loads): not atomic as a whole; the
    /// DynamoDB adapter sends 25 per BatchWriteItem, several in flight, and retries
    /// unprocessed items. Counters are not written. A key may appear once only.
    async fn batch_write(&self, puts: Vec<Item>, deletes: Vec<Key>) -> StoreResult<()>;
    async fn batch_put(&self, items: Vec<Item>) -> StoreResult<()> {
        self.batch_write(items, Vec::new()).await
    }
    /// Puts each item unless the stored one has its version or a newer one (a lost
    /// condition is no error): writes of many workers ordered by version, whatever order
    /// they arrive in. Not atomic as a whole; a key may appear once only. The default sends
    /// conditional puts, [`PUT_NEWER_IN_FLIGHT`] at a time (BatchWriteItem takes no
    /// conditions); the embedded store writes them in one transaction.
    async fn put_newer(&self, items: Vec<Item>) -> StoreResult<()> {
        use futures_util::stream::{self, StreamExt, TryStreamExt};
        stream::iter(items)
            .map(|item| async move {
                let v = item.version;
                match self.put(item, Cond::VersionBelow(v)).await {
                    Ok(()) | Err(StoreError::ConditionFailed) => Ok(()),
                    Err(e) => Err(e),
                }
            })
            .buffer_unordered(PUT_NEWER_IN_FLIGHT)
            .try_collect::<()>()
            .await
    }
    /// Atomic counter deltas; creates the counters (and the item, when `cond` allows) at 0.
    /// The version is not changed.
    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item>;
    /// Removes the items whose `expires_at` is due and answers them, as DynamoDB's TTL does
    /// (whose table stream then brings them to the janitor). DynamoDB expires items itself:
    /// its adapter removes nothing here.
    async fn sweep_expired(&self, now: i64) -> StoreResult<Vec<Item>> {
        let _ = now;
        Ok(Vec::new())
    }
    /// Backend requests made so far (one per SDK call or page).
    fn round_trips(&self) -> u64;
    /// A short name for logs and test output.
    fn kind(&self) -> &'static str;
}

/// Conditional puts in flight at once in [`Store::put_newer`]'s default.
pub const PUT_NEWER_IN_FLIGHT: usize = 32;

/// Validates what both adapters must refuse identically.
pub mod delegate;
pub mod retrying;
pub use delegate::Delegate;
pub use retrying::{Backoff, RetryingStore};

pub(crate) fn check_transaction(ops: &[TxOp]) -> StoreResult<()> {
    if ops.is_empty() {
        return Err(StoreError::Invalid("empty transaction".into()));
    }
    if ops.len() > MAX_TRANSACT_ACTIONS {
        return Err(StoreError::Invalid(format!("{} actions exceed {MAX_TRANSACT_ACTIONS}", ops.len())));
    }
    for op in ops {
        match op {
            TxOp::Put(item, _) => check_item(item)?,
            other => check_key(&other.key())?,
        }
    }
    let mut keys: Vec<Key> = ops.iter().map(TxOp::key).collect();
    keys.sort();
    if keys.windows(2).any(|w| w[0] == w[1]) {
        return Err(StoreError::Invalid("two actions on one item".into()));
    }
    Ok(())
}

/// Round-trip counter shared by the adapters.
#[derive(Debug, Default)]
pub(crate) struct RoundTrips(AtomicU64);

impl RoundTrips {
    pub fn inc(&self) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
    pub fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// Evaluates a condition against the stored item (used by the embedded adapter; the
/// DynamoDB adapter compiles the same conditions to expressions).
pub(crate) fn cond_holds(cond: &Cond, current: Option<&Item>) -> bool {
    match cond {
        Cond::None => true,
        Cond::NotExists => current.is_none(),
        Cond::Exists => current.is_some(),
        Cond::Version(v) => current.is_some_and(|i| i.version == *v),
        Cond::CounterZero(c) => current.is_some_and(|i| i.counter(c) == 0),
        Cond::VersionAndCounterZero(v, c) => current.is_some_and(|i| i.version == *v && i.counter(c) == 0),
        Cond::CounterBelow(c, limit) => current.map_or(0, |i| i.counter(c)) < *limit,
        Cond::VersionBelow(v) => current.is_none_or(|i| i.version < *v),
    }
}
