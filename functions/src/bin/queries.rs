//! Lambda for the queries resource group (/v3): the shared router behind API Gateway, with
//! the tracking keys preview links are signed with.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::SignsLinks>(shared::api::groups::queries).await
}
