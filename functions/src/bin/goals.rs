//! Lambda for the goals resource group (seed 001): the shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Table>(shared::api::groups::goals).await
}
