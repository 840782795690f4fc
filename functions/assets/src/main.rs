//! Lambda for the assets resource group (seed 001): the shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve_with_bucket_and_queues(shared::api::groups::assets).await
}
