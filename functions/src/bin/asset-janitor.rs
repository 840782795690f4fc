//! Stream-fed Lambda: deletes the objects of assets whose records expired (shared::workers::janitor).

#[tokio::main]
async fn main() -> Result<(), shared::lambda::WorkerError> {
    shared::lambda::serve_asset_janitor().await
}
