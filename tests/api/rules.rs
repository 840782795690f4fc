//! Campaign rules and goal rules: seed 001 §2.6, paths in docs/goals-ads-assets.md.

use api_tests::{both_stores, xml_text, xml_texts, TestApp};

fn full(app: &TestApp, parent: &str, lifetime: &str) -> String {
    let a = &app.a.id;
    format!("<rulesBean><parentId>{parent}</parentId>\
        <content><resourceId>{a}-cat-sports</resourceId><resourceName>ignored</resourceName><ruleType>AT_LEAST_ONE_OF</ruleType><variableType>SITE</variableType></content>\
        <frequencyCappings><impressions>3</impressions><timeUnit>DAY</timeUnit></frequencyCappings>\
        <frequencyCappings><impressions>10</impressions><timeUnit>{lifetime}</timeUnit></frequencyCappings>\
        <locations><allowed>true</allowed><id>SE</id><iso2>se</iso2><locationType>COUNTRY</locationType><name>Sweden</name></locations>\
        <timeRestrictions><active>true</active><days>SATURDAY</days><days>SUNDAY</days><fromHour>8</fromHour><fromMinute>0</fromMinute><toHour>0</toHour><toMinute>0</toMinute></timeRestrictions>\
        <timeRestrictions><active>false</active><days>SUNDAY</days><fromHour>12</fromHour><fromMinute>0</fromMinute><toHour>12</toHour><toMinute>59</toMinute></timeRestrictions>\
        <tags><resourceId>football</resourceId><ruleType>NONE_OF</ruleType><variableType>TAG</variableType></tags>\
        <tags><resourceId>{a}-cp-sportsnet</resourceId><ruleType>ALL_OF</ruleType><variableType>CONTENT_PARTNER</variableType></tags>\
        <accountCustomParameters><ignoreParent>true</ignoreParent><parameterName>acp.genre</parameterName>\
          <rules><ruleType>AT_LEAST_ONE_OF</ruleType><value>drama</value></rules><rules><ruleType>NONE_OF</ruleType><value>horror</value></rules></accountCustomParameters>\
        <ignoreParentLocationRules>true</ignoreParentLocationRules></rulesBean>")
}

both_stores! {
    async fn rules_over_the_item_limit_are_413_on_both_stores(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let path = format!("/api/1.0/campaign/rules/by_campaign_id;id={c}");
        let before = app.get(&path).await.body;
        // 7,000 tags: a 0.7 MB body that fits the request limit but not one stored record.
        let tags: String = (0..7000)
            .map(|i| format!("<tags><resourceId>tag-number-{i:05}-x</resourceId><ruleType>NONE_OF</ruleType><variableType>TAG</variableType></tags>"))
            .collect();
        let r = app.put_xml(&path, &format!("<rulesBean>{tags}</rulesBean>")).await;
        r.expect(413);
        assert_eq!(xml_text(&r.body, "type").as_deref(), Some("PayloadTooLarge"), "{}", r.body);
        assert!(r.body.contains("400 KB item limit"), "{}", r.body);
        assert_eq!(app.get(&path).await.body, before, "nothing written");
    }

    async fn campaign_rules_read_replace_and_validate(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let path = format!("/api/1.0/campaign/rules/by_campaign_id;id={c}");
        let r = app.get(&path).await;
        r.expect(200);
        assert_eq!(xml_text(&r.body, "parentId").as_deref(), Some(c.as_str()));
        assert!(!r.body.contains("<content>"));
        app.put_xml(&path, &full(&app, &c, "CAMPAIGN_LIFETIME")).await.expect(204);
        let b = app.get(&path).await.body;
        assert_eq!(xml_texts(&b, "timeUnit"), vec!["DAY", "CAMPAIGN_LIFETIME"]);
        assert_eq!(xml_texts(&b, "days"), vec!["SATURDAY", "SUNDAY", "SUNDAY"]);
        assert_eq!(xml_text(&b, "iso2").as_deref(), Some("SE"));
        assert_eq!(xml_text(&b, "ignoreParentLocationRules").as_deref(), Some("true"));
        assert_eq!(xml_text(&b, "ignoreParentTimeRules").as_deref(), Some("false"));
        assert!(b.contains("<parameterName>acp.genre</parameterName><rules><ruleType>AT_LEAST_ONE_OF</ruleType><value>drama</value></rules>"), "{b}");
        assert!(!b.contains("resourceName") && !b.contains("Sweden"), "ignored elements are not kept");
        // A replace with less clears the rest.
        app.put_xml(&path, "<rulesBean><tags><resourceId>news</resourceId><ruleType>ALL_OF</ruleType><variableType>TAG</variableType></tags></rulesBean>").await.expect(204);
        let b = app.get(&path).await.body;
        assert!(!b.contains("<content>") && !b.contains("timeRestrictions") && b.contains("<resourceId>news</resourceId>"));
    }

    async fn rule_violations_are_400_and_change_nothing(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let path = format!("/api/1.0/campaign/rules/by_campaign_id;id={c}");
        app.put_xml(&path, &full(&app, &c, "CAMPAIGN_LIFETIME")).await.expect(204);
        let before = app.get(&path).await.body;
        let a = app.a.id.clone();
        let cases = vec![
            (full(&app, &c, "GOAL_LIFETIME"), "rulesBean/frequencyCappings[2]/timeUnit", "enum"),
            ("<rulesBean><content><resourceId>nope</resourceId><ruleType>ALL_OF</ruleType><variableType>SITE</variableType></content></rulesBean>".into(), "rulesBean/content[1]/resourceId", "reference"),
            (format!("<rulesBean><content><resourceId>{a}-cat-news</resourceId><ruleType>SOME_OF</ruleType></content></rulesBean>"), "rulesBean/content[1]/ruleType", "enum"),
            ("<rulesBean><tags><resourceId>x</resourceId><ruleType>ALL_OF</ruleType><variableType>CONTENT_PARTNER</variableType></tags></rulesBean>".into(), "rulesBean/tags[1]/resourceId", "reference"),
            ("<rulesBean><locations><allowed>true</allowed><id>x</id><locationType>PLANET</locationType></locations></rulesBean>".into(), "rulesBean/locations[1]/locationType", "enum"),
            ("<rulesBean><timeRestrictions><active>true</active><days>MONDAY</days><fromHour>24</fromHour><fromMinute>0</fromMinute><toHour>1</toHour><toMinute>0</toMinute></timeRestrictions></rulesBean>".into(), "rulesBean/timeRestrictions[1]/fromHour", "range"),
            ("<rulesBean><timeRestrictions><active>true</active><days>MONDAY</days><fromHour>9</fromHour><fromMinute>0</fromMinute><toHour>8</toHour><toMinute>0</toMinute></timeRestrictions></rulesBean>".into(), "rulesBean/timeRestrictions[1]/toHour", "window"),
            ("<rulesBean><accountCustomParameters><parameterName>acp.mood</parameterName><rules><ruleType>NONE_OF</ruleType><value>x</value></rules></accountCustomParameters></rulesBean>".into(), "rulesBean/accountCustomParameters[1]/parameterName", "reference"),
            (format!("<rulesBean><accountCustomParameters><parameterName>acp.genre</parameterName>{}</accountCustomParameters></rulesBean>",
                (0..21).map(|i| format!("<rules><ruleType>NONE_OF</ruleType><value>v{i}</value></rules>")).collect::<String>()), "rulesBean/accountCustomParameters[1]/rules", "maxCount"),
            ("<rulesBean><accountCustomParameters><parameterName>acp.genre</parameterName><rules><ruleType>NONE_OF</ruleType><value>a b</value></rules></accountCustomParameters></rulesBean>".into(), "rulesBean/accountCustomParameters[1]/rules[1]/value", "format"),
            ("<rulesBean><ignoreParentTagRules>sometimes</ignoreParentTagRules></rulesBean>".into(), "rulesBean/ignoreParentTagRules", "boolean"),
            ("<rulesBean><parentId>other</parentId></rulesBean>".into(), "rulesBean/parentId", "matchesPath"),
            ("<rulesBean><browsers>CHROME</browsers></rulesBean>".into(), "rulesBean/browsers", "unknown"),
        ];
        for (body, field, rule) in cases {
            let r = app.put_xml(&path, &body).await;
            r.expect(400);
            assert_eq!(xml_text(&r.body, "field").as_deref(), Some(field), "{body}: {}", r.body);
            assert_eq!(xml_text(&r.body, "rule").as_deref(), Some(rule), "{body}: {}", r.body);
        }
        assert_eq!(app.get(&path).await.body, before);
    }

    async fn goal_rules_use_goal_lifetime(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let g = app.goal(&c, "IMPRESSION", 1, Some(5), "").await;
        let path = format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={g}");
        assert_eq!(xml_text(&app.get(&path).await.body, "parentId").as_deref(), Some(g.as_str()));
        let r = app.put_xml(&path, &full(&app, &g, "CAMPAIGN_LIFETIME")).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("enum"));
        app.put_xml(&path, &full(&app, &g, "GOAL_LIFETIME")).await.expect(204);
        assert_eq!(xml_texts(&app.get(&path).await.body, "timeUnit"), vec!["DAY", "GOAL_LIFETIME"]);
        // The campaign's rules are separate.
        let cr = app.get(&format!("/api/1.0/campaign/rules/by_campaign_id;id={c}")).await.body;
        assert!(!cr.contains("frequencyCappings"));
        app.get("/api/1.0.cpvext/goal/rules/by_goal_id;id=00000000-0000-0000-0000-000000000000").await.expect(404);
    }

    async fn another_account_gets_404_on_rules(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let path = format!("/api/1.0/campaign/rules/by_campaign_id;id={c}");
        let b = app.b.key.clone();
        app.get_as(&b, &path).await.expect(404);
        app.send("PUT", &path, Some(&b), Some("application/xml"), "<rulesBean/>").await.expect(404);
    }
}
