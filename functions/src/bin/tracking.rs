//! Lambda for tracking links (`/v1/track/{event}`): checks the signature and queues the
//! event for the event worker.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::ChecksLinks>(shared::api::groups::tracking).await
}
