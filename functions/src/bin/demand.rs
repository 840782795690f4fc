//! Lambda for programmatic demand (`/v1/demand-partners`, `/v1/marketplaces`, JSON): the
//! shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::Table>(web::api::groups::demand).await
}
