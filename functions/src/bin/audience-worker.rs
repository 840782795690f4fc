//! SQS-fed Lambda: the audience batch worker (web::workers::audience).

#[tokio::main]
async fn main() -> Result<(), web::lambda::WorkerError> {
    web::lambda::serve_jobs::<web::workers::AudienceJobs, web::lambda::Everything>().await
}
