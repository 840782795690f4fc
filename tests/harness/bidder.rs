//! A stub OpenRTB 2.6 bidder on loopback (docs/programmatic.md, "Tests"): what it answers
//! is in the endpoint's path and query, so one server plays every bidder of a test:
//!
//! `POST /ortb/{mode}?price=&deal=&seat=&adomain=&cat=&cur=&delay=&name=` where `mode` is
//! `inline` (a VAST InLine whose clip this server serves), `wrapper`, `nurl` (no adm: the
//! markup from the nurl), `nobid` (204), `hang` (answers after 5 s), `malformed`,
//! `wrongimp`, `huge` (a 300 KB body), `empty` (200 with no bids).
//!
//! Every bid request and every notice (`/notice/{kind}?…`) is recorded.
//!
//! The auction tests run it in process (`Bidder::in_process`): the app's bidders port
//! hands each call to the stub's router, with no socket and no DNS. A browser that plays
//! what a bidder answered needs it on loopback (`Bidder::spawn`); so does the HTTP client
//! adapter's own test.

use std::sync::{Arc, Mutex};

use axum::extract::{Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use serde_json::{json, Value};

/// A request's headers as (name, value).
pub type Headers = Vec<(String, String)>;

/// What the stub received.
#[derive(Default)]
pub struct Received {
    /// (mode, headers, body)
    pub requests: Vec<(String, Headers, Value)>,
    /// (kind, query string)
    pub notices: Vec<(String, String)>,
}

/// A running stub bidder.
#[derive(Clone)]
pub struct Bidder {
    pub base: String,
    pub received: Arc<Mutex<Received>>,
}

type Params = std::collections::HashMap<String, String>;

fn inline_vast(base: &str, name: &str) -> String {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><VAST version="4.2" xmlns="http://www.iab.com/VAST"><Ad id="{name}"><InLine><AdSystem>stub-dsp</AdSystem><Impression><![CDATA[{base}/notice/dsp-impression?n={name}]]></Impression><AdServingId>x</AdServingId><AdTitle>{name} spot</AdTitle><Creatives><Creative><Linear><TrackingEvents><Tracking event="complete"><![CDATA[{base}/notice/dsp-complete?n={name}]]></Tracking></TrackingEvents><Duration>00:00:02.000</Duration><MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="320" height="240" bitrate="300"><![CDATA[{base}/clip.mp4]]></MediaFile></MediaFiles><VideoClicks><ClickThrough><![CDATA[https://brand.example/{name}]]></ClickThrough></VideoClicks></Linear><UniversalAdId idRegistry="stub">{name}</UniversalAdId></Creative></Creatives></InLine></Ad></VAST>"#
    )
}

fn wrapper_vast(base: &str, name: &str) -> String {
    format!(
        r#"<VAST version="3.0"><Ad id="{name}"><Wrapper><AdSystem>stub-dsp</AdSystem><VASTAdTagURI><![CDATA[{base}/vast/{name}.xml]]></VASTAdTagURI><Impression><![CDATA[{base}/notice/dsp-impression?n={name}]]></Impression></Wrapper></Ad></VAST>"#
    )
}

async fn bid(State(b): State<Bidder>, Path(mode): Path<String>, Query(p): Query<Params>, headers: HeaderMap, body: String) -> Response {
    let req: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
    let hs = headers.iter().map(|(k, v)| (k.to_string(), v.to_str().unwrap_or("").to_string())).collect();
    if let Ok(mut r) = b.received.lock() {
        r.requests.push((mode.clone(), hs, req.clone()));
    }
    if let Some(ms) = p.get("delay").and_then(|d| d.parse::<u64>().ok()) {
        tokio::time::sleep(std::time::Duration::from_millis(ms)).await;
    }
    let name = p.get("name").cloned().unwrap_or_else(|| mode.clone());
    let base = &b.base;
    let price: f64 = p.get("price").and_then(|x| x.parse().ok()).unwrap_or(5.0);
    let notice = |kind: &str| {
        format!("{base}/notice/{kind}?n={name}&p=${{AUCTION_PRICE}}&a=${{AUCTION_ID}}&b=${{AUCTION_BID_ID}}&i=${{AUCTION_IMP_ID}}&s=${{AUCTION_SEAT_ID}}&ad=${{AUCTION_AD_ID}}&c=${{AUCTION_CURRENCY}}&l=${{AUCTION_LOSS}}")
    };
    let mut one = json!({
        "id": format!("bid-{name}"), "impid": "1", "price": price, "crid": format!("cr-{name}"), "adid": format!("ad-{name}"),
        "adomain": [p.get("adomain").cloned().unwrap_or_else(|| "brand.example".into())],
        "burl": notice("burl"), "lurl": notice("lurl"), "nurl": notice("nurl"),
    });
    if let Some(c) = p.get("cat") {
        one["cat"] = json!([c]);
    }
    if let Some(d) = p.get("deal") {
        one["dealid"] = json!(d);
    }
    match mode.as_str() {
        "inline" => one["adm"] = json!(inline_vast(base, &name)),
        "wrapper" => one["adm"] = json!(wrapper_vast(base, &name)),
        "nurl" => one["nurl"] = json!(format!("{base}/adm/{name}?p=${{AUCTION_PRICE}}")),
        "wrongimp" => {
            one["impid"] = json!("7");
            one["adm"] = json!(inline_vast(base, &name));
        }
        "nobid" => return StatusCode::NO_CONTENT.into_response(),
        "hang" => {
            tokio::time::sleep(std::time::Duration::from_secs(5)).await;
            return StatusCode::NO_CONTENT.into_response();
        }
        "malformed" => return ([(header::CONTENT_TYPE, "application/json")], "{\"id\": \"x\", \"seatbid\": [").into_response(),
        "huge" => return ([(header::CONTENT_TYPE, "application/json")], " ".repeat(300 * 1024)).into_response(),
        "empty" => {
            return ([(header::CONTENT_TYPE, "application/json")], json!({"id": req["id"], "seatbid": []}).to_string()).into_response()
        }
        _ => return StatusCode::BAD_REQUEST.into_response(),
    }
    let seat = p.get("seat").cloned().unwrap_or_else(|| "seat-1".into());
    let mut resp = json!({"id": req["id"], "seatbid": [{"seat": seat, "bid": [one]}]});
    if let Some(c) = p.get("cur") {
        resp["cur"] = json!(c);
    }
    ([(header::CONTENT_TYPE, "application/json")], resp.to_string()).into_response()
}

async fn notice(State(b): State<Bidder>, Path(kind): Path<String>, uri: axum::http::Uri) -> StatusCode {
    if let Ok(mut r) = b.received.lock() {
        r.notices.push((kind, uri.query().unwrap_or("").to_string()));
    }
    StatusCode::NO_CONTENT
}

async fn adm(State(b): State<Bidder>, Path(name): Path<String>, uri: axum::http::Uri) -> Response {
    if let Ok(mut r) = b.received.lock() {
        r.notices.push(("nurl-adm".into(), uri.query().unwrap_or("").to_string()));
    }
    ([(header::CONTENT_TYPE, "application/xml")], inline_vast(&b.base, &name)).into_response()
}

impl Bidder {
    /// Starts a stub bidder on loopback.
    pub async fn spawn() -> Bidder {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr");
        let b = Bidder { base: format!("http://{addr}"), received: Arc::default() };
        let app = b.router();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        b
    }

    /// A stub bidder the app under test calls in process, at a host of its own
    /// (`bidder-<n>.test`).
    pub fn in_process(app: &crate::TestApp) -> Bidder {
        let host = format!("bidder-{}.test", uuid::Uuid::new_v4().simple());
        let b = Bidder { base: format!("http://{host}"), received: Arc::default() };
        app.bidders.add(&host, b.router());
        b
    }

    fn router(&self) -> Router {
        Router::new()
            .route("/ortb/{mode}", post(bid))
            .route("/notice/{kind}", get(notice))
            .route("/adm/{name}", get(adm))
            .route(
                "/vast/{name}",
                get(|State(b): State<Bidder>, Path(n): Path<String>| async move { inline_vast(&b.base, n.trim_end_matches(".xml")) }),
            )
            .route("/clip.mp4", get(|| async { ([(header::CONTENT_TYPE, "video/mp4")], super::assets::clip()) }))
            .with_state(self.clone())
    }

    /// An endpoint of this stub: `mode` and its query.
    pub fn endpoint(&self, mode: &str, query: &str) -> String {
        format!("{}/ortb/{mode}?{query}", self.base)
    }

    /// The bid requests received (body), in order.
    pub fn requests(&self) -> Vec<Value> {
        self.received.lock().map(|r| r.requests.iter().map(|(_, _, b)| b.clone()).collect()).unwrap_or_default()
    }

    /// The headers of the bid requests received.
    pub fn request_headers(&self) -> Vec<Headers> {
        self.received.lock().map(|r| r.requests.iter().map(|(_, h, _)| h.clone()).collect()).unwrap_or_default()
    }

    /// The notices received of `kind` (their query strings).
    pub fn notices(&self, kind: &str) -> Vec<String> {
        self.received.lock().map(|r| r.notices.iter().filter(|(k, _)| k == kind).map(|(_, q)| q.clone()).collect()).unwrap_or_default()
    }

    /// Waits until `n` notices of `kind` arrived (the notices worker is asynchronous).
    pub async fn wait_notices(&self, kind: &str, n: usize) -> Vec<String> {
        crate::eventually(&format!("{n} {kind} notice(s)"), std::time::Duration::from_secs(120), || async {
            let got = self.notices(kind);
            (got.len() >= n).then_some(got)
        })
        .await
    }
}

/// The app's bidders port in the tests: a call to a host an in-process stub registered goes
/// to its router (bounded in time and bytes as the HTTP client bounds it); any other call
/// goes to the HTTP client (a stub on loopback).
pub struct InProcessBidders {
    hosts: Mutex<Vec<(String, Router)>>,
    http: web::demand::client::HttpBidders,
}

impl InProcessBidders {
    pub fn new(resolver: Arc<dyn web::resolve::Resolve>) -> Self {
        InProcessBidders { hosts: Mutex::default(), http: web::demand::client::HttpBidders::new(resolver) }
    }

    fn add(&self, host: &str, router: Router) {
        if let Ok(mut h) = self.hosts.lock() {
            h.push((host.to_string(), router));
        }
    }

    fn router(&self, url: &str) -> Option<Router> {
        let host = url.parse::<axum::http::Uri>().ok()?.host()?.to_string();
        self.hosts.lock().ok()?.iter().find(|(h, _)| *h == host).map(|(_, r)| r.clone())
    }
}

impl web::demand::client::Bidders for InProcessBidders {
    fn call<'a>(&'a self, c: web::demand::client::Call<'a>) -> web::demand::client::Calling<'a> {
        use tower::ServiceExt;
        use web::demand::client::{Answer, CallError};
        let Some(router) = self.router(c.url) else { return self.http.call(c) };
        Box::pin(async move {
            let started = std::time::Instant::now();
            let mut req = axum::http::Request::builder().uri(c.url);
            req = match &c.json {
                Some(_) => req.method("POST").header(header::CONTENT_TYPE, "application/json"),
                None => req.method("GET"),
            };
            for (name, value) in c.headers {
                req = req.header(*name, *value);
            }
            let req = req.body(axum::body::Body::from(c.json.clone().unwrap_or_default())).map_err(|e| CallError::Failed(e.to_string()))?;
            let exchange = async move {
                let res = router.oneshot(req).await.map_err(|e| CallError::Failed(e.to_string()))?;
                let status = res.status().as_u16();
                let body = axum::body::to_bytes(res.into_body(), c.max_bytes).await.map_err(|_| CallError::TooLarge(c.max_bytes))?;
                Ok::<_, CallError>((status, body))
            };
            match tokio::time::timeout(c.timeout, exchange).await {
                Ok(Ok((status, body))) => Ok(Answer { status, body, latency: started.elapsed() }),
                Ok(Err(e)) => Err(e),
                Err(_) => Err(CallError::Timeout),
            }
        })
    }
}

/// The app's name resolution in the tests: an in-process stub's host (`*.test`) is a
/// loopback address (its calls never reach a socket); any other name the system resolves.
pub struct TestResolver;

impl web::resolve::Resolve for TestResolver {
    fn resolve<'a>(&'a self, host: &'a str, port: u16) -> web::resolve::Resolving<'a> {
        if host.ends_with(".test") {
            return Box::pin(std::future::ready(Ok(vec![std::net::SocketAddr::from(([127, 0, 0, 1], port))])));
        }
        web::resolve::SystemResolver.resolve(host, port)
    }
}
