//! Lambda for tracking links (`/v1/track/{event}`): checks the signature and queues the
//! event for the event worker.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::ChecksLinks>(web::api::groups::tracking).await
}
