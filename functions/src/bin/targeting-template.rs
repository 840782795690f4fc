//! Lambda for the targeting-template resource group (seed 002 §4.1): the shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::Table>(web::api::groups::targeting_template).await
}
