//! The delivery engine through HTTP (docs/delivery.md): the exported VAST URL serves its
//! ad and the player-side clients parse it; tracking moves the /v3 metrics exactly once;
//! eligibility, caps, frequency caps, rules, audience, priority, share of voice and weights.

use api_tests::player::{parse, path_of};
use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, spawn_file_server, TestApp};

fn ts(app: &TestApp, days: i64) -> String {
    let now = web::clock::Clock::now(app.clock.as_ref());
    (now + chrono::Duration::days(days)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

pub(crate) async fn enabled_campaign(app: &TestApp) -> String {
    let adv = app.client("Adv", "ADVERTISER").await;
    app.create_xml(
        "/api/1.0/campaign",
        &format!("<campaignBean><name>C</name><advertiserId>{adv}</advertiserId><enabled>true</enabled></campaignBean>"),
    )
    .await
}

/// A goal of `kind` with `value`, from now (or `start_days`) for ten days; `extra` elements.
pub(crate) async fn goal(app: &TestApp, c: &str, kind: &str, value: &str, start_days: i64, extra: &str) -> String {
    let start = if start_days == 0 { String::new() } else { format!("<start>{}</start>", ts(app, start_days)) };
    let start = if start.is_empty() { format!("<start>{}</start>", ts(app, 0)) } else { start };
    app.create_xml(
        "/api/1.0.cpvext/goal",
        &format!(
            "<goalBean><campaignId>{c}</campaignId><type>{kind}</type><variant>NORMAL</variant><goalValue>{value}</goalValue>{start}<end>{}</end>{extra}</goalBean>",
            ts(app, start_days + 10)
        ),
    )
    .await
}

/// An enabled IPTV ad (nothing to download) in a goal; `extra` fields merged in.
pub(crate) async fn ad(app: &TestApp, g: &str, point: &str, extra: Value) -> String {
    let mut body = json!({"name": "Spot", "goalId": g, "enabled": true,
        "creative": {"type": "iptv", "insertionPoint": point, "videoCreativeId": "vc-1", "clickDestinationUri": "https://example.com/buy"}});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    let r = app.post_json("/v1/ads", &body).await;
    r.expect(201);
    r.json()["id"].as_str().unwrap().to_string()
}

/// The ids of the ads in a served document.
pub(crate) fn ad_ids(doc: &str) -> Vec<String> {
    doc.split("<Ad id=\"").skip(1).map(|s| s.split('"').next().unwrap_or("").to_string()).collect()
}

/// The first tracking link of `event` in a served document (its path and query).
pub(crate) fn link(doc: &str, event: &str) -> String {
    let marker = format!("/v1/track/{event}?");
    let i = doc.find(&marker).unwrap_or_else(|| panic!("no {event} link in {doc}"));
    let rest = &doc[i..];
    rest[..rest.find('<').unwrap_or(rest.len())].replace("&amp;", "&")
}

/// Serves `ad` (the only one the `query` can serve) and counts each impression, one viewer
/// each, until the ad request comes back empty (pacing, a cap); returns how many counted.
pub(crate) async fn deliver_until_held(app: &TestApp, ad: &str, query: &str) -> i64 {
    let mut n = 0;
    loop {
        let doc = app.ad_request(&format!("{query}&pid=held-{n}")).await.body;
        if ad_ids(&doc).is_empty() {
            return n;
        }
        assert!(n < 40, "the goal was never held back");
        app.fire(&link(&doc, "impression")).await.expect(204);
        n += 1;
        app.wait_metric(ad, "impression", n).await;
    }
}

pub(crate) async fn served(app: &TestApp, query: &str) -> Vec<String> {
    let r = app.ad_request(query).await;
    r.expect(200);
    ad_ids(&r.body)
}

both_stores! {
    async fn the_exported_url_serves_its_ad_in_vast_2_3_and_vmap(app: TestApp) {
        let a = app.a.id.clone();
        let files = spawn_file_server().await;
        let (asset_loc, asset) = app.asset_from(&format!("{files}/clip.mp4"), "clip.mp4").await;
        assert_eq!(asset["status"], "READY", "{asset}");
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let r = app.post_json("/v1/ads", &json!({"name": "Spring spot", "goalId": g, "enabled": true,
            "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": asset["id"], "clickDestinationUri": "https://example.com/buy"},
            "externalTrackers": [{"url": "https://t.example/start", "event": "AD_START"}, {"url": "https://t.example/imp", "event": "IMPRESSION"}]})).await;
        r.expect(201);
        let id = r.json()["id"].as_str().unwrap().to_string();
        // Linked: transcoded into renditions, then served.
        let asset = app.wait_transcoded(&asset_loc).await;
        assert_eq!(asset["status"], "TRANSCODED", "{asset}");
        let seconds = asset["probe"]["durationMs"].as_f64().unwrap() / 1000.0;
        for (rt, kind) in [("VAST_2_0", "vast"), ("VAST_3_0", "vast"), ("VMAP_1_0", "vmap")] {
            let url = app.get(&format!("/v3/ads/{id}/vasturl/category/{a}-cat-sports?rt={rt}")).await.json()["vastUrl"].as_str().unwrap().to_string();
            let r = app.send("GET", &path_of(&url).replace("[RANDOM_NUMBER]", "4242"), None, None, "").await;
            r.expect(200);
            assert_eq!(r.header("content-type"), Some("application/xml; charset=utf-8"));
            assert_eq!(r.header("access-control-allow-origin"), Some("*"));
            let parsed = parse(kind, &r.body);
            let vast = if kind == "vmap" {
                assert_eq!(parsed["version"], "1.0");
                assert_eq!(parsed["breaks"][0]["breakId"], "preroll");
                assert_eq!(parsed["breaks"][0]["timeOffset"], "start");
                parsed["breaks"][0]["vast"].clone()
            } else {
                assert_eq!(parsed["version"], if rt == "VAST_2_0" { "2.0" } else { "3.0" });
                parsed.clone()
            };
            let ad = &vast["ads"][0];
            assert_eq!(ad["id"], id.as_str(), "{parsed}");
            assert_eq!(ad["title"], "Spring spot");
            let imps: Vec<&str> = ad["impressions"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
            assert!(imps.iter().any(|u| u.contains("/v1/track/impression?")) && imps.contains(&"https://t.example/imp"), "{imps:?}");
            let cr = &ad["creatives"][0];
            assert_eq!(cr["type"], "linear");
            assert!((cr["duration"].as_f64().unwrap() - seconds).abs() < 0.001, "the probe's length: {cr}");
            let media = &cr["mediaFiles"][0];
            assert!(media["fileURL"].as_str().unwrap().starts_with(&app.state.settings.media_base_url), "{media}");
            assert_eq!(media["mimeType"], "video/mp4");
            assert_eq!((media["width"].as_u64(), media["height"].as_u64()), (Some(320), Some(180)), "the rendition's size: {media}");
            let types: Vec<&str> = cr["mediaFiles"].as_array().unwrap().iter().map(|m| m["mimeType"].as_str().unwrap()).collect();
            assert_eq!(types, vec!["video/mp4", "video/webm"], "{cr}");
            let starts: Vec<&str> = cr["trackingEvents"]["start"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
            assert!(starts.contains(&"https://t.example/start") && starts.iter().any(|u| u.contains("/v1/track/start?")), "{starts:?}");
            for e in ["firstQuartile", "midpoint", "thirdQuartile", "complete"] {
                assert!(cr["trackingEvents"][e][0].as_str().unwrap().contains(&format!("/v1/track/{e}?")));
            }
            assert!(cr["clickThrough"].as_str().unwrap().contains("/v1/track/click?"), "{cr}");
        }
        // Nothing eligible: an empty VAST the client accepts.
        let r = app.ad_request("format=postroll").await;
        r.expect(200);
        assert_eq!(parse("vast", &r.body)["ads"], json!([]));
        // Bad requests name the parameter; an unknown account is 404.
        let r = app.ad_request("format=sideroll").await;
        r.expect(400);
        assert_eq!(r.json()["errors"][0]["field"], "format");
        app.ad_request("rt=VAST_4_0").await.expect(400);
        app.send("GET", "/v1/adrequest?format=preroll", None, None, "").await.expect(400);
        app.send("GET", "/v1/adrequest?account=nobody", None, None, "").await.expect(404);
    }

    async fn tracking_moves_the_metrics_once_and_forged_events_do_not(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let id = ad(&app, &g, "preroll", json!({})).await;
        let r = app.ad_request("format=preroll&pid=viewer-1").await;
        assert_eq!(ad_ids(&r.body), vec![id.clone()]);
        let doc = r.body;
        for e in ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"] {
            app.fire(&link(&doc, e)).await.expect(204);
        }
        let click = app.fire(&link(&doc, "click")).await;
        click.expect(302);
        assert_eq!(click.header("location"), Some("https://example.com/buy"));
        // Replays count nothing more.
        for _ in 0..3 {
            app.fire(&link(&doc, "impression")).await.expect(204);
        }
        // Forged: another ad, a changed signature, a changed click destination, missing parts.
        let imp = link(&doc, "impression");
        let forged = imp.replace(&format!("ad={id}"), "ad=someone-else");
        assert_ne!(forged, imp);
        app.fire(&forged).await.expect(403);
        let sig = imp.rsplit("s=").next().unwrap().to_string();
        app.fire(&imp.replace(&sig, &"0".repeat(sig.len()))).await.expect(403);
        let redirect = link(&doc, "click").replace("example.com", "evil.example");
        app.fire(&redirect).await.expect(403);
        app.fire("/v1/track/impression?a=x").await.expect(400);
        app.fire(&imp.replace("/v1/track/impression", "/v1/track/bogus")).await.expect(404);

        for counter in ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "clickThrough"] {
            app.wait_metric(&id, counter, 1).await;
        }
        app.wait_metric(&id, "delivered", 1).await;
        // Each replay is counted as a duplicate; once they are, and every event message is
        // handled, a wrongly counted replay would show.
        app.wait_metric_at(&id, "/invalid/duplicate", 3).await;
        app.settle().await;
        let m = app.get(&format!("/v3/ads/{id}?embed=metrics")).await.json()["metrics"].clone();
        assert_eq!(m["invalid"]["duplicate"], 3, "{m}");
        for (k, v) in [("impression", 1), ("start", 1), ("firstQuartile", 1), ("midpoint", 1), ("thirdQuartile", 1), ("complete", 1), ("clickThrough", 1), ("delivered", 1)] {
            assert_eq!(m[k], v, "{k}: {m}");
        }

        // Twenty more impressions, every link fired twice at once: exactly 21.
        let queries: Vec<String> = (0..20).map(|i| format!("format=preroll&pid=v{i}")).collect();
        let docs: Vec<String> = app.ad_requests(&queries).await.into_iter().map(|r| r.body).collect();
        let app_ref = &app;
        let fires = docs.iter().flat_map(|d| [link(d, "impression"), link(d, "impression")]).map(|l| async move { app_ref.fire(&l).await.status });
        let statuses = futures_util::future::join_all(fires).await;
        assert!(statuses.iter().all(|s| *s == 204), "{statuses:?}");
        app.wait_metric(&id, "impression", 21).await;
        let goal_m = app.get(&format!("/v3/goals/{g}?embed=metrics")).await.json()["metrics"].clone();
        assert_eq!((goal_m["impression"].as_i64(), goal_m["delivered"].as_i64()), (Some(21), Some(21)), "{goal_m}");
        let camp_m = app.get(&format!("/v3/campaigns/{c}?embed=metrics")).await.json()["metrics"].clone();
        assert_eq!(camp_m["impression"], 21, "{camp_m}");
        // A day later, nothing delivered since (the 21 were a day ago): the projection is the
        // goal's rate of the last 24 hours, none, so it stays where it is (docs/reports.md).
        app.advance(chrono::Duration::days(1));
        let g = app.get(&format!("/v3/goals/{g}?embed=projections")).await.json();
        assert_eq!((g["projectedDelivery"].as_f64(), g["projection"]["basis"].as_str()), (Some(21.0), Some("recentDelivery")), "{g}");
    }

    // A link without a viewer, with `&v=` appended, no longer verifies
    // (absent and empty sign differently), so its events cannot land on a shared viewer.
    async fn an_appended_empty_viewer_breaks_the_link(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let id = ad(&app, &g, "preroll", json!({})).await;
        let r = app.ad_request("format=preroll").await;
        assert_eq!(ad_ids(&r.body), vec![id.clone()]);
        let imp = link(&r.body, "impression");
        assert!(!imp.contains("&v="), "no viewer in this link: {imp}");
        let (head, sig) = imp.rsplit_once("&s=").unwrap();
        for tampered in [format!("{head}&v=&s={sig}"), format!("{head}&u=&s={sig}")] {
            let res = app.fire(&tampered).await;
            res.expect(403);
            assert!(res.body.contains("signature"), "{}", res.body);
        }
        app.fire(&imp).await.expect(204);
        let m = app.wait_metric(&id, "impression", 1).await;
        assert_eq!(m["impression"], 1, "only the untouched link counted: {m}");
    }

    async fn disabled_ads_and_goals_out_of_flight_are_not_served(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let id = ad(&app, &g, "preroll", json!({"enabled": false})).await;
        assert!(served(&app, "format=preroll").await.is_empty());
        app.patch_json("/v1/ads", &json!({"id": id, "enabled": true})).await.expect(200);
        assert_eq!(served(&app, "format=preroll").await, vec![id.clone()]);
        // Another format is not this ad's break.
        assert!(served(&app, "format=midroll").await.is_empty());
        // An upcoming goal's ad waits for its start.
        let later = goal(&app, &c, "IMPRESSION", "1000", 12, "").await;
        let later_ad = ad(&app, &later, "midroll", json!({})).await;
        assert!(served(&app, "format=midroll").await.is_empty());
        app.advance(chrono::Duration::days(13));
        assert_eq!(served(&app, "format=midroll").await, vec![later_ad]);
        // The first goal ended on day 10.
        assert!(served(&app, "format=preroll").await.is_empty());
        // A disabled campaign serves nothing.
        let path = format!("/api/1.0/campaign/by_campaign_id;id={c}");
        let got = app.get(&path).await.body;
        let bean = &got[got.find("<campaignBean>").unwrap()..got.find("</campaignBean>").unwrap() + "</campaignBean>".len()];
        app.put_xml(&path, &bean.replace("<enabled>true</enabled>", "<enabled>false</enabled>")).await.expect(204);
        assert!(served(&app, "format=midroll").await.is_empty());
    }

    async fn goal_caps_and_frequency_caps_stop_delivery(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "<caps><cap><type>dailyCap</type><value>2</value></cap></caps>").await;
        let id = ad(&app, &g, "preroll", json!({})).await;
        for n in 1..=2 {
            let r = app.ad_request("format=preroll").await;
            assert_eq!(ad_ids(&r.body), vec![id.clone()]);
            app.fire(&link(&r.body, "impression")).await.expect(204);
            app.wait_metric(&id, "impression", n).await;
        }
        assert!(served(&app, "format=preroll").await.is_empty(), "the daily cap of 2 is reached");
        app.advance(chrono::Duration::days(1));
        assert_eq!(served(&app, "format=preroll").await, vec![id.clone()], "a new day");

        // One impression per viewer and day (campaign rules).
        let c2 = enabled_campaign(&app).await;
        let g2 = goal(&app, &c2, "IMPRESSION", "1000", 0, "").await;
        let id2 = ad(&app, &g2, "midroll", json!({})).await;
        app.put_xml(&format!("/api/1.0/campaign/rules/by_campaign_id;id={c2}"),
            "<rulesBean><frequencyCappings><impressions>1</impressions><timeUnit>DAY</timeUnit></frequencyCappings></rulesBean>").await.expect(204);
        let r = app.ad_request("format=midroll&pid=viewer-a").await;
        assert_eq!(ad_ids(&r.body), vec![id2.clone()]);
        app.fire(&link(&r.body, "impression")).await.expect(204);
        app.wait_metric(&id2, "impression", 1).await;
        assert!(served(&app, "format=midroll&pid=viewer-a").await.is_empty(), "viewer-a is capped");
        assert_eq!(served(&app, "format=midroll&pid=viewer-b").await, vec![id2.clone()]);
        assert!(served(&app, "format=midroll").await.is_empty(), "a capped goal needs a known viewer");
        app.advance(chrono::Duration::hours(25));
        assert_eq!(served(&app, "format=midroll&pid=viewer-a").await, vec![id2]);
    }

    async fn a_none_of_category_rule_excludes_the_category_and_its_children(app: TestApp) {
        let a = app.a.id.clone();
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let id = ad(&app, &g, "preroll", json!({})).await;
        app.put_xml(&format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={g}"), &format!(
            "<rulesBean><content><resourceId>{a}-cat-sports</resourceId><ruleType>NONE_OF</ruleType><variableType>SITE</variableType></content></rulesBean>")).await.expect(204);
        assert!(served(&app, &format!("format=preroll&category={a}-cat-sports")).await.is_empty());
        assert!(served(&app, &format!("format=preroll&category={a}-cat-football")).await.is_empty(), "a child of sports");
        assert_eq!(served(&app, &format!("format=preroll&category={a}-cat-news")).await, vec![id.clone()]);
        assert_eq!(served(&app, "format=preroll").await, vec![id]);
    }

    async fn an_audience_rule_serves_only_viewers_uploaded_with_the_segment(app: TestApp) {
        let a = app.a.id.clone();
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let id = ad(&app, &g, "preroll", json!({})).await;
        let t = app.post_json("/api/2.0/targeting-template", &json!({"name": "25-34"})).await.json()["id"].as_str().unwrap().to_string();
        let rules = json!({"frequencyRules": [], "locationRules": [], "timeRules": [], "tagAndPartnerRules": [], "categoryRules": [],
            "ipRules": [], "userAgentRules": [], "accountCustomParameterRules": {},
            "audienceRules": {format!("{a}-ap-dmp"): [{"segmentId": format!("{a}-ap-dmp[{a}-sg-age]={a}-s-age-25"), "ruleType": "AT_LEAST_ONE_OF"}]}});
        app.put_json(&format!("/api/2.0/targeting-template/{t}/rules"), &rules).await.expect(204);
        app.send("PUT", &format!("/api/2.0/targeting-template/{t}/link?goalId={g}"), Some(&app.a.key), None, "").await.expect(204);
        let r = app.upload_batch(&format!("providerId={a}-ap-dmp"), b"young|age=18-24\nmid|age=25-34|gender=f\n".to_vec(), false).await;
        r.expect(202);
        let done = app.wait_batch(r.json()["link"].as_str().unwrap()).await;
        assert_eq!(done["status"], "PROCESSING_FINISHED", "{done}");
        assert_eq!(served(&app, "format=preroll&pid=mid").await, vec![id]);
        assert!(served(&app, "format=preroll&pid=young").await.is_empty());
        assert!(served(&app, "format=preroll&pid=unknown").await.is_empty());
        assert!(served(&app, "format=preroll").await.is_empty());
    }

    async fn a_higher_priority_goal_wins(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let low = goal(&app, &c, "IMPRESSION", "1000", 0, "<priority>3</priority>").await;
        let high = goal(&app, &c, "IMPRESSION", "1000", 0, "<priority>8</priority>").await;
        let _low_ad = ad(&app, &low, "preroll", json!({})).await;
        let high_ad = ad(&app, &high, "preroll", json!({})).await;
        for seed in 0..30 {
            assert_eq!(served(&app, &format!("format=preroll&seed={seed}")).await, vec![high_ad.clone()]);
        }
    }

    async fn share_of_voice_and_weights_split_impressions_as_the_seeds_say(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let sov = goal(&app, &c, "SHARE_OF_VOICE", "0.3", 0, "").await;
        let normal = goal(&app, &c, "IMPRESSION", "100000", 0, "").await;
        let sov_ad = ad(&app, &sov, "preroll", json!({})).await;
        // §2.3: two proportional ads and one at 50 share 25 / 25 / 50.
        let w1 = ad(&app, &normal, "preroll", json!({})).await;
        let w2 = ad(&app, &normal, "preroll", json!({})).await;
        let w50 = ad(&app, &normal, "preroll", json!({"weight": 50})).await;
        let mut counts = std::collections::HashMap::new();
        let n = 800;
        let queries: Vec<String> = (0..n).map(|seed| format!("format=preroll&seed={seed}")).collect();
        for r in app.ad_requests(&queries).await {
            r.expect(200);
            for id in ad_ids(&r.body) {
                *counts.entry(id).or_insert(0) += 1;
            }
        }
        let share = |id: &str| f64::from(*counts.get(id).unwrap_or(&0)) / f64::from(n);
        assert!((share(&sov_ad) - 0.3).abs() < 0.05, "share of voice {} {counts:?}", share(&sov_ad));
        let rest = 1.0 - share(&sov_ad);
        assert!((share(&w1) / rest - 0.25).abs() < 0.06, "{counts:?}");
        assert!((share(&w2) / rest - 0.25).abs() < 0.06, "{counts:?}");
        assert!((share(&w50) / rest - 0.5).abs() < 0.06, "{counts:?}");
        // Fixed seeds: the same decisions again.
        for seed in [3, 17, 256] {
            let q = format!("format=preroll&seed={seed}");
            assert_eq!(served(&app, &q).await, served(&app, &q).await);
        }
    }
}
