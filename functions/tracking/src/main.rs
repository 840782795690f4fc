//! Lambda for tracking links (`/v1/track/{event}`): checks the signature and queues the
//! event for the event worker.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve_with_bucket_and_queues(shared::api::groups::tracking).await
}
