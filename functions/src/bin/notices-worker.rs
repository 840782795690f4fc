//! SQS-fed Lambda: the notices worker (web::workers::notices).

#[tokio::main]
async fn main() -> Result<(), web::lambda::WorkerError> {
    web::lambda::serve_jobs::<web::workers::NoticeJobs, web::lambda::Table>().await
}
