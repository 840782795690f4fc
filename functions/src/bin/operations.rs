//! Lambda for ad operations across record kinds (`/v1/changes`, `/v1/campaigns/{id}/duplicate`,
//! `/v1/goals/bulk`, JSON): the shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::Table>(web::api::groups::operations).await
}
