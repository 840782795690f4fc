//! Campaign notifications that matter to ad operations (seed 001 §2.5
//! shape, the rules in docs/api.md): a goal capped, paced out, short of its target, ended
//! under-delivered; a campaign none of whose goals has an ad that can serve.

use api_tests::serde_json::json;
use api_tests::{both_stores, xml_texts, TestApp};

use crate::serving::{ad, ad_ids, deliver_until_held, enabled_campaign, goal, link};

async fn notes(app: &TestApp, campaign: &str) -> Vec<(String, String, String)> {
    let r = app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={campaign}")).await;
    r.expect(200);
    let ids = xml_texts(&r.body, "id");
    let levels = xml_texts(&r.body, "level");
    let messages = xml_texts(&r.body, "message");
    // Each bean: concernedResource/id, then relatedResources/id.
    levels.into_iter().zip(messages).enumerate().map(|(i, (l, m))| (ids[2 * i].clone(), l, m)).collect()
}

fn find<'a>(list: &'a [(String, String, String)], id: &str, text: &str) -> &'a (String, String, String) {
    list.iter().find(|(i, _, m)| i == id && m.contains(text)).unwrap_or_else(|| panic!("no notification on {id} with {text:?}: {list:?}"))
}

async fn deliver(app: &TestApp, ad_id: &str, query: &str, n: i64) {
    for i in 1..=n {
        let doc = app.ad_request(&format!("{query}&pid=n{i}")).await.body;
        assert_eq!(ad_ids(&doc), vec![ad_id.to_string()], "impression {i}");
        app.fire(&link(&doc, "impression")).await.expect(204);
        app.wait_metric(ad_id, "impression", i).await;
    }
}

both_stores! {
    async fn notifications_name_capped_paced_short_and_under_delivered_goals(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let capped = goal(&app, &c, "IMPRESSION", "1000", 0, "<caps><cap><type>dailyCap</type><value>2</value></cap></caps>").await;
        let capped_ad = ad(&app, &capped, "midroll", json!({})).await;
        let paced = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let paced_ad = ad(&app, &paced, "preroll", json!({})).await;
        // The capped goal: two impressions today, then the cap.
        deliver(&app, &capped_ad, "format=midroll", 2).await;
        let list = notes(&app, &c).await;
        let (_, level, _) = find(&list, &capped, "reached its DAILY_CAP");
        assert_eq!(level, "INFO");
        // The other: served until pacing holds it back in its first hour.
        deliver_until_held(&app, &paced_ad, "format=preroll").await;
        let list = notes(&app, &c).await;
        find(&list, &paced, "ahead of its plan");
        // Two days in, with those few impressions: short of its target, by how much.
        app.advance(chrono::Duration::days(2));
        let list = notes(&app, &c).await;
        let (_, level, msg) = find(&list, &paced, "projected to deliver");
        assert_eq!(level, "WARNING");
        assert!(msg.contains("of its target 1000") && msg.contains("shortfall of"), "{msg}");
        // After the flight: under-delivered, with the figures.
        app.advance(chrono::Duration::days(10));
        let list = notes(&app, &c).await;
        let (_, level, msg) = find(&list, &capped, "under-delivered");
        assert_eq!(level, "WARNING");
        assert!(msg.contains("2 of 1000 (0 %), short by 998"), "{msg}");
    }

    async fn a_campaign_whose_goals_have_no_ad_that_can_serve_is_warned(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let id = ad(&app, &g, "preroll", json!({"enabled": false})).await;
        let list = notes(&app, &c).await;
        let (_, level, _) = find(&list, &c, "No goal of the campaign has an ad that can serve");
        assert_eq!(level, "WARNING");
        app.patch_json("/v1/ads", &json!({"id": id, "enabled": true})).await.expect(200);
        let list = notes(&app, &c).await;
        assert!(!list.iter().any(|(_, _, m)| m.contains("No goal of the campaign")), "{list:?}");
    }
}

// A management read reflects the writes before it, whatever the serving snapshot's
// refresh interval (here the production default, not the tests' zero).
api_tests::both_backends! {
    async fn notifications_read_their_writes(backend: api_tests::Backend) {
        let settings = web::settings::Settings { delivery_refresh: std::time::Duration::from_secs(60), ..TestApp::settings() };
        let app = TestApp::spawn_with(backend, settings).await;
        let c = enabled_campaign(&app).await;
        // Primes the cached snapshot; then a goal whose flight already ended is created.
        notes(&app, &c).await;
        let g = app
            .create_xml(
                "/api/1.0.cpvext/goal",
                &format!(
                    "<goalBean><campaignId>{c}</campaignId><type>IMPRESSION</type><variant>NORMAL</variant><goalValue>50000</goalValue>\
                     <start>2020-01-01T00:00:00Z</start><end>2020-01-31T00:00:00Z</end></goalBean>"
                ),
            )
            .await;
        let list = notes(&app, &c).await;
        let (_, level, msg) = find(&list, &g, "under-delivered");
        assert_eq!(level, "WARNING");
        assert!(msg.contains("0 of 50000"), "{msg}");
    }
}
