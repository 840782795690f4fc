//! Stream-fed Lambda: the compile worker (web::workers::compile). The table's stream,
//! filtered to the delivery version's changes, names the accounts to compile.

// The compile allocates per record (entries, strings, indexes): mimalloc, as serving.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> Result<(), web::lambda::WorkerError> {
    web::lambda::serve_compile_worker().await
}
