//! Insertion policies: seed 000 §2.6, §4.11; docs/insertion-policies.md.

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, TestApp};

async fn create(app: &TestApp, body: Value) -> Value {
    let r = app.post_json("/v1/insertion-policy", &body).await;
    assert_eq!(r.status, 201, "{}", r.body);
    let v = r.json();
    assert_eq!(r.header("location"), Some(format!("/v1/insertion-policy/{}", v["id"].as_str().unwrap()).as_str()));
    v
}

fn names(list: &Value) -> Vec<String> {
    list["data"].as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap().to_string()).collect()
}

fn err(r: &api_tests::Res) -> (String, String) {
    let e = &r.json()["errors"][0];
    (e["field"].as_str().unwrap_or("").to_string(), e["rule"].as_str().unwrap_or("").to_string())
}

both_stores! {
    async fn template_and_create_with_defaults(app: TestApp) {
        let t = app.get("/v1/insertion-policy/template").await;
        t.expect(200);
        let t = t.json();
        assert_eq!(t["name"], "");
        assert_eq!(t["adBreakSettings"]["standardSpotsEnabled"], true);
        assert_eq!(t["globalSettings"]["minimumTimeBetweenAds"], 180);
        assert!(t.get("id").is_none());
        let p = create(&app, json!({"name": "Sports"})).await;
        let mut expect = t.clone();
        expect["name"] = json!("Sports");
        expect["id"] = p["id"].clone();
        assert_eq!(p, expect, "defaults applied");
        let got = app.get(&format!("/v1/insertion-policy/{}", p["id"].as_str().unwrap())).await;
        got.expect(200);
        assert!(got.header("etag").is_some());
        assert_eq!(got.json(), p);
        let full = create(&app, json!({"name": "Full", "tagRule": {"oneOf": ["football", "news"]},
            "categoryRule": {"oneOf": [format!("{}-cat-sports", app.a.id)]},
            "globalSettings": {"skipButton": {"showWhen": "ALWAYS", "skipOffset": {"value": 5}}, "minimumTimeBetweenAds": 600},
            "adBreakSettings": {"preroll": {"enabled": true, "adsPerBreak": 2}, "midroll": {"enabled": true,
                "advancedRules": {"enabled": true, "rules": [{"midrollBreakNumber": 2, "adsPerBreak": 3, "timeLimit": {"enabled": true, "seconds": 60}}]}}},
            "pauseAdSettings": {"enabled": true}})).await;
        assert_eq!(full["adBreakSettings"]["midroll"]["advancedRules"]["rules"][0]["timeLimit"]["seconds"], 60);
        assert_eq!(full["globalSettings"]["skipButton"]["resetAfter"], 86400, "nested defaults kept");
    }

    async fn rules_are_enforced_and_nothing_is_written(app: TestApp) {
        let cases = vec![
            (json!({}), "name", "required"),
            (json!({"name": "n".repeat(256)}), "name", "maxLength"),
            (json!({"name": "P", "color": "red"}), "color", "unknown"),
            (json!({"name": "P", "adBreakSettings": {"preroll": {"adsPerBreak": "two"}}}), "adBreakSettings.preroll.adsPerBreak", "type"),
            (json!({"name": "P", "adBreakSettings": {"preroll": {"adsPerBreak": 51}}}), "adBreakSettings.preroll.adsPerBreak", "range"),
            (json!({"name": "P", "globalSettings": {"skipButton": {"resetAfter": 5}}}), "globalSettings.skipButton.resetAfter", "enum"),
            (json!({"name": "P", "categoryRule": {"oneOf": ["not-a-category"]}}), "categoryRule.oneOf[0]", "reference"),
            (json!({"name": "P", "tagRule": {"oneOf": (0..21).map(|i| format!("t{i}")).collect::<Vec<_>>()}}), "tagRule.oneOf", "maxCount"),
            (json!({"name": "P", "overlaySettings": {"enabled": true}}), "overlaySettings.enabled", "formatNotEnabled"),
            (json!({"name": "P", "adBreakSettings": {"midroll": {"advancedRules": {"enabled": true}}}}), "adBreakSettings.midroll.advancedRules.rules", "required"),
            (json!({"name": "P", "id": "x"}), "id", "notOnCreate"),
        ];
        for (body, field, rule) in cases {
            let r = app.post_json("/v1/insertion-policy", &body).await;
            r.expect(400);
            assert_eq!(err(&r), (field.to_string(), rule.to_string()), "{body}: {}", r.body);
        }
        let l = app.get("/v1/insertion-policy").await.json();
        assert_eq!(l["pagination"]["totalCount"], 0);
        app.send("POST", "/v1/insertion-policy", Some(&app.a.key), Some("application/json"), "{oops").await.expect(400);
        app.send("POST", "/v1/insertion-policy", Some(&app.a.key), Some("text/plain"), "x").await.expect(415);
    }

    async fn replace_resets_what_it_leaves_out(app: TestApp) {
        let p = create(&app, json!({"name": "A", "tagRule": {"oneOf": ["x"]}, "adBreakSettings": {"preroll": {"enabled": true}}})).await;
        let id = p["id"].as_str().unwrap();
        let r = app.put_json("/v1/insertion-policy", &json!({"id": id, "name": "A2"})).await;
        r.expect(200);
        let v = r.json();
        assert_eq!((v["name"].as_str(), v["tagRule"]["oneOf"].clone(), v["adBreakSettings"]["preroll"]["enabled"].as_bool()), (Some("A2"), json!([]), Some(false)));
        assert_eq!(app.get(&format!("/v1/insertion-policy/{id}")).await.json()["name"], "A2");
        let r = app.put_json("/v1/insertion-policy", &json!({"name": "no id"})).await;
        r.expect(400);
        assert_eq!(err(&r), ("id".into(), "required".into()));
        app.put_json("/v1/insertion-policy", &json!({"id": "00000000-0000-0000-0000-000000000000", "name": "x"})).await.expect(404);
        let r = app.put_json("/v1/insertion-policy", &json!({"id": id, "name": "A3", "overlaySettings": {"frequency": 61}})).await;
        r.expect(400);
        assert_eq!(app.get(&format!("/v1/insertion-policy/{id}")).await.json()["name"], "A2");
    }

    async fn list_is_ranked_and_paged(app: TestApp) {
        for i in 0..12 {
            create(&app, json!({"name": format!("P{i:02}")})).await;
        }
        let first = app.get("/v1/insertion-policy").await.json();
        assert_eq!(names(&first), (0..10).map(|i| format!("P{i:02}")).collect::<Vec<_>>(), "first 10 by default, highest rank first");
        assert_eq!(first["pagination"], json!({"totalCount": 12, "pageSize": 10, "pageNumber": 1}));
        assert_eq!(names(&app.get("/v1/insertion-policy?pageNumber=2").await.json()), vec!["P10", "P11"]);
        assert_eq!(names(&app.get("/v1/insertion-policy?pageSize=5&pageNumber=3").await.json()), vec!["P10", "P11"]);
        assert!(names(&app.get("/v1/insertion-policy?pageNumber=9").await.json()).is_empty());
        for q in ["pageSize=0", "pageSize=101", "pageNumber=0", "pageSize=x"] {
            let r = app.get(&format!("/v1/insertion-policy?{q}")).await;
            r.expect(400);
            assert_eq!(err(&r).1, "range", "{q}");
        }
        // Re-rank: reverse the order.
        let mut ids: Vec<Value> = app.get("/v1/insertion-policy/ranking").await.json()["ids"].as_array().unwrap().clone();
        assert_eq!(ids.len(), 12);
        ids.reverse();
        app.put_json("/v1/insertion-policy/ranking", &json!({"ids": ids})).await.expect(200);
        assert_eq!(names(&app.get("/v1/insertion-policy?pageSize=3").await.json()), vec!["P11", "P10", "P09"]);
        let r = app.put_json("/v1/insertion-policy/ranking", &json!({"ids": ids[1..].to_vec()})).await;
        r.expect(400);
        assert_eq!(err(&r), ("ids".into(), "permutation".into()));
        // Delete: gone from the ranking, the rest keeps its order.
        let top = ids[0].as_str().unwrap().to_string();
        app.delete(&format!("/v1/insertion-policy/{top}")).await.expect(204);
        app.get(&format!("/v1/insertion-policy/{top}")).await.expect(404);
        app.delete(&format!("/v1/insertion-policy/{top}")).await.expect(404);
        let l = app.get("/v1/insertion-policy?pageSize=2").await.json();
        assert_eq!(names(&l), vec!["P10", "P09"]);
        assert_eq!(l["pagination"]["totalCount"], 11);
    }

    async fn the_feature_and_the_account_limit_are_enforced(app: TestApp) {
        app.set_account(&app.b.id, |a| a.features.insertion_policy = false).await;
        let b = app.b.key.clone();
        for (m, p, body) in [("GET", "/v1/insertion-policy/template", ""), ("GET", "/v1/insertion-policy", ""), ("POST", "/v1/insertion-policy", "{\"name\":\"x\"}")] {
            let r = app.send(m, p, Some(&b), Some("application/json"), body).await;
            r.expect(403);
            assert_eq!(r.json()["type"], "ForbiddenError");
        }
        app.set_account(&app.a.id, |a| a.limits.insertion_policies = 2).await;
        create(&app, json!({"name": "one"})).await;
        create(&app, json!({"name": "two"})).await;
        let r = app.post_json("/v1/insertion-policy", &json!({"name": "three"})).await;
        r.expect(403);
        assert!(r.json()["message"].as_str().unwrap().contains("2 of 2"), "{}", r.body);
        assert_eq!(app.get("/v1/insertion-policy").await.json()["pagination"]["totalCount"], 2);
    }

    async fn another_account_gets_404(app: TestApp) {
        let p = create(&app, json!({"name": "Mine"})).await;
        let id = p["id"].as_str().unwrap();
        let b = app.b.key.clone();
        app.get_as(&b, &format!("/v1/insertion-policy/{id}")).await.expect(404);
        app.send("DELETE", &format!("/v1/insertion-policy/{id}"), Some(&b), None, "").await.expect(404);
        app.send("PUT", "/v1/insertion-policy", Some(&b), Some("application/json"), &json!({"id": id, "name": "x"}).to_string()).await.expect(404);
        assert_eq!(app.get_as(&b, "/v1/insertion-policy").await.json()["pagination"]["totalCount"], 0);
    }
}
