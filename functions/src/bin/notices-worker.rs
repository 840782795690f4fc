//! SQS-fed Lambda: the notices worker (shared::workers::notices).

#[tokio::main]
async fn main() -> Result<(), shared::lambda::WorkerError> {
    shared::lambda::serve_jobs::<shared::workers::NoticeJobs, shared::lambda::Table>().await
}
