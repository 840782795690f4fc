//! Stream-fed Lambda: the compile worker (shared::workers::compile). The table's stream,
//! filtered to the delivery version's changes, names the accounts to compile.

#[tokio::main]
async fn main() -> Result<(), shared::lambda::WorkerError> {
    shared::lambda::serve_compile_worker().await
}
