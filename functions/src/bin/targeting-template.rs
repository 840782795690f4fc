//! Lambda for the targeting-template resource group (seed 002 §4.1): the shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Table>(shared::api::groups::targeting_template).await
}
