//! Stub OpenRTB bidders for `scripts/auction-bench.sh` and the README's walk-through:
//! `POST /bid/{ms}` answers a bid with an inline VAST after `ms` milliseconds (its `nurl`,
//! `burl` and `lurl` point back here, `GET /notice/{kind}`, which prints each notice),
//! `POST /hang` answers after 10 s (past any timeout), `POST /flood/{n}` answers at once with
//! `n` bids a bidder should not send (each for another impression, each with its `lurl`:
//! a hostile bidder). Every bid request is counted
//! (`GET /count`); with `VERBOSE=1` each is printed.
//!
//!   cargo run --profile bench -p api-tests --example stub_bidders -- <port>

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::header;
use axum::routing::{get, post};

const ADM: &str = r#"<VAST version="3.0"><Ad id="b"><InLine><AdSystem>stub</AdSystem><AdTitle>bench</AdTitle><Impression>https://dsp.example/i</Impression><Creatives><Creative><Linear><Duration>00:00:15</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360">https://cdn.example/a.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"#;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let port = std::env::args().nth(1).ok_or("usage: stub_bidders <port>")?;
    let count = Arc::new(AtomicU64::new(0));
    let base = format!("http://127.0.0.1:{port}");
    let verbose = std::env::var("VERBOSE").is_ok_and(|v| v == "1");
    let app = axum::Router::new()
        .route(
            "/bid/{ms}",
            post(move |State(n): State<Arc<AtomicU64>>, Path(ms): Path<u64>, body: String| async move {
                n.fetch_add(1, Ordering::Relaxed);
                if verbose {
                    println!("bid request: {body}");
                }
                tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
                let id = serde_json::from_str::<serde_json::Value>(&body).ok().and_then(|v| v["id"].as_str().map(str::to_string)).unwrap_or_default();
                let price = 2.0 + (ms % 7) as f64;
                let notice = |kind: &str| format!("{base}/notice/{kind}?price=${{AUCTION_PRICE}}&auction=${{AUCTION_ID}}&loss=${{AUCTION_LOSS}}");
                let resp = serde_json::json!({"id": id, "seatbid": [{"seat": "s", "bid": [{"id": "b", "impid": "1", "price": price, "adm": ADM,
                    "crid": format!("cr-{ms}"), "adomain": ["brand.example"], "nurl": notice("nurl"), "burl": notice("burl"), "lurl": notice("lurl")}]}]});
                ([(header::CONTENT_TYPE, "application/json")], resp.to_string())
            }),
        )
        .route(
            "/hang",
            post(|State(n): State<Arc<AtomicU64>>| async move {
                n.fetch_add(1, Ordering::Relaxed);
                tokio::time::sleep(std::time::Duration::from_secs(10)).await;
                axum::http::StatusCode::NO_CONTENT
            }),
        )
        .route(
            "/flood/{n}",
            post(move |State(c): State<Arc<AtomicU64>>, Path(n): Path<usize>, body: String| async move {
                c.fetch_add(1, Ordering::Relaxed);
                let id = serde_json::from_str::<serde_json::Value>(&body).ok().and_then(|v| v["id"].as_str().map(str::to_string)).unwrap_or_default();
                let bids: Vec<serde_json::Value> = (0..n.min(100_000))
                    .map(|i| serde_json::json!({"id": format!("f{i}"), "impid": "9", "price": 50.0, "adm": ADM,
                        "lurl": format!("http://127.0.0.1:9/notice/lurl?i={i}")}))
                    .collect();
                ([(header::CONTENT_TYPE, "application/json")], serde_json::json!({"id": id, "seatbid": [{"seat": "s", "bid": bids}]}).to_string())
            }),
        )
        .route(
            "/notice/{kind}",
            get(|Path(kind): Path<String>, uri: axum::http::Uri| async move {
                println!("{kind} notice: {}", uri.query().unwrap_or(""));
                axum::http::StatusCode::NO_CONTENT
            }),
        )
        .route("/count", get(|State(n): State<Arc<AtomicU64>>| async move { n.load(Ordering::Relaxed).to_string() }))
        .with_state(count);
    let listener = tokio::net::TcpListener::bind(format!("127.0.0.1:{port}")).await?;
    axum::serve(listener, app).await?;
    Ok(())
}
