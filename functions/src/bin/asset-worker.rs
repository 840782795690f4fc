//! SQS-fed Lambda: the asset download worker (web::workers::assets).

#[tokio::main]
async fn main() -> Result<(), web::lambda::WorkerError> {
    web::lambda::serve_jobs::<web::workers::AssetJobs, web::lambda::WithMedia>().await
}
