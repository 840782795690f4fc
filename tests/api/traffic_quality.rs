//! Invalid traffic through HTTP (docs/traffic-quality.md): events
//! count only after their impression, crawlers and scripts are filtered, no viewer or
//! address can spend a goal; what is filtered is counted apart, by reason, in `/v3`.

use api_tests::serde_json::json;
use api_tests::{both_stores, both_stores_with, TestApp, PEER};
use futures_util::StreamExt;

use crate::serving::{ad, ad_ids, enabled_campaign, goal, link};

const GOOGLEBOT: &str = "Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)";

/// An enabled preroll ad in a fresh goal of `value` impressions (`extra`: goal elements).
async fn live_ad(app: &TestApp, value: &str, extra: &str) -> String {
    let c = enabled_campaign(app).await;
    let g = goal(app, &c, "IMPRESSION", value, 0, extra).await;
    ad(app, &g, "preroll", json!({})).await
}

/// `n` served documents of `ad` (fetched before any impression counts, so pacing does not
/// hold the goal back), with the request's extra query and headers.
async fn documents(app: &TestApp, ad: &str, n: usize, query: &str, headers: &[(&str, &str)]) -> Vec<String> {
    let path = format!("/v1/adrequest?account={}&format=preroll{query}", app.a.id);
    // 25 at a time, as concurrent players would (one at a time is minutes on the emulator).
    let answers: Vec<api_tests::Res> =
        futures_util::stream::iter(0..n).map(|_| app.send_with_headers("GET", &path, None, None, "", headers)).buffered(25).collect().await;
    answers
        .into_iter()
        .map(|r| {
            r.expect(200);
            assert_eq!(ad_ids(&r.body), vec![ad.to_string()], "served: {}", r.body);
            r.body
        })
        .collect()
}

/// Fires each link with its headers, 25 at a time; every one must be taken (204).
async fn fire_all(app: &TestApp, links: Vec<(String, Vec<(&'static str, String)>)>) {
    let statuses: Vec<u16> = futures_util::stream::iter(links)
        .map(|(l, h)| async move {
            let headers: Vec<(&str, &str)> = h.iter().map(|(k, v)| (*k, v.as_str())).collect();
            app.fire_with(&l, &headers).await.status
        })
        .buffer_unordered(25)
        .collect()
        .await;
    assert!(statuses.iter().all(|s| *s == 204), "{statuses:?}");
}

both_stores! {
    async fn a_completion_without_its_impression_is_not_counted(app: TestApp) {
        let id = live_ad(&app, "1000", "").await;
        let docs = documents(&app, &id, 2, "", &[]).await;
        // Only the complete link of the first document: it waits for its impression, then
        // (past the grace period) counts as invalid, never as a completion.
        app.fire(&link(&docs[0], "complete")).await.expect(204);
        app.advance(chrono::Duration::minutes(3));
        let m = app.wait_metric_at(&id, "/invalid/noImpression", 1).await;
        assert_eq!((m["complete"].as_i64(), m["impression"].as_i64()), (Some(0), Some(0)), "{m}");
        // A player that fires the complete a moment before the impression (queues do not
        // keep order) counts both.
        app.fire(&link(&docs[1], "complete")).await.expect(204);
        app.fire(&link(&docs[1], "impression")).await.expect(204);
        let m = app.wait_metric(&id, "complete", 1).await;
        assert_eq!((m["impression"].as_i64(), m["invalid"]["total"].as_i64()), (Some(1), Some(1)), "{m}");
    }

    async fn crawlers_and_scripts_are_counted_apart(app: TestApp) {
        let id = live_ad(&app, "1000", "").await;
        // A crawler still gets its document (the filter cannot be probed)…
        let bot = documents(&app, &id, 1, "", &[("user-agent", GOOGLEBOT)]).await;
        app.fire_with(&link(&bot[0], "impression"), &[("user-agent", GOOGLEBOT)]).await.expect(204);
        let m = app.wait_metric_at(&id, "/invalid/crawler", 1).await;
        assert_eq!(m["impression"], 0, "{m}");
        // … and its impression's other events are invalid alike, whoever fires them.
        app.fire(&link(&bot[0], "start")).await.expect(204);
        app.wait_metric_at(&id, "/invalid/crawler", 2).await;
        // A script (curl) and a request without a User-Agent are non-browser clients.
        let docs = documents(&app, &id, 3, "", &[]).await;
        app.fire_with(&link(&docs[0], "impression"), &[("user-agent", "curl/8.5.0")]).await.expect(204);
        app.fire_with(&link(&docs[1], "impression"), &[("user-agent", "")]).await.expect(204);
        app.wait_metric_at(&id, "/invalid/nonBrowser", 2).await;
        // A browser counts.
        app.fire(&link(&docs[2], "impression")).await.expect(204);
        let m = app.wait_metric(&id, "impression", 1).await;
        assert_eq!(m["invalid"]["total"], 4, "{m}");
        let g = app.get(&format!("/v3/ads/{id}?embed=metrics&metrics=invalid")).await;
        g.expect(200);
        assert_eq!(g.json()["metrics"]["invalid"]["crawler"], 2, "{}", g.body);
    }

    async fn replayed_and_expired_links_are_counted_apart(app: TestApp) {
        let id = live_ad(&app, "1000", "").await;
        let docs = documents(&app, &id, 2, "", &[]).await;
        let imp = link(&docs[0], "impression");
        app.fire(&imp).await.expect(204);
        app.fire(&imp).await.expect(204);
        let m = app.wait_metric_at(&id, "/invalid/duplicate", 1).await;
        assert_eq!(m["impression"], 1, "{m}");
        app.advance(chrono::Duration::hours(25));
        let r = app.fire(&link(&docs[1], "impression")).await;
        r.expect(403);
        assert!(r.body.contains("expired"), "{}", r.body);
        let m = app.wait_metric_at(&id, "/invalid/expired", 1).await;
        assert_eq!(m["impression"], 1, "{m}");
    }

    async fn one_viewer_cannot_fire_faster_than_a_person_watches(app: TestApp) {
        let id = live_ad(&app, "100000", "").await;
        let docs = documents(&app, &id, 14, "&pid=looper", &[]).await;
        fire_all(&app, docs.iter().map(|d| (link(d, "impression"), Vec::new())).collect()).await;
        let m = app.wait_metric_at(&id, "/invalid/viewerRate", 2).await;
        assert_eq!(m["impression"], 12, "12 a minute from one viewer: {m}");
        // The address rule: 120 a minute from one /24 block.
        let from = [(PEER, "203.0.113.9")];
        let docs = documents(&app, &id, 122, "", &from).await;
        fire_all(&app, docs.iter().enumerate().map(|(i, d)| (link(d, "impression"), vec![(PEER, format!("203.0.113.{}", i % 250))])).collect())
            .await;
        let m = app.wait_metric_at(&id, "/invalid/addressRate", 2).await;
        assert_eq!(m["impression"], 132, "{m}");
    }

    async fn one_viewer_or_address_cannot_spend_a_goal(app: TestApp) {
        // A daily cap of 40: one viewer or address block makes at most 3 of them valid
        // (5 % of the daily cap, at least 3).
        let id = live_ad(&app, "100000", "<caps><cap><type>dailyCap</type><value>40</value></cap></caps>").await;
        for d in documents(&app, &id, 5, "&pid=spender", &[]).await {
            app.fire(&link(&d, "impression")).await.expect(204);
        }
        let m = app.wait_metric_at(&id, "/invalid/viewerGoalCap", 2).await;
        assert_eq!(m["impression"], 3, "{m}");
        for d in documents(&app, &id, 5, "", &[]).await {
            app.fire_with(&link(&d, "impression"), &[(PEER, "198.51.100.7")]).await.expect(204);
        }
        let m = app.wait_metric_at(&id, "/invalid/addressGoalCap", 2).await;
        assert_eq!(m["impression"], 6, "{m}");
        // The goal still delivers to everybody else.
        let d = documents(&app, &id, 1, "&pid=someone-else", &[]).await;
        app.fire(&link(&d[0], "impression")).await.expect(204);
        app.wait_metric(&id, "impression", 7).await;
    }
}

both_stores! {
    async fn a_burst_after_a_change_builds_one_snapshot_and_unknown_accounts_cost_nothing(app: TestApp) {
        let id = live_ad(&app, "1000", "").await;
        documents(&app, &id, 1, "", &[]).await;
        // A change (a second ad), then a burst of 40 concurrent requests: one rebuild.
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        ad(&app, &g, "midroll", json!({})).await;
        // One new snapshot: compiled here, or the compile worker's read (whichever the
        // worker's timing gives), never one per request.
        let snapshots = |app: &TestApp| app.state.delivery.builds() + app.state.delivery.loads();
        let before = snapshots(&app);
        let path = format!("/v1/adrequest?account={}&format=preroll", app.a.id);
        let burst = (0..40).map(|_| app.send("GET", &path, None, None, ""));
        for r in futures_util::future::join_all(burst).await {
            r.expect(200);
        }
        assert_eq!(snapshots(&app) - before, 1, "one new snapshot for the burst");
        // An unknown account: 404, and after the first lookup no store reads for a while.
        let unknown = format!("/v1/adrequest?account=no-such-{}&format=preroll", app.a.id);
        app.send("GET", &unknown, None, None, "").await.expect(404);
        // The store's count is the process's: the background work (the compile worker's
        // read of the change, the traffic samples' write) ends first.
        app.settle().await;
        app.flush_samples().await;
        // The in-process workers poll their queues through the same store, so a window can
        // catch one of their reads: up to three windows of 50 requests, and one must read
        // nothing (a request that reads would make every window read 50 times).
        let mut counts = Vec::new();
        for _ in 0..3 {
            app.send("GET", &unknown, None, None, "").await.expect(404);
            let trips = app.store.round_trips();
            for _ in 0..50 {
                app.send("GET", &unknown, None, None, "").await.expect(404);
            }
            counts.push(app.store.round_trips() - trips);
            if counts.last() == Some(&0) {
                break;
            }
        }
        assert_eq!(counts.last(), Some(&0), "50 requests for an unknown account read nothing: {counts:?}");
    }
}

/// The app with one trusted proxy range (a load balancer in front of the server).
fn behind_a_proxy() -> web::settings::Settings {
    web::settings::Settings { trusted_proxies: vec![web::cidr::Cidr::parse("10.9.0.0/16").unwrap()], ..TestApp::settings() }
}

both_stores_with! { super::behind_a_proxy();
    async fn rotating_x_forwarded_for_gets_one_addresss_share(app: TestApp) {
        // No pid, one untrusted peer, a new X-Forwarded-For on every call: the header is
        // not believed, so the calls are one address's, and past 120 a minute invalid.
        let id = live_ad(&app, "100000", "").await;
        let docs = documents(&app, &id, 250, "", &[]).await;
        let spoofed = |i: usize| vec![(PEER, "192.0.2.10".to_string()), ("x-forwarded-for", format!("198.18.{i}.1"))];
        fire_all(&app, docs[..125].iter().enumerate().map(|(i, d)| (link(d, "impression"), spoofed(i))).collect()).await;
        let m = app.wait_metric_at(&id, "/invalid/addressRate", 5).await;
        assert_eq!(m["impression"], 120, "one address's share: {m}");
        // The same header from a trusted proxy names the viewer: 125 viewers, all valid.
        let proxied = |i: usize| vec![(PEER, "10.9.0.1".to_string()), ("x-forwarded-for", format!("203.0.113.66, 198.19.{i}.1"))];
        fire_all(&app, docs[125..].iter().enumerate().map(|(i, d)| (link(d, "impression"), proxied(i))).collect()).await;
        let m = app.wait_metric_at(&id, "/impression", 245).await;
        assert_eq!(m["invalid"]["addressRate"], 5, "{m}");
    }
}
