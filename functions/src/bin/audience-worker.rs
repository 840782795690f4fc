//! SQS-fed Lambda: the audience batch worker (shared::workers::audience).

#[tokio::main]
async fn main() -> Result<(), shared::lambda::WorkerError> {
    shared::lambda::serve_jobs::<shared::workers::AudienceJobs, shared::lambda::Everything>().await
}
