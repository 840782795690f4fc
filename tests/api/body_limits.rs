//! What one client can make an instance do: bodies are
//! refused by size before they are buffered (a declared length over the route's limit is
//! 413 before one byte is read, with or without an `Idempotency-Key`; a body without a
//! declared length is cut off at the limit as it streams), and one account's request rate
//! is bounded per instance (429 with `Retry-After`, other accounts served).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use api_tests::{one_store, TestApp};
use axum::body::Body;
use tower::ServiceExt;

const CHUNK: usize = 64 * 1024;

/// A body of `chunks` chunks of 64 KB that counts what is pulled from it.
fn counted_body(chunks: usize, pulled: Arc<AtomicUsize>) -> Body {
    let stream = futures_util::stream::iter((0..chunks).map(move |_| {
        pulled.fetch_add(CHUNK, Ordering::Relaxed);
        Ok::<_, std::io::Error>(axum::body::Bytes::from(vec![b' '; CHUNK]))
    }));
    Body::from_stream(stream)
}

async fn post(app: &TestApp, path: &str, declared: Option<u64>, body: Body, idem: bool) -> (u16, String) {
    let mut req = axum::http::Request::builder()
        .method("POST")
        .uri(path)
        .header("x-o-api-key", &app.a.key)
        .header("content-type", "application/xml")
        .header("user-agent", api_tests::PLAYER_UA);
    if let Some(n) = declared {
        req = req.header("content-length", n);
    }
    if idem {
        req = req.header("idempotency-key", "big-1");
    }
    let res = app.router.clone().oneshot(req.body(body).unwrap()).await.unwrap();
    let status = res.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(res.into_body()).await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

one_store! {
    async fn oversized_bodies_are_refused_before_they_are_read(app: TestApp) {
        for idem in [false, true] {
            // 60 MB declared: 413 at once, nothing pulled from the body.
            let pulled = Arc::new(AtomicUsize::new(0));
            let (status, body) = post(&app, "/api/1.0/client", Some(60_000_000), counted_body(960, pulled.clone()), idem).await;
            assert_eq!(status, 413, "{body}");
            assert!(body.contains("larger than 1048576 bytes"), "{body}");
            assert_eq!(pulled.load(Ordering::Relaxed), 0, "no byte read (idempotency key: {idem})");
            // No declared length (chunked): read only up to the limit, then 413.
            let pulled = Arc::new(AtomicUsize::new(0));
            let (status, _) = post(&app, "/api/1.0/client", None, counted_body(960, pulled.clone()), idem).await;
            assert_eq!(status, 413);
            let read = pulled.load(Ordering::Relaxed);
            assert!(read <= web::api::MAX_BODY + 2 * CHUNK, "{read} bytes read of 60 MB (idempotency key: {idem})");
        }
        // An upload route has its own, larger limit: 2 MB of audience data is not refused
        // for its size (it is refused for naming no provider).
        let (status, body) = post(&app, "/v1/audience/batch", Some(2 * 1024 * 1024), counted_body(32, Arc::default()), false).await;
        assert_ne!(status, 413, "{body}");
    }
}

one_store! {
    async fn one_account_cannot_take_an_instances_capacity(app: TestApp) {
        // Bursts of 5, then one request per 100 s, for this test's instance.
        let mut settings = (*app.state.settings).clone();
        settings.account_rate_per_sec = 0.01;
        settings.account_burst = 5.0;
        let (_, routes) = web::api::groups::ALL.iter().find(|(n, _)| *n == "clients").unwrap();
        let router = web::api::finish(routes(), app.state.clone().with_settings(settings));
        let get = |key: String| {
            let router = router.clone();
            async move {
                let req = axum::http::Request::builder().uri("/api/1.0/client").header("x-o-api-key", key).body(Body::empty()).unwrap();
                let res = router.oneshot(req).await.unwrap();
                (res.status().as_u16(), res.headers().get("retry-after").and_then(|v| v.to_str().ok()).map(str::to_string))
            }
        };
        for _ in 0..5 {
            assert_eq!(get(app.a.key.clone()).await.0, 200);
        }
        let (status, retry) = get(app.a.key.clone()).await;
        assert_eq!(status, 429);
        assert!(retry.is_some_and(|r| r.parse::<u64>().is_ok_and(|s| s >= 1)));
        // Another account is served.
        assert_eq!(get(app.b.key.clone()).await.0, 200);
    }
}

/// Posts `body` (chunked: no declared length) to the goal's ad form as `who`'s browser.
async fn upload(app: &TestApp, who: &api_tests::Browser<'_>, goal: &str, token: &str, body: Body) -> (u16, String) {
    let req = axum::http::Request::builder()
        .method("POST")
        .uri(format!("/console/goals/{goal}/ads?csrf={token}"))
        .header("host", api_tests::CONSOLE_HOST)
        .header("origin", api_tests::CONSOLE_ORIGIN)
        .header("cookie", format!("o_session={}", who.session))
        .header("content-type", "multipart/form-data; boundary=XBOUNDARY")
        .body(body)
        .unwrap();
    let res = app.router.clone().oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let bytes = http_body_util::BodyExt::collect(res.into_body()).await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

/// Uploads of at most 1 MB.
fn small_uploads() -> web::settings::Settings {
    web::settings::Settings { upload_max_bytes: 1024 * 1024, ..TestApp::settings() }
}

api_tests::per_store! { |b| api_tests::TestApp::spawn_with(b, super::small_uploads()); [store_independent: Embedded];
    async fn an_upload_is_refused_before_its_file_is_read_and_bounded_as_it_streams(app: TestApp) {
        let ann = crate::console::person(&app, "ann@a.example", "TRAFFICKER").await;
        let vic = crate::console::person(&app, "vic@a.example", "VIEWER").await;
        let c = crate::console::campaign(&ann, "Winter sports").await;
        let g = crate::console::goal(&ann, &c, "Morning", "2030-01-01T00:00", "2030-01-31T00:00").await;
        // A VIEWER, with their own token: 403 before a byte of the body is read.
        let pulled = Arc::new(AtomicUsize::new(0));
        let (status, body) = upload(&app, &vic, &g, &vic.csrf, api_tests::ad_form(&[("name", "Spot")], 160, pulled.clone())).await;
        assert_eq!(status, 403, "{body}");
        assert_eq!(pulled.load(Ordering::Relaxed), 0, "the VIEWER's file was not read");
        // A TRAFFICKER without the form's token, or a forged one: 403, nothing read.
        for token in ["", "forged"] {
            let pulled = Arc::new(AtomicUsize::new(0));
            let (status, body) = upload(&app, &ann, &g, token, api_tests::ad_form(&[("name", "Spot")], 160, pulled.clone())).await;
            assert_eq!(status, 403, "{body}");
            assert_eq!(pulled.load(Ordering::Relaxed), 0, "the file was not read (token {token:?})");
        }
        // With the token, a chunked file past the bound: read up to it, then 413.
        let pulled = Arc::new(AtomicUsize::new(0));
        let (status, body) = upload(&app, &ann, &g, &ann.csrf, api_tests::ad_form(&[("name", "Spot"), ("click", "https://example.com")], 160, pulled.clone())).await;
        assert_eq!(status, 413, "{body}");
        let read = pulled.load(Ordering::Relaxed);
        assert!(read <= 1024 * 1024 + 64 * 1024 + 2 * CHUNK, "{read} bytes of a 10 MB file read");
        // Nothing was made.
        let ads = app.get("/v1/ads").await.body;
        assert!(!ads.contains("\"Spot\""), "no ad was made: {ads}");
    }
}
