//! Lambda for the campaigns resource group (seed 001): the shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::Table>(web::api::groups::campaigns).await
}
