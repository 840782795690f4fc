//! Lambda for the campaigns resource group (seed 001): the shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Table>(shared::api::groups::campaigns).await
}
