//! Lambda for the ads resource group (seed 000): the shared router behind API Gateway; a
//! link queues its asset's transcode on the assets queue.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Queues>(shared::api::groups::ads).await
}
