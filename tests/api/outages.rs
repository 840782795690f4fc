//! A store that fails is an outage, never "not found": reads of a record's parent that the
//! store refuses answer 503 (retry), not 404 or an empty list.

use std::sync::Arc;

use api_tests::serde_json::json;
use api_tests::{both_stores, TestApp, Unavailable};
use web::store::Store;

both_stores! {
    async fn an_unreadable_goal_is_503_never_404(app: TestApp) {
        let (_, goal) = app.live_goal().await;
        let r = app.post_json("/v1/ads", &json!({"name": "spot", "goalId": goal,
            "creative": {"type": "spotPlaceholder", "insertionPoint": "preroll"}})).await;
        r.expect(201);
        let ad = r.json()["id"].as_str().unwrap().to_string();
        app.get(&format!("/v3/ads/{ad}")).await.expect(200);
        // The goals cannot be read now: the ad's answer is an outage, not "no such ad", and
        // the goal's ads are not an empty list.
        let goals = web::keys::partition(&app.a.id, web::keys::GOAL);
        let store: Arc<dyn Store> = Arc::new(Unavailable::reads_of(app.store.clone(), move |k| k.pk == goals));
        let broken = TestApp {
            router: web::api::app(app.state.clone().with_store(store)),
            state: app.state.clone(),
            store: app.store.clone(),
            bidders: app.bidders.clone(),
            clock: app.clock.clone(),
            a: app.a.clone(),
            b: app.b.clone(),
        };
        let r = broken.get(&format!("/v3/ads/{ad}")).await;
        assert_eq!(r.status, 503, "{}", r.body);
        assert_eq!(r.header("retry-after"), Some("1"));
        let r = broken.get(&format!("/v3/ads?goal.id={goal}")).await;
        assert_eq!(r.status, 503, "{}", r.body);
        // Healthy again: the same answers as before.
        app.get(&format!("/v3/ads/{ad}")).await.expect(200);
        assert_eq!(app.get(&format!("/v3/ads?goal.id={goal}")).await.json()["pagination"]["totalCount"], 1);
    }
}
