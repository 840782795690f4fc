//! SQS-fed Lambda: the notices worker (shared::workers::notices).

#[tokio::main]
async fn main() -> Result<(), shared::lambda::WorkerError> {
    shared::lambda::serve_notices_worker().await
}
