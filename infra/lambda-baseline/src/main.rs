//! The smallest useful HTTP Lambda on our stack: SDK config and the three clients built
//! once, then `lambda_http::run` answering every request with 200. The lambda-bench tool
//! compares each of our functions with it (size, cold init, first invoke, peak RSS).

use lambda_http::{service_fn, Body, Error, Request, Response};

#[tokio::main]
async fn main() -> Result<(), Error> {
    let clients = lambda_baseline::clients().await;
    lambda_http::run(service_fn(move |_req: Request| {
        // Hold the clients as a real function would.
        let _clients = &clients;
        async move { Response::builder().status(200).body(Body::from("ok")).map_err(Error::from) }
    }))
    .await
}
