//! Fault injection: wrappers of the store, blob and queue ports that
//! fail on a schedule, for the tests that prove the service under faults.
//!
//! The schedule is a seeded pseudo-random draw per call, so a run is repeatable: a store
//! call is refused (throttled, nothing applied), times out before or after it is applied
//! (no answer), or, for a batch write, applies part of its items and is then refused; blob
//! and queue calls fail outright. The rates are per mille.

use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use async_trait::async_trait;
use web::blobs::{BlobError, BlobReader, Blobs};
use web::queue::{Queue, QueueError, QueueName};
use web::store::{Cond, Delegate, Item, Key, Page, Query, Store, StoreError, StoreResult, TxOp};

#[derive(Debug, Clone, Copy, Default)]
pub struct Schedule {
    pub seed: u64,
    /// Store calls refused before they are applied.
    pub throttle: u64,
    /// Store writes that time out before they are applied.
    pub timeout_before: u64,
    /// Store writes applied whose answer is lost (the caller sees a timeout).
    pub timeout_after: u64,
    /// Batch writes that apply a part of their items, then are refused.
    pub partial_batch: u64,
    /// Blob and queue calls that fail.
    pub blob: u64,
    pub queue: u64,
}

/// What happened, for the test's report.
#[derive(Debug, Default)]
pub struct Injected {
    pub calls: AtomicU64,
    pub throttled: AtomicU64,
    pub timeouts_before: AtomicU64,
    pub timeouts_after: AtomicU64,
    pub partial_batches: AtomicU64,
    pub blob_failures: AtomicU64,
    pub queue_failures: AtomicU64,
}

impl Injected {
    pub fn report(&self) -> String {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "{} store calls: {} throttled, {} timed out before, {} applied without an answer, {} partial batches; {} blob and {} queue failures",
            g(&self.calls),
            g(&self.throttled),
            g(&self.timeouts_before),
            g(&self.timeouts_after),
            g(&self.partial_batches),
            g(&self.blob_failures),
            g(&self.queue_failures)
        )
    }
}

/// The faults of one test: one schedule, one counter of draws, one report.
pub struct Faults {
    pub schedule: Schedule,
    draws: AtomicU64,
    pub injected: Injected,
    /// Off: every call passes (the test's final checks).
    pub on: std::sync::atomic::AtomicBool,
}

impl Faults {
    pub fn new(schedule: Schedule) -> Arc<Faults> {
        Arc::new(Faults { schedule, draws: AtomicU64::new(0), injected: Injected::default(), on: true.into() })
    }

    /// A draw in 0..1000 (splitmix64 of the seed and the draw number).
    fn draw(&self) -> u64 {
        let mut z = self.schedule.seed.wrapping_add(self.draws.fetch_add(1, Ordering::Relaxed).wrapping_mul(0x9e37_79b9_7f4a_7c15));
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (z ^ (z >> 31)) % 1000
    }

    fn hit(&self, per_mille: u64, counter: &AtomicU64) -> bool {
        if !self.on.load(Ordering::Relaxed) || per_mille == 0 {
            return false;
        }
        let hit = self.draw() < per_mille;
        if hit {
            counter.fetch_add(1, Ordering::Relaxed);
        }
        hit
    }
}

pub struct FaultyStore {
    pub inner: Arc<dyn Store>,
    pub faults: Arc<Faults>,
}

impl FaultyStore {
    fn refuse(&self) -> StoreResult<()> {
        self.faults.injected.calls.fetch_add(1, Ordering::Relaxed);
        if self.faults.hit(self.faults.schedule.throttle, &self.faults.injected.throttled) {
            return Err(StoreError::Throttled("injected".into()));
        }
        Ok(())
    }

    /// A write: refused, timed out before, or applied and its answer lost.
    async fn write<T>(&self, apply: impl std::future::Future<Output = StoreResult<T>>) -> StoreResult<T> {
        self.refuse()?;
        let s = &self.faults.schedule;
        if self.faults.hit(s.timeout_before, &self.faults.injected.timeouts_before) {
            return Err(StoreError::Unavailable("injected timeout (not applied)".into()));
        }
        let r = apply.await?;
        if self.faults.hit(s.timeout_after, &self.faults.injected.timeouts_after) {
            return Err(StoreError::Unavailable("injected timeout (applied)".into()));
        }
        Ok(r)
    }
}

#[async_trait]
impl Delegate for FaultyStore {
    fn inner(&self) -> &dyn Store {
        self.inner.as_ref()
    }
    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        self.refuse()?;
        self.inner.get(key).await
    }
    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()> {
        self.write(self.inner.put(item, cond)).await
    }
    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()> {
        self.write(self.inner.delete(key, cond)).await
    }
    async fn query(&self, q: Query) -> StoreResult<Page> {
        self.refuse()?;
        self.inner.query(q).await
    }
    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        self.refuse()?;
        self.inner.batch_get(keys).await
    }
    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        self.write(self.inner.transact(ops)).await
    }
    async fn batch_write(&self, puts: Vec<Item>, deletes: Vec<Key>) -> StoreResult<()> {
        if puts.len() + deletes.len() > 1 && self.faults.hit(self.faults.schedule.partial_batch, &self.faults.injected.partial_batches) {
            // Half of the items applied, then the rest refused (DynamoDB's unprocessed items).
            let (p, d) = (puts.len() / 2, deletes.len() / 2);
            self.inner.batch_write(puts[..p].to_vec(), deletes[..d].to_vec()).await?;
            return Err(StoreError::Throttled("injected partial batch".into()));
        }
        self.write(self.inner.batch_write(puts, deletes)).await
    }
    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item> {
        self.write(self.inner.add(key, deltas, cond)).await
    }
}

pub struct FaultyBlobs {
    pub inner: Arc<dyn Blobs>,
    pub faults: Arc<Faults>,
}

impl FaultyBlobs {
    fn fail(&self) -> Result<(), BlobError> {
        if self.faults.hit(self.faults.schedule.blob, &self.faults.injected.blob_failures) {
            return Err(BlobError::unavailable("injected bucket failure", None));
        }
        Ok(())
    }
}

#[async_trait]
impl Blobs for FaultyBlobs {
    async fn put_file(&self, key: &str, path: &Path, ct: &str) -> Result<u64, BlobError> {
        self.fail()?;
        self.inner.put_file(key, path, ct).await
    }
    async fn put_bytes(&self, key: &str, bytes: Vec<u8>, ct: &str) -> Result<(), BlobError> {
        self.fail()?;
        self.inner.put_bytes(key, bytes, ct).await
    }
    async fn get(&self, key: &str) -> Result<Option<Vec<u8>>, BlobError> {
        self.fail()?;
        self.inner.get(key).await
    }
    async fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        self.fail()?;
        self.inner.size(key).await
    }
    async fn open_from(&self, key: &str, start: u64) -> Result<Option<BlobReader>, BlobError> {
        self.fail()?;
        self.inner.open_from(key, start).await
    }
    async fn delete(&self, key: &str) -> Result<(), BlobError> {
        self.fail()?;
        self.inner.delete(key).await
    }
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
}

pub struct FaultyQueue {
    pub inner: Arc<dyn Queue>,
    pub faults: Arc<Faults>,
}

#[async_trait]
impl Queue for FaultyQueue {
    async fn send(&self, q: QueueName, body: String) -> Result<(), QueueError> {
        if self.faults.hit(self.faults.schedule.queue, &self.faults.injected.queue_failures) {
            return Err(QueueError::msg("injected queue failure"));
        }
        self.inner.send(q, body).await
    }
    async fn retry_later(&self, q: QueueName, receipt: &str, delay: std::time::Duration) -> Result<(), QueueError> {
        self.inner.retry_later(q, receipt, delay).await
    }
    fn kind(&self) -> &'static str {
        self.inner.kind()
    }
}
