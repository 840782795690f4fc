//! Audience batches and time: uploads, waiting for a batch, moving the service clock.

use axum::body::Body;
use axum::http::{Method, Request};
use http_body_util::BodyExt;
use tower::ServiceExt;

use crate::{Res, TestApp};

impl TestApp {
    /// Moves the service clock.
    pub fn advance(&self, d: chrono::Duration) {
        let now = web::clock::Clock::now(self.clock.as_ref());
        self.clock.set(now + d);
    }

    /// Uploads a batch file (as account `a`).
    pub async fn upload_batch(&self, query: &str, body: Vec<u8>, gzip: bool) -> Res {
        let mut req = Request::builder()
            .method(Method::POST)
            .uri(format!("/v1/audience/batch?{query}"))
            .header("x-o-api-key", &self.a.key)
            .header("content-type", "text/csv");
        if gzip {
            req = req.header("content-encoding", "gzip");
        }
        let res = self.router.clone().oneshot(req.body(Body::from(body)).expect("request")).await.expect("infallible");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        Res { status, headers, body: String::from_utf8_lossy(&bytes).into_owned() }
    }

    /// Polls a batch until it is finished or cancelled; returns its progress object.
    pub async fn wait_batch(&self, link: &str) -> serde_json::Value {
        crate::eventually(&format!("batch {link} to end"), std::time::Duration::from_secs(180), || async {
            let r = self.get(link).await;
            let v = (r.status == 200).then(|| r.json())?;
            (v["status"] == "PROCESSING_FINISHED" || v["status"] == "CANCELLED").then_some(v)
        })
        .await
    }
}
