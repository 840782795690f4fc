//! Pace records on a refresh (docs/publisher-scale.md, "Pace records"): a serving process
//! reads an account's pace records whole once, then only those changed since its last
//! read, so its reads per minute follow the goals that delivered, not the account's size.

use api_tests::serde_json::json;
use api_tests::{both_stores_with, TestApp};
use std::sync::Arc;
use web::caches::snapshots::DeliveryCache;
use web::delivery::pacing::Pace;
use web::settings::Settings;

use crate::serving::{ad, ad_ids, enabled_campaign, goal, link};

/// No overlap: a refresh reads exactly the records changed since the last one began.
fn no_overlap() -> Settings {
    Settings { delivery_pace_overlap: std::time::Duration::ZERO, ..TestApp::settings() }
}

async fn deliver(app: &TestApp, ad_id: &str, query: &str, n: i64) {
    for i in 1..=n {
        let doc = app.ad_request(&format!("{query}&pid={ad_id}-{i}")).await.body;
        assert_eq!(ad_ids(&doc), vec![ad_id.to_string()], "impression {i}");
        app.fire(&link(&doc, "impression")).await.expect(204);
        app.wait_metric(ad_id, "impression", i).await;
    }
}

/// The delivered count of every goal of a process's snapshot, by goal id.
async fn delivered(app: &TestApp, cache: &Arc<DeliveryCache>) -> std::collections::BTreeMap<String, u64> {
    let s = Settings { delivery_refresh: std::time::Duration::ZERO, ..(*app.state.settings).clone() };
    let now = web::clock::Clock::now(app.clock.as_ref());
    let (snapshot, pace) = cache.current(&app.state.store, &app.state.blobs, &app.a.id, &s, now).await.expect("snapshot");
    snapshot.goals.iter().zip(pace.iter()).map(|(g, p): (_, &Pace)| (g.id.clone(), p.delivered)).collect()
}

both_stores_with! { super::no_overlap();
    async fn a_serving_process_reads_only_the_pace_records_changed_since_its_last_read(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let first = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let first_ad = ad(&app, &first, "preroll", json!({})).await;
        let second = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let second_ad = ad(&app, &second, "midroll", json!({})).await;
        deliver(&app, &first_ad, "format=preroll", 2).await;
        app.settle().await;

        // A process new to the account reads every pace record once.
        let cache = Arc::new(DeliveryCache::default());
        let seen = delivered(&app, &cache).await;
        assert_eq!((seen[&first], seen[&second]), (2, 0));
        assert_eq!(cache.paces_read(), 1);
        // Nothing delivered since: no pace record is read.
        delivered(&app, &cache).await;
        assert_eq!(cache.paces_read(), 1);

        // The second goal delivers: the next refresh reads its record alone, and keeps the
        // first goal's.
        deliver(&app, &second_ad, "format=midroll", 3).await;
        app.settle().await;
        let seen = delivered(&app, &cache).await;
        assert_eq!((seen[&first], seen[&second]), (2, 3));
        assert_eq!(cache.paces_read(), 2);

        // Across a change of what is served (a new snapshot), the held records carry over.
        ad(&app, &second, "postroll", json!({})).await;
        app.settle().await;
        let seen = delivered(&app, &cache).await;
        assert_eq!((seen[&first], seen[&second]), (2, 3));
        assert_eq!(cache.paces_read(), 2);

        // A management read (`latest`) reads them all, as of every write before it.
        let now = web::clock::Clock::now(app.clock.as_ref());
        cache.latest(&app.state.store, &app.state.blobs, &app.a.id, &app.state.settings, now).await.expect("latest");
        assert_eq!(cache.paces_read(), 4);
    }
}
