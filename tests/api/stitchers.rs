//! Server-side ad insertion (docs/traffic-quality.md, "Server-side ad insertion"): stitchers
//! registered at `/v1/stitchers`; from a registered stitcher's address its `X-Device-IP` and
//! `X-Device-User-Agent` are the viewer's and its impressions count as server-initiated;
//! from anyone else those headers change nothing.

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, TestApp, PEER, PLAYER_UA};
use futures_util::StreamExt;

use crate::serving::{ad, ad_ids, enabled_campaign, goal, link};

/// What a stitcher's own requests say of themselves (a server, not a browser).
const STITCHER_UA: &str = "Go-http-client/1.1";

async fn register(app: &TestApp, body: Value) -> (String, String) {
    let r = app.post_json("/v1/stitchers", &body).await;
    r.expect(201);
    (r.header("location").unwrap().to_string(), r.header("etag").unwrap().to_string())
}

both_stores! {
    async fn stitchers_are_registered_read_replaced_and_removed(app: TestApp) {
        let body = json!({"name": "MediaTailor", "sourceCidrs": ["192.0.2.0/24"], "secretHeader": {"name": "X-Stitcher-Key", "value": "0123456789abcdef"}});
        let (loc, etag) = register(&app, body).await;
        let got = app.get(&loc).await;
        got.expect(200);
        let v = got.json();
        assert_eq!((v["name"].as_str(), v["secretHeaderSet"].as_bool()), (Some("MediaTailor"), Some(true)), "{v}");
        assert!(!got.body.contains("0123456789abcdef"), "the secret is never shown: {}", got.body);
        assert_eq!(app.get("/v1/stitchers").await.json()["stitchers"].as_array().map(Vec::len), Some(1));
        // Bad bodies name their fields; nothing is written.
        let bad = app.post_json("/v1/stitchers", &json!({"name": "", "sourceCidrs": ["0.0.0.0/0"]})).await;
        bad.expect(400);
        let errors = bad.json()["errors"].clone();
        let fields: Vec<&str> = errors.as_array().unwrap().iter().map(|e| e["field"].as_str().unwrap_or("")).collect();
        assert!(fields.contains(&"name") && fields.contains(&"sourceCidrs[0]"), "{}", bad.body);
        // PUT: the record as GET shows it; the secret kept when left out; a stale ETag is 412.
        let mut back = v.clone();
        back["sourceCidrs"] = json!(["192.0.2.0/24", "2001:db8::/32"]);
        let put_if = |etag: String| {
            let (loc, back, key) = (loc.clone(), back.to_string(), app.a.key.clone());
            let app = &app;
            async move { app.send_with_headers("PUT", &loc, Some(&key), Some("application/json"), &back, &[("if-match", etag.as_str())]).await }
        };
        let put = put_if(etag.clone()).await;
        put.expect(200);
        assert_eq!((put.json()["sourceCidrs"].as_array().map(Vec::len), put.json()["secretHeaderSet"].as_bool()), (Some(2), Some(true)));
        put_if(etag).await.expect(412);
        // Another account's stitcher is 404, never its data.
        app.get_as(&app.b.key, &loc).await.expect(404);
        app.delete(&loc).await.expect(204);
        app.get(&loc).await.expect(404);
        assert_eq!(app.get("/v1/stitchers").await.json()["stitchers"], json!([]));
        // Without a secret header a range is at most a /16 (IPv4) or a /48 (IPv6).
        let wide = app.post_json("/v1/stitchers", &json!({"name": "Open", "sourceCidrs": ["10.0.0.0/8", "2001:db8::/32", "192.0.2.0/24"]})).await;
        wide.expect(400);
        let fields: Vec<String> = wide.json()["errors"].as_array().unwrap().iter().map(|e| e["field"].as_str().unwrap().to_string()).collect();
        assert_eq!(fields, ["sourceCidrs[0]", "sourceCidrs[1]"], "{}", wide.body);
        assert_eq!(app.get("/v1/stitchers").await.json()["stitchers"], json!([]), "nothing was registered");
        // With one, a wider range is allowed; taking the secret away from it is refused.
        let secret = json!({"name": "X-Stitcher-Key", "value": "0123456789abcdef"});
        let ok = app.post_json("/v1/stitchers", &json!({"name": "Open", "sourceCidrs": ["10.0.0.0/8"], "secretHeader": secret})).await;
        ok.expect(201);
        let loc = ok.header("location").unwrap().to_string();
        let open = json!({"name": "Open", "sourceCidrs": ["10.0.0.0/8"], "secretHeader": null}).to_string();
        app.send("PUT", &loc, Some(&app.a.key), Some("application/json"), &open).await.expect(400);
        assert_eq!(app.get(&loc).await.json()["secretHeaderSet"], true, "the secret stays");
    }

    async fn a_stitchers_beacons_are_server_initiated_with_the_devices_values(app: TestApp) {
        register(&app, json!({"name": "DAI", "sourceCidrs": ["192.0.2.0/24"]})).await;
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "100000", 0, "").await;
        let id = ad(&app, &g, "preroll", json!({})).await;
        let path = format!("/v1/adrequest?account={}&format=preroll", app.a.id);
        // The stitcher asks for 6 viewers' ads (its own User-Agent is a server's).
        let docs: Vec<String> = futures_util::stream::iter(0..6)
            .map(|i| {
                let device = format!("198.18.{i}.7");
                let path = path.clone();
                let (app, id) = (&app, &id);
                async move {
                    let headers = [(PEER, "192.0.2.10"), ("user-agent", STITCHER_UA), ("x-device-ip", device.as_str()), ("x-device-user-agent", PLAYER_UA)];
                    let r = app.send_with_headers("GET", &path, None, None, "", &headers).await;
                    r.expect(200);
                    assert_eq!(ad_ids(&r.body), vec![id.clone()], "{}", r.body);
                    r.body
                }
            })
            .buffered(6)
            .collect()
            .await;
        // Its beacons for 4 of them: valid (the device's browser), server-initiated.
        for (i, d) in docs[..4].iter().enumerate() {
            let device = format!("198.18.{i}.7");
            let headers = [(PEER, "192.0.2.10"), ("user-agent", STITCHER_UA), ("x-device-ip", device.as_str()), ("x-device-user-agent", PLAYER_UA)];
            app.fire_with(&link(d, "impression"), &headers).await.expect(204);
        }
        let m = app.wait_metric(&id, "serverInitiated", 4).await;
        assert_eq!((m["impression"].as_i64(), m["invalid"]["total"].as_i64()), (Some(4), Some(0)), "{m}");
        // The same headers from an address no stitcher has: not believed. The call is its
        // own (a server's User-Agent: nonBrowser), and nothing is server-initiated.
        for d in &docs[4..] {
            let headers = [(PEER, "203.0.113.50"), ("user-agent", STITCHER_UA), ("x-device-ip", "198.18.9.9"), ("x-device-user-agent", PLAYER_UA)];
            app.fire_with(&link(d, "impression"), &headers).await.expect(204);
        }
        let m = app.wait_metric_at(&id, "/invalid/nonBrowser", 2).await;
        assert_eq!((m["impression"].as_i64(), m["serverInitiated"].as_i64()), (Some(4), Some(4)), "{m}");
        // The delivery report has the split too.
        let probe = app.get("/v3/reports/delivery?from=2026-01-01&to=2026-01-01").await.json();
        let zone: api_tests::chrono_tz::Tz = probe["timeZone"].as_str().unwrap_or("UTC").parse().unwrap_or(api_tests::chrono_tz::UTC);
        let day = web::clock::Clock::now(app.clock.as_ref()).with_timezone(&zone).format("%Y-%m-%d").to_string();
        let report = app.get(&format!("/v3/reports/delivery?from={day}&to={day}&groupBy=campaign")).await;
        report.expect(200);
        let row = &report.json()["rows"][0];
        assert_eq!((row["impression"].as_i64(), row["serverInitiated"].as_i64()), (Some(4), Some(4)), "{}", report.body);
    }
}
