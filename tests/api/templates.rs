//! Targeting templates: seed 002 §2.1-§2.3, §4.1, §7; linking as designed in
//! docs/targeting-templates.md.

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, xml_texts, TestApp};

const BASE: &str = "/api/2.0/targeting-template";

async fn create(app: &TestApp, name: &str) -> Value {
    let r = app.post_json(BASE, &json!({"name": name})).await;
    r.expect(200);
    r.json()
}

fn fields(r: &api_tests::Res) -> Vec<String> {
    r.json()["errors"]
        .as_array()
        .map(|a| a.iter().map(|e| format!("{} {}", e["field"].as_str().unwrap(), e["rule"].as_str().unwrap())).collect())
        .unwrap_or_default()
}

fn full_rules(a: &str) -> Value {
    json!({
        "frequencyRules": [{"impressions": 3, "timeUnit": "DAY"}],
        "locationRules": [{"locationId": "se", "locationType": "COUNTRY", "locationName": "Sweden", "access": "ALLOW"}],
        "timeRules": [{"active": true, "days": ["MONDAY", "FRIDAY"], "fromHour": 6, "fromMinute": 0, "toHour": 0, "toMinute": 0}],
        "tagAndPartnerRules": [
            {"tag": "sports", "resourceType": "TAG", "ruleType": "AT_LEAST_ONE_OF"},
            {"tag": "news", "resourceType": "TAG", "ruleType": "AT_LEAST_ONE_OF"},
            {"partnerId": format!("{a}-cp-studio"), "partnerName": "Studio", "resourceType": "CONTENT_PARTNER", "ruleType": "NONE_OF"}],
        "categoryRules": [{"categoryId": format!("{a}-cat-news"), "categoryName": "News", "ruleType": "AT_LEAST_ONE_OF"}],
        "ipRules": [{"ipMatcher": "10.0.0.*", "access": "DENY"}],
        "userAgentRules": [{"browsers": ["CHROME", "SAFARI"], "operatingSystems": ["IOS"], "access": "ALLOW"}],
        "audienceRules": {format!("{a}-ap-dmp"): [{"segmentId": format!("{a}-ap-dmp[{a}-sg-age]={a}-s-age-25"), "segmentName": "Age:25 to 34", "ruleType": "AT_LEAST_ONE_OF"}]},
        "accountCustomParameterRules": {"acp.genre": [{"value": "drama", "ruleType": "AT_LEAST_ONE_OF"}]},
    })
}

both_stores! {
    async fn create_get_list_update_delete(app: TestApp) {
        let t = create(&app, "Sports fans").await;
        let id = t["id"].as_str().unwrap().to_string();
        assert_eq!(t["name"], "Sports fans");
        assert_eq!(t["siteId"], app.a.id.as_str());
        // Millisecond precision and a numeric offset (the account's zone, Europe/Stockholm).
        let created = t["created"].as_str().unwrap();
        assert!(created.len() == 29 && created.as_bytes()[19] == b'.' && (created.ends_with("+01:00") || created.ends_with("+02:00")), "{created}");
        assert_eq!(t.as_object().unwrap().len(), 4);
        assert_eq!(app.get(&format!("{BASE}/{id}")).await.json(), t);
        create(&app, "alpha list").await;
        let names: Vec<String> = app.get(BASE).await.json().as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap().to_string()).collect();
        assert_eq!(names, vec!["alpha list", "Sports fans"]);

        // Update: only the name; 204.
        let r = app.put_json(&format!("{BASE}/{id}"), &json!({"id": id, "name": "Renamed", "siteId": app.a.id})).await;
        r.expect(204);
        assert_eq!(app.get(&format!("{BASE}/{id}")).await.json()["name"], "Renamed");
        let r = app.put_json(&format!("{BASE}/{id}"), &json!({"id": id, "name": "X", "siteId": "other"})).await;
        r.expect(400);
        assert_eq!(fields(&r), vec!["siteId immutable"]);
        let r = app.put_json(&format!("{BASE}/{id}"), &json!({"id": "other", "name": ""})).await;
        r.expect(400);
        assert_eq!(fields(&r), vec!["name required", "id matchesPath"]);
        assert_eq!(app.get(&format!("{BASE}/{id}")).await.json()["name"], "Renamed");

        // Create validation.
        let r = app.post_json(BASE, &json!({"name": "x".repeat(256)})).await;
        r.expect(400);
        assert_eq!(fields(&r), vec!["name maxLength"]);
        let r = app.post_json(BASE, &json!({"id": "mine", "name": "n", "color": 1})).await;
        r.expect(400);
        assert_eq!(fields(&r), vec!["color unknown", "id notOnCreate"]);

        // Delete: 204, then 404 everywhere.
        app.delete(&format!("{BASE}/{id}")).await.expect(204);
        app.get(&format!("{BASE}/{id}")).await.expect(404);
        app.delete(&format!("{BASE}/{id}")).await.expect(404);
        app.get(&format!("{BASE}/{id}/rules")).await.expect(404);
        assert_eq!(app.get(BASE).await.json().as_array().unwrap().len(), 1);
        assert_eq!(app.get(&format!("{BASE}/usage")).await.json()["active"], 1);
    }

    async fn the_template_limit_answers_403_forbidden_error(app: TestApp) {
        let a = app.a.id.clone();
        app.set_account(&a, |acc| acc.limits.targeting_templates = 2).await;
        let u = app.get(&format!("{BASE}/usage")).await.json();
        assert_eq!(u, json!({"active": 0, "max": 2, "messageTitle": "", "messageBody": ""}));
        let first = create(&app, "one").await;
        create(&app, "two").await;
        let r = app.post_json(BASE, &json!({"name": "three"})).await;
        r.expect(403);
        let body = r.json();
        assert_eq!(body.as_object().unwrap().keys().collect::<Vec<_>>(), vec!["message", "type"]);
        assert_eq!(body["type"], "ForbiddenError");
        assert!(body["message"].as_str().unwrap().contains("2 of 2"), "{body}");
        assert!(body["message"].as_str().unwrap().contains("Remove obsolete"), "{body}");
        let u = app.get(&format!("{BASE}/usage")).await.json();
        assert_eq!((u["active"].as_i64(), u["max"].as_i64()), (Some(2), Some(2)));
        assert!(!u["messageTitle"].as_str().unwrap().is_empty() && u["messageBody"].as_str().unwrap().contains("2 of 2"));
        assert_eq!(app.get(BASE).await.json().as_array().unwrap().len(), 2);
        // Removing one makes room again.
        app.delete(&format!("{BASE}/{}", first["id"].as_str().unwrap())).await.expect(204);
        create(&app, "three").await;
        app.post_json(BASE, &json!({"name": "four"})).await.expect(403);
    }

    async fn rules_read_replace_and_validate(app: TestApp) {
        let a = app.a.id.clone();
        let id = create(&app, "Rules").await["id"].as_str().unwrap().to_string();
        let path = format!("{BASE}/{id}/rules");
        let empty = app.get(&path).await;
        empty.expect(200);
        assert_eq!(empty.json(), json!({
            "frequencyRules": [], "locationRules": [], "timeRules": [], "tagAndPartnerRules": [], "categoryRules": [],
            "ipRules": [], "userAgentRules": [], "audienceRules": {format!("{a}-ap-dmp"): []},
            "accountCustomParameterRules": {"acp.genre": [], "acp.show": []}}));
        app.put_json(&path, &full_rules(&a)).await.expect(204);
        let got = app.get(&path).await.json();
        assert_eq!(got["tagAndPartnerRules"][2], json!({"partnerId": format!("{a}-cp-studio"), "resourceType": "CONTENT_PARTNER", "ruleType": "NONE_OF"}));
        assert_eq!(got["audienceRules"][format!("{a}-ap-dmp")][0]["segmentId"], format!("{a}-ap-dmp[{a}-sg-age]={a}-s-age-25"));
        assert_eq!(got["accountCustomParameterRules"]["acp.show"], json!([]));
        assert_eq!(got["ipRules"], json!([{"ipMatcher": "10.0.0.*", "access": "DENY"}]));
        // What was read back can be written back unchanged.
        app.put_json(&path, &got).await.expect(204);
        assert_eq!(app.get(&path).await.json(), got);

        // Violations: 400 naming each field and rule; the stored rules stay.
        let mut bad = full_rules(&a);
        bad["categoryRules"][0]["ruleType"] = json!("ALL_OF");
        bad["tagAndPartnerRules"] = json!([{"tag": "only", "resourceType": "TAG", "ruleType": "AT_LEAST_ONE_OF"}]);
        bad["ipRules"][0]["ipMatcher"] = json!("10.0.0.0/8");
        bad["timeRules"][0]["toMinute"] = json!(60);
        bad["audienceRules"] = json!({format!("{a}-ap-dmp"): [{"segmentId": "nope", "ruleType": "ALL_OF"}]});
        bad["accountCustomParameterRules"] = json!({"acp.genre": [{"value": "rock n roll", "ruleType": "NONE_OF"}]});
        let r = app.put_json(&path, &bad).await;
        r.expect(400);
        assert_eq!(fields(&r), vec![
            "timeRules[0].toMinute range",
            "tagAndPartnerRules atLeastTwoTags",
            "categoryRules[0].ruleType enum",
            "ipRules[0].ipMatcher format",
            format!("audienceRules.{a}-ap-dmp[0].segmentId format").as_str(),
            "accountCustomParameterRules.acp.genre[0].value format",
        ]);
        let r = app.put_json(&path, &json!({"frequencyRules": []})).await;
        r.expect(400);
        assert_eq!(fields(&r), vec!["audienceRules required", "accountCustomParameterRules required"]);
        assert_eq!(app.get(&path).await.json(), got);
        app.send("PUT", &path, Some(&app.a.key), Some("text/plain"), "{}").await.expect(415);
        app.send("PUT", &path, Some(&app.a.key), Some("application/json"), "{").await.expect(400);
    }

    async fn linking_filters_the_list_and_deleting_unlinks(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let g = app.goal(&c, "IMPRESSION", 2, Some(30), "").await;
        let t1 = create(&app, "T1").await["id"].as_str().unwrap().to_string();
        let t2 = create(&app, "T2").await["id"].as_str().unwrap().to_string();
        create(&app, "T3").await;
        app.send("PUT", &format!("{BASE}/{t1}/link?campaignId={c}"), Some(&app.a.key), None, "").await.expect(204);
        app.send("PUT", &format!("{BASE}/{t1}/link?campaignId={c}"), Some(&app.a.key), None, "").await.expect(204);
        app.send("PUT", &format!("{BASE}/{t2}/link?campaignId={c}"), Some(&app.a.key), None, "").await.expect(204);
        app.send("PUT", &format!("{BASE}/{t2}/link?goalId={g}"), Some(&app.a.key), None, "").await.expect(204);
        let ids = |v: Value| -> Vec<String> { v.as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap().to_string()).collect() };
        assert_eq!(ids(app.get(&format!("{BASE}?campaignId={c}")).await.json()), vec![t1.clone(), t2.clone()]);
        assert_eq!(ids(app.get(&format!("{BASE}?goalId={g}")).await.json()), vec![t2.clone()]);
        assert_eq!(app.get(BASE).await.json().as_array().unwrap().len(), 3);
        // Unlink, and deleting a template removes it from every campaign and goal.
        app.send("DELETE", &format!("{BASE}/{t1}/link?campaignId={c}"), Some(&app.a.key), None, "").await.expect(204);
        assert_eq!(ids(app.get(&format!("{BASE}?campaignId={c}")).await.json()), vec![t2.clone()]);
        app.delete(&format!("{BASE}/{t2}")).await.expect(204);
        assert!(ids(app.get(&format!("{BASE}?campaignId={c}")).await.json()).is_empty());
        assert!(ids(app.get(&format!("{BASE}?goalId={g}")).await.json()).is_empty());
        // Unknown targets, both targets, neither.
        app.get(&format!("{BASE}?campaignId=nope")).await.expect(404);
        app.send("PUT", &format!("{BASE}/{t1}/link?goalId=nope"), Some(&app.a.key), None, "").await.expect(404);
        let r = app.get(&format!("{BASE}?campaignId={c}&goalId={g}")).await;
        r.expect(400);
        assert_eq!(fields(&r), vec!["goalId exclusive"]);
        let r = app.send("PUT", &format!("{BASE}/{t1}/link"), Some(&app.a.key), None, "").await;
        r.expect(400);
        assert_eq!(fields(&r), vec!["campaignId required"]);
        app.send("PUT", &format!("{BASE}/{t2}/link?campaignId={c}"), Some(&app.a.key), None, "").await.expect(404);
    }

    async fn import_copies_the_rules_into_campaigns_and_goals(app: TestApp) {
        let a = app.a.id.clone();
        let (_, c) = app.advertiser_campaign().await;
        let g = app.goal(&c, "IMPRESSION", 2, Some(30), "").await;
        let t = create(&app, "Imported").await["id"].as_str().unwrap().to_string();
        app.put_json(&format!("{BASE}/{t}/rules"), &full_rules(&a)).await.expect(204);
        // The campaign already has a rule of its own: it stays; the template's are added.
        let cpath = format!("/api/1.0/campaign/rules/by_campaign_id;id={c}");
        app.put_xml(&cpath, "<rulesBean><tags><resourceId>own</resourceId><ruleType>ALL_OF</ruleType><variableType>TAG</variableType></tags></rulesBean>").await.expect(204);
        app.send("POST", &format!("{BASE}/{t}/import?campaignId={c}"), Some(&app.a.key), None, "").await.expect(204);
        let xml = app.get(&cpath).await.body;
        assert_eq!(xml_texts(&xml, "resourceId"), vec![format!("{a}-cat-news"), "own".into(), "sports".into(), "news".into(), format!("{a}-cp-studio")]);
        assert!(xml.contains("<ipRules><ipMatcher>10.0.0.*</ipMatcher><access>DENY</access></ipRules>"), "{xml}");
        assert!(xml.contains("<userAgentRules><browsers>CHROME</browsers><browsers>SAFARI</browsers><operatingSystems>IOS</operatingSystems><access>ALLOW</access></userAgentRules>"), "{xml}");
        assert!(xml.contains(&format!("<audienceRules><segmentId>{a}-ap-dmp[{a}-sg-age]={a}-s-age-25</segmentId><ruleType>AT_LEAST_ONE_OF</ruleType></audienceRules>")), "{xml}");
        assert_eq!(xml_texts(&xml, "timeUnit"), vec!["DAY"]);
        // Importing twice adds nothing twice; the campaign rules still round-trip through PUT.
        app.send("POST", &format!("{BASE}/{t}/import?campaignId={c}"), Some(&app.a.key), None, "").await.expect(204);
        let again = app.get(&cpath).await.body;
        assert_eq!(again, xml);
        app.put_xml(&cpath, &again).await.expect(204);
        assert_eq!(app.get(&cpath).await.body, xml);
        // Later template edits do not reach the copy.
        app.put_json(&format!("{BASE}/{t}/rules"), &json!({"audienceRules": {}, "accountCustomParameterRules": {}})).await.expect(204);
        assert_eq!(app.get(&cpath).await.body, xml);

        // Into a goal: a CAMPAIGN_LIFETIME cap cannot apply there (409, nothing changed).
        let mut r = full_rules(&a);
        r["frequencyRules"] = json!([{"impressions": 5, "timeUnit": "CAMPAIGN_LIFETIME"}]);
        app.put_json(&format!("{BASE}/{t}/rules"), &r).await.expect(204);
        let gpath = format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={g}");
        let before = app.get(&gpath).await.body;
        let res = app.send("POST", &format!("{BASE}/{t}/import?goalId={g}"), Some(&app.a.key), None, "").await;
        res.expect(409);
        assert!(res.json()["message"].as_str().unwrap().contains("CAMPAIGN_LIFETIME"));
        assert_eq!(app.get(&gpath).await.body, before);
        r["frequencyRules"] = json!([{"impressions": 5, "timeUnit": "GOAL_LIFETIME"}]);
        app.put_json(&format!("{BASE}/{t}/rules"), &r).await.expect(204);
        app.send("POST", &format!("{BASE}/{t}/import?goalId={g}"), Some(&app.a.key), None, "").await.expect(204);
        assert_eq!(xml_texts(&app.get(&gpath).await.body, "timeUnit"), vec!["GOAL_LIFETIME"]);
        app.send("POST", &format!("{BASE}/{t}/import?campaignId=nope"), Some(&app.a.key), None, "").await.expect(404);
        app.send("POST", &format!("{BASE}/{t}/import"), Some(&app.a.key), None, "").await.expect(400);
    }

    async fn another_accounts_templates_are_not_found(app: TestApp) {
        let id = create(&app, "Mine").await["id"].as_str().unwrap().to_string();
        let b = app.b.key.clone();
        for (m, p) in [("GET", format!("{BASE}/{id}")), ("GET", format!("{BASE}/{id}/rules")), ("DELETE", format!("{BASE}/{id}")),
                       ("POST", format!("{BASE}/{id}/import?campaignId=x"))] {
            app.send(m, &p, Some(&b), None, "").await.expect(404);
        }
        app.send("PUT", &format!("{BASE}/{id}"), Some(&b), Some("application/json"), r#"{"name":"stolen"}"#).await.expect(404);
        assert!(app.get_as(&b, BASE).await.json().as_array().unwrap().is_empty());
        assert_eq!(app.get_as(&b, &format!("{BASE}/usage")).await.json()["active"], 0);
        app.send("GET", BASE, None, None, "").await.expect(401);
        assert_eq!(app.get(&format!("{BASE}/{id}")).await.json()["name"], "Mine");
    }
}

both_stores! {
    async fn campaign_rules_xml_carries_ip_user_agent_and_audience_rules(app: TestApp) {
        let a = app.a.id.clone();
        let (_, c) = app.advertiser_campaign().await;
        let path = format!("/api/1.0/campaign/rules/by_campaign_id;id={c}");
        let ok = format!("<rulesBean><ipRules><ipMatcher>192.168.1.10-20</ipMatcher><access>ALLOW</access></ipRules>\
            <userAgentRules><operatingSystems>ANDROID</operatingSystems><access>DENY</access></userAgentRules>\
            <audienceRules><segmentId>{a}-ap-dmp[{a}-sg-gender]={a}-s-g-f</segmentId><ruleType>NONE_OF</ruleType></audienceRules>\
            <locations><allowed>true</allowed><id>nyc</id><locationType>METRO</locationType></locations></rulesBean>");
        app.put_xml(&path, &ok).await.expect(204);
        let xml = app.get(&path).await.body;
        assert_eq!(xml_texts(&xml, "ipMatcher"), vec!["192.168.1.10-20"]);
        assert_eq!(xml_texts(&xml, "segmentId"), vec![format!("{a}-ap-dmp[{a}-sg-gender]={a}-s-g-f")]);
        let bad = format!("<rulesBean><ipRules><ipMatcher>192.168.1.*-2</ipMatcher><access>ALLOW</access></ipRules>\
            <userAgentRules><browsers>LYNX</browsers><access>SOMETIMES</access></userAgentRules>\
            <audienceRules><segmentId>{a}-ap-dmp[{a}-sg-gender]=nope</segmentId><ruleType>NONE_OF</ruleType></audienceRules></rulesBean>");
        let r = app.put_xml(&path, &bad).await;
        r.expect(400);
        let fields: Vec<String> = xml_texts(&r.body, "field").into_iter().zip(xml_texts(&r.body, "rule")).map(|(f, r)| format!("{f} {r}")).collect();
        assert_eq!(fields, vec![
            "rulesBean/ipRules[1]/ipMatcher format",
            "rulesBean/userAgentRules[1]/browsers enum",
            "rulesBean/userAgentRules[1]/access enum",
            "rulesBean/audienceRules[1]/segmentId reference",
        ]);
        assert_eq!(app.get(&path).await.body, xml);
    }
}
