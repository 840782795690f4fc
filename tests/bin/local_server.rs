//! The local server for the tests that need it as a process of its own (the crash test
//! kills it): the same `web::local_server` as `functions/local`'s binary.

#[tokio::main]
async fn main() {
    web::local_server::main().await
}
