//! The baseline of `scripts/serve-vs-axum.sh`: a minimal axum server answering every
//! request with one fixed document (a served VAST document saved to a file), with the
//! headers the serving endpoint sends. What the serving path costs is its throughput
//! against this one's, same machine, same run.
//!
//!   cargo run --profile bench -p api-tests --example fixed_document -- <file> <port>

use axum::http::header;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(file), Some(port)) = (args.next(), args.next()) else {
        return Err("usage: fixed_document <file> <port>".into());
    };
    let body = axum::body::Bytes::from(std::fs::read(&file)?);
    let app = axum::Router::new().fallback(move || {
        let body = body.clone();
        async move {
            (
                [
                    (header::CONTENT_TYPE, "application/xml; charset=utf-8"),
                    (header::CACHE_CONTROL, "no-store"),
                    (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
                ],
                body,
            )
        }
    });
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
