//! Lambda for the ads resource group (seed 000): the shared router behind API Gateway; a
//! link queues its asset's transcode on the assets queue.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::Queues>(web::api::groups::ads).await
}
