//! The entry points every Lambda shares: settings and SDK clients built once, outside the
//! handler, then the function's own router (chosen at compile time by its `main`, so the
//! linker drops every other group) handed to `lambda_http`, or its worker to `lambda_runtime`.

use aws_lambda_events::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use lambda_runtime::{service_fn, LambdaEvent};
use tracing::Instrument;

use crate::assemble;
use crate::queue::QueueName;
use crate::state::AppState;
use crate::workers::{AssetJobs, AudienceJobs, CompileJobs, ForecastJobs, Jobs, NoticeJobs};

pub type LambdaError = lambda_http::Error;
pub type WorkerError = lambda_runtime::Error;

/// The docs function: the API's documentation (`/openapi.json`, `/docs`), static content
/// over no port at all, so it links and initialises none of the SDK.
pub async fn serve_docs() -> Result<(), LambdaError> {
    crate::telemetry::init();
    lambda_http::run(crate::api::finish_public(crate::api::docs_page::public_router())).await
}

/// The ports a function uses, built once at its init: each is a type, so a function's
/// `main` names its own and links no other builder.
pub trait Ports {
    fn state() -> impl std::future::Future<Output = Result<AppState, LambdaError>> + Send;
}

/// The table alone (most groups; the forecast and notices workers).
pub struct Table;
/// The table, the compiled snapshots in the bucket (read only) and the tracking keys it
/// signs links with (from Secrets Manager on AWS): serving and the queries' preview links.
pub struct SignsLinks;
/// The queues (events go to the events worker) and the tracking keys it checks links with.
pub struct ChecksLinks;
/// The table, the bucket (stores only) and the queues: assets and audience uploads.
pub struct Uploads;
/// `Uploads`, and reads of the compiled snapshots: the console.
pub struct Console;
/// The table and the queues, no bucket: ads (a link queues its transcode) and forecasts.
pub struct Queues;
/// The table, the bucket and the queues: the audience worker.
pub struct Everything;
/// `Everything` and the media engine (MediaConvert on AWS), which no other function links.
pub struct WithMedia;

impl Ports for Table {
    async fn state() -> Result<AppState, LambdaError> {
        Ok(assemble::aws_table_only(&assemble::lambda_settings()).await)
    }
}
impl Ports for SignsLinks {
    async fn state() -> Result<AppState, LambdaError> {
        Ok(assemble::aws_table_and_bucket(&assemble::lambda_settings_with_keys().await?, true).await)
    }
}
impl Ports for ChecksLinks {
    async fn state() -> Result<AppState, LambdaError> {
        Ok(assemble::aws_with_queues(&assemble::lambda_settings_with_keys().await?).await)
    }
}
impl Ports for Uploads {
    async fn state() -> Result<AppState, LambdaError> {
        Ok(assemble::aws_uploads(&assemble::lambda_settings()).await)
    }
}
impl Ports for Console {
    async fn state() -> Result<AppState, LambdaError> {
        Ok(assemble::aws_console(&assemble::lambda_settings()).await)
    }
}
impl Ports for Queues {
    async fn state() -> Result<AppState, LambdaError> {
        Ok(assemble::aws_with_queues(&assemble::lambda_settings()).await)
    }
}
impl Ports for Everything {
    async fn state() -> Result<AppState, LambdaError> {
        Ok(assemble::aws(&assemble::lambda_settings()).await.0)
    }
}
impl Ports for WithMedia {
    async fn state() -> Result<AppState, LambdaError> {
        Ok(assemble::aws_with_media(&assemble::lambda_settings()).await.0)
    }
}

/// An HTTP function: its group's router over its ports, behind API Gateway:
/// `shared::lambda::serve::<Table>(shared::api::groups::clients)`.
pub async fn serve<P: Ports>(group: crate::api::groups::Group) -> Result<(), LambdaError> {
    crate::telemetry::init();
    let state = P::state().await?;
    lambda_http::run(crate::api::finish(group(), state)).await
}

/// An SQS-fed worker of one queue's jobs (`J`) over its ports:
/// `shared::lambda::serve_jobs::<NoticeJobs, Table>()`.
pub async fn serve_jobs<J: Jobs, P: Ports>() -> Result<(), WorkerError> {
    crate::telemetry::init();
    let state = P::state().await?;
    run_worker::<J>(state).await
}

/// The compile worker: the table's stream (the delivery version's changes, filtered by the
/// event source) names the accounts to compile; the table and the bucket.
pub async fn serve_compile_worker() -> Result<(), WorkerError> {
    crate::telemetry::init();
    let state = assemble::aws_table_and_bucket(&assemble::lambda_settings(), false).await;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<aws_lambda_events::dynamodb::Event>| {
        let state = with_invocation_deadline(&state, event.context.deadline);
        async move { Ok::<_, WorkerError>(crate::workers::compile::handle_stream(&state, &event.payload).await) }
    }))
    .await
}

/// The events worker: the table (counters, markers, pacing) and the compiled snapshots in
/// the bucket (read only: it judges events against the account's snapshot). A batch's
/// messages are counted together; only the ones not counted are reported failed and come back.
pub async fn serve_events_worker() -> Result<(), WorkerError> {
    crate::telemetry::init();
    let state = assemble::aws_table_and_bucket(&assemble::lambda_settings(), true).await;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
        let state = with_invocation_deadline(&state, event.context.deadline);
        async move { Ok::<_, WorkerError>(handle_event_batch(&state, event.payload).await) }
    }))
    .await
}

/// The state with the invocation's deadline (epoch ms) as an instant of this process's clock.
fn with_invocation_deadline(state: &AppState, deadline_ms: u64) -> AppState {
    let left = (deadline_ms as i64 - chrono::Utc::now().timestamp_millis()).max(0) as u64;
    state.clone().with_deadline(Some(std::time::Instant::now() + std::time::Duration::from_millis(left)))
}

/// An SQS-fed worker of one queue's jobs: the batch's messages run concurrently, each in its
/// own span, and only the failed ones are reported back (`ReportBatchItemFailures`).
async fn run_worker<J: Jobs>(state: AppState) -> Result<(), WorkerError> {
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
        let state = with_invocation_deadline(&state, event.context.deadline);
        async move { Ok::<_, WorkerError>(handle_jobs::<J>(&state, event.payload).await) }
    }))
    .await
}

/// The asset janitor, fed by the table's stream (TTL removals of asset records): deletes
/// the expired assets' objects (`workers::janitor`).
pub async fn serve_asset_janitor() -> Result<(), WorkerError> {
    crate::telemetry::init();
    let blobs = assemble::aws_object_deleter(&assemble::lambda_settings()).await;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<aws_lambda_events::dynamodb::Event>| {
        let blobs = blobs.clone();
        async move { Ok::<_, WorkerError>(crate::workers::janitor::handle(blobs.as_ref(), &event.payload).await) }
    }))
    .await
}

/// The event worker's batch: every message's events counted together (few transactions
/// for many events); only the messages whose events were not counted (their account's
/// group failed, or an event awaits its impression) are reported failed and come back.
async fn handle_event_batch(state: &AppState, event: SqsEvent) -> SqsBatchResponse {
    let ids: Vec<String> = event.records.iter().map(|r| r.message_id.clone().unwrap_or_default()).collect();
    let bodies: Vec<&str> = event.records.iter().map(|r| r.body.as_deref().unwrap_or("")).collect();
    let failed = crate::workers::events::process_messages(state, &bodies).await;
    let mut res = SqsBatchResponse::default();
    res.batch_item_failures = failed
        .into_iter()
        .filter_map(|i| ids.get(i).cloned())
        .map(|id| {
            let mut f = BatchItemFailure::default();
            f.item_identifier = id;
            f
        })
        .collect();
    res
}

/// One SQS batch of queue `q` (the tests' entry: each worker Lambda runs its own queue's).
pub async fn handle_batch(state: &AppState, q: QueueName, event: SqsEvent) -> SqsBatchResponse {
    match q {
        QueueName::Events => handle_event_batch(state, event).await,
        QueueName::Assets => handle_jobs::<AssetJobs>(state, event).await,
        QueueName::Audience => handle_jobs::<AudienceJobs>(state, event).await,
        QueueName::Forecast => handle_jobs::<ForecastJobs>(state, event).await,
        QueueName::Notices => handle_jobs::<NoticeJobs>(state, event).await,
        QueueName::Compile => handle_jobs::<CompileJobs>(state, event).await,
    }
}

/// One SQS batch of `J`'s queue: every message settled inside its own span (message id,
/// queue), failures listed by message id.
async fn handle_jobs<J: Jobs>(state: &AppState, event: SqsEvent) -> SqsBatchResponse {
    let q = J::QUEUE;
    let mut set = tokio::task::JoinSet::new();
    for record in event.records {
        let state = state.clone();
        let id = record.message_id.clone().unwrap_or_default();
        let receipt = record.receipt_handle.clone();
        let received: u32 = record.attributes.get("ApproximateReceiveCount").and_then(|c| c.parse().ok()).unwrap_or(1);
        let span = tracing::info_span!("message", id = %id, queue = q.short());
        set.spawn(
            async move {
                let body = record.body.unwrap_or_default();
                let done = crate::workers::settle_jobs::<J>(&state, &body).await;
                if !done {
                    // Back soon (growing with each receive), not after the whole visibility timeout.
                    if let Some(r) = receipt {
                        if let Err(e) = state.queue.retry_later(q, &r, crate::queue::redelivery_delay(received)).await {
                            tracing::warn!(error = %e, "could not shorten a failed message's visibility");
                        }
                    }
                }
                (id, done)
            }
            .instrument(span),
        );
    }
    let mut failures = Vec::new();
    while let Some(done) = set.join_next().await {
        match done {
            Ok((_, true)) => {}
            Ok((id, false)) => {
                let mut f = BatchItemFailure::default();
                f.item_identifier = id;
                failures.push(f);
            }
            Err(e) => tracing::error!(error = %e, "worker task panicked"),
        }
    }
    let mut res = SqsBatchResponse::default();
    res.batch_item_failures = failures;
    res
}
