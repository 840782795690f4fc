//! A store that is unavailable for some calls (the store's own answer when a partition
//! cannot be reached), everything else passed through: the outage tests pick which reads
//! or which transactions fail.

use std::sync::Arc;

use async_trait::async_trait;
use web::store::{Delegate, Index, Item, Key, Page, Query, Store, StoreError, StoreResult, TxOp};

type Pick = Box<dyn Fn(&Key) -> bool + Send + Sync>;

pub struct Unavailable {
    inner: Arc<dyn Store>,
    reads: Pick,
    /// Queries of the table (not of an index) whose partition key this names fail.
    queries: Option<String>,
    transactions: Pick,
}

impl Unavailable {
    /// Gets and batch gets of a key `pick` names fail.
    pub fn reads_of(inner: Arc<dyn Store>, pick: impl Fn(&Key) -> bool + Send + Sync + 'static) -> Unavailable {
        Unavailable { inner, reads: Box::new(pick), queries: None, transactions: Box::new(|_| false) }
    }

    /// Every read of the table's partition `pk` fails: gets, batch gets and queries.
    pub fn partition(inner: Arc<dyn Store>, pk: String) -> Unavailable {
        let key_pk = pk.clone();
        Unavailable { inner, reads: Box::new(move |k| k.pk == key_pk), queries: Some(pk), transactions: Box::new(|_| false) }
    }

    /// Transactions writing a key `pick` names fail.
    pub fn transactions_on(inner: Arc<dyn Store>, pick: impl Fn(&Key) -> bool + Send + Sync + 'static) -> Unavailable {
        Unavailable { inner, reads: Box::new(|_| false), queries: None, transactions: Box::new(pick) }
    }

    fn refuse<T>() -> StoreResult<T> {
        Err(StoreError::Unavailable("injected: this partition is unavailable".into()))
    }
}

#[async_trait]
impl Delegate for Unavailable {
    fn inner(&self) -> &dyn Store {
        self.inner.as_ref()
    }
    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        if (self.reads)(key) {
            return Self::refuse();
        }
        self.inner.get(key).await
    }
    async fn query(&self, q: Query) -> StoreResult<Page> {
        if self.queries.as_ref().is_some_and(|pk| q.index == Index::Primary && *pk == q.pk) {
            return Self::refuse();
        }
        self.inner.query(q).await
    }
    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        if keys.iter().any(|k| (self.reads)(k)) {
            return Self::refuse();
        }
        self.inner.batch_get(keys).await
    }
    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        if ops.iter().any(|o| (self.transactions)(&o.key())) {
            return Self::refuse();
        }
        self.inner.transact(ops).await
    }
    fn kind(&self) -> &'static str {
        "partly-unavailable"
    }
}
