//! The local server's queue (docs/operations.md, "The local queue"): the messages live in the
//! embedded store, so a message accepted is a message kept, through a crash or a restart,
//! as SQS keeps it on AWS. At least once, like SQS:
//! - a message is **received** by moving it to its lease's end (its sort key is the instant
//!   it is visible from), with its receive count + 1, in one transaction on its version (two
//!   receivers never both get it);
//! - **done** deletes it; a **failure** makes it visible again after a backoff
//!   (`redelivery_delay`); past `MAX_RECEIVES` receives it moves to the queue's dead-letter
//!   set (`Q#<queue>#DLQ`), kept and counted, never tried again by itself;
//! - a lease not ended by its receiver (the process died) ends by itself at the visibility
//!   timeout; a new process ends every lease at once (one process owns the store file);
//! - **bounded**: a queue holds at most `MAX_QUEUED` messages; past that a sender is told to
//!   retry later (503), and nothing grows in memory.
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
use crate::store::{Cond, Item, Key, Query, SkCond, Store, StoreError, TxOp};

/// Messages one queue holds at most (waiting, leased or in backoff).
pub const MAX_QUEUED: u64 = 100_000;
/// Receives of a message before it goes to the dead-letter set.
pub const MAX_RECEIVES: u32 = 12;
/// Messages one receive takes at most.
pub const RECEIVE_BATCH: usize = 25;

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

pub struct DurableQueue {
    store: Arc<dyn Store>,
    /// Messages held, by queue (counted at start, then kept).
    held: HashMap<QueueName, AtomicU64>,
    wake: HashMap<QueueName, tokio::sync::Notify>,
    clock: Arc<dyn Fn() -> i64 + Send + Sync>,
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
        QueueName::Events => Duration::from_secs(60),
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
        Ok(DurableQueue { store, held, wake, clock })
    }

    fn held(&self, q: QueueName) -> &AtomicU64 {
        // Every queue has its counter (made in `open`).
        &self.held[&q]
    }

    /// Moves a message to a new sort key (its visibility) with a new body, on its version.
    async fn move_to(store: &dyn Store, from: &Item, sk: String, msg: &Stored) -> Result<u64, StoreError> {
        let body = serde_json::to_string(msg).map_err(|e| StoreError::Invalid(e.to_string()))?;
        let next = Item { pk: from.pk.clone(), sk, version: from.version + 1, body, ..Item::default() };
        let version = next.version;
        store.transact(vec![TxOp::Delete(from.key(), Cond::Version(from.version)), TxOp::Put(next, Cond::NotExists)]).await?;
        Ok(version)
    }

    /// Receives up to `max` visible messages of `q`, each leased for `visibility(q)`.
    pub async fn receive(&self, q: QueueName, max: usize) -> Result<Vec<Received>, QueueError> {
        let now = (self.clock)();
        let front = Query::partition(partition(q)).sk(SkCond::Lt(sort_key(now + 1, ""))).limit(max);
        let page = self.store.query(front).await.map_err(store_err)?;
        let until = now + visibility(q).as_millis() as i64;
        let mut got = Vec::new();
        for item in page.items {
            let Ok(msg) = serde_json::from_str::<Stored>(&item.body) else {
                tracing::error!(queue = q.short(), key = item.sk, "a queued message does not read; moved to the dead letters");
                self.bury(q, &item).await?;
                continue;
            };
            let leased = Stored { receives: msg.receives + 1, leased: true, body: msg.body.clone() };
            let sk = sort_key(until, id_of(&item.sk));
            match Self::move_to(self.store.as_ref(), &item, sk.clone(), &leased).await {
                Ok(version) => {
                    got.push(Received { body: msg.body, receives: leased.receives, lease: Key::new(item.pk.clone(), sk), version })
                }
                // Another receiver took it first.
                Err(StoreError::ConditionFailed | StoreError::TransactionCanceled { .. }) => {}
                Err(e) => return Err(store_err(e)),
            }
        }
        Ok(got)
    }

    /// The message is done: removed.
    pub async fn done(&self, q: QueueName, m: &Received) -> Result<(), QueueError> {
        match self.store.delete(&m.lease, Cond::Version(m.version)).await {
            Ok(()) => {
                self.held(q).fetch_sub(1, Ordering::AcqRel);
                Ok(())
            }
            // Its lease ended and another receiver has it: that one finishes it.
            Err(StoreError::ConditionFailed) => Ok(()),
            Err(e) => Err(store_err(e)),
        }
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

    /// Moves a message to the queue's dead letters (kept for an operator; not tried again).
    async fn bury(&self, q: QueueName, item: &Item) -> Result<(), QueueError> {
        let dead = Item { pk: dead_letters(q), sk: item.sk.clone(), version: 1, body: item.body.clone(), ..Item::default() };
        let tx = vec![TxOp::Delete(item.key(), Cond::Version(item.version)), TxOp::Put(dead, Cond::None)];
        match self.store.transact(tx).await {
            Ok(()) => {
                self.held(q).fetch_sub(1, Ordering::AcqRel);
                Ok(())
            }
            Err(StoreError::ConditionFailed | StoreError::TransactionCanceled { .. }) => Ok(()),
            Err(e) => Err(store_err(e)),
        }
    }

    /// Dead letters of `q` (operators; tests).
    pub async fn dead_letter_count(&self, q: QueueName) -> Result<usize, QueueError> {
        Ok(self.store.query(Query::partition(dead_letters(q))).await.map_err(store_err)?.items.len())
    }

    /// Waits until a message may be visible in `q`: a send, or `at_most`.
    pub async fn wait(&self, q: QueueName, at_most: Duration) {
        let _ = tokio::time::timeout(at_most, self.wake[&q].notified()).await;
    }
}

fn id_of(sk: &str) -> &str {
    sk.split_once('#').map_or(sk, |(_, id)| id)
}

#[async_trait]
impl Queue for DurableQueue {
    async fn send(&self, queue: QueueName, body: String) -> Result<(), QueueError> {
        let held = self.held(queue);
        if held.fetch_add(1, Ordering::AcqRel) >= MAX_QUEUED {
            held.fetch_sub(1, Ordering::AcqRel);
            return Err(QueueError::full(format!("the {} queue holds {MAX_QUEUED} messages: retry later", queue.short())));
        }
        let msg = Stored { body, receives: 0, leased: false };
        let body = serde_json::to_string(&msg).map_err(|e| QueueError::new("a message does not serialise", e))?;
        let sk = sort_key((self.clock)(), &crate::ids::new_id());
        let item = Item { pk: partition(queue), sk, version: 1, body, ..Item::default() };
        if let Err(e) = self.store.put(item, Cond::NotExists).await {
            held.fetch_sub(1, Ordering::AcqRel);
            return Err(store_err(e));
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
