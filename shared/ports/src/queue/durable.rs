//! The local server's queue (docs/operations.md, "The local queue"): the messages live in the
//! embedded store, so a message accepted is a message kept, through a crash or a restart,
//! as SQS keeps it on AWS. At least once, like SQS:
//! - a message is **received** by moving it to its lease's end (its sort key is the instant
//!   it is visible from), with its receive count + 1, in one transaction on its version (two
//!   receivers never both get it);
//! - **done** deletes it; a **failure** makes it visible again after a backoff
//!   (`redelivery_delay`); past `MAX_RECEIVES` receives it moves to the queue's dead-letter
//!   set (`Q#<queue>#DLQ`), kept and counted, never tried again by itself. A message whose
//!   handler never ended (it took the process down) is received again when its lease ends,
//!   and is buried by the receive past the limit, so it cannot crash the server forever;
//! - the dead-letter set is **bounded** (`MAX_DEAD_LETTERS` a queue, the oldest dropped
//!   first) and each entry **expires** after `DEAD_LETTER_TTL_SECS` (SQS's dead-letter
//!   queues keep 14 days too); `admin dead-letters|redrive|drop-dead-letters <queue>` lists,
//!   sends back or drops them;
//! - a lease not ended by its receiver (the process died) ends by itself at the visibility
//!   timeout; a new process ends every lease at once (one process owns the store file);
//! - **bounded**: a queue holds at most `MAX_QUEUED` messages; past that a sender is told to
//!   retry later (503), and nothing grows in memory;
//! - **group commit**: the messages senders hand in while a commit is under way are written
//!   together by the next (one store batch: one transaction, one fsync, on the embedded
//!   store), and each sender is answered only once its message is kept. A burst of tracking
//!   calls costs a few commits, not one each, and an answered event survives a SIGKILL.
//!
//! Keys: `pk = Q#<queue>`, `sk = <visible-from epoch ms, 13 digits>#<id>`; the body is the
//! message with its receive count. A receive is one query of the visible front plus one
//! transaction a message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::{Queue, QueueError, QueueName};
use crate::store::{Cond, Item, Key, Query, SkCond, Store, StoreError, TxOp, MAX_TRANSACT_ACTIONS};

/// Messages one queue holds at most (waiting, leased or in backoff).
pub const MAX_QUEUED: u64 = 100_000;
/// Receives of a message before it goes to the dead-letter set.
pub const MAX_RECEIVES: u32 = 12;
/// Dead letters one queue keeps at most (the oldest goes first past it).
pub const MAX_DEAD_LETTERS: usize = 1_000;
/// How long a dead letter is kept.
pub const DEAD_LETTER_TTL_SECS: i64 = 14 * 86_400;
/// Messages one receive takes at most (two actions each in one transaction).
pub const RECEIVE_BATCH: usize = MAX_TRANSACT_ACTIONS / 2;
/// Messages one group commit writes at most.
pub const GROUP_COMMIT_MAX: usize = 500;

/// What is stored of a message.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Stored {
    body: String,
    #[serde(default)]
    receives: u32,
    /// Whether a receiver holds it (its sort key is then the lease's end).
    #[serde(default)]
    leased: bool,
}

/// A received message: its body, how many times it was received, and its lease.
#[derive(Debug, Clone)]
pub struct Received {
    pub body: String,
    pub receives: u32,
    lease: Key,
    version: u64,
}

/// A message on its way to the store, and its sender waiting for the commit.
struct Pending {
    item: Item,
    done: tokio::sync::oneshot::Sender<Result<(), StoreError>>,
}

/// Writes what senders hand in: every message waiting when a commit starts goes into it
/// (up to [`GROUP_COMMIT_MAX`]), so the commits of a burst are as few as the store's
/// speed allows; each sender is answered with its commit's outcome.
async fn committer(store: Arc<dyn Store>, mut pending: tokio::sync::mpsc::UnboundedReceiver<Pending>) {
    while let Some(first) = pending.recv().await {
        let mut batch = vec![first];
        while batch.len() < GROUP_COMMIT_MAX {
            match pending.try_recv() {
                Ok(p) => batch.push(p),
                Err(_) => break,
            }
        }
        let items = batch.iter().map(|p| p.item.clone()).collect();
        let outcome = store.batch_write(items, Vec::new()).await;
        for p in batch {
            let _ = p.done.send(outcome.clone());
        }
    }
}

pub struct DurableQueue {
    store: Arc<dyn Store>,
    /// Messages to the group commit.
    commits: tokio::sync::mpsc::UnboundedSender<Pending>,
    /// Messages held, by queue (counted at start, then kept).
    held: HashMap<QueueName, AtomicU64>,
    wake: HashMap<QueueName, tokio::sync::Notify>,
    clock: Arc<dyn Fn() -> i64 + Send + Sync>,
    /// Messages one queue holds at most (`MAX_QUEUED`).
    bound: u64,
}

fn partition(q: QueueName) -> String {
    format!("Q#{}", q.short())
}

fn dead_letters(q: QueueName) -> String {
    format!("Q#{}#DLQ", q.short())
}

fn sort_key(visible_ms: i64, id: &str) -> String {
    format!("{:013}#{id}", visible_ms.max(0))
}

fn store_err(e: StoreError) -> QueueError {
    match e {
        StoreError::Throttled(_) | StoreError::Unavailable(_) => QueueError::full(format!("the queue's store is busy: {e}")),
        e => QueueError::new("the queue's store failed", e),
    }
}

/// How long a receiver holds a message of `q` before it is visible again (the worker died).
pub fn visibility(q: QueueName) -> Duration {
    match q {
        QueueName::Events | QueueName::Notices | QueueName::Compile => Duration::from_secs(60),
        QueueName::Audience => Duration::from_secs(300),
        QueueName::Assets | QueueName::Forecast => Duration::from_secs(900),
    }
}

impl DurableQueue {
    /// The queue over `store`. Every lease a previous process left is ended (this process
    /// owns the store), and the messages held are counted.
    pub async fn open(store: Arc<dyn Store>) -> Result<DurableQueue, QueueError> {
        Self::open_with_clock(store, Arc::new(|| chrono::Utc::now().timestamp_millis())).await
    }

    pub async fn open_with_clock(store: Arc<dyn Store>, clock: Arc<dyn Fn() -> i64 + Send + Sync>) -> Result<DurableQueue, QueueError> {
        let mut held = HashMap::new();
        let mut wake = HashMap::new();
        let now = clock();
        for q in QueueName::ALL {
            let mut n = 0u64;
            let mut cursor = None;
            loop {
                let page = store.query(Query::partition(partition(*q)).limit(500).after(cursor)).await.map_err(store_err)?;
                for item in &page.items {
                    n += 1;
                    let msg: Stored = serde_json::from_str(&item.body).map_err(|e| QueueError::new("a queued message does not read", e))?;
                    if msg.leased {
                        let back = Stored { leased: false, ..msg };
                        Self::move_to(store.as_ref(), item, sort_key(now, id_of(&item.sk)), &back).await.map_err(store_err)?;
                    }
                }
                cursor = page.next;
                if cursor.is_none() {
                    break;
                }
            }
            held.insert(*q, AtomicU64::new(n));
            wake.insert(*q, tokio::sync::Notify::new());
        }
        let (commits, pending) = tokio::sync::mpsc::unbounded_channel();
        tokio::spawn(committer(store.clone(), pending));
        Ok(DurableQueue { store, commits, held, wake, clock, bound: MAX_QUEUED })
    }

    /// The queue with another bound (tests).
    pub fn with_bound(mut self, bound: u64) -> DurableQueue {
        self.bound = bound;
        self
    }

    fn held(&self, q: QueueName) -> &AtomicU64 {
        // Every queue has its counter (made in `open`).
        &self.held[&q]
    }

    /// Moves a message to a new sort key (its visibility) with a new body, on its version.
    async fn move_to(store: &dyn Store, from: &Item, sk: String, msg: &Stored) -> Result<u64, StoreError> {
        let body = serde_json::to_string(msg).map_err(|e| StoreError::Invalid(e.to_string()))?;
        let same = sk == from.sk;
        let next = Item { pk: from.pk.clone(), sk, version: from.version + 1, body, ..Item::default() };
        let version = next.version;
        if same {
            store.put(next, Cond::Version(from.version)).await?;
        } else {
            store.transact(vec![TxOp::Delete(from.key(), Cond::Version(from.version)), TxOp::Put(next, Cond::NotExists)]).await?;
        }
        Ok(version)
    }

    /// Receives up to `max` (at most `RECEIVE_BATCH`) visible messages of `q`, each leased
    /// for `visibility(q)`: one transaction for all of them (one commit), or, when another
    /// receiver took one meanwhile, one a message.
    pub async fn receive(&self, q: QueueName, max: usize) -> Result<Vec<Received>, QueueError> {
        let now = (self.clock)();
        let front = Query::partition(partition(q)).sk(SkCond::Lt(sort_key(now + 1, ""))).limit(max.min(RECEIVE_BATCH));
        let page = self.store.query(front).await.map_err(store_err)?;
        let until = now + visibility(q).as_millis() as i64;
        let mut moves = Vec::new();
        for item in page.items {
            match serde_json::from_str::<Stored>(&item.body) {
                Ok(msg) if msg.receives >= MAX_RECEIVES => {
                    // Received every time it may be and never settled (its handler took the
                    // process down): a dead letter, not another try.
                    tracing::error!(
                        queue = q.short(),
                        receives = msg.receives,
                        "message never settled in its receives; kept as a dead letter"
                    );
                    self.bury(q, &item).await?;
                }
                Ok(msg) => {
                    let leased = Stored { receives: msg.receives + 1, leased: true, body: msg.body };
                    let body = serde_json::to_string(&leased).map_err(|e| QueueError::new("a message does not serialise", e))?;
                    let next = Item {
                        pk: item.pk.clone(),
                        sk: sort_key(until, id_of(&item.sk)),
                        version: item.version + 1,
                        body,
                        ..Item::default()
                    };
                    moves.push((item, next, leased));
                }
                Err(_) => {
                    tracing::error!(queue = q.short(), key = item.sk, "a queued message does not read; moved to the dead letters");
                    self.bury(q, &item).await?;
                }
            }
        }
        let received = |(_, next, leased): &(Item, Item, Stored)| Received {
            body: leased.body.clone(),
            receives: leased.receives,
            lease: next.key(),
            version: next.version,
        };
        let tx: Vec<TxOp> = moves
            .iter()
            .flat_map(|(from, next, _)| [TxOp::Delete(from.key(), Cond::Version(from.version)), TxOp::Put(next.clone(), Cond::NotExists)])
            .collect();
        if tx.is_empty() {
            return Ok(Vec::new());
        }
        match self.store.transact(tx).await {
            Ok(()) => return Ok(moves.iter().map(received).collect()),
            Err(StoreError::ConditionFailed | StoreError::TransactionCanceled { .. }) => {}
            Err(e) => return Err(store_err(e)),
        }
        // Another receiver took one of them: each on its own.
        let mut got = Vec::new();
        for m in &moves {
            let tx = vec![TxOp::Delete(m.0.key(), Cond::Version(m.0.version)), TxOp::Put(m.1.clone(), Cond::NotExists)];
            match self.store.transact(tx).await {
                Ok(()) => got.push(received(m)),
                Err(StoreError::ConditionFailed | StoreError::TransactionCanceled { .. }) => {}
                Err(e) => return Err(store_err(e)),
            }
        }
        Ok(got)
    }

    /// The message is done: removed.
    pub async fn done(&self, q: QueueName, m: &Received) -> Result<(), QueueError> {
        self.all_done(q, std::slice::from_ref(m)).await
    }

    /// The messages are done: removed in one transaction (one commit), or one by one when
    /// a lease ended meanwhile and another receiver has that message (it finishes it).
    pub async fn all_done(&self, q: QueueName, ms: &[Received]) -> Result<(), QueueError> {
        for chunk in ms.chunks(MAX_TRANSACT_ACTIONS) {
            let tx: Vec<TxOp> = chunk.iter().map(|m| TxOp::Delete(m.lease.clone(), Cond::Version(m.version))).collect();
            match self.store.transact(tx).await {
                Ok(()) => {
                    self.held(q).fetch_sub(chunk.len() as u64, Ordering::AcqRel);
                    continue;
                }
                Err(StoreError::ConditionFailed | StoreError::TransactionCanceled { .. }) => {}
                Err(e) => return Err(store_err(e)),
            }
            for m in chunk {
                match self.store.delete(&m.lease, Cond::Version(m.version)).await {
                    Ok(()) => {
                        self.held(q).fetch_sub(1, Ordering::AcqRel);
                    }
                    Err(StoreError::ConditionFailed) => {}
                    Err(e) => return Err(store_err(e)),
                }
            }
        }
        Ok(())
    }

    /// The message failed: visible again after `delay`, or (past `MAX_RECEIVES`) a dead letter.
    pub async fn failed(&self, q: QueueName, m: &Received, delay: Duration) -> Result<(), QueueError> {
        let Some(item) = self.store.get(&m.lease).await.map_err(store_err)?.filter(|i| i.version == m.version) else { return Ok(()) };
        if m.receives >= MAX_RECEIVES {
            tracing::error!(queue = q.short(), receives = m.receives, "message failed every receive; kept as a dead letter");
            return self.bury(q, &item).await;
        }
        let back = Stored { body: m.body.clone(), receives: m.receives, leased: false };
        let sk = sort_key((self.clock)() + delay.as_millis() as i64, id_of(&item.sk));
        match Self::move_to(self.store.as_ref(), &item, sk, &back).await {
            Ok(_) | Err(StoreError::ConditionFailed | StoreError::TransactionCanceled { .. }) => Ok(()),
            Err(e) => Err(store_err(e)),
        }
    }

    /// Moves a message to the queue's dead letters (kept for an operator, for
    /// `DEAD_LETTER_TTL_SECS`; not tried again), dropping the oldest past `MAX_DEAD_LETTERS`.
    async fn bury(&self, q: QueueName, item: &Item) -> Result<(), QueueError> {
        let expires = (self.clock)() / 1000 + DEAD_LETTER_TTL_SECS;
        let dead = Item {
            pk: dead_letters(q),
            sk: item.sk.clone(),
            version: 1,
            body: item.body.clone(),
            expires_at: Some(expires),
            ..Item::default()
        };
        let tx = vec![TxOp::Delete(item.key(), Cond::Version(item.version)), TxOp::Put(dead, Cond::None)];
        match self.store.transact(tx).await {
            Ok(()) => {
                self.held(q).fetch_sub(1, Ordering::AcqRel);
            }
            Err(StoreError::ConditionFailed | StoreError::TransactionCanceled { .. }) => return Ok(()),
            Err(e) => return Err(store_err(e)),
        }
        let kept = self.store.query(Query::partition(dead_letters(q)).keys_only().limit(MAX_DEAD_LETTERS + 1)).await.map_err(store_err)?;
        if kept.items.len() > MAX_DEAD_LETTERS {
            if let Some(oldest) = kept.items.first() {
                self.store.delete(&oldest.key(), Cond::None).await.map_err(store_err)?;
            }
        }
        Ok(())
    }

    /// The dead letters of `q`, oldest first: each message's body and its receives.
    pub async fn dead_letters(&self, q: QueueName) -> Result<Vec<(String, u32)>, QueueError> {
        let page = self.store.query(Query::partition(dead_letters(q)).limit(MAX_DEAD_LETTERS)).await.map_err(store_err)?;
        Ok(page
            .items
            .iter()
            .map(|i| match serde_json::from_str::<Stored>(&i.body) {
                Ok(m) => (m.body, m.receives),
                Err(_) => (i.body.clone(), 0),
            })
            .collect())
    }

    /// Dead letters of `q` (operators; tests).
    pub async fn dead_letter_count(&self, q: QueueName) -> Result<usize, QueueError> {
        Ok(self.dead_letters(q).await?.len())
    }

    /// Sends every dead letter of `q` back to the queue (visible now, its receives counted
    /// from 0); answers how many.
    pub async fn redrive(&self, q: QueueName) -> Result<usize, QueueError> {
        let page = self.store.query(Query::partition(dead_letters(q)).limit(MAX_DEAD_LETTERS)).await.map_err(store_err)?;
        let mut n = 0;
        for item in page.items {
            let body = serde_json::from_str::<Stored>(&item.body).map(|m| m.body).unwrap_or_else(|_| item.body.clone());
            self.send(q, body).await?;
            self.store.delete(&item.key(), Cond::Version(item.version)).await.map_err(store_err)?;
            n += 1;
        }
        Ok(n)
    }

    /// Drops every dead letter of `q`; answers how many.
    pub async fn drop_dead_letters(&self, q: QueueName) -> Result<usize, QueueError> {
        let page = self.store.query(Query::partition(dead_letters(q)).keys_only().limit(MAX_DEAD_LETTERS)).await.map_err(store_err)?;
        for item in &page.items {
            self.store.delete(&item.key(), Cond::None).await.map_err(store_err)?;
        }
        Ok(page.items.len())
    }

    /// Waits until a message may be visible in `q`: a send, or `at_most`.
    pub async fn wait(&self, q: QueueName, at_most: Duration) {
        let _ = tokio::time::timeout(at_most, self.wake[&q].notified()).await;
    }
}

/// A message id that sorts in sending order within a millisecond (and across restarts, by
/// starting from the clock): oldest first, as far as a standard queue promises it.
fn next_id() -> String {
    static NEXT: std::sync::OnceLock<AtomicU64> = std::sync::OnceLock::new();
    let next = NEXT.get_or_init(|| AtomicU64::new(chrono::Utc::now().timestamp_micros().max(0) as u64 * 1000));
    format!("{:020}", next.fetch_add(1, Ordering::Relaxed))
}

fn id_of(sk: &str) -> &str {
    sk.split_once('#').map_or(sk, |(_, id)| id)
}

#[async_trait]
impl Queue for DurableQueue {
    async fn send(&self, queue: QueueName, body: String) -> Result<(), QueueError> {
        self.send_batch(queue, vec![body]).await
    }

    /// The messages go into the next group commit together; answered once they are kept.
    async fn send_batch(&self, queue: QueueName, bodies: Vec<String>) -> Result<(), QueueError> {
        let n = bodies.len() as u64;
        let held = self.held(queue);
        if held.fetch_add(n, Ordering::AcqRel) + n > self.bound {
            held.fetch_sub(n, Ordering::AcqRel);
            return Err(QueueError::full(format!("the {} queue holds {} messages: retry later", queue.short(), self.bound)));
        }
        let mut waits = Vec::with_capacity(bodies.len());
        for body in bodies {
            let msg = Stored { body, receives: 0, leased: false };
            let made = serde_json::to_string(&msg).map_err(|e| QueueError::new("a message does not serialise", e));
            let (done, kept) = tokio::sync::oneshot::channel();
            let handed = made.and_then(|body| {
                let item = Item { pk: partition(queue), sk: sort_key((self.clock)(), &next_id()), version: 1, body, ..Item::default() };
                self.commits.send(Pending { item, done }).map_err(|_| QueueError::msg("the queue's committer has stopped"))
            });
            if let Err(e) = handed {
                held.fetch_sub(n, Ordering::AcqRel);
                return Err(e);
            }
            waits.push(kept);
        }
        let (mut failed, mut lost) = (None, 0);
        for kept in waits {
            let e = match kept.await {
                Ok(Ok(())) => continue,
                Ok(Err(e)) => store_err(e),
                Err(_) => QueueError::msg("the queue's committer has stopped"),
            };
            lost += 1;
            failed = Some(e);
        }
        if let Some(e) = failed {
            // The messages of a failed commit are not kept (a batch split over two commits
            // may have kept the others: the sender sends again, at least once as SQS).
            held.fetch_sub(lost, Ordering::AcqRel);
            return Err(e);
        }
        self.wake[&queue].notify_one();
        Ok(())
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        Ok(QueueName::ALL.iter().map(|q| self.held(*q).load(Ordering::Acquire)).sum())
    }

    fn kind(&self) -> &'static str {
        "durable"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::embedded::EmbeddedStore;
    use std::sync::atomic::AtomicI64;

    async fn queue(store: Arc<dyn Store>, now: Arc<AtomicI64>) -> DurableQueue {
        DurableQueue::open_with_clock(store, Arc::new(move || now.load(Ordering::SeqCst))).await.unwrap()
    }

    #[tokio::test]
    async fn a_message_that_takes_its_process_down_ends_a_dead_letter() {
        let store: Arc<dyn Store> = Arc::new(EmbeddedStore::in_memory().unwrap());
        let now = Arc::new(AtomicI64::new(1_000_000));
        queue(store.clone(), now.clone()).await.send(QueueName::Assets, "poison".into()).await.unwrap();
        // Each process receives it and dies before settling it (its handler crashed the
        // process); the next one ends the lease and receives it again.
        for n in 1..=MAX_RECEIVES {
            let q = queue(store.clone(), now.clone()).await;
            let got = q.receive(QueueName::Assets, 1).await.unwrap();
            assert_eq!(got.iter().map(|m| m.receives).collect::<Vec<_>>(), [n]);
        }
        // Past the limit the receive buries it: the server serves on, the message waits for
        // an operator.
        let q = queue(store.clone(), now.clone()).await;
        assert!(q.receive(QueueName::Assets, 1).await.unwrap().is_empty());
        assert_eq!(q.depth().await.unwrap(), 0);
        assert_eq!(q.dead_letters(QueueName::Assets).await.unwrap(), [("poison".to_string(), MAX_RECEIVES)]);
        let dead = store.query(Query::partition(dead_letters(QueueName::Assets))).await.unwrap().items;
        assert_eq!(dead[0].expires_at, Some(1_000 + DEAD_LETTER_TTL_SECS), "a dead letter expires");
        // Redriven, it is a message again with its receives from 0; dropped, it is gone.
        assert_eq!(q.redrive(QueueName::Assets).await.unwrap(), 1);
        assert_eq!(
            q.receive(QueueName::Assets, 1).await.unwrap().iter().map(|m| (m.body.as_str(), m.receives)).collect::<Vec<_>>(),
            [("poison", 1)]
        );
        assert_eq!(q.dead_letter_count(QueueName::Assets).await.unwrap(), 0);
        q.bury(QueueName::Assets, &store.query(Query::partition(partition(QueueName::Assets))).await.unwrap().items[0]).await.unwrap();
        assert_eq!(q.drop_dead_letters(QueueName::Assets).await.unwrap(), 1);
        assert_eq!(q.dead_letter_count(QueueName::Assets).await.unwrap(), 0);
    }

    #[tokio::test]
    async fn the_dead_letters_are_bounded_the_oldest_dropped_first() {
        let store: Arc<dyn Store> = Arc::new(EmbeddedStore::in_memory().unwrap());
        let now = Arc::new(AtomicI64::new(1_000_000));
        let q = queue(store.clone(), now.clone()).await;
        for i in 0..=MAX_DEAD_LETTERS {
            q.send(QueueName::Notices, format!("m{i}")).await.unwrap();
        }
        let all = store.query(Query::partition(partition(QueueName::Notices)).limit(MAX_DEAD_LETTERS + 1)).await.unwrap().items;
        for item in &all {
            q.bury(QueueName::Notices, item).await.unwrap();
        }
        let dead = q.dead_letters(QueueName::Notices).await.unwrap();
        assert_eq!(dead.len(), MAX_DEAD_LETTERS);
        assert_eq!(dead[0].0, "m1", "the oldest went first");
    }

    #[tokio::test]
    async fn messages_are_leased_done_retried_buried_and_outlive_their_process() {
        let store: Arc<dyn Store> = Arc::new(EmbeddedStore::in_memory().unwrap());
        let now = Arc::new(AtomicI64::new(1_000_000));
        let q = queue(store.clone(), now.clone()).await.with_bound(3);
        for b in ["a", "b", "c"] {
            q.send(QueueName::Forecast, b.into()).await.unwrap();
        }
        // Bounded: a fourth is refused as busy (503), nothing stored.
        assert!(q.send(QueueName::Forecast, "d".into()).await.unwrap_err().busy);
        assert_eq!(q.depth().await.unwrap(), 3);
        // Oldest first, each leased: not received again while its lease runs.
        let got = q.receive(QueueName::Forecast, 2).await.unwrap();
        assert_eq!(got.iter().map(|m| (m.body.as_str(), m.receives)).collect::<Vec<_>>(), [("a", 1), ("b", 1)]);
        assert_eq!(q.receive(QueueName::Forecast, 5).await.unwrap().iter().map(|m| m.body.clone()).collect::<Vec<_>>(), ["c"]);
        assert!(q.receive(QueueName::Forecast, 5).await.unwrap().is_empty());
        q.done(QueueName::Forecast, &got[0]).await.unwrap();
        assert_eq!(q.depth().await.unwrap(), 2);
        // A failure: back after its delay, with its receive count.
        q.failed(QueueName::Forecast, &got[1], Duration::from_millis(500)).await.unwrap();
        assert!(q.receive(QueueName::Forecast, 5).await.unwrap().is_empty());
        now.fetch_add(500, Ordering::SeqCst);
        let again = q.receive(QueueName::Forecast, 5).await.unwrap();
        assert_eq!((again[0].body.as_str(), again[0].receives), ("b", 2));
        // A lease that is never ended ends by itself at the visibility timeout.
        now.fetch_add(visibility(QueueName::Forecast).as_millis() as i64, Ordering::SeqCst);
        let back = q.receive(QueueName::Forecast, 5).await.unwrap();
        assert_eq!(back.iter().map(|m| m.body.as_str()).collect::<Vec<_>>(), ["c", "b"], "by when each became visible");
        // A new process over the same store ends every lease at once and counts what is held.
        let q2 = queue(store.clone(), now.clone()).await;
        assert_eq!(q2.depth().await.unwrap(), 2);
        let mut last = q2.receive(QueueName::Forecast, 1).await.unwrap();
        assert_eq!(last[0].body, "b");
        // Past the receive limit: a dead letter, kept apart, no longer held.
        while last[0].receives < MAX_RECEIVES {
            q2.failed(QueueName::Forecast, &last[0], Duration::ZERO).await.unwrap();
            last = q2.receive(QueueName::Forecast, 1).await.unwrap();
        }
        q2.failed(QueueName::Forecast, &last[0], Duration::ZERO).await.unwrap();
        assert_eq!(q2.dead_letter_count(QueueName::Forecast).await.unwrap(), 1);
        assert_eq!(q2.depth().await.unwrap(), 1);
        // The stale lease of the first process changes nothing now.
        q.done(QueueName::Forecast, &got[1]).await.unwrap();
        assert_eq!(q2.receive(QueueName::Forecast, 5).await.unwrap().iter().map(|m| m.body.clone()).collect::<Vec<_>>(), ["c"]);
    }

    /// A burst of sends is kept by a few commits, not one each, and every message of it is
    /// there to receive.
    #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
    async fn a_burst_of_sends_is_committed_together() {
        let store: Arc<dyn Store> = Arc::new(EmbeddedStore::in_memory().unwrap());
        let q = Arc::new(queue(store.clone(), Arc::new(AtomicI64::new(1_000_000))).await);
        let before = store.round_trips();
        let sends: Vec<_> = (0..400)
            .map(|i| {
                let q = q.clone();
                tokio::spawn(async move { q.send(QueueName::Events, format!("m{i}")).await })
            })
            .collect();
        for s in sends {
            s.await.unwrap().unwrap();
        }
        let trips = store.round_trips() - before;
        assert!(trips < 200, "400 sends cost {trips} store round trips");
        q.send_batch(QueueName::Notices, (0..30).map(|i| format!("n{i}")).collect()).await.unwrap();
        assert_eq!(q.depth().await.unwrap(), 430);
        let mut got = 0;
        while got < 400 {
            let r = q.receive(QueueName::Events, 50).await.unwrap();
            assert!(!r.is_empty(), "only {got} of 400 received");
            got += r.len();
        }
        assert_eq!(got, 400);
    }
}
