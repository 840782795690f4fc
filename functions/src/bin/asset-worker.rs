//! SQS-fed Lambda: the asset download worker (shared::workers::assets).

#[tokio::main]
async fn main() -> Result<(), shared::lambda::WorkerError> {
    shared::lambda::serve_jobs::<shared::workers::AssetJobs, shared::lambda::WithMedia>().await
}
