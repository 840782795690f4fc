//! SQS-fed Lambda: the forecast worker (web::workers::forecast).

#[tokio::main]
async fn main() -> Result<(), web::lambda::WorkerError> {
    web::lambda::serve_jobs::<web::workers::ForecastJobs, web::lambda::Table>().await
}
