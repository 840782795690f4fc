//! The local server's binary: `shared::local_server` (every router on one listener, the
//! embedded store by default, the workers in process).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() {
    shared::telemetry::init();
    if let Err(e) = shared::local_server::run().await {
        eprintln!("local-server: {e}");
        std::process::exit(1);
    }
}
