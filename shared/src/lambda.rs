//! The entry point every HTTP Lambda shares: config and SDK clients built once, outside the
//! handler, then the group's router handed to `lambda_http`.

use std::sync::Arc;

use aws_lambda_events::sqs::{BatchItemFailure, SqsBatchResponse, SqsEvent};
use lambda_runtime::{service_fn, LambdaEvent};

use crate::blobs::s3::S3Blobs;
use crate::config::{bucket_name, env};
use crate::queue::sqs::SqsQueue;
use crate::queue::QueueName;
use crate::state::AppState;
use crate::store::dynamodb::DynamoStore;

/// The ports on AWS: DynamoDB (`TABLE_NAME`), S3 (`BUCKET_NAME`), SQS (`*_QUEUE_URL`).
async fn state_from_env() -> Result<AppState, String> {
    let table = env("TABLE_NAME").ok_or("TABLE_NAME is not set")?;
    let store = DynamoStore::from_env(table).await;
    let blobs = S3Blobs::from_env(bucket_name()).await;
    let queue = SqsQueue::from_env().await;
    Ok(AppState::new(Arc::new(store), Arc::new(blobs), Arc::new(queue)))
}

pub async fn serve(group: &str) -> Result<(), lambda_http::Error> {
    crate::telemetry::init();
    let state = state_from_env().await?;
    let app = crate::api::group_app(group, state).ok_or_else(|| format!("unknown resource group {group}"))?;
    lambda_http::run(app).await
}

pub type LambdaError = lambda_http::Error;

/// An SQS-fed worker: the batch's messages run concurrently, each in its own span, and
/// only the failed ones are reported back (`ReportBatchItemFailures`) to be redelivered.
pub async fn serve_worker(q: QueueName) -> Result<(), lambda_runtime::Error> {
    crate::telemetry::init();
    let state = state_from_env().await?;
    lambda_runtime::run(service_fn(move |event: LambdaEvent<SqsEvent>| {
        let state = state.clone();
        async move { Ok::<_, lambda_runtime::Error>(handle_batch(&state, q, event.payload).await) }
    }))
    .await
}

/// One SQS batch: every message dispatched, failures listed by message id.
pub async fn handle_batch(state: &AppState, q: QueueName, event: SqsEvent) -> SqsBatchResponse {
    let mut set = tokio::task::JoinSet::new();
    for record in event.records {
        let state = state.clone();
        set.spawn(async move {
            let id = record.message_id.clone().unwrap_or_default();
            let span = tracing::info_span!("message", id = %id, queue = q.short());
            let _guard = span.enter();
            let body = record.body.unwrap_or_default();
            drop(_guard);
            let r = crate::workers::dispatch(&state, q, &body).await;
            (id, r)
        });
    }
    let mut failures = Vec::new();
    while let Some(done) = set.join_next().await {
        match done {
            Ok((_, Ok(()))) => {}
            Ok((id, Err(e))) => {
                tracing::warn!(message = %id, error = %e, "message failed; SQS will redeliver it");
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
pub type WorkerError = lambda_runtime::Error;
