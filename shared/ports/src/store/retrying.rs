//! Retries of store requests (docs/security.md, "Faults"). A request the backend refused
//! before applying it (`StoreError::Throttled`: throttling, capacity, a partial batch) is
//! sent again after a jittered, growing, bounded delay. A request that got no answer
//! (`Unavailable`) may or may not have been applied: reads are simply sent again; a write
//! is first checked by reading back what it wrote (the item's body and version, or its
//! absence) and is sent again only when it is not there, so a write is applied once and the
//! caller sees its real outcome. Counter increments (`add`) cannot be checked that way and
//! are left to the caller.

use std::sync::Arc;

use async_trait::async_trait;

pub use crate::backoff::Backoff;

use super::{Cond, Delegate, Item, Key, Page, Query, Store, StoreError, StoreResult, TxOp};

/// Sends `op` until it is not refused for capacity, at most `b.attempts` times.
pub async fn retry<T, F, Fut>(b: &Backoff, op: F) -> StoreResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = StoreResult<T>>,
{
    retry_when(b, op, |e| matches!(e, StoreError::Throttled(_))).await
}

/// A read: also sent again when it got no answer.
async fn read<T, F, Fut>(b: &Backoff, op: F) -> StoreResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = StoreResult<T>>,
{
    retry_when(b, op, |e| matches!(e, StoreError::Throttled(_) | StoreError::Unavailable(_))).await
}

async fn retry_when<T, F, Fut>(b: &Backoff, mut op: F, again: impl Fn(&StoreError) -> bool) -> StoreResult<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = StoreResult<T>>,
{
    let mut n = 0;
    loop {
        match op().await {
            Err(e) if again(&e) && n + 1 < b.attempts => {
                tracing::debug!(attempt = n, error = %e, "store request not done; retrying");
                tokio::time::sleep(b.delay(n)).await;
                n += 1;
            }
            other => return other,
        }
    }
}

/// Whether a write that got no answer is in the store: every item it puts is there with
/// its body and version, every item it deletes is gone. `None`: it cannot be told (only
/// counter changes and checks), or a part is there and a part is not (another writer
/// came in between).
async fn landed(store: &dyn Store, b: &Backoff, puts: &[&Item], deletes: &[&Key]) -> StoreResult<Option<bool>> {
    if puts.is_empty() && deletes.is_empty() {
        return Ok(None);
    }
    let (mut yes, mut no) = (0, 0);
    for i in puts {
        let key = i.key();
        match read(b, || store.get(&key)).await? {
            Some(s) if s.version == i.version && s.body == i.body => yes += 1,
            _ => no += 1,
        }
    }
    for k in deletes {
        match read(b, || store.get(k)).await? {
            None => yes += 1,
            Some(_) => no += 1,
        }
    }
    Ok(match (yes, no) {
        (_, 0) => Some(true),
        (0, _) => Some(false),
        _ => None,
    })
}

/// A store whose refused requests are retried (every adapter is wrapped in one).
pub struct RetryingStore {
    inner: Arc<dyn Store>,
    backoff: Backoff,
}

impl RetryingStore {
    pub fn new(inner: Arc<dyn Store>) -> Self {
        RetryingStore { inner, backoff: Backoff::STORE }
    }

    pub fn with_backoff(inner: Arc<dyn Store>, backoff: Backoff) -> Self {
        RetryingStore { inner, backoff }
    }
}

impl RetryingStore {
    /// A write: refusals retried; an unknown outcome checked, then sent again only when the
    /// write is not there (its condition still guards it).
    async fn write<F, Fut>(&self, puts: &[&Item], deletes: &[&Key], mut op: F) -> StoreResult<()>
    where
        F: FnMut() -> Fut,
        Fut: std::future::Future<Output = StoreResult<()>>,
    {
        for n in 0..self.backoff.attempts {
            match retry(&self.backoff, &mut op).await {
                Err(StoreError::Unavailable(why)) => match landed(self.inner.as_ref(), &self.backoff, puts, deletes).await? {
                    Some(true) => {
                        tracing::info!(%why, "a write without an answer was applied");
                        return Ok(());
                    }
                    Some(false) if n + 1 < self.backoff.attempts => {
                        tracing::info!(%why, "a write without an answer was not applied; sending it again");
                        tokio::time::sleep(self.backoff.delay(n)).await;
                    }
                    _ => return Err(StoreError::Unavailable(why)),
                },
                other => return other,
            }
        }
        Err(StoreError::Unavailable("no answer after retries".into()))
    }
}

#[async_trait]
impl Delegate for RetryingStore {
    fn inner(&self) -> &dyn Store {
        self.inner.as_ref()
    }
    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        read(&self.backoff, || self.inner.get(key)).await
    }
    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()> {
        self.write(&[&item], &[], || self.inner.put(item.clone(), cond.clone())).await
    }
    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()> {
        self.write(&[], &[key], || self.inner.delete(key, cond.clone())).await
    }
    async fn query(&self, q: Query) -> StoreResult<Page> {
        read(&self.backoff, || self.inner.query(q.clone())).await
    }
    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        read(&self.backoff, || self.inner.batch_get(keys)).await
    }
    /// A transaction is all or nothing: the items it puts and deletes tell whether it landed
    /// (its counter changes and checks went with them).
    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        let puts: Vec<&Item> = ops.iter().filter_map(|o| if let TxOp::Put(i, _) = o { Some(i) } else { None }).collect();
        let dels: Vec<Key> = ops.iter().filter_map(|o| if let TxOp::Delete(k, _) = o { Some(k.clone()) } else { None }).collect();
        let dels: Vec<&Key> = dels.iter().collect();
        self.write(&puts, &dels, || self.inner.transact(ops.clone())).await
    }
    /// A batch may have been applied in part before it was refused or lost its answer: its
    /// puts and deletes are idempotent, so the whole batch is sent again.
    async fn batch_write(&self, puts: Vec<Item>, deletes: Vec<Key>) -> StoreResult<()> {
        read(&self.backoff, || self.inner.batch_write(puts.clone(), deletes.clone())).await
    }
    /// Each put is ordered by its version: sending them all again changes nothing that
    /// landed.
    async fn put_newer(&self, items: Vec<Item>) -> StoreResult<()> {
        read(&self.backoff, || self.inner.put_newer(items.clone())).await
    }
    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item> {
        retry(&self.backoff, || self.inner.add(key, deltas, cond.clone())).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};
    use std::time::Duration;

    #[tokio::test]
    async fn refusals_are_retried_until_the_bound_and_nothing_else_is() {
        let b = Backoff { attempts: 4, base: Duration::from_millis(1), cap: Duration::from_millis(2), spread_percent: 100 };
        let calls = AtomicU32::new(0);
        let r: StoreResult<u32> = retry(&b, || async {
            let n = calls.fetch_add(1, Ordering::SeqCst);
            if n < 2 {
                Err(StoreError::Throttled("busy".into()))
            } else {
                Ok(n)
            }
        })
        .await;
        assert_eq!(r, Ok(2));
        calls.store(0, Ordering::SeqCst);
        let r: StoreResult<()> = retry(&b, || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(StoreError::Throttled("busy".into()))
        })
        .await;
        assert!(matches!(r, Err(StoreError::Throttled(_))));
        assert_eq!(calls.load(Ordering::SeqCst), 4, "bounded");
        calls.store(0, Ordering::SeqCst);
        let r: StoreResult<()> = retry(&b, || async {
            calls.fetch_add(1, Ordering::SeqCst);
            Err(StoreError::Unavailable("timeout".into()))
        })
        .await;
        assert!(matches!(r, Err(StoreError::Unavailable(_))));
        assert_eq!(calls.load(Ordering::SeqCst), 1, "an unknown outcome is not sent again");
    }
}
