//! Workers: pure functions over the ports, fed by SQS on AWS and by in-process channels on
//! the local server. At-least-once delivery: every worker is idempotent.

use std::time::Duration;

use crate::cause::Cause;
use crate::queue::{QueueName, Receivers};
use crate::state::AppState;

pub mod assets;
pub mod audience;
pub mod durable_runner;
pub mod events;
pub mod forecast;
pub mod janitor;
pub mod transcode;

/// Why a job did not finish, and what the queue should do with its message.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// Worth another delivery (a store or network failure, a lost race, a lease held by
    /// another worker): the message stays on the queue and SQS delivers it again.
    #[error("retry: {0}")]
    Retry(#[source] Cause),
    /// Can never succeed (a malformed message): logged and deleted.
    #[error("drop: {0}")]
    Drop(String),
}

pub type JobResult<T> = Result<T, JobError>;

impl JobError {
    pub fn retry(e: impl std::error::Error + Send + Sync + 'static) -> JobError {
        JobError::Retry(Cause::new(e))
    }
}

impl JobError {
    /// A failure worth another delivery, said in words.
    pub fn retry_msg(m: impl Into<String>) -> JobError {
        JobError::Retry(Cause::msg(m))
    }
}

impl From<crate::repo::RepoError> for JobError {
    fn from(e: crate::repo::RepoError) -> JobError {
        JobError::retry(e)
    }
}

impl From<crate::usecases::UseCaseError> for JobError {
    fn from(e: crate::usecases::UseCaseError) -> JobError {
        JobError::retry(e)
    }
}

impl From<crate::blobs::BlobError> for JobError {
    fn from(e: crate::blobs::BlobError) -> JobError {
        JobError::retry(e)
    }
}

impl From<crate::queue::QueueError> for JobError {
    fn from(e: crate::queue::QueueError) -> JobError {
        JobError::retry(e)
    }
}

impl From<serde_json::Error> for JobError {
    fn from(e: serde_json::Error) -> JobError {
        JobError::retry(e)
    }
}

impl From<std::io::Error> for JobError {
    fn from(e: std::io::Error) -> JobError {
        JobError::retry(e)
    }
}

/// The jobs of one queue: what a worker Lambda runs and links (its `serve_*` entry point is
/// generic over this, so no worker carries another queue's code).
#[async_trait::async_trait]
pub trait Jobs: Send + Sync + 'static {
    const QUEUE: QueueName;
    /// Handles one message.
    async fn run(st: &AppState, body: &str) -> JobResult<()>;
}

/// Asset downloads and transcodes, and the media engine's completions.
pub struct AssetJobs;
/// Audience batch files and their chunks.
pub struct AudienceJobs;
/// Forecast jobs.
pub struct ForecastJobs;

#[async_trait::async_trait]
impl Jobs for AssetJobs {
    const QUEUE: QueueName = QueueName::Assets;
    async fn run(st: &AppState, body: &str) -> JobResult<()> {
        match crate::media::job_events::parse_event(body, &st.settings.bucket_name) {
            Some(completion) => transcode::completion(st, completion.map_err(JobError::Drop)?).await,
            None => assets::process(st, &assets::AssetJob::parse(body).map_err(JobError::Drop)?).await,
        }
    }
}

#[async_trait::async_trait]
impl Jobs for AudienceJobs {
    const QUEUE: QueueName = QueueName::Audience;
    async fn run(st: &AppState, body: &str) -> JobResult<()> {
        audience::dispatch(st, body).await
    }
}

#[async_trait::async_trait]
impl Jobs for ForecastJobs {
    const QUEUE: QueueName = QueueName::Forecast;
    async fn run(st: &AppState, body: &str) -> JobResult<()> {
        forecast::process(st, &forecast::parse(body)?).await
    }
}

/// One event message on its own (the events worker counts batches: `events::process_messages`).
async fn one_event_message(st: &AppState, body: &str) -> JobResult<()> {
    events::parse(body)?;
    if events::process_messages(st, &[body]).await.is_empty() {
        Ok(())
    } else {
        Err(JobError::retry_msg("events not counted yet (a group failed, or an impression is awaited)"))
    }
}

/// Handles one message of a queue.
pub async fn dispatch(st: &AppState, q: QueueName, body: &str) -> JobResult<()> {
    match q {
        QueueName::Assets => AssetJobs::run(st, body).await,
        QueueName::Audience => AudienceJobs::run(st, body).await,
        QueueName::Events => one_event_message(st, body).await,
        QueueName::Forecast => ForecastJobs::run(st, body).await,
    }
}

/// Whether a message is done with after `outcome` (`false`: leave it for redelivery).
fn settled(q: QueueName, outcome: JobResult<()>, body: &str) -> bool {
    match outcome {
        Ok(()) => true,
        Err(JobError::Retry(cause)) => {
            tracing::warn!(queue = q.short(), cause = %cause.chain(), "job failed; the message will be delivered again");
            false
        }
        Err(JobError::Drop(reason)) => {
            tracing::error!(queue = q.short(), %reason, body, "message dropped: retrying cannot help");
            true
        }
    }
}

/// Runs one message and says whether it is done (`false`: leave it for redelivery).
pub async fn settle(st: &AppState, q: QueueName, body: &str) -> bool {
    settled(q, dispatch(st, q, body).await, body)
}

/// `settle` for the jobs of one queue, known when the worker is built.
pub async fn settle_jobs<J: Jobs>(st: &AppState, body: &str) -> bool {
    settled(J::QUEUE, J::run(st, body).await, body)
}

/// Runs the workers in this process (local server, tests): each message is tried up to
/// five times with backoff, like SQS redelivery before the dead-letter queue. Tracking
/// events are counted in batches, as SQS hands them to the Lambda, and only the messages
/// of a batch that failed come back.
pub fn run_in_process(state_of: impl Fn(QueueName) -> AppState, receivers: Receivers) {
    let in_flight = receivers.in_flight;
    for (q, mut rx) in receivers.queues {
        let st = state_of(q);
        let in_flight = in_flight.clone();
        tokio::spawn(async move {
            while let Some(first) = rx.recv().await {
                let st = st.clone();
                if q == QueueName::Events {
                    let mut batch = vec![first];
                    while batch.len() < events::IN_PROCESS_BATCH {
                        match rx.try_recv() {
                            Ok(b) => batch.push(b),
                            Err(_) => break,
                        }
                    }
                    let done = Done(in_flight.clone(), batch.len());
                    tokio::spawn(async move {
                        events_in_process(&st, batch).await;
                        drop(done);
                    });
                    continue;
                }
                let done = Done(in_flight.clone(), 1);
                tokio::spawn(async move {
                    let _done = done;
                    for attempt in 0..5u32 {
                        if settle(&st, q, &first).await {
                            return;
                        }
                        tracing::debug!(queue = q.short(), attempt, "retrying in process");
                        tokio::time::sleep(Duration::from_millis(200 << attempt)).await;
                    }
                    tracing::error!(queue = q.short(), body = first, "job failed five times; dropped (dead letter)");
                });
            }
        });
    }
}

/// Messages of the in-process queue done when this is dropped (also when the task running
/// them panics).
struct Done(crate::queue::InFlight, usize);

impl Drop for Done {
    fn drop(&mut self) {
        self.0.done(self.1);
    }
}

/// Attempts of an event message in process: with the backoff below they span about three
/// minutes, longer than an event may wait for its impression
/// (`delivery::counting::IMPRESSION_GRACE_SECS`), as SQS's redeliveries do on AWS.
const EVENT_ATTEMPTS: u32 = 12;

/// A batch of event messages, the failed ones tried again with backoff (200 ms doubling, at
/// most 30 s) up to `EVENT_ATTEMPTS` times.
async fn events_in_process(st: &AppState, mut batch: Vec<String>) {
    for attempt in 0..EVENT_ATTEMPTS {
        let bodies: Vec<&str> = batch.iter().map(String::as_str).collect();
        let failed = events::process_messages(st, &bodies).await;
        if failed.is_empty() {
            return;
        }
        batch = failed.into_iter().filter_map(|i| batch.get(i).cloned()).collect();
        tracing::debug!(attempt, messages = batch.len(), "event messages retried in process");
        tokio::time::sleep(Duration::from_millis((200u64 << attempt.min(8)).min(30_000))).await;
    }
    tracing::error!(messages = batch.len(), "event messages failed every attempt; dropped (dead letter)");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_process_event_retries_outlast_the_wait_for_an_impression() {
        let total: u64 = (0..EVENT_ATTEMPTS - 1).map(|a| (200u64 << a.min(8)).min(30_000)).sum();
        assert!(total / 1000 > crate::delivery::counting::IMPRESSION_GRACE_SECS as u64, "{total} ms");
    }
}
