//! Stream-fed Lambda: deletes the objects of assets whose records expired (web::workers::janitor).

#[tokio::main]
async fn main() -> Result<(), web::lambda::WorkerError> {
    web::lambda::serve_asset_janitor().await
}
