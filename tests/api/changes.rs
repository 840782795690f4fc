//! Change history (docs/operations-guide.md, "Change history"): every write of a record
//! leaves one change with the write, a refused one leaves none; revert; CSV; isolation.

use api_tests::serde_json::Value;
use api_tests::{both_stores, xml_text, TestApp};

async fn changes(app: &TestApp, query: &str) -> Vec<Value> {
    let r = app.get(&format!("/v1/changes?{query}")).await;
    r.expect(200);
    r.json()["changes"].as_array().cloned().unwrap_or_default()
}

fn field<'a>(c: &'a Value, path: &str) -> Option<&'a Value> {
    c["fields"].as_array()?.iter().find(|f| f["path"] == path)
}

fn goal_xml(id: &str, c: &str, end: &str) -> String {
    format!(
        "<goalBean><id>{id}</id><campaignId>{c}</campaignId><type>IMPRESSION</type><variant>NORMAL</variant><goalValue>50000</goalValue>\
         <start>2030-01-01T00:00:00Z</start><end>{end}</end></goalBean>"
    )
}

both_stores! {
    async fn an_ads_revert_keeps_its_rules_in_its_goal(app: TestApp) {
        use api_tests::serde_json::json;
        let c = crate::serving::enabled_campaign(&app).await;
        let g = crate::serving::goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let a = crate::serving::ad(&app, &g, "preroll", json!({"weight": 50})).await;
        app.send("PATCH", "/v1/ads", Some(&app.a.key), Some("application/json"), &json!({"id": a, "weight": 30}).to_string()).await.expect(200);
        crate::serving::ad(&app, &g, "preroll", json!({"weight": 70})).await;
        // Putting the first ad back to 50 would make the goal's preroll weights 120: refused
        // by the rule an update of the ad obeys, and nothing changes.
        let id = changes(&app, &format!("recordId={a}")).await[0]["id"].as_str().unwrap().to_string();
        let r = app.send("POST", &format!("/v1/changes/{id}/revert"), Some(&app.a.key), Some("application/json"), "").await;
        r.expect(400);
        assert!(r.body.contains("weightSum"), "{}", r.body);
        assert_eq!(app.get(&format!("/v1/ads/{a}")).await.json()["weight"].as_f64(), Some(30.0), "nothing changed");
    }

    async fn a_collection_record_reverts_through_its_rules(app: TestApp) {
        use api_tests::serde_json::json;
        let bidder = api_tests::Bidder::in_process(&app);
        let p1 = crate::demand::partner(&app, &bidder.endpoint("nobid", ""), json!({"name": "One"})).await;
        let p2 = crate::demand::partner(&app, &bidder.endpoint("nobid", ""), json!({"name": "Two"})).await;
        let m = crate::demand::marketplace(&app, std::slice::from_ref(&p1), "FIRST_PRICE", 1.0, json!({})).await;
        let loc = format!("/v1/marketplaces/{m}");
        let mut body = app.get(&loc).await.json();
        body["demandPartnerIds"] = json!([p2]);
        app.send("PUT", &loc, Some(&app.a.key), Some("application/json"), &body.to_string()).await.expect(200);
        // The first partner is removed once no marketplace names it.
        app.delete(&format!("/v1/demand-partners/{p1}")).await.expect(204);
        // Reverting the marketplace's change would name the removed partner again: refused,
        // naming the field, and nothing changes.
        let id = changes(&app, &format!("recordId={m}")).await[0]["id"].as_str().unwrap().to_string();
        let r = app.send("POST", &format!("/v1/changes/{id}/revert"), Some(&app.a.key), Some("application/json"), "").await;
        r.expect(400);
        assert!(r.body.contains("demandPartnerIds[0]"), "{}", r.body);
        assert_eq!(app.get(&loc).await.json()["demandPartnerIds"], json!([p2]), "nothing changed");
        // A stitcher's change reverts through its rules too (its secret kept, so its wide
        // range stays allowed).
        let secret = json!({"name": "X-Stitcher-Key", "value": "0123456789abcdef"});
        let s = app.post_json("/v1/stitchers", &json!({"name": "S", "sourceCidrs": ["10.0.0.0/24"]})).await;
        s.expect(201);
        let sloc = s.header("location").unwrap().to_string();
        let wide = json!({"name": "S", "sourceCidrs": ["10.0.0.0/8"], "secretHeader": secret});
        app.send("PUT", &sloc, Some(&app.a.key), Some("application/json"), &wide.to_string()).await.expect(200);
        let narrow = json!({"name": "S", "sourceCidrs": ["10.0.0.0/8", "10.1.0.0/24"]});
        app.send("PUT", &sloc, Some(&app.a.key), Some("application/json"), &narrow.to_string()).await.expect(200);
        let sid = sloc.rsplit('/').next().unwrap().to_string();
        let last = changes(&app, &format!("recordId={sid}")).await[0]["id"].as_str().unwrap().to_string();
        app.send("POST", &format!("/v1/changes/{last}/revert"), Some(&app.a.key), Some("application/json"), "").await.expect(200);
        assert_eq!(app.get(&sloc).await.json()["sourceCidrs"], json!(["10.0.0.0/8"]), "a revert within the rules is written");
    }

    async fn writes_leave_their_history_and_refused_writes_none(app: TestApp) {
        let (adv, c) = app.advertiser_campaign().await;
        let g = app.create_xml("/api/1.0.cpvext/goal", &goal_xml("", &c, "2030-01-31T00:00:00Z").replace("<id></id>", "")).await;
        let path = format!("/api/1.0.cpvext/goal/by_goal_id;id={g}");
        app.put_xml(&path, &goal_xml(&g, &c, "2030-02-28T00:00:00Z")).await.expect(204);
        let rules = format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={g}");
        app.put_xml(&rules, &format!("<rulesBean><parentId>{g}</parentId><frequencyCappings><impressions>3</impressions><timeUnit>DAY</timeUnit></frequencyCappings></rulesBean>")).await.expect(204);
        let list = changes(&app, &format!("recordId={g}")).await;
        let ops: Vec<&str> = list.iter().map(|c| c["operation"].as_str().unwrap()).collect();
        assert_eq!(ops, ["UPDATE", "UPDATE", "CREATE"], "newest first: {list:?}");
        let end = field(&list[1], "end").expect("the end date's change");
        assert_eq!((end["old"].as_str(), end["new"].as_str()), (Some("2030-01-31T00:00:00Z"), Some("2030-02-28T00:00:00Z")));
        assert_eq!(list[1]["fields"].as_array().map(Vec::len), Some(1), "only what the request changed: {}", list[1]);
        assert!(list[0]["fields"].as_array().unwrap().iter().all(|f| f["path"].as_str().unwrap().starts_with("rules.")), "{}", list[0]);
        for c in &list {
            assert_eq!((c["kind"].as_str(), c["keyName"].as_str()), (Some("goal"), Some("seeded")), "{c}");
            assert_eq!(c["keyId"].as_str().map(str::len), Some(12));
            assert!(!c.to_string().contains(&app.a.key), "never the key itself");
            assert!(c["requestId"].as_str().is_some_and(|r| !r.is_empty()));
        }
        // A 400 and a 409 change nothing, and leave no change.
        let before = changes(&app, "limit=200").await.len();
        let r = app.put_xml(&path, &goal_xml(&g, &c, "not-a-date")).await;
        assert_eq!(r.status, 400, "{}", r.body);
        app.delete(&format!("/api/1.0/client/by_client_id;id={adv}")).await.expect(409);
        assert_eq!(changes(&app, "limit=200").await.len(), before);
        // Archive and delete are named state moves; a deleted goal's last values stay.
        let campaign = app.get(&format!("/api/1.0/campaign/by_campaign_id;id={c}")).await.body;
        let status = xml_text(&campaign, "status").unwrap();
        let archived = campaign.replace(&format!("<status>{status}</status>"), "<status>ARCHIVED</status>");
        let inner = archived.split("<campaignBean>").nth(1).and_then(|s| s.split("</campaignBean>").next()).unwrap();
        app.put_xml(&format!("/api/1.0/campaign/by_campaign_id;id={c}"), &format!("<campaignBean>{inner}</campaignBean>")).await.expect(204);
        assert_eq!(changes(&app, &format!("recordId={c}&limit=1")).await[0]["operation"], "ARCHIVE");
        app.delete(&path).await.expect(204);
        let del = &changes(&app, &format!("recordId={g}&limit=1")).await[0];
        assert_eq!(del["operation"], "DELETE");
        assert_eq!(field(del, "goalValue").map(|f| (f["old"].clone(), f["new"].clone())), Some((50000.0.into(), Value::Null)));
        // Pages: `next` continues, older, with nothing twice (by record, and the account's).
        for filter in [format!("recordId={g}&"), String::new()] {
            let first = app.get(&format!("/v1/changes?{filter}limit=2")).await.json();
            let next = first["next"].as_str().expect("a next page").to_string();
            let second = app.get(&format!("/v1/changes?{filter}limit=2&after={next}")).await.json();
            let (a, b) = (first["changes"].as_array().unwrap(), second["changes"].as_array().unwrap());
            assert!(!b.is_empty(), "{second}");
            assert!(b[0]["id"].as_str() < a[1]["id"].as_str(), "older: {first} then {second}");
        }
        // Filters: kind, time, unknown ones refused.
        assert!(changes(&app, "kind=campaign").await.iter().all(|c| c["kind"] == "campaign"));
        assert!(changes(&app, "since=2099-01-01T00:00:00Z").await.is_empty());
        let r = app.get("/v1/changes?kind=banana&pagesize=5").await;
        r.expect(400);
        assert!(r.body.contains("pagesize") && r.body.contains("kind"), "{}", r.body);
    }

    async fn an_update_is_reverted_unless_changed_since(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let g = app.create_xml("/api/1.0.cpvext/goal", &goal_xml("", &c, "2030-01-31T00:00:00Z").replace("<id></id>", "")).await;
        let path = format!("/api/1.0.cpvext/goal/by_goal_id;id={g}");
        app.put_xml(&path, &goal_xml(&g, &c, "2030-03-31T00:00:00Z")).await.expect(204);
        let moved = changes(&app, &format!("recordId={g}&limit=1")).await[0]["id"].as_str().unwrap().to_string();
        let r = app.post_json(&format!("/v1/changes/{moved}/revert"), &Value::Null).await;
        r.expect(200);
        let back = r.json();
        assert_eq!((back["operation"].as_str(), field(&back, "end").and_then(|f| f["new"].as_str())), (Some("UPDATE"), Some("2030-01-31T00:00:00Z")));
        assert_eq!(xml_text(&app.get(&path).await.body, "end").as_deref(), Some("2030-01-31T00:00:00.000Z"));
        // The campaign's flight moved back with it.
        assert_eq!(xml_text(&app.get(&format!("/api/1.0/campaign/by_campaign_id;id={c}")).await.body, "end").as_deref(), Some("2030-01-31T00:00:00.000Z"));
        // Reverting the same change again: the revert is a later change, named.
        let r = app.post_json(&format!("/v1/changes/{moved}/revert"), &Value::Null).await;
        r.expect(409);
        assert!(r.body.contains(back["id"].as_str().unwrap()), "{}", r.body);
        // A CREATE is not reverted; an unknown change is 404.
        let created = changes(&app, &format!("recordId={g}")).await.last().unwrap()["id"].as_str().unwrap().to_string();
        app.post_json(&format!("/v1/changes/{created}/revert"), &Value::Null).await.expect(409);
        app.post_json("/v1/changes/0000000000000-001-00000000/revert", &Value::Null).await.expect(404);
    }

    async fn history_is_csv_and_each_account_sees_its_own(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let r = app.send_with_headers("GET", &format!("/v1/changes?recordId={c}"), Some(&app.a.key), None, "", &[("accept", "text/csv")]).await;
        r.expect(200);
        assert!(r.header("content-type").unwrap_or("").starts_with("text/csv"));
        let mut lines = r.body.lines();
        assert_eq!(lines.next(), Some("id,at,requestId,keyId,keyName,kind,recordId,operation,path,old,new,actorKind,actorId,actorName"));
        assert!(lines.all(|l| l.contains(&format!(",campaign,{c},CREATE,"))), "{}", r.body);
        // A name a spreadsheet would run as a formula is written as text (a leading ').
        let adv = app.client("Adv", "ADVERTISER").await;
        let f = app.campaign("=HYPERLINK(\"http://x.example\",\"y\")", &adv).await;
        let r = app.send_with_headers("GET", &format!("/v1/changes?recordId={f}&output=csv"), Some(&app.a.key), None, "", &[]).await;
        r.expect(200);
        assert!(r.body.contains(",name,,\"'=HYPERLINK(\"\"http://x.example\"\",\"\"y\"\")\",KEY,"), "{}", r.body);
        assert!(!r.body.contains(",=HYPERLINK") && !r.body.contains(",\"=HYPERLINK"), "{}", r.body);
        // Another account sees none of it, and cannot revert it.
        let b = app.b.key.clone();
        let theirs = app.get_as(&b, &format!("/v1/changes?recordId={c}")).await;
        theirs.expect(200);
        assert_eq!(theirs.json()["changes"].as_array().map(Vec::len), Some(0));
        let id = changes(&app, &format!("recordId={c}")).await[0]["id"].as_str().unwrap().to_string();
        app.send("POST", &format!("/v1/changes/{id}/revert"), Some(&b), Some("application/json"), "").await.expect(404);
        app.send("GET", "/v1/changes", None, None, "").await.expect(401);
    }
}

/// An API key of account A with `role`.
async fn key_of(app: &TestApp, role: &str) -> String {
    let r = app.post_json("/v1/api-keys", &api_tests::serde_json::json!({"name": format!("{role} key"), "role": role})).await;
    r.expect(201);
    r.json()["key"].as_str().unwrap_or("").to_string()
}

both_stores! {
    async fn a_revert_needs_the_role_of_the_write_it_undoes(app: TestApp) {
        use api_tests::serde_json::json;
        // An ADMIN disables a demand partner; a TRAFFICKER cannot undo it, an ADMIN can.
        let p = crate::demand::partner(&app, "http://127.0.0.1:9/openrtb2", json!({})).await;
        app.send("PUT", &format!("/v1/demand-partners/{p}"), Some(&app.a.key), Some("application/json"),
            &json!({"id": p, "name": "DSP", "endpoint": "http://127.0.0.1:9/openrtb2", "timeoutMs": 150, "enabled": false}).to_string()).await.expect(200);
        let change = changes(&app, &format!("recordId={p}")).await.into_iter().find(|c| c["operation"] == "UPDATE").expect("the update");
        assert_eq!(change["role"], "ADMIN", "{change}");
        let id = change["id"].as_str().unwrap_or("").to_string();
        let trafficker = key_of(&app, "TRAFFICKER").await;
        let r = app.send("POST", &format!("/v1/changes/{id}/revert"), Some(&trafficker), Some("application/json"), "").await;
        r.expect(403);
        assert!(r.body.contains("ADMIN"), "{}", r.body);
        assert_eq!(app.get(&format!("/v1/demand-partners/{p}")).await.json()["enabled"], false, "still disabled");
        // Nor from the console's Changes page.
        let tom = crate::console::person(&app, "tom@a.example", "TRAFFICKER").await;
        tom.post(&format!("/console/changes/{id}/revert"), &[]).await.expect(403);
        assert_eq!(app.get(&format!("/v1/demand-partners/{p}")).await.json()["enabled"], false, "still disabled");
        let r = app.send("POST", &format!("/v1/changes/{id}/revert"), Some(&app.a.key), Some("application/json"), "").await;
        r.expect(200);
        assert_eq!(r.json()["role"], "ADMIN", "the revert needs what the reverted write needed: {}", r.body);
        assert_eq!(app.get(&format!("/v1/demand-partners/{p}")).await.json()["enabled"], true);
        // A goal's change is a TRAFFICKER's to revert.
        let c = crate::serving::enabled_campaign(&app).await;
        let g = crate::serving::goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        app.send("PUT", &format!("/api/1.0.cpvext/goal/by_goal_id;id={g}"), Some(&app.a.key), Some("application/xml"),
            &goal_xml(&g, &c, "2030-02-01T00:00:00Z")).await.expect(204);
        let change = changes(&app, &format!("recordId={g}")).await.into_iter().find(|c| c["operation"] == "UPDATE").expect("the update");
        assert_eq!(change["role"], "TRAFFICKER");
        let id = change["id"].as_str().unwrap_or("").to_string();
        app.send("POST", &format!("/v1/changes/{id}/revert"), Some(&trafficker), Some("application/json"), "").await.expect(200);
    }

    async fn a_write_with_an_idempotency_key_names_its_author(app: TestApp) {
        use api_tests::serde_json::json;
        let c = crate::serving::enabled_campaign(&app).await;
        let g = crate::serving::goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let trafficker = key_of(&app, "TRAFFICKER").await;
        let body = json!({"ids": [g], "set": {"priority": 8}}).to_string();
        let r = app.send_with_headers("POST", "/v1/goals/bulk", Some(&trafficker), Some("application/json"), &body, &[("idempotency-key", "bulk-1")]).await;
        r.expect(200);
        let change = changes(&app, &format!("recordId={g}")).await.into_iter().find(|c| c["operation"] == "UPDATE").expect("the update");
        assert_eq!(change["actor"]["name"], "TRAFFICKER key", "the key that made it, not the service: {change}");
        assert_eq!(change["keyName"], "TRAFFICKER key");
    }
}
