//! SQS-fed Lambda: the event aggregation worker (shared::workers::events).

#[tokio::main]
async fn main() -> Result<(), shared::lambda::WorkerError> {
    shared::lambda::serve_events_worker().await
}
