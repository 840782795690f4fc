//! The ad-request inspector (docs/inspector.md): `GET /v3/inspect` with
//! the ad request's parameters explains the decision goal by goal; `debug=1` on the
//! exported URL leads there; the key's account only.

use api_tests::both_stores;
use api_tests::serde_json::{json, Value};

use crate::serving::{ad, ad_ids, deliver_until_held, enabled_campaign, goal};

fn goal_of<'a>(b: &'a Value, id: &str) -> &'a Value {
    b["goals"].as_array().unwrap().iter().find(|g| g["goalId"] == id).unwrap_or_else(|| panic!("goal {id} not listed: {b}"))
}

both_stores! {
    async fn the_inspector_says_why_a_paced_goal_does_not_serve(app: TestApp) {
        let c = enabled_campaign(&app).await;
        // The case: 1,000 impressions over ten days, held back by pacing after a few.
        let paced = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let spot = ad(&app, &paced, "preroll", json!({"name": "Paced spot"})).await;
        let later = goal(&app, &c, "IMPRESSION", "1000", 3, "").await;
        ad(&app, &later, "preroll", json!({})).await;
        let mid = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        ad(&app, &mid, "midroll", json!({})).await;
        let off = ad(&app, &mid, "preroll", json!({"enabled": false})).await;

        // Before: the paced goal serves, the inspector agrees, and counts nothing.
        let r = app.get("/v3/inspect?format=preroll&seed=7").await;
        r.expect(200);
        let i = r.json();
        assert_eq!(i["account"], app.a.id.as_str());
        assert_eq!(i["seed"], "7");
        let b = &i["breaks"][0];
        assert_eq!(b["format"], "preroll");
        assert_eq!(b["served"][0]["adId"], spot.as_str(), "{i}");
        assert_eq!(goal_of(b, &paced)["outcome"], "SERVED");
        assert_eq!(goal_of(b, &later)["reason"]["code"], "FLIGHT_NOT_STARTED");
        assert_eq!(goal_of(b, &mid)["outcome"], "NO_AD_OF_FORMAT", "{i}");
        assert_eq!(goal_of(b, &mid)["ads"][0]["reason"]["code"], "FORMAT");
        let ns = i["notServing"].as_array().unwrap();
        assert!(ns.iter().any(|n| n["id"] == off.as_str() && n["type"] == "ad" && n["reason"]["code"] == "AD_DISABLED"), "{ns:?}");
        // The same seed serves what the inspector said.
        assert_eq!(ad_ids(&app.ad_request("format=preroll&seed=7").await.body), vec![spot.clone()]);

        // Deliver until pacing holds the goal back (a few impressions in its first hour).
        let delivered = deliver_until_held(&app, &spot, "format=preroll").await;
        assert!(delivered >= 1, "it served at first");
        let i = app.get("/v3/inspect?format=preroll").await.json();
        let b = &i["breaks"][0];
        assert_eq!(b["served"], json!([]));
        assert_eq!(b["empty"]["code"], "NOTHING_ELIGIBLE", "{i}");
        let g = goal_of(b, &paced);
        assert_eq!((g["outcome"].as_str(), g["reason"]["code"].as_str()), (Some("EXCLUDED"), Some("PACING_AHEAD_OF_PLAN")), "{i}");
        assert!(g["reason"]["message"].as_str().unwrap().contains("ahead of its plan"));
        assert_eq!(g["ads"][0]["fits"], true, "the ad itself fits");
        // Inspecting counted nothing.
        let m = app.get(&format!("/v3/ads/{spot}?embed=metrics")).await.json()["metrics"].clone();
        assert_eq!(m["impression"], delivered, "{m}");

        // An unknown parameter is refused, naming it (not silently ignored).
        let r = app.get(&format!("/v3/inspect?format=preroll&goal={paced}")).await;
        r.expect(400);
        assert!(r.body.contains("unknown query parameter goal") && r.body.contains("goals"), "{}", r.body);
        app.get(&format!("/v3/inspect?format=preroll&goals={paced}&acp.genre=news&rnd=3")).await.expect(200);

        // An unknown category is named in the notes.
        let i = app.get("/v3/inspect?format=preroll&category=no-such-category").await.json();
        let notes = i["notes"].to_string();
        assert!(notes.contains("no-such-category") && notes.contains("not in the account's categories"), "{notes}");

        // VMAP: the three linear breaks.
        let i = app.get("/v3/inspect?rt=vmap_1_0").await.json();
        let formats: Vec<&str> = i["breaks"].as_array().unwrap().iter().map(|b| b["format"].as_str().unwrap()).collect();
        assert_eq!(formats, vec!["preroll", "midroll", "postroll"]);
    }

    async fn the_debug_switch_leads_the_accounts_own_key_to_the_inspector(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let id = ad(&app, &g, "preroll", json!({})).await;
        let r = app.ad_request(&format!("format=preroll&ad={id}&debug=1")).await;
        r.expect(307);
        let to = r.header("location").unwrap().to_string();
        assert!(to.starts_with("/v3/inspect?account=") && to.contains(&format!("ad={id}")), "{to}");
        // Without a key: 401. Another account's key: 404, nothing of this account's.
        app.send("GET", &to, None, None, "").await.expect(401);
        let other = app.get_as(&app.b.key, &to).await;
        other.expect(404);
        assert!(!other.body.contains(&id));
        // The account's own key: the explanation of that very ad request.
        let i = app.get(&to).await;
        i.expect(200);
        let i = i.json();
        assert_eq!(i["breaks"][0]["served"][0]["adId"], id.as_str(), "{i}");
        // An unknown parameter value is the ad request's 400, naming the field.
        let bad = app.get("/v3/inspect?format=sideways").await;
        bad.expect(400);
        assert!(bad.body.contains("format"), "{}", bad.body);
        let bad = app.get(&format!("/v3/inspect?goals={}", vec!["g"; 51].join(","))).await;
        bad.expect(400);
        assert!(bad.body.contains("goals"), "{}", bad.body);
    }
}

// The inspector reads its writes too (a management read), whatever the serving refresh.
api_tests::both_backends! {
    async fn the_inspector_reads_its_writes(backend: api_tests::Backend) {
        let settings = web::settings::Settings { delivery_refresh: std::time::Duration::from_secs(60), ..api_tests::TestApp::settings() };
        let app = api_tests::TestApp::spawn_with(backend, settings).await;
        let c = enabled_campaign(&app).await;
        let first = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        ad(&app, &first, "preroll", json!({})).await;
        let before = app.get("/v3/inspect?format=preroll").await.json();
        goal_of(&before["breaks"][0], &first);
        // A goal and its ad made now are in the next explanation.
        let second = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        ad(&app, &second, "preroll", json!({})).await;
        let after = app.get("/v3/inspect?format=preroll").await.json();
        goal_of(&after["breaks"][0], &second);
    }
}
