//! Lambda for programmatic demand (`/v1/demand-partners`, `/v1/marketplaces`, JSON): the
//! shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Table>(shared::api::groups::demand).await
}
