//! Lambda for the stitchers of server-side ad insertion (`/v1/stitchers`, JSON): the shared
//! router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Table>(shared::api::groups::stitchers).await
}
