//! Lambda for the console (`/console/`, HTML, a user's session): the shared router
//! behind API Gateway.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::Console>(web::api::groups::console).await
}
