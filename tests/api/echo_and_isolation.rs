//! Behaviours a client relies on: what a GET shows can be sent back, defaults the
//! seeds state appear in every view of a record, and another account's record is a 404
//! before anything in the body is looked at.

use api_tests::chrono::{Duration, SecondsFormat};
use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, xml_text};
use web::clock::Clock;

fn gpath(id: &str) -> String {
    format!("/api/1.0.cpvext/goal/by_goal_id;id={id}")
}

both_stores! {
    async fn an_active_goal_accepts_the_start_it_shows(app: TestApp) {
        // A clock with sub-millisecond precision, as the system clock has.
        app.clock.set(app.clock.now() + Duration::nanoseconds(123_456_789));
        let (_, c) = app.advertiser_campaign().await;
        // Past start: the goal starts at its creation time (start rule 1), and is active.
        let id = app.goal(&c, "RTB", -1, Some(10), "").await;
        app.advance(Duration::minutes(5));
        let shown = xml_text(&app.get(&gpath(&id)).await.body, "start").unwrap();
        assert_eq!(shown.len(), 24, "milliseconds, UTC: {shown}");
        let end = (app.clock.now() + Duration::days(10)).to_rfc3339_opts(SecondsFormat::Secs, true);
        let body = format!(
            "<goalBean><id>{id}</id><campaignId>{c}</campaignId><type>RTB</type><variant>NORMAL</variant><start>{shown}</start><end>{end}</end></goalBean>"
        );
        app.put_xml(&gpath(&id), &body).await.expect(204);
        assert_eq!(xml_text(&app.get(&gpath(&id)).await.body, "start").unwrap(), shown);
        // One millisecond off is a move into the past: still refused.
        let earlier = api_tests::chrono::DateTime::parse_from_rfc3339(&shown).unwrap() - Duration::milliseconds(1);
        let moved = body.replace(&shown, &earlier.to_rfc3339_opts(SecondsFormat::Millis, true));
        let r = app.put_xml(&gpath(&id), &moved).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("startRule"));
    }

    async fn v3_ads_show_every_device_container_by_default(app: TestApp) {
        let (_, campaign) = app.advertiser_campaign().await;
        let goal = app.goal(&campaign, "IMPRESSION", 1, Some(30), "").await;
        let asset = app.upload_asset("spot.mp4", api_tests::clip()).await;
        let creative = json!({"type": "standard", "insertionPoint": "preroll", "assetId": asset});
        let all = app.post_json("/v1/ads", &json!({"name": "All", "goalId": goal, "creative": creative})).await;
        all.expect(201);
        let own = format!("{}-dc-ctv", app.a.id);
        let one = app.post_json("/v1/ads", &json!({"name": "One", "goalId": goal, "creative": creative, "deviceContainers": [own]})).await;
        one.expect(201);
        let every: Vec<String> = ["desktop", "mobile", "ctv"].iter().map(|d| format!("{}-dc-{d}", app.a.id)).collect();
        let ids = |v: &Value| -> Vec<String> {
            let mut l: Vec<String> = v["deviceContainers"].as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap().to_string()).collect();
            l.sort();
            l
        };
        let mut sorted = every;
        sorted.sort();
        // /v1 and every /v3 view agree.
        assert_eq!(all.json()["deviceContainers"], json!(sorted));
        let (all_id, one_id) = (all.json()["id"].as_str().unwrap().to_string(), one.json()["id"].as_str().unwrap().to_string());
        let v3 = app.get(&format!("/v3/ads/{all_id}")).await;
        v3.expect(200);
        assert_eq!(ids(&v3.json()), sorted);
        assert_eq!(ids(&app.get(&format!("/v3/ads/{one_id}")).await.json()), vec![own.clone()]);
        let listed = app.get(&format!("/v3/ads?goal.id={goal}")).await.json();
        let by_name = |list: &Value, name: &str| list.as_array().unwrap().iter().find(|a| a["name"] == name).cloned().unwrap();
        assert_eq!(ids(&by_name(&listed["ads"], "All")), sorted);
        assert_eq!(ids(&by_name(&listed["ads"], "One")), vec![own.clone()]);
        let g = app.get(&format!("/v3/goals/{goal}?expand=ads")).await.json();
        assert_eq!(ids(&by_name(&g["ads"], "All")), sorted, "{g}");
        let c = app.get(&format!("/v3/campaigns/{campaign}?expand=goals&expand=ads")).await.json();
        assert_eq!(ids(&by_name(&c["goals"][0]["ads"], "All")), sorted, "{c}");
    }

    async fn another_accounts_template_is_404_before_body_checks(app: TestApp) {
        let base = "/api/2.0/targeting-template";
        let t = app.post_json(base, &json!({"name": "Mine"})).await.json();
        let id = t["id"].as_str().unwrap();
        // The other tenant sends a body that would fail validation in its own account.
        let body = json!({"id": id, "name": "Theirs", "siteId": app.b.id});
        let r = app.send("PUT", &format!("{base}/{id}"), Some(&app.b.key), Some("application/json"), &body.to_string()).await;
        r.expect(404);
        assert!(!r.body.contains(&app.a.id), "nothing of the owner leaks: {}", r.body);
        let r = app.send("PUT", &format!("{base}/{id}/rules"), Some(&app.b.key), Some("application/json"), "{}").await;
        r.expect(404);
        assert_eq!(app.get(&format!("{base}/{id}")).await.json()["name"], "Mine");
    }

    async fn every_update_finds_the_record_before_it_reads_the_body(app: TestApp) {
        // Records of account a; account b sends bodies that are invalid as well.
        let (adv, campaign) = app.advertiser_campaign().await;
        let goal = app.goal(&campaign, "IMPRESSION", 1, Some(30), "").await;
        let contact = app.create_xml("/api/1.0/contact", "<contactBean><firstName>Ann</firstName></contactBean>").await;
        let asset = app.upload_asset("spot.mp4", api_tests::clip()).await;
        let ad = app
            .post_json("/v1/ads", &json!({"name": "A", "goalId": goal, "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": asset}}))
            .await
            .json();
        let ad = ad["id"].as_str().unwrap().to_string();
        let policy = app.post_json("/v1/insertion-policy", &json!({"name": "P"})).await.json();
        let policy = policy["id"].as_str().unwrap().to_string();
        let xml = Some("application/xml");
        let bad_xml = |root: &str| format!("<{root}><name></name><type>NOPE</type><bogus/></{root}>");
        let b = Some(app.b.key.as_str());
        for (method, path, ct, body) in [
            ("PUT", format!("/api/1.0/client/by_client_id;id={adv}"), xml, bad_xml("clientBean")),
            ("PUT", format!("/api/1.0/contact/by_contact_id;id={contact}"), xml, bad_xml("contactBean")),
            ("PUT", format!("/api/1.0/campaign/by_campaign_id;id={campaign}"), xml, bad_xml("campaignBean")),
            ("PUT", format!("/api/1.0.cpvext/goal/by_goal_id;id={goal}"), xml, bad_xml("goalBean")),
            ("PUT", format!("/api/1.0/campaign/rules/by_campaign_id;id={campaign}"), xml, bad_xml("rulesBean")),
            ("PUT", format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={goal}"), xml, bad_xml("rulesBean")),
            ("PUT", "/v1/ads".to_string(), Some("application/json"), json!({"id": ad, "weight": -5, "bogus": 1}).to_string()),
            ("PATCH", "/v1/ads".to_string(), Some("application/json"), json!({"id": ad, "weight": -5}).to_string()),
            ("PUT", "/v1/insertion-policy".to_string(), Some("application/json"), json!({"id": policy, "bogus": true}).to_string()),
        ] {
            let r = app.send(method, &path, b, ct, &body).await;
            assert_eq!(r.status, 404, "{method} {path}: {}", r.body);
            assert!(!r.body.contains(&app.a.id), "nothing of the owner leaks: {}", r.body);
        }
        // Unchanged for the owner.
        assert_eq!(app.get(&format!("/v1/ads/{ad}")).await.json()["name"], "A");
        assert_eq!(app.get(&format!("/v1/insertion-policy/{policy}")).await.json()["name"], "P");
    }
}
