//! SQS-fed Lambda: the forecast worker (shared::workers::forecast).

#[tokio::main]
async fn main() -> Result<(), shared::lambda::WorkerError> {
    shared::lambda::serve_jobs::<shared::workers::ForecastJobs, shared::lambda::Table>().await
}
