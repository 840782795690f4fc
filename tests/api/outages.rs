//! A store that fails is an outage, never "not found": reads of a record's parent that the
//! store refuses answer 503 (retry), not 404 or an empty list (issue 30: errors by layer).

use std::sync::Arc;

use api_tests::serde_json::json;
use api_tests::{both_stores, TestApp};
use async_trait::async_trait;
use shared::store::{Cond, Item, Key, Page, Query, Store, StoreError, StoreResult, TxOp};

/// Every read of one partition is refused as the store does when it is unavailable.
struct Unreadable {
    inner: Arc<dyn Store>,
    partition: String,
}

impl Unreadable {
    fn refuse<T>(&self) -> StoreResult<T> {
        Err(StoreError::Unavailable("injected: this partition cannot be read".into()))
    }
}

#[async_trait]
impl Store for Unreadable {
    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        if key.pk == self.partition {
            return self.refuse();
        }
        self.inner.get(key).await
    }
    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()> {
        self.inner.put(item, cond).await
    }
    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()> {
        self.inner.delete(key, cond).await
    }
    async fn query(&self, q: Query) -> StoreResult<Page> {
        self.inner.query(q).await
    }
    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        if keys.iter().any(|k| k.pk == self.partition) {
            return self.refuse();
        }
        self.inner.batch_get(keys).await
    }
    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        self.inner.transact(ops).await
    }
    async fn batch_write(&self, puts: Vec<Item>, deletes: Vec<Key>) -> StoreResult<()> {
        self.inner.batch_write(puts, deletes).await
    }
    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item> {
        self.inner.add(key, deltas, cond).await
    }
    fn round_trips(&self) -> u64 {
        self.inner.round_trips()
    }
    fn kind(&self) -> &'static str {
        "unreadable-partition"
    }
}

both_stores! {
    async fn an_unreadable_goal_is_503_never_404(app: TestApp) {
        let (_, goal) = app.live_goal().await;
        let r = app.post_json("/v1/ads", &json!({"name": "spot", "goalId": goal,
            "creative": {"type": "spotPlaceholder", "insertionPoint": "preroll"}})).await;
        r.expect(201);
        let ad = r.json()["id"].as_str().unwrap().to_string();
        app.get(&format!("/v3/ads/{ad}")).await.expect(200);
        // The goals cannot be read now: the ad's answer is an outage, not "no such ad", and
        // the goal's ads are not an empty list.
        let goals = shared::keys::partition(&app.a.id, shared::keys::GOAL);
        let store: Arc<dyn Store> = Arc::new(Unreadable { inner: app.store.clone(), partition: goals });
        let broken = TestApp {
            router: shared::api::app(app.state.clone().with_store(store)),
            state: app.state.clone(),
            store: app.store.clone(),
            clock: app.clock.clone(),
            a: app.a.clone(),
            b: app.b.clone(),
        };
        let r = broken.get(&format!("/v3/ads/{ad}")).await;
        assert_eq!(r.status, 503, "{}", r.body);
        assert_eq!(r.header("retry-after"), Some("1"));
        let r = broken.get(&format!("/v3/ads?goal.id={goal}")).await;
        assert_eq!(r.status, 503, "{}", r.body);
        // Healthy again: the same answers as before.
        app.get(&format!("/v3/ads/{ad}")).await.expect(200);
        assert_eq!(app.get(&format!("/v3/ads?goal.id={goal}")).await.json()["pagination"]["totalCount"], 1);
    }
}
