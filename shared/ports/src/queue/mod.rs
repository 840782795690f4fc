//! Job queue port: SQS on AWS (the queues feed the worker Lambdas), an in-process channel
//! on the local server (workers run in the same process). Messages are at-least-once in
//! both: workers must be idempotent.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

pub mod durable;
#[cfg(feature = "aws")]
pub mod sqs;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum QueueName {
    /// Asset downloads (`workers::assets`).
    Assets,
    /// Audience batch S3 events and chunk jobs (`workers::audience`).
    Audience,
    /// Tracking events to count (`workers::events`).
    Events,
    /// Forecast jobs (`workers::forecast`).
    Forecast,
    /// Bidders' win, billing and loss notices (`workers::notices`).
    Notices,
    /// Accounts whose delivery snapshot is to be compiled (`workers::compile`).
    Compile,
}

impl QueueName {
    pub const ALL: &'static [QueueName] =
        &[QueueName::Assets, QueueName::Audience, QueueName::Events, QueueName::Forecast, QueueName::Notices, QueueName::Compile];

    pub fn short(self) -> &'static str {
        match self {
            QueueName::Assets => "assets",
            QueueName::Audience => "audience",
            QueueName::Events => "events",
            QueueName::Forecast => "forecast",
            QueueName::Notices => "notices",
            QueueName::Compile => "compile",
        }
    }
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("queue: {context}")]
pub struct QueueError {
    pub context: String,
    #[source]
    pub source: Option<crate::cause::Cause>,
    /// The queue is full or its store busy: the sender should retry later (503).
    pub busy: bool,
}

impl QueueError {
    pub fn msg(context: impl Into<String>) -> QueueError {
        QueueError { context: context.into(), source: None, busy: false }
    }

    pub fn new(context: impl Into<String>, source: impl std::error::Error + Send + Sync + 'static) -> QueueError {
        QueueError { context: context.into(), source: Some(crate::cause::Cause::new(source)), busy: false }
    }

    /// A queue that cannot take the message now (full, or its store busy).
    pub fn full(context: impl Into<String>) -> QueueError {
        QueueError { context: context.into(), source: None, busy: true }
    }
}

#[async_trait]
pub trait Queue: Send + Sync {
    async fn send(&self, queue: QueueName, body: String) -> Result<(), QueueError>;
    /// Several messages at once (SQS: SendMessageBatch, ten a call; the local queue: one
    /// group commit). Queues without it send them one at a time.
    async fn send_batch(&self, queue: QueueName, bodies: Vec<String>) -> Result<(), QueueError> {
        for body in bodies {
            self.send(queue, body).await?;
        }
        Ok(())
    }
    /// A message whose job failed comes back after `delay` instead of the queue's whole
    /// visibility timeout (SQS: ChangeMessageVisibility). Queues without it: nothing.
    async fn retry_later(&self, queue: QueueName, receipt: &str, delay: std::time::Duration) -> Result<(), QueueError> {
        let _ = (queue, receipt, delay);
        Ok(())
    }
    /// Messages of every queue not yet done: waiting, in flight or coming back (SQS: the
    /// approximate visible, in-flight and delayed counts). Operators read it as the backlog;
    /// the tests wait for 0 instead of sleeping. Queues that keep nothing: 0.
    async fn depth(&self) -> Result<u64, QueueError> {
        Ok(0)
    }
    fn kind(&self) -> &'static str;
}

/// When a failed job's message is tried again: 2ⁿ seconds after its n-th receive (with up
/// to 50 % jitter), at most 15 minutes.
pub fn redelivery_delay(receive_count: u32) -> std::time::Duration {
    crate::backoff::Backoff::REDELIVERY.delay(receive_count.clamp(1, 10))
}

/// The queue port of a function that sends no jobs: every send is an error.
pub struct NoQueue;

#[async_trait]
impl Queue for NoQueue {
    async fn send(&self, queue: QueueName, _: String) -> Result<(), QueueError> {
        Err(QueueError::msg(format!("this function sends to no queue ({})", queue.short())))
    }
    fn kind(&self) -> &'static str {
        "none"
    }
}

/// Channels to workers in the same process.
pub struct InProcessQueue {
    senders: Mutex<HashMap<QueueName, mpsc::UnboundedSender<String>>>,
    in_flight: InFlight,
}

/// Messages sent and not yet done (handled, or given up after their retries).
#[derive(Clone, Default)]
pub struct InFlight(Arc<std::sync::atomic::AtomicU64>);

impl InFlight {
    /// `n` messages are done (their handler returned, or the runner gave up).
    pub fn done(&self, n: usize) {
        self.0.fetch_sub(n as u64, std::sync::atomic::Ordering::AcqRel);
    }
    fn sent(&self) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::AcqRel);
    }
    pub fn count(&self) -> u64 {
        self.0.load(std::sync::atomic::Ordering::Acquire)
    }
}

/// The receiving ends, handed to `workers::run_in_process`, with the count of messages in
/// flight the runner keeps.
pub struct Receivers {
    pub queues: Vec<(QueueName, mpsc::UnboundedReceiver<String>)>,
    pub in_flight: InFlight,
}

impl InProcessQueue {
    pub fn new() -> (InProcessQueue, Receivers) {
        let mut senders = HashMap::new();
        let mut receivers = Vec::new();
        for q in QueueName::ALL {
            let (tx, rx) = mpsc::unbounded_channel();
            senders.insert(*q, tx);
            receivers.push((*q, rx));
        }
        let in_flight = InFlight::default();
        (InProcessQueue { senders: Mutex::new(senders), in_flight: in_flight.clone() }, Receivers { queues: receivers, in_flight })
    }
}

#[async_trait]
impl Queue for InProcessQueue {
    async fn send(&self, queue: QueueName, body: String) -> Result<(), QueueError> {
        let senders = self.senders.lock().map_err(|_| QueueError::msg("poisoned"))?;
        let tx = senders.get(&queue).ok_or_else(|| QueueError::msg(format!("no queue {queue:?}")))?;
        // Counted before it can be handled (and done), uncounted when it was not sent.
        self.in_flight.sent();
        tx.send(body).map_err(|_| {
            self.in_flight.done(1);
            QueueError::msg(format!("the {} worker has stopped", queue.short()))
        })
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        Ok(self.in_flight.count())
    }

    fn kind(&self) -> &'static str {
        "in-process"
    }
}
