//! Workers: pure functions over the ports, fed by SQS on AWS and by the durable local queue
//! on the local server (`durable_runner`). At-least-once delivery: every worker is idempotent.

use crate::cause::Cause;
use crate::queue::QueueName;
use crate::state::AppState;

pub mod assets;
pub mod audience;
pub mod compile;
pub mod durable_runner;
pub mod events;
pub mod forecast;
pub mod janitor;
pub mod notices;
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
/// Bidders' notices.
pub struct NoticeJobs;
/// Accounts to compile.
pub struct CompileJobs;

#[async_trait::async_trait]
impl Jobs for NoticeJobs {
    const QUEUE: QueueName = QueueName::Notices;
    async fn run(st: &AppState, body: &str) -> JobResult<()> {
        notices::process(st, body).await
    }
}

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

#[async_trait::async_trait]
impl Jobs for CompileJobs {
    const QUEUE: QueueName = QueueName::Compile;
    async fn run(st: &AppState, body: &str) -> JobResult<()> {
        compile::process(st, &compile::parse(body)?).await
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

/// Handles one message of a queue; a job that changed what an account serves (an asset
/// that became playable) queues the account's compile when it ends.
pub async fn dispatch(st: &AppState, q: QueueName, body: &str) -> JobResult<()> {
    let (st, work) = within_job(st);
    let st = &st;
    let out = match q {
        QueueName::Assets => AssetJobs::run(st, body).await,
        QueueName::Audience => AudienceJobs::run(st, body).await,
        QueueName::Events => one_event_message(st, body).await,
        QueueName::Forecast => ForecastJobs::run(st, body).await,
        QueueName::Notices => NoticeJobs::run(st, body).await,
        QueueName::Compile => CompileJobs::run(st, body).await,
    };
    crate::usecases::compile::requested_by(st, &work).await;
    out
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
    let (st, work) = within_job(st);
    let out = J::run(&st, body).await;
    crate::usecases::compile::requested_by(&st, &work).await;
    settled(J::QUEUE, out, body)
}

/// The state of one job: its unit of work keeps no history, and gathers the compiles its
/// writes ask for (queued when the job ends).
fn within_job(st: &AppState) -> (AppState, std::sync::Arc<crate::repo::changes::Work>) {
    let work = crate::repo::changes::Work::unrecorded();
    (st.clone().with_work(work.clone()), work)
}
