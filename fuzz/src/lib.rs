//! The harness the HTTP fuzz targets share: the whole router (every group) over an
//! in-memory embedded store seeded with the demo accounts, built once per process, and a
//! call that sends one request as the demo account and fails on a 5xx or a panic.

use std::sync::{Arc, OnceLock};

use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use tower::ServiceExt;

pub struct Harness {
    pub rt: tokio::runtime::Runtime,
    pub router: axum::Router,
    pub key: String,
    /// A campaign, a goal, an ad and a template of the demo account, for paths that name one.
    pub campaign: String,
    pub goal: String,
    pub ad: String,
    pub template: String,
}

pub fn harness() -> &'static Harness {
    static H: OnceLock<Harness> = OnceLock::new();
    H.get_or_init(|| {
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(1).enable_all().build().expect("runtime");
        let (router, key) = rt.block_on(async {
            let store: Arc<dyn web::store::Store> = Arc::new(web::store::embedded::EmbeddedStore::in_memory().expect("store"));
            let seed = web::seed::SeedFile::parse(web::seed::DEMO_SEED).expect("seed");
            web::seed::apply(store.as_ref(), &seed).await.expect("seeding");
            // Queued jobs are accepted and never run: the targets look at the API alone.
            let (q, _rx) = web::queue::InProcessQueue::new();
            std::mem::forget(_rx);
            let st = web::state::AppState::new(store, Arc::new(web::blobs::MemoryBlobs::default()), Arc::new(q));
            (web::api::app(st), seed.accounts[0].api_keys[0].clone())
        });
        let mut h = Harness { rt, router, key, campaign: String::new(), goal: String::new(), ad: String::new(), template: String::new() };
        let adv = h.call("POST", "/api/1.0/client", "application/xml", b"<clientBean><name>Fuzz</name><type>ADVERTISER</type></clientBean>").1;
        h.campaign = h
            .call("POST", "/api/1.0/campaign", "application/xml", format!("<campaignBean><name>F</name><advertiserId>{adv}</advertiserId></campaignBean>").as_bytes())
            .1;
        let start = (chrono::Utc::now() + chrono::Duration::days(1)).to_rfc3339();
        let end = (chrono::Utc::now() + chrono::Duration::days(9)).to_rfc3339();
        let goal = format!(
            "<goalBean><campaignId>{}</campaignId><type>IMPRESSION</type><variant>NORMAL</variant><start>{start}</start><end>{end}</end><goalValue>10</goalValue></goalBean>",
            h.campaign
        );
        h.goal = h.call("POST", "/api/1.0.cpvext/goal", "application/xml", goal.as_bytes()).1;
        let ad = format!(r#"{{"name":"A","goalId":"{}","creative":{{"type":"spotPlaceholder","insertionPoint":"preroll"}}}}"#, h.goal);
        let body = h.call("POST", "/v1/ads", "application/json", ad.as_bytes()).1;
        h.ad = serde_json::from_str::<serde_json::Value>(&body).ok().and_then(|v| v["id"].as_str().map(str::to_string)).unwrap_or_default();
        let t = h.call("POST", "/api/2.0/targeting-template", "application/json", br#"{"name":"T"}"#).1;
        h.template = serde_json::from_str::<serde_json::Value>(&t).ok().and_then(|v| v["id"].as_str().map(str::to_string)).unwrap_or_default();
        assert!(!h.ad.is_empty() && !h.template.is_empty(), "harness setup");
        h
    })
}

impl Harness {
    /// Sends one request as the demo account; panics (a finding) on a 5xx.
    pub fn call(&self, method: &str, path: &str, content_type: &str, body: &[u8]) -> (u16, String) {
        let Ok(req) = Request::builder()
            .method(method)
            .uri(path)
            .header("x-o-api-key", &self.key)
            .header("content-type", content_type)
            .body(Body::from(body.to_vec()))
        else {
            return (0, String::new()); // not a request a client could send
        };
        let (status, text) = self.rt.block_on(async {
            let res = self.router.clone().oneshot(req).await.expect("infallible");
            let status = res.status().as_u16();
            let bytes = res.into_body().collect().await.map(|b| b.to_bytes()).unwrap_or_default();
            (status, String::from_utf8_lossy(&bytes).into_owned())
        });
        assert!(status < 500, "{method} {path}: {status} {text}");
        (status, text)
    }
}
