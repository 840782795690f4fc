//! Lambda for the stitchers of server-side ad insertion (`/v1/stitchers`, JSON): the shared
//! router behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::Table>(web::api::groups::stitchers).await
}
