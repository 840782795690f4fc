//! Lambda for ad operations across record kinds (`/v1/changes`, `/v1/campaigns/{id}/duplicate`,
//! `/v1/goals/bulk`, JSON): the shared router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Table>(shared::api::groups::operations).await
}
