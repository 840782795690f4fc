//! The routers behind API Gateway: recorded HTTP API (payload 2.0) events, the API type
//! template.yaml declares, go through lambda_http's own event parsing into the same router
//! a Lambda serves. Paths arrive without a stage prefix and keep their matrix parameters.

use api_tests::{one_store, xml_text, TestApp};
use http_body_util::BodyExt;
use tower::ServiceExt;

const FIXTURE: &str = include_str!("../fixtures/apigw-http-v2.json");

async fn invoke(app: &TestApp, group: &str, method: &str, path: &str, query: &str, body: &str) -> (u16, String) {
    let proxy = path.splitn(5, '/').nth(4).unwrap_or("");
    let event = FIXTURE
        .replace("__PATH__", path)
        .replace("__QUERY__", query)
        .replace("__METHOD__", method)
        .replace("__PROXY__", proxy)
        .replace("__KEY__", &app.a.key)
        .replace("__BODY__", &body.replace('"', "\\\""));
    let req = lambda_http::request::from_str(&event).expect("a valid API Gateway event");
    let req = req.map(|b| axum::body::Body::from(b.to_vec()));
    // The router of the one group this Lambda serves, over the test's store.
    let (_, routes) = web::api::groups::ALL.iter().find(|(name, _)| *name == group).expect("group");
    let router = web::api::finish(routes(), app.state.clone());
    let res = router.oneshot(req).await.expect("infallible");
    let status = res.status().as_u16();
    let bytes = res.into_body().collect().await.expect("body").to_bytes();
    (status, String::from_utf8_lossy(&bytes).into_owned())
}

one_store! {
    async fn http_api_events_reach_the_group_routers(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let (status, id) = invoke(&app, "campaigns", "POST", "/api/1.0/campaign", "",
            &format!("<campaignBean><name>Via API Gateway</name><advertiserId>{adv}</advertiserId></campaignBean>")).await;
        assert_eq!(status, 200, "{id}");
        let (status, body) = invoke(&app, "campaigns", "GET", &format!("/api/1.0/campaign/by_campaign_id;id={id}"), "", "").await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(xml_text(&body, "name").as_deref(), Some("Via API Gateway"));
        let (status, body) = invoke(&app, "campaigns", "GET", "/api/1.0/campaign", "state=enabled", "").await;
        assert_eq!(status, 200);
        assert!(!body.contains(&id), "the query string reaches the filter");
        let (status, _) = invoke(&app, "clients", "GET", &format!("/api/1.0/client/by_client_id;id={adv}"), "", "").await;
        assert_eq!(status, 200);
        // A group's Lambda does not answer another group's paths.
        let (status, body) = invoke(&app, "clients", "GET", "/api/1.0/campaign", "", "").await;
        assert_eq!(status, 404, "{body}");
        // The rules routes are part of the campaigns group.
        let (status, body) = invoke(&app, "campaigns", "GET", &format!("/api/1.0/campaign/rules/by_campaign_id;id={id}"), "", "").await;
        assert_eq!(status, 200, "{body}");
    }
}
