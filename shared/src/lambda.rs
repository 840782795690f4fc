//! The entry points every Lambda shares: settings and SDK clients built once, outside the
//! handler, then the function's own router (chosen at compile time by its `main`, so the
//! linker drops every other group) handed to `lambda_http`, or its worker to `lambda_runtime`.

use aws_lambda_events::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use lambda_runtime::{service_fn, LambdaEvent};
use tracing::Instrument;

use crate::assemble;
use crate::queue::QueueName;
use crate::state::AppState;

pub type LambdaError = lambda_http::Error;
pub type WorkerError = lambda_runtime::Error;

/// The reference function: `serve` with the OpenAPI document installed, which only this
/// group serves (`GET /openapi.json`, `/docs`), so no other function links the document.
pub async fn serve_reference(group: crate::api::groups::Group) -> Result<(), LambdaError> {
    crate::openapi::install();
    serve(group).await
}

/// An HTTP function whose group only uses the table:
/// `shared::lambda::serve(shared::api::groups::clients)`.
pub async fn serve(group: crate::api::groups::Group) -> Result<(), LambdaError> {
    crate::telemetry::init();
    let state = assemble::aws_table_only(&assemble::lambda_settings()).await;
    lambda_http::run(crate::api::finish(group().router, state)).await
}

/// The ad-request function: the table, and the tracking keys it signs links with (from
/// Secrets Manager on AWS).
pub async fn serve_signing(group: crate::api::groups::Group) -> Result<(), LambdaError> {
    crate::telemetry::init();
    let state = assemble::aws_table_only(&assemble::lambda_settings_with_keys().await?).await;
    lambda_http::run(crate::api::finish(group().router, state)).await
}

/// The tracking function: the queues (events go to the events worker), and the tracking
/// keys it checks links with.
pub async fn serve_checking_links(group: crate::api::groups::Group) -> Result<(), LambdaError> {
    crate::telemetry::init();
    let state = assemble::aws_with_queues(&assemble::lambda_settings_with_keys().await?).await;
    lambda_http::run(crate::api::finish(group().router, state)).await
}

/// An HTTP function whose group also stores objects in the bucket and sends jobs to the
/// queues (assets, audience).
pub async fn serve_with_bucket_and_queues(group: crate::api::groups::Group) -> Result<(), LambdaError> {
    crate::telemetry::init();
    let state = assemble::aws_uploads(&assemble::lambda_settings()).await;
    lambda_http::run(crate::api::finish(group().router, state)).await
}

/// An HTTP function whose group sends jobs but stores no objects (ads).
pub async fn serve_with_queues(group: crate::api::groups::Group) -> Result<(), LambdaError> {
    crate::telemetry::init();
    let state = assemble::aws_with_queues(&assemble::lambda_settings()).await;
    lambda_http::run(crate::api::finish(group().router, state)).await
}

/// An SQS-fed worker: the batch's messages run concurrently, each in its own span, and
/// only the failed ones are reported back (`ReportBatchItemFailures`) to be redelivered.
pub async fn serve_worker(q: QueueName) -> Result<(), WorkerError> {
    crate::telemetry::init();
    let (state, _) = assemble::aws(&assemble::lambda_settings()).await;
    run_worker(state, q).await
}

/// The asset worker: `serve_worker` with the media engine (MediaConvert on AWS), which no
/// other function links.
pub async fn serve_asset_worker() -> Result<(), WorkerError> {
    crate::telemetry::init();
    let (state, _) = assemble::aws_with_media(&assemble::lambda_settings()).await;
    run_worker(state, QueueName::Assets).await
}

async fn run_worker(state: AppState, q: QueueName) -> Result<(), WorkerError> {
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
        // The invocation's deadline (epoch ms) as an instant of this process's clock.
        let left = (event.context.deadline as i64 - chrono::Utc::now().timestamp_millis()).max(0) as u64;
        let state = state.clone().with_deadline(Some(std::time::Instant::now() + std::time::Duration::from_millis(left)));
        async move { Ok::<_, WorkerError>(handle_batch(&state, q, event.payload).await) }
    }))
    .await
}

/// The asset janitor, fed by the table's stream (TTL removals of asset records): deletes
/// the expired assets' objects (`workers::janitor`).
pub async fn serve_asset_janitor() -> Result<(), WorkerError> {
    crate::telemetry::init();
    let (state, _) = assemble::aws(&assemble::lambda_settings()).await;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<aws_lambda_events::dynamodb::Event>| {
        let state = state.clone();
        async move { Ok::<_, WorkerError>(crate::workers::janitor::handle(&state, &event.payload).await) }
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

/// One SQS batch: every message dispatched inside its own span (message id, queue), failures
/// listed by message id.
pub async fn handle_batch(state: &AppState, q: QueueName, event: SqsEvent) -> SqsBatchResponse {
    if q == QueueName::Events {
        return handle_event_batch(state, event).await;
    }
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
                let done = crate::workers::settle(&state, q, &body).await;
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
