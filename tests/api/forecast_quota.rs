//! The forecast quota and deadline: at most three jobs of an account
//! queued or running (429 with Retry-After past that, other accounts unaffected), a slot
//! freed when its job ends or is cancelled; a job near its invocation's deadline fails with
//! a reason instead of staying PROCESSING; simulations in one process are bounded.

use std::sync::Arc;

use api_tests::serde_json::Value;
use api_tests::{both_stores, TestApp};
use http_body_util::BodyExt;
use tower::ServiceExt;
use web::jobs::ForecastMessage;
use web::usecases::forecast_run::{self, Outcome};

use crate::forecasts::inventory_body;

/// The forecast Lambda as deployed: its group's router over a queue nobody reads yet
/// (jobs stay QUEUED until the test runs them through the worker).
struct ForecastFunction {
    router: axum::Router,
    _receivers: web::queue::Receivers,
}

impl ForecastFunction {
    fn new(app: &TestApp) -> ForecastFunction {
        let (queue, receivers) = web::queue::InProcessQueue::new();
        let state = app.state.clone().with_queue(Arc::new(queue));
        let (_, routes) = web::api::groups::ALL.iter().find(|(name, _)| *name == "forecast").expect("forecast group");
        ForecastFunction { router: web::api::finish(routes(), state), _receivers: receivers }
    }

    async fn call(&self, method: &str, path: &str, key: &str, body: &Value) -> (u16, axum::http::HeaderMap, String) {
        let req = axum::http::Request::builder()
            .method(method)
            .uri(path)
            .header("x-o-api-key", key)
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body.to_string()))
            .unwrap();
        let res = self.router.clone().oneshot(req).await.unwrap();
        let (status, headers) = (res.status().as_u16(), res.headers().clone());
        let bytes = res.into_body().collect().await.unwrap().to_bytes();
        (status, headers, String::from_utf8_lossy(&bytes).into_owned())
    }

    /// Submits an inventory forecast; returns the status and the job id (when accepted).
    async fn submit(&self, app: &TestApp, key: &str) -> (u16, axum::http::HeaderMap, String) {
        // The body names the caller's own reference data.
        let mut body = inventory_body(app);
        if key == app.b.key {
            body = api_tests::serde_json::from_str(&body.to_string().replace(&app.a.id, &app.b.id)).unwrap();
        }
        let (status, headers, body) = self.call("POST", "/api/2.0/forecast/inventory", key, &body).await;
        let id = headers.get("location").and_then(|l| l.to_str().ok()).and_then(|l| l.rsplit('/').next()).unwrap_or("").to_string();
        (status, headers, if status == 202 { id } else { body })
    }
}

both_stores! {
    async fn an_account_has_at_most_three_forecasts_at_once(app: TestApp) {
        let f = ForecastFunction::new(&app);
        let mut jobs = Vec::new();
        for _ in 0..3 {
            let (status, _, id) = f.submit(&app, &app.a.key).await;
            assert_eq!(status, 202, "{id}");
            jobs.push(id);
        }
        let (status, headers, body) = f.submit(&app, &app.a.key).await;
        assert_eq!(status, 429, "{body}");
        let retry: u64 = headers.get("retry-after").and_then(|v| v.to_str().ok()).and_then(|v| v.parse().ok()).expect("Retry-After");
        assert!(retry >= 5, "{retry}");
        assert!(body.contains("at most 3 at once"), "{body}");
        // Another account is not held back by a's jobs.
        assert_eq!(f.submit(&app, &app.b.key).await.0, 202);
        // A cancelled job frees its slot.
        let (status, _, body) = f.call("POST", &format!("/api/2.0/forecast/job/{}/cancel", jobs[0]), &app.a.key, &Value::Null).await;
        assert!(status < 300, "{status} {body}");
        let (status, _, fourth) = f.submit(&app, &app.a.key).await;
        assert_eq!(status, 202, "{fourth}");
        assert_eq!(f.submit(&app, &app.a.key).await.0, 429);
        // A job that ran to its end frees its slot too.
        let m = ForecastMessage { account: app.a.id.clone(), job: jobs[1].clone() };
        assert_eq!(forecast_run::run(&app.state, &m).await.unwrap(), Outcome::Finished);
        assert_eq!(f.submit(&app, &app.a.key).await.0, 202);
    }

    async fn a_forecast_near_its_deadline_fails_with_a_reason(app: TestApp) {
        let f = ForecastFunction::new(&app);
        let (status, _, job) = f.submit(&app, &app.a.key).await;
        assert_eq!(status, 202, "{job}");
        // A Lambda invocation with 10 s left: less than the 30 s the worker keeps to end.
        let st = app.state.clone().with_deadline(Some(std::time::Instant::now() + std::time::Duration::from_secs(10)));
        let m = ForecastMessage { account: app.a.id.clone(), job: job.clone() };
        let out = forecast_run::run(&st, &m).await.unwrap();
        assert_eq!(out, Outcome::Failed(forecast_run::DEADLINE_MESSAGE.into()));
        let r = app.get(&format!("/api/2.0/forecast/job/{job}")).await;
        r.expect(200);
        assert_eq!(r.json()["status"], "FAILED", "{}", r.body);
        assert!(r.body.contains("time limit"), "{}", r.body);
        // The slot is free again, and the peak of simulations in this process stayed bounded.
        assert_eq!(f.submit(&app, &app.a.key).await.0, 202);
        assert!(forecast_run::peak_simulations() <= forecast_run::max_simulations());
    }
}
