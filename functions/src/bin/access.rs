//! Lambda for users and API keys (`/v1/users`, `/v1/api-keys`, JSON, ADMIN): the shared router
//! behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::Table>(web::api::groups::access).await
}
