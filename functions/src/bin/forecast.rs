//! Lambda for forecast jobs (`/api/2.0/forecast`): validates requests, queues jobs, serves
//! status, reports and charts.

#[tokio::main]
async fn main() -> Result<(), web::lambda::LambdaError> {
    web::lambda::serve::<web::lambda::Queues>(web::api::groups::forecast).await
}
