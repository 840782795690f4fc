//! The local server's binary: `web::local_server` (every router on one listener, the
//! embedded store by default, the workers in process).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() {
    web::local_server::main().await
}
