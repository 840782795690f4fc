//! Publisher scale (docs/publisher-scale.md): an account past the serving bound is refused
//! at compile time with an operator error naming the bound, never compiled into memory;
//! a process that already serves the account keeps its previous snapshot.

use api_tests::serde_json::json;
use api_tests::{both_stores_with, TestApp};
use shared::settings::Settings;

use super::serving::{ad, enabled_campaign, goal, served};

/// At most two stored ads an account's snapshot is compiled from.
fn two_ads() -> Settings {
    Settings { delivery_max_ads: 2, ..TestApp::settings() }
}

both_stores_with! { super::two_ads();
    async fn an_account_past_the_serving_bound_is_refused_and_a_served_one_keeps_its_snapshot(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let first = ad(&app, &g, "preroll", json!({})).await;
        let second = ad(&app, &g, "preroll", json!({})).await;
        let third = ad(&app, &g, "preroll", json!({})).await;

        // Three ads stored, two allowed: refused, the bound and its setting named.
        let r = app.ad_request("format=preroll").await;
        r.expect(403);
        let body = r.body.clone();
        assert!(body.contains("more than 2 ads") && body.contains("DELIVERY_MAX_ADS"), "{body}");
        // The inspector compiles the same snapshot: refused the same way.
        let r = app.get("/v3/inspect?format=preroll&seed=1").await;
        r.expect(403);
        assert!(r.body.contains("DELIVERY_MAX_ADS"), "{}", r.body);

        // Within the bound again: served.
        app.delete(&format!("/v1/ads/{third}")).await.expect(204);
        let picked = served(&app, "format=preroll").await;
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert!(picked[0] == first || picked[0] == second, "{picked:?}");

        // Past it again while this process serves the account: the previous snapshot
        // keeps serving (the new midroll ad is not in it), nothing is compiled.
        let builds = app.state.delivery.builds();
        let midroll = ad(&app, &g, "midroll", json!({})).await;
        assert!(served(&app, "format=midroll").await.is_empty(), "the refused version was compiled");
        assert_eq!(served(&app, "format=preroll").await.len(), 1);
        assert_eq!(app.state.delivery.builds(), builds, "a snapshot past the bound was compiled");

        // Back within it: the new version is compiled and its midroll ad served.
        app.delete(&format!("/v1/ads/{first}")).await.expect(204);
        assert_eq!(served(&app, "format=midroll").await, vec![midroll]);
    }
}
