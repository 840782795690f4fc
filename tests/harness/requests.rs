//! Requests as a client sends them, through the real router, and their answers.

use axum::body::Body;
use axum::http::{Method, Request};
use http_body_util::BodyExt;
use tower::ServiceExt;

use crate::TestApp;

/// The User-Agent of the harness's requests: a desktop browser (a player).
pub const PLAYER_UA: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

pub struct Res {
    pub status: u16,
    pub headers: axum::http::HeaderMap,
    pub body: String,
}

impl Res {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Self {
        assert_eq!(self.status, status, "unexpected status; body: {}", self.body);
        self
    }
}
impl TestApp {
    /// Waits until every queue is empty and no job is in flight (the in-process runner's
    /// count, or SQS's approximate counts on the emulator): what the workers were given is
    /// done. At most 180 s.
    pub async fn settle(&self) {
        crate::eventually("the queues to drain", std::time::Duration::from_secs(180), || async {
            matches!(self.state.queue.depth().await, Ok(0)).then_some(())
        })
        .await
    }

    /// Writes the traffic samples the ad requests so far left in the buffer (and waits for
    /// a write under way): reads after it see every one of them.
    pub async fn flush_samples(&self) {
        self.state.samples.flush(self.state.store.as_ref()).await;
    }

    pub async fn post_json(&self, path: &str, body: &serde_json::Value) -> Res {
        self.send("POST", path, Some(&self.a.key), Some("application/json"), &body.to_string()).await
    }
    pub async fn put_json(&self, path: &str, body: &serde_json::Value) -> Res {
        self.send("PUT", path, Some(&self.a.key), Some("application/json"), &body.to_string()).await
    }
    pub async fn patch_json(&self, path: &str, body: &serde_json::Value) -> Res {
        self.send("PATCH", path, Some(&self.a.key), Some("application/json"), &body.to_string()).await
    }

    pub async fn send(&self, method: &str, path: &str, key: Option<&str>, content_type: Option<&str>, body: &str) -> Res {
        self.send_with_headers(method, path, key, content_type, body, &[]).await
    }

    /// A request with a binary body (from a browser, like every harness request).
    pub async fn send_bytes(&self, method: &str, path: &str, key: Option<&str>, content_type: &str, body: &[u8]) -> Res {
        let mut req = Request::builder()
            .method(Method::from_bytes(method.as_bytes()).expect("method"))
            .uri(path)
            .header("content-type", content_type)
            .header("user-agent", PLAYER_UA);
        if let Some(k) = key {
            req = req.header("x-o-api-key", k);
        }
        let res = self.router.clone().oneshot(req.body(Body::from(body.to_vec())).expect("request")).await.expect("infallible");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        Res { status, headers, body: String::from_utf8_lossy(&bytes).into_owned() }
    }

    /// `send` with extra request headers.
    pub async fn send_with_headers(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        content_type: Option<&str>,
        body: &str,
        extra: &[(&str, &str)],
    ) -> Res {
        self.request(method, path, key, content_type, Body::from(body.to_string()), extra).await
    }

    /// `send_bytes` with extra request headers (a browser's multipart form).
    pub async fn send_bytes_with_headers(&self, method: &str, path: &str, content_type: &str, body: &[u8], extra: &[(&str, &str)]) -> Res {
        self.request(method, path, None, Some(content_type), Body::from(body.to_vec()), extra).await
    }

    async fn request(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        content_type: Option<&str>,
        body: Body,
        extra: &[(&str, &str)],
    ) -> Res {
        let mut req = Request::builder().method(Method::from_bytes(method.as_bytes()).expect("method")).uri(path);
        // The TCP peer (what the server counts a viewer under): `PEER` in `extra` names it;
        // otherwise every request comes from an address block of its own, as viewers do.
        let peer = extra.iter().find(|(n, _)| *n == PEER).map_or_else(next_peer, |(_, v)| v.parse().expect("PEER is an address"));
        req = req.extension(axum::extract::ConnectInfo(std::net::SocketAddr::new(peer, 40_000)));
        for (n, v) in extra.iter().filter(|(n, _)| *n != PEER) {
            req = req.header(*n, *v);
        }
        // Requests come from a browser player unless a test says otherwise (an empty or
        // non-browser User-Agent is invalid traffic).
        if !extra.iter().any(|(n, _)| n.eq_ignore_ascii_case("user-agent")) {
            req = req.header("user-agent", PLAYER_UA);
        }
        if let Some(k) = key {
            req = req.header("x-o-api-key", k);
        }
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        let res = self.router.clone().oneshot(req.body(body).expect("request")).await.expect("infallible");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        Res { status, headers, body: String::from_utf8_lossy(&bytes).into_owned() }
    }

    /// As account `a`.
    pub async fn get(&self, path: &str) -> Res {
        self.send("GET", path, Some(&self.a.key), None, "").await
    }
    pub async fn get_as(&self, key: &str, path: &str) -> Res {
        self.send("GET", path, Some(key), None, "").await
    }
    pub async fn delete(&self, path: &str) -> Res {
        self.send("DELETE", path, Some(&self.a.key), None, "").await
    }
    pub async fn post_xml(&self, path: &str, body: &str) -> Res {
        self.send("POST", path, Some(&self.a.key), Some("application/xml"), body).await
    }
    pub async fn put_xml(&self, path: &str, body: &str) -> Res {
        self.send("PUT", path, Some(&self.a.key), Some("application/xml"), body).await
    }

    /// Creates a record through the API and returns its id (asserting the 200 text/plain).
    pub async fn create_xml(&self, path: &str, body: &str) -> String {
        let r = self.post_xml(path, body).await;
        assert_eq!(r.status, 200, "create {path}: {}", r.body);
        assert!(r.header("content-type").unwrap_or("").starts_with("text/plain"), "content type {:?}", r.header("content-type"));
        assert!(uuid::Uuid::parse_str(&r.body).is_ok(), "id {:?}", r.body);
        r.body
    }
}

/// The pseudo-header of `extra` that names a request's TCP peer (never sent as a header).
pub const PEER: &str = "x-test-peer";

/// A fresh address in a /24 block of its own (`10.<n>.<n>.1`), for requests that name none.
fn next_peer() -> std::net::IpAddr {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 65_536;
    std::net::IpAddr::V4(std::net::Ipv4Addr::new(10, (n >> 8) as u8, (n & 0xff) as u8, 1))
}
