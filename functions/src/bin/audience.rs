//! Lambda for the audience resource group (seed 001): the shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Uploads>(shared::api::groups::audience).await
}
