//! Lambda for the queries resource group (/v3): the shared router behind API Gateway, with
//! the tracking keys preview links are signed with.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::SignsLinks>(web::api::groups::queries).await
}
