//! SQS-fed Lambda: the event aggregation worker (web::workers::events).

#[tokio::main]
async fn main() -> Result<(), web::lambda::WorkerError> {
    web::lambda::serve_events_worker().await
}
