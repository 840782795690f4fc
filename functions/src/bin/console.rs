//! Lambda for the console (`/console/`, HTML, a user's session): the shared router
//! behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Console>(shared::api::groups::console).await
}
