//! Ads: seed 000 §2.1-§2.4, §3, §4.1-§4.4, and the build order of seed 001 §1.

use api_tests::chrono::{Duration, SecondsFormat};
use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, clip, spawn_file_server, xml_text, TestApp};
use web::clock::Clock;

struct Setup {
    campaign: String,
    goal: String,
    asset: String,
}

async fn setup(app: &TestApp) -> Setup {
    let (_, campaign) = app.advertiser_campaign().await;
    let goal = app.goal(&campaign, "IMPRESSION", 1, Some(30), "").await;
    let asset = app.upload_asset("spot.mp4", clip()).await;
    Setup { campaign, goal, asset }
}

fn standard(s: &Setup, name: &str) -> Value {
    json!({"name": name, "goalId": s.goal, "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": s.asset}})
}

async fn create(app: &TestApp, body: &Value) -> Value {
    let r = app.post_json("/v1/ads", body).await;
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()
}

fn ts(app: &TestApp, days: i64) -> String {
    (app.clock.now() + Duration::days(days)).to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn err(r: &api_tests::Res) -> (String, String) {
    let e = &r.json()["errors"][0];
    (e["field"].as_str().unwrap_or("").to_string(), e["rule"].as_str().unwrap_or("").to_string())
}

both_stores! {
    async fn the_build_order_campaign_goal_asset_ad(app: TestApp) {
        // Seed 001 §1: (1) campaign, (2) goal, (3) asset upload by URL, (4) ad.
        let files = spawn_file_server().await;
        let (_, campaign) = app.advertiser_campaign().await;
        let goal = app.goal(&campaign, "IMPRESSION", 1, Some(30), "<name>Launch</name>").await;
        let (asset_loc, asset) = app.asset_from(&format!("{files}/clip.mp4"), "launch.mp4").await;
        assert_eq!(asset["status"], "READY");
        let asset_id = asset["id"].as_str().unwrap().to_string();
        let key = web::model::asset::Asset::object_key(&app.a.id, &asset_id, "launch.mp4");
        assert_eq!(app.state.blobs.get(&key).await.unwrap().as_deref(), Some(clip()));
        let r = app.post_json("/v1/ads", &json!({"name": "Launch spot", "goalId": goal,
            "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": asset_id, "clickDestinationUri": "https://brand.example/"}})).await;
        r.expect(201);
        let ad = r.json();
        let id = ad["id"].as_str().unwrap().to_string();
        assert_eq!(r.header("location"), Some(format!("/v1/ads/{id}").as_str()));
        assert_eq!(ad["enabled"], false, "disabled by default");
        assert_eq!(ad["externalTrackers"], json!([]));
        let all = json!([format!("{}-dc-desktop", app.a.id), format!("{}-dc-mobile", app.a.id), format!("{}-dc-ctv", app.a.id)]);
        let mut got = ad["deviceContainers"].as_array().unwrap().clone();
        got.sort_by_key(|v| v.as_str().unwrap().to_string());
        let mut want = all.as_array().unwrap().clone();
        want.sort_by_key(|v| v.as_str().unwrap().to_string());
        assert_eq!(got, want, "all the account's device containers by default");
        assert_eq!(ad["creative"]["clickDestinationUri"], "https://brand.example/");
        // start/end come from the goal.
        let g = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={goal}")).await.body;
        let gs = xml_text(&g, "start").unwrap();
        assert_eq!(api_tests::chrono::DateTime::parse_from_rfc3339(ad["start"].as_str().unwrap()).unwrap(),
            api_tests::chrono::DateTime::parse_from_rfc3339(&gs).unwrap());
        assert!(ad["end"].is_string());
        // The goal now has an ad of one format; the asset is linked and no longer expires.
        assert_eq!(xml_text(&g, "formatType").as_deref(), Some("PREROLL"));
        let a = app.get(&asset_loc).await.json();
        assert_eq!(a["linked"], true);
        assert!(a.get("expires").is_none());
        app.clock.set(app.clock.now() + Duration::days(20));
        app.get(&asset_loc).await.expect(200);
        app.get(&format!("/v1/ads/{id}")).await.expect(200);
    }

    async fn every_creative_type_can_be_created(app: TestApp) {
        let s = setup(&app).await;
        let creatives = [
            json!({"type": "standard", "insertionPoint": "preroll", "assetId": s.asset}),
            json!({"type": "pause", "assetId": s.asset, "clickDestinationUri": "https://x.example/"}),
            json!({"type": "iptv", "insertionPoint": "midroll", "videoCreativeId": "vc-1", "estimatedAdDuration": 30}),
            json!({"type": "thirdparty", "insertionPoint": "postroll", "vastUri": "https://vast.example/ad.xml", "vpaidStrict": true, "vpaidCountdown": true, "estimatedAdDuration": 15}),
            json!({"type": "placeholder"}),
            json!({"type": "spotPlaceholder", "insertionPoint": "preroll"}),
            json!({"type": "pausePlaceholder"}),
            json!({"type": "iptvPlaceholder", "insertionPoint": "midroll"}),
        ];
        for c in creatives {
            let ad = create(&app, &json!({"name": "A", "goalId": s.goal, "creative": c.clone()})).await;
            assert_eq!(ad["creative"], c, "the creative is echoed");
        }
    }

    async fn write_rules_are_enforced_and_nothing_is_written(app: TestApp) {
        let s = setup(&app).await;
        let base = standard(&s, "A");
        let with = |k: &str, v: Value| { let mut b = base.clone(); b[k] = v; b };
        let creative = |c: Value| with("creative", c);
        let cases = vec![
            (with("name", json!("n".repeat(251))), "name", "maxLength"),
            (with("name", Value::Null), "name", "required"),
            (with("goalId", json!("00000000-0000-0000-0000-000000000000")), "goalId", "reference"),
            (with("weight", json!(0)), "weight", "range"),
            (with("weight", json!(101)), "weight", "range"),
            (with("id", json!("x")), "id", "notOnCreate"),
            (with("color", json!("red")), "color", "unknown"),
            (with("start", json!(ts(&app, 0))), "start", "withinGoal"),
            (with("end", json!(ts(&app, 31))), "end", "withinGoal"),
            (with("deviceContainers", json!(["nope"])), "deviceContainers", "reference"),
            (with("externalTrackers", json!([{"url": "https://t.example/x", "event": "EXPAND"}])), "externalTrackers[0].event", "event"),
            (with("externalTrackers", json!([{"url": "ftp://t.example/x", "event": "IMPRESSION"}])), "externalTrackers[0].url", "url"),
            (creative(json!({"type": "standard", "assetId": s.asset})), "creative.insertionPoint", "required"),
            (creative(json!({"type": "standard", "insertionPoint": "preroll"})), "creative.assetId", "required"),
            (creative(json!({"type": "standard", "insertionPoint": "preroll", "assetId": "00000000-0000-0000-0000-000000000000"})), "creative.assetId", "reference"),
            (creative(json!({"type": "placeholder", "insertionPoint": "preroll"})), "creative.insertionPoint", "notForType"),
            (creative(json!({"type": "iptv", "insertionPoint": "preroll", "estimatedAdDuration": 10000})), "creative.estimatedAdDuration", "range"),
            (creative(json!({"type": "video"})), "creative.type", "enum"),
        ];
        for (body, field, rule) in cases {
            let r = app.post_json("/v1/ads", &body).await;
            r.expect(400);
            assert_eq!(err(&r), (field.to_string(), rule.to_string()), "{body}: {}", r.body);
        }
        let r = app.send("POST", "/v1/ads", Some(&app.a.key), Some("application/xml"), "<ad/>").await;
        r.expect(415);
        assert_eq!(app.get("/v1/ads").await.json(), json!([]), "nothing was written");
        // The asset was not linked by any of them.
        assert_eq!(app.get(&format!("/v1/assets/video/{}", s.asset)).await.json()["linked"], false);
    }

    async fn another_accounts_goal_or_asset_cannot_be_used(app: TestApp) {
        let s = setup(&app).await;
        let theirs = app.send_bytes("POST", "/v1/assets/video?name=b.mp4", Some(&app.b.key), "application/octet-stream", clip()).await;
        let their_asset = theirs.header("location").unwrap().rsplit('/').next().unwrap().to_string();
        let mut body = standard(&s, "A");
        body["creative"]["assetId"] = json!(their_asset);
        let r = app.post_json("/v1/ads", &body).await;
        r.expect(400);
        assert_eq!(err(&r), ("creative.assetId".into(), "reference".into()));
        let r = app.send("POST", "/v1/ads", Some(&app.b.key), Some("application/json"), &standard(&s, "A").to_string()).await;
        r.expect(400);
        assert_eq!(err(&r).1, "reference");
    }

    async fn expired_assets_cannot_be_linked(app: TestApp) {
        let s = setup(&app).await;
        app.clock.set(app.clock.now() + Duration::hours(25));
        let r = app.post_json("/v1/ads", &standard(&s, "A")).await;
        r.expect(400);
        assert_eq!(err(&r), ("creative.assetId".into(), "reference".into()));
    }

    async fn explicit_weights_of_a_format_sum_to_at_most_100(app: TestApp) {
        let s = setup(&app).await;
        let mut a = standard(&s, "A");
        a["weight"] = json!(60);
        create(&app, &a).await;
        let mut b = standard(&s, "B");
        b["weight"] = json!(50);
        let r = app.post_json("/v1/ads", &b).await;
        r.expect(400);
        assert_eq!(err(&r), ("weight".into(), "weightSum".into()));
        b["weight"] = json!(40);
        create(&app, &b).await;
        // Another format is its own pool.
        let mid = json!({"name": "M", "goalId": s.goal, "weight": 100, "creative": {"type": "spotPlaceholder", "insertionPoint": "midroll"}});
        create(&app, &mid).await;
    }

    async fn put_replaces_the_whole_ad(app: TestApp) {
        let s = setup(&app).await;
        let mut body = standard(&s, "A");
        body["description"] = json!("first");
        body["customId"] = json!("c-1");
        body["start"] = json!(ts(&app, 2));
        body["enabled"] = json!(true);
        body["externalTrackers"] = json!([{"url": "https://t.example/i", "event": "IMPRESSION"}]);
        body["deviceContainers"] = json!([format!("{}-dc-ctv", app.a.id)]);
        let ad = create(&app, &body).await;
        let id = ad["id"].as_str().unwrap().to_string();
        assert_eq!(ad["deviceContainers"], json!([format!("{}-dc-ctv", app.a.id)]));
        let r = app.put_json("/v1/ads", &json!({"id": id, "name": "B", "goalId": s.goal,
            "creative": {"type": "spotPlaceholder", "insertionPoint": "postroll"}})).await;
        r.expect(200);
        let v = r.json();
        assert_eq!(v["id"], json!(id));
        assert_eq!(v["name"], "B");
        assert_eq!(v["enabled"], false);
        assert!(v.get("description").is_none() && v.get("customId").is_none(), "{v}");
        assert_eq!(v["externalTrackers"], json!([]));
        assert_eq!(v["deviceContainers"].as_array().unwrap().len(), 3);
        assert_ne!(v["start"], json!(ts(&app, 2)), "start falls back to the goal");
        assert_eq!(v["creative"], json!({"type": "spotPlaceholder", "insertionPoint": "postroll"}));
        // PUT without id, with another goal, or of an unknown ad.
        let r = app.put_json("/v1/ads", &standard(&s, "C")).await;
        r.expect(400);
        assert_eq!(err(&r), ("id".into(), "required".into()));
        let other = app.goal(&s.campaign, "IMPRESSION", 1, Some(5), "").await;
        let mut moved = standard(&s, "C");
        moved["id"] = json!(id);
        moved["goalId"] = json!(other);
        let r = app.put_json("/v1/ads", &moved).await;
        r.expect(400);
        assert_eq!(err(&r), ("goalId".into(), "immutable".into()));
        let mut unknown = standard(&s, "C");
        unknown["id"] = json!("00000000-0000-0000-0000-000000000000");
        app.put_json("/v1/ads", &unknown).await.expect(404);
        assert_eq!(app.get(&format!("/v1/ads/{id}")).await.json()["name"], "B");
    }

    async fn patch_changes_only_its_fields(app: TestApp) {
        let s = setup(&app).await;
        let ad = create(&app, &standard(&s, "A")).await;
        let id = ad["id"].as_str().unwrap().to_string();
        let r = app.patch_json("/v1/ads", &json!({"id": id, "name": "A2", "enabled": true, "weight": 30, "description": "d",
            "goalId": "ignored", "creative": {"type": "placeholder"}, "externalTrackers": [{"url": "https://x", "event": "EXPAND"}]})).await;
        r.expect(200);
        assert!(r.body.is_empty());
        let v = app.get(&format!("/v1/ads/{id}")).await.json();
        assert_eq!((v["name"].as_str(), v["enabled"].as_bool(), v["weight"].as_f64(), v["description"].as_str()), (Some("A2"), Some(true), Some(30.0), Some("d")));
        assert_eq!(v["creative"]["type"], "standard", "creative is ignored by PATCH");
        assert_eq!(v["goalId"], json!(s.goal));
        assert_eq!(v["externalTrackers"], json!([]));
        // null unsets; only the id changes nothing.
        app.patch_json("/v1/ads", &json!({"id": id, "description": null, "weight": null})).await.expect(200);
        let v = app.get(&format!("/v1/ads/{id}")).await;
        assert!(v.json().get("description").is_none() && v.json().get("weight").is_none());
        let tag = v.header("etag").unwrap().to_string();
        app.patch_json("/v1/ads", &json!({"id": id})).await.expect(200);
        assert_eq!(app.get(&format!("/v1/ads/{id}")).await.header("etag").unwrap(), tag);
        // Bad patches: 400, nothing changed.
        let r = app.patch_json("/v1/ads", &json!({"id": id, "weight": 0})).await;
        r.expect(400);
        assert_eq!(err(&r), ("weight".into(), "range".into()));
        let r = app.patch_json("/v1/ads", &json!({"id": id, "start": ts(&app, -5)})).await;
        r.expect(400);
        assert_eq!(err(&r), ("start".into(), "withinGoal".into()));
        app.patch_json("/v1/ads", &json!({"name": "x"})).await.expect(400);
        app.patch_json("/v1/ads", &json!({"id": "00000000-0000-0000-0000-000000000000", "name": "x"})).await.expect(404);
        assert_eq!(app.get(&format!("/v1/ads/{id}")).await.header("etag").unwrap(), tag);
    }

    async fn concurrent_puts_lose_no_update(app: TestApp) {
        let s = setup(&app).await;
        let ad = create(&app, &standard(&s, "A")).await;
        let id = ad["id"].as_str().unwrap().to_string();
        let etag = app.get(&format!("/v1/ads/{id}")).await.header("etag").unwrap().to_string();
        let put = |name: &str, tag: Option<String>| {
            let mut body = standard(&s, name);
            body["id"] = json!(id);
            let app = &app;
            async move {
                let mut req = axum::http::Request::builder().method("PUT").uri("/v1/ads")
                    .header("x-o-api-key", &app.a.key).header("content-type", "application/json");
                if let Some(t) = tag {
                    req = req.header("if-match", t);
                }
                use tower::ServiceExt;
                app.router.clone().oneshot(req.body(axum::body::Body::from(body.to_string())).unwrap()).await.unwrap().status().as_u16()
            }
        };
        // Two writers that both read version N: exactly one wins, the other is told.
        let (x, y) = tokio::join!(put("X", Some(etag.clone())), put("Y", Some(etag.clone())));
        let mut got = [x, y];
        got.sort();
        assert_eq!(got, [200, 412]);
        // Without If-Match both apply, one after the other: two new versions.
        let before: u64 = app.get(&format!("/v1/ads/{id}")).await.header("etag").unwrap().trim_matches('"').parse().unwrap();
        let (x, y) = tokio::join!(put("P", None), put("Q", None));
        assert_eq!((x, y), (200, 200));
        let after = app.get(&format!("/v1/ads/{id}")).await;
        let v: u64 = after.header("etag").unwrap().trim_matches('"').parse().unwrap();
        assert_eq!(v, before + 2);
        assert!(["P", "Q"].contains(&after.json()["name"].as_str().unwrap()));
    }

    async fn list_by_creation_time(app: TestApp) {
        let s = setup(&app).await;
        let first = create(&app, &standard(&s, "first")).await;
        app.clock.set(app.clock.now() + Duration::minutes(10));
        let mid = app.clock.now();
        app.clock.set(app.clock.now() + Duration::minutes(10));
        let mut second = standard(&s, "second");
        second["description"] = json!("d");
        second["externalTrackers"] = json!([{"url": "https://t.example/c", "event": "AD_COMPLETE"}]);
        let second = create(&app, &second).await;
        let all = app.get("/v1/ads").await;
        all.expect(200);
        let names: Vec<String> = all.json().as_array().unwrap().iter().map(|v| v["name"].as_str().unwrap().to_string()).collect();
        assert_eq!(names, vec!["second", "first"], "newest first");
        let item = &all.json()[0];
        assert_eq!(item["id"], second["id"]);
        assert_eq!(item["goalId"], json!(s.goal));
        assert_eq!(item["description"], "d");
        assert_eq!(item["enabled"], false);
        assert!(item["created"].is_string());
        assert_eq!(item["creative"]["type"], "standard");
        assert_eq!(item["creative"]["insertionPoint"], "preroll");
        assert_eq!(item["creative"]["assetId"], json!(s.asset));
        assert!(item["creative"]["creationDate"].is_string() && item["creative"]["modificationDate"].is_string());
        assert_eq!(item["externalTrackers"], json!([{"url": "https://t.example/c", "event": "AD_COMPLETE"}]));
        let m = mid.to_rfc3339_opts(SecondsFormat::Secs, true);
        let after = app.get(&format!("/v1/ads?created.after={m}")).await.json();
        assert_eq!(after.as_array().unwrap().len(), 1);
        assert_eq!(after[0]["id"], second["id"]);
        let before = app.get(&format!("/v1/ads?created.before={m}")).await.json();
        assert_eq!(before.as_array().unwrap().len(), 1);
        assert_eq!(before[0]["id"], first["id"]);
        let r = app.get("/v1/ads?created.after=yesterday").await;
        r.expect(400);
        assert_eq!(err(&r), ("created.after".into(), "dateTime".into()));
        // Ads of a deleted goal leave the list.
        app.delete(&format!("/api/1.0.cpvext/goal/by_goal_id;id={}", s.goal)).await.expect(204);
        assert_eq!(app.get("/v1/ads").await.json(), json!([]));
    }

    async fn ads_drive_the_goals_notifications(app: TestApp) {
        let s = setup(&app).await;
        let path = format!("/api/1.0/campaign/notification/by_campaign_id;id={}", s.campaign);
        assert!(app.get(&path).await.body.contains("has no ads"));
        let ad = create(&app, &standard(&s, "A")).await;
        assert!(app.get(&path).await.body.contains("none is enabled"));
        app.patch_json("/v1/ads", &json!({"id": ad["id"], "enabled": true})).await.expect(200);
        let body = app.get(&path).await.body;
        assert!(!body.contains("none is enabled") && !body.contains("has no ads"), "{body}");
    }

    async fn another_account_gets_404(app: TestApp) {
        let s = setup(&app).await;
        let ad = create(&app, &standard(&s, "A")).await;
        let id = ad["id"].as_str().unwrap().to_string();
        let b = app.b.key.clone();
        app.get_as(&b, &format!("/v1/ads/{id}")).await.expect(404);
        let mut body = standard(&s, "Stolen");
        body["id"] = json!(id);
        app.send("PUT", "/v1/ads", Some(&b), Some("application/json"), &body.to_string()).await.expect(404);
        app.send("PATCH", "/v1/ads", Some(&b), Some("application/json"), &json!({"id": id, "name": "x"}).to_string()).await.expect(404);
        assert_eq!(app.get_as(&b, "/v1/ads").await.json(), json!([]));
        assert_eq!(app.get(&format!("/v1/ads/{id}")).await.json()["name"], "A");
    }
}
