//! A store in front of another (the retries, the change history, the tests' faults and
//! permissions): every call goes to the store behind it unless the decorator says
//! otherwise. A decorator implements [`Delegate`], overriding what it changes; the
//! forwarding of the rest, and the `Store` it is, are written here once.

use async_trait::async_trait;

use super::{Cond, Item, Key, Page, Query, Store, StoreResult, TxOp};

#[async_trait]
pub trait Delegate: Send + Sync {
    /// The store behind this one.
    fn inner(&self) -> &dyn Store;

    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        self.inner().get(key).await
    }
    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()> {
        self.inner().put(item, cond).await
    }
    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()> {
        self.inner().delete(key, cond).await
    }
    async fn query(&self, q: Query) -> StoreResult<Page> {
        self.inner().query(q).await
    }
    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        self.inner().batch_get(keys).await
    }
    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        self.inner().transact(ops).await
    }
    async fn batch_write(&self, puts: Vec<Item>, deletes: Vec<Key>) -> StoreResult<()> {
        self.inner().batch_write(puts, deletes).await
    }
    async fn batch_put(&self, items: Vec<Item>) -> StoreResult<()> {
        self.batch_write(items, Vec::new()).await
    }
    async fn put_newer(&self, items: Vec<Item>) -> StoreResult<()> {
        self.inner().put_newer(items).await
    }
    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item> {
        self.inner().add(key, deltas, cond).await
    }
    async fn sweep_expired(&self, now: i64) -> StoreResult<Vec<Item>> {
        self.inner().sweep_expired(now).await
    }
    fn round_trips(&self) -> u64 {
        self.inner().round_trips()
    }
    fn kind(&self) -> &'static str {
        self.inner().kind()
    }
}

#[async_trait]
impl<D: Delegate> Store for D {
    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        Delegate::get(self, key).await
    }
    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()> {
        Delegate::put(self, item, cond).await
    }
    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()> {
        Delegate::delete(self, key, cond).await
    }
    async fn query(&self, q: Query) -> StoreResult<Page> {
        Delegate::query(self, q).await
    }
    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        Delegate::batch_get(self, keys).await
    }
    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        Delegate::transact(self, ops).await
    }
    async fn batch_write(&self, puts: Vec<Item>, deletes: Vec<Key>) -> StoreResult<()> {
        Delegate::batch_write(self, puts, deletes).await
    }
    async fn batch_put(&self, items: Vec<Item>) -> StoreResult<()> {
        Delegate::batch_put(self, items).await
    }
    async fn put_newer(&self, items: Vec<Item>) -> StoreResult<()> {
        Delegate::put_newer(self, items).await
    }
    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item> {
        Delegate::add(self, key, deltas, cond).await
    }
    async fn sweep_expired(&self, now: i64) -> StoreResult<Vec<Item>> {
        Delegate::sweep_expired(self, now).await
    }
    fn round_trips(&self) -> u64 {
        Delegate::round_trips(self)
    }
    fn kind(&self) -> &'static str {
        Delegate::kind(self)
    }
}
