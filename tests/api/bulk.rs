//! Bulk edits and campaign duplicates (docs/operations-guide.md): all or nothing, one
//! change record per record, copies disabled with shifted dates.

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, xml_text, xml_texts};

fn goal_xml(c: &str, start: &str, end: &str) -> String {
    format!(
        "<goalBean><campaignId>{c}</campaignId><type>IMPRESSION</type><variant>NORMAL</variant><goalValue>20000</goalValue>\
         <start>{start}</start><end>{end}</end></goalBean>"
    )
}

fn end_of(app_body: &str) -> Option<String> {
    xml_text(app_body, "end")
}

both_stores! {
    async fn a_bulk_edit_that_fails_on_one_goal_changes_none(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let mut goals = Vec::new();
        for i in 0..3 {
            goals.push(app.create_xml("/api/1.0.cpvext/goal", &goal_xml(&c, &format!("2030-0{}-01T00:00:00Z", i + 1), "2030-06-30T00:00:00Z")).await);
        }
        let changes_before = app.get("/v1/changes?limit=200").await.json()["changes"].as_array().map(Vec::len);
        // The third goal starts in March: an end in February is before its start.
        let r = app.post_json("/v1/goals/bulk", &json!({"ids": goals, "set": {"end": "2030-02-15T00:00:00Z", "priority": 8}})).await;
        r.expect(400);
        let errors = r.json()["errors"].as_array().cloned().unwrap_or_default();
        assert_eq!(errors.len(), 1, "{}", r.body);
        assert_eq!((errors[0]["field"].as_str(), errors[0]["rule"].as_str()), (Some(format!("goals[{}].end", goals[2]).as_str()), Some("afterStart")));
        for g in &goals {
            let body = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={g}")).await.body;
            assert_eq!(end_of(&body).as_deref(), Some("2030-06-30T00:00:00.000Z"), "nothing changed");
            assert_eq!(xml_text(&body, "priority").as_deref(), Some("5"));
        }
        assert_eq!(app.get("/v1/changes?limit=200").await.json()["changes"].as_array().map(Vec::len), changes_before);
        // An unknown id is named too.
        let r = app.post_json("/v1/goals/bulk", &json!({"ids": [goals[0].clone(), "00000000-0000-0000-0000-000000000000"], "set": {"enabled": false}})).await;
        r.expect(400);
        assert!(r.body.contains("ids[1]"), "{}", r.body);
        // The same edit that fits every goal lands on all three, each with its change.
        let r = app.post_json("/v1/goals/bulk", &json!({"ids": goals, "set": {"end": "2030-07-31T00:00:00Z", "priority": 8}})).await;
        r.expect(200);
        assert_eq!(r.json()["records"].as_array().map(Vec::len), Some(3));
        for g in &goals {
            let body = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={g}")).await.body;
            assert_eq!((end_of(&body).as_deref(), xml_text(&body, "priority").as_deref()), (Some("2030-07-31T00:00:00.000Z"), Some("8")));
            let ch = &app.get(&format!("/v1/changes?recordId={g}&limit=1")).await.json()["changes"][0];
            assert_eq!(ch["operation"], "UPDATE");
        }
        // The campaign's flight moved with them.
        assert_eq!(end_of(&app.get(&format!("/api/1.0/campaign/by_campaign_id;id={c}")).await.body).as_deref(), Some("2030-07-31T00:00:00.000Z"));
        let too_many: Vec<String> = (0..51).map(|i| format!("g{i}")).collect();
        app.post_json("/v1/goals/bulk", &json!({"ids": too_many, "set": {"enabled": false}})).await.expect(400);
    }

    async fn ads_are_edited_in_bulk_within_their_goals(app: TestApp) {
        let (_, g) = app.live_goal().await;
        let a1 = crate::serving::ad(&app, &g, "preroll", json!({})).await;
        let a2 = crate::serving::ad(&app, &g, "preroll", json!({})).await;
        // Two explicit weights of 60 in one goal sum over 100: both named, nothing changed.
        let r = app.post_json("/v1/ads/bulk", &json!({"ids": [a1, a2], "set": {"weight": 60}})).await;
        r.expect(400);
        assert_eq!(r.json()["errors"].as_array().map(Vec::len), Some(2), "{}", r.body);
        let r = app.post_json("/v1/ads/bulk", &json!({"ids": [a1, a2], "set": {"enabled": false, "weight": 50}})).await;
        r.expect(200);
        for a in [&a1, &a2] {
            let v = app.get(&format!("/v1/ads/{a}")).await.json();
            assert_eq!((v["enabled"].as_bool(), v["weight"].as_f64()), (Some(false), Some(50.0)), "{v}");
        }
        // The goal's disabled ads no longer serve.
        let doc = app.get(&format!("/v1/adrequest?account={}&format=preroll", app.a.id)).await.body;
        assert!(crate::serving::ad_ids(&doc).is_empty(), "{doc}");
    }

    async fn a_campaign_is_duplicated_with_its_rules_goals_and_ads(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        app.put_xml(&format!("/api/1.0/campaign/rules/by_campaign_id;id={c}"),
            &format!("<rulesBean><parentId>{c}</parentId><frequencyCappings><impressions>4</impressions><timeUnit>DAY</timeUnit></frequencyCappings></rulesBean>")).await.expect(204);
        let mut goals = Vec::new();
        for _ in 0..3 {
            goals.push(app.create_xml("/api/1.0.cpvext/goal", &goal_xml(&c, "2030-01-01T00:00:00Z", "2030-01-31T00:00:00Z")).await);
        }
        app.put_xml(&format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={}", goals[0]),
            &format!("<rulesBean><parentId>{}</parentId><frequencyCappings><impressions>2</impressions><timeUnit>DAY</timeUnit></frequencyCappings></rulesBean>", goals[0])).await.expect(204);
        let ad = crate::serving::ad(&app, &goals[0], "preroll", json!({"start": "2030-01-02T00:00:00Z"})).await;
        let r = app.post_json(&format!("/v1/campaigns/{c}/duplicate"), &json!({"name": "Copy", "shiftDays": 365})).await;
        r.expect(201);
        let d = r.json();
        let copy = d["campaignId"].as_str().unwrap().to_string();
        assert_eq!(r.header("location").map(str::to_string), Some(format!("/api/1.0/campaign/by_campaign_id;id={copy}")));
        let cb = app.get(&format!("/api/1.0/campaign/by_campaign_id;id={copy}")).await.body;
        assert_eq!((xml_text(&cb, "name").as_deref(), xml_text(&cb, "enabled").as_deref()), (Some("Copy"), Some("false")));
        assert_eq!(xml_texts(&app.get(&format!("/api/1.0/campaign/rules/by_campaign_id;id={copy}")).await.body, "impressions"), ["4"]);
        let pairs = d["goals"].as_array().unwrap();
        assert_eq!(pairs.len(), 3);
        for p in pairs {
            let new = p[1].as_str().unwrap();
            let gb = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={new}")).await.body;
            assert_eq!((xml_text(&gb, "start").as_deref(), end_of(&gb).as_deref(), xml_text(&gb, "enabled").as_deref()),
                (Some("2031-01-01T00:00:00.000Z"), Some("2031-01-31T00:00:00.000Z"), Some("false")));
            assert_eq!(xml_text(&gb, "campaignId").as_deref(), Some(copy.as_str()));
        }
        let g0 = pairs.iter().find(|p| p[0] == goals[0].as_str()).unwrap()[1].as_str().unwrap().to_string();
        assert_eq!(xml_texts(&app.get(&format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={g0}")).await.body, "impressions"), ["2"]);
        let ads = d["ads"].as_array().unwrap();
        assert_eq!(ads.len(), 1);
        assert_eq!(ads[0][0].as_str(), Some(ad.as_str()));
        let na: Value = app.get(&format!("/v1/ads/{}", ads[0][1].as_str().unwrap())).await.json();
        assert_eq!((na["enabled"].as_bool(), na["goalId"].as_str(), na["start"].as_str()), (Some(false), Some(g0.as_str()), Some("2031-01-02T00:00:00Z")), "{na}");
        // The original is untouched; another account cannot copy it.
        assert_eq!(xml_texts(&app.get(&format!("/api/1.0/campaign/by_campaign_id;id={c}")).await.body, "name"), ["C"]);
        let b = app.b.key.clone();
        app.send("POST", &format!("/v1/campaigns/{c}/duplicate"), Some(&b), Some("application/json"), "{}").await.expect(404);
        app.post_json(&format!("/v1/campaigns/{c}/duplicate"), &json!({"shiftDays": 99999})).await.expect(400);
    }
}
