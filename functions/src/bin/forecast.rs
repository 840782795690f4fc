//! Lambda for forecast jobs (`/api/2.0/forecast`): validates requests, queues jobs, serves
//! status, reports and charts.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::LambdaError> {
    shared::lambda::serve::<shared::lambda::Queues>(shared::api::groups::forecast).await
}
