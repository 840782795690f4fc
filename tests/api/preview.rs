//! Creative preview (docs/operations-guide.md, "Show me the ad"): a disabled ad of a goal
//! that has not started plays to the end in headless Chromium from the service's own
//! player page, nothing is counted anywhere, and the links stop working when they expire.

use api_tests::serde_json::{json, Value};
use api_tests::{spawn_file_server, Backend, TestApp};

fn open(player_url: &str) -> Value {
    api_tests::player::in_browser("preview.mjs", player_url)
}

api_tests::both_backends! {
    async fn a_disabled_out_of_flight_ad_is_previewed_in_chromium_and_nothing_counts(backend: Backend) {
        let (app, base) = TestApp::spawn_listening(backend).await;
        let files = spawn_file_server().await;
        let (loc, asset) = app.asset_from(&format!("{files}/clip.mp4"), "clip.mp4").await;
        assert_eq!(asset["status"], "READY", "{asset}");
        // A goal that starts in 30 days, a disabled ad: neither would serve today.
        let (_, c) = app.advertiser_campaign().await;
        let g = app.goal(&c, "IMPRESSION", 30, Some(60), "").await;
        let r = app
            .post_json("/v1/ads", &json!({"name": "Spring spot", "goalId": g, "enabled": false,
                "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": asset["id"], "clickDestinationUri": "https://example.com/buy"}}))
            .await;
        r.expect(201);
        let ad = r.json()["id"].as_str().unwrap().to_string();
        // Before its media is ready the preview says why (or it is ready already: the clip is tiny).
        let early = app.get(&format!("/v3/ads/{ad}/preview")).await;
        assert!(early.status == 200 || (early.status == 409 && early.body.contains("cannot be previewed")), "{}", early.body);
        let asset = app.wait_transcoded(&loc).await;
        assert_eq!(asset["status"], "TRANSCODED", "{asset}");
        let r = app.get(&format!("/v3/ads/{ad}/preview")).await;
        r.expect(200);
        let links = r.json();
        let (vast_url, player_url) = (links["vastUrl"].as_str().unwrap().to_string(), links["playerUrl"].as_str().unwrap().to_string());
        assert!(player_url.starts_with(&base) && !player_url.contains(&app.a.key), "{links}");
        let doc = app.get(&vast_url.replace(&base, "")).await;
        doc.expect(200);
        assert_eq!(crate::serving::ad_ids(&doc.body), std::slice::from_ref(&ad), "exactly that ad");
        // The page: no key needed, a strict CSP, nothing of the request reflected.
        let page = app.send("GET", &format!("{}?x=%3Cscript%3Ealert(1)%3C/script%3E", player_url.replace(&base, "")), None, None, "").await;
        page.expect(200);
        let csp = page.header("content-security-policy").unwrap_or("").to_string();
        assert!(csp.starts_with("default-src 'none'") && csp.contains("script-src 'self'") && !csp.contains("unsafe"), "{csp}");
        assert!(!page.body.contains("alert(1)"), "nothing reflected");

        let seen = tokio::task::spawn_blocking(move || open(&player_url)).await.unwrap();
        eprintln!("the browser saw: {seen}");
        assert_eq!((seen["ended"].as_bool(), seen["title"].as_str()), (Some(true), Some("Spring spot")), "{seen}");
        assert_eq!(seen["fired"], json!(["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]), "{seen}");
        assert_eq!(seen["violations"], json!([]), "the page works under its own CSP: {seen}");
        // The document's own links fired as a player would: answered, and counted nowhere either.
        let link = doc.body.split("<Impression id=\"adserver\">").nth(1).and_then(|s| s.split('<').next()).unwrap().replace("&amp;", "&");
        app.send_with_headers("GET", &link.replace(&base, ""), None, None, "", &[("user-agent", api_tests::PLAYER_UA)]).await.expect(204);
        // Nothing counted: metrics (valid and invalid), the delivery report. A served ad's
        // impression fired after the preview is counted: the events before it were handled.
        let (_, live) = app.live_goal().await;
        let other = crate::serving::ad(&app, &live, "preroll", json!({})).await;
        let served = app.get(&format!("/v1/adrequest?account={}&format=preroll", app.a.id)).await.body;
        let imp = served
            .split("<Impression id=\"adserver\"><![CDATA[")
            .nth(1)
            .or_else(|| served.split("<Impression id=\"adserver\">").nth(1))
            .and_then(|s| s.split(['<', ']']).next())
            .unwrap()
            .replace("&amp;", "&");
        app.send_with_headers("GET", &imp.replace(&base, ""), None, None, "", &[("user-agent", api_tests::PLAYER_UA)]).await.expect(204);
        app.wait_metric(&other, "impression", 1).await;
        // The queue is not ordered: once every queued event is counted, the preview's
        // counters are still zero.
        app.settle().await;
        let m = app.get(&format!("/v3/ads/{ad}?embed=metrics")).await.json()["metrics"].clone();
        for counter in ["/impression", "/start", "/firstQuartile", "/midpoint", "/thirdQuartile", "/complete", "/clickThrough", "/invalid/total"] {
            assert_eq!(m.pointer(counter).and_then(Value::as_i64), Some(0), "{counter}: {m}");
        }
        let now = web::clock::Clock::now(app.clock.as_ref());
        let day = |d: i64| (now + api_tests::chrono::Duration::days(d)).format("%Y-%m-%d").to_string();
        let report = app.get(&format!("/v3/reports/delivery?from={}&to={}&granularity=total&groupBy=ad", day(-1), day(1))).await;
        report.expect(200);
        assert!(report.body.contains(&other) && !report.body.contains(&ad), "only the served ad is in the report: {}", report.body);
        // Expired: the document, the page and the document's tracking links are refused.
        app.clock.set(web::clock::Clock::now(app.clock.as_ref()) + api_tests::chrono::Duration::days(8));
        app.send("GET", &vast_url.replace(&base, ""), None, None, "").await.expect(403);
        app.send("GET", &links["playerUrl"].as_str().unwrap().replace(&base, ""), None, None, "").await.expect(403);
        app.send("GET", &link.replace(&base, ""), None, None, "").await.expect(403);
        // Another account's ad has no preview; a changed token is refused.
        let b = app.b.key.clone();
        app.get_as(&b, &format!("/v3/ads/{ad}/preview")).await.expect(404);
        app.send("GET", &vast_url.replace(&base, "").replace(&ad, "00000000-0000-0000-0000-000000000000"), None, None, "").await.expect(403);
    }
}
