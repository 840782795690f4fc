//! Lambda for users and API keys (`/v1/users`, `/v1/api-keys`, JSON, ADMIN): the shared router
//! behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Table>(shared::api::groups::access).await
}
