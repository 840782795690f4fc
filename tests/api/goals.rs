//! Goals, extended interface: seed 001 §2.2, §4.2, and the campaign fields they derive.

use api_tests::chrono::{Duration, SecondsFormat};
use api_tests::{both_stores, xml_text, xml_texts, TestApp};
use web::clock::Clock;

fn gpath(id: &str) -> String {
    format!("/api/1.0.cpvext/goal/by_goal_id;id={id}")
}

fn cpath(id: &str) -> String {
    format!("/api/1.0/campaign/by_campaign_id;id={id}")
}

fn ts(app: &TestApp, days: i64) -> String {
    (app.clock.now() + Duration::days(days)).to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn bean(campaign: &str, kind: &str, extra: &str) -> String {
    format!("<goalBean><campaignId>{campaign}</campaignId><type>{kind}</type><variant>NORMAL</variant>{extra}</goalBean>")
}

both_stores! {
    async fn create_get_and_the_response_fields(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let id = app.goal(&c, "IMPRESSION", 1, Some(10), "<name>Launch week</name><pricingModel>CPM</pricingModel>\
            <pricingValue><value>12.5</value></pricingValue><cpm><value>99</value></cpm><customId>X-1</customId>\
            <caps><cap><type>dailyCap</type><value>5000</value></cap></caps>\
            <midrollBreakTargeting><midrollBreakNumber>2</midrollBreakNumber><midrollBreakNumber>1</midrollBreakNumber></midrollBreakTargeting>").await;
        let r = app.get(&gpath(&id)).await;
        r.expect(200);
        assert!(r.header("etag").is_some());
        let b = &r.body;
        assert!(b.contains("<collection><goalBean>"), "{b}");
        assert!(b.contains("<type>IMPRESSION</type><unlimitedImpressions>"), "{b}");
        for (el, v) in [("campaignId", c.as_str()), ("variant", "NORMAL"), ("goalValue", "100000"),
            ("name", "Launch week"), ("pricingModel", "CPM"), ("customId", "X-1"), ("priority", "5"), ("frontLoadFactor", "0"),
            ("unlimitedImpressions", "false")] {
            assert_eq!(xml_text(b, el).as_deref(), Some(v), "{el}: {b}");
        }
        // cpm/value is computed (the sent one is ignored); pricingValue is echoed.
        assert!(b.contains("<cpm><value>12.5</value></cpm>") && b.contains("<pricingValue><value>12.5</value></pricingValue>"), "{b}");
        assert!(b.contains("<caps><cap><type>dailyCap</type><value>5000</value></cap></caps>"));
        assert!(b.contains("<midrollBreakTargeting><midrollBreakNumber>1</midrollBreakNumber><midrollBreakNumber>2</midrollBreakNumber></midrollBreakTargeting>"));
        // No ads yet: no formatType.
        assert!(xml_text(b, "formatType").is_none());
        let plain = app.goal(&c, "RTB", 1, None, "").await;
        assert_eq!(xml_text(&app.get(&gpath(&plain)).await.body, "pricingModel").as_deref(), Some("NO_PRICING"));
    }

    async fn priority_and_frontload_default_from_the_campaign_then_the_account(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let over = app.create_xml("/api/1.0/campaign", &format!(
            "<campaignBean><name>O</name><advertiserId>{adv}</advertiserId><priority>8</priority><frontLoadFactor>40</frontLoadFactor></campaignBean>")).await;
        let plain = app.campaign("P", &adv).await;
        let g1 = app.goal(&over, "IMPRESSION", 1, Some(5), "").await;
        let g2 = app.goal(&plain, "IMPRESSION", 1, Some(5), "").await;
        let g3 = app.goal(&over, "IMPRESSION", 1, Some(5), "<priority>2</priority><frontLoadFactor>100</frontLoadFactor>").await;
        let get = |id: String| { let app = &app; async move { app.get(&gpath(&id)).await.body } };
        let b1 = get(g1).await;
        assert_eq!((xml_text(&b1, "priority").as_deref(), xml_text(&b1, "frontLoadFactor").as_deref()), (Some("8"), Some("40")));
        let b2 = get(g2).await;
        assert_eq!((xml_text(&b2, "priority").as_deref(), xml_text(&b2, "frontLoadFactor").as_deref()), (Some("5"), Some("0")));
        let b3 = get(g3).await;
        assert_eq!((xml_text(&b3, "priority").as_deref(), xml_text(&b3, "frontLoadFactor").as_deref()), (Some("2"), Some("100")));
    }

    async fn every_rule_is_enforced_and_nothing_is_written(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let start = format!("<start>{}</start>", ts(&app, 1));
        let v = |x: &str| format!("<goalValue>{x}</goalValue>{start}");
        let cases = vec![
            (format!("<goalBean><type>IMPRESSION</type><variant>NORMAL</variant>{}</goalBean>", v("5")), "goalBean/campaignId", "required"),
            (bean(&c, "VIEWS", &v("5")), "goalBean/type", "enum"),
            (format!("<goalBean><campaignId>{c}</campaignId><type>IMPRESSION</type>{}</goalBean>", v("5")), "goalBean/variant", "required"),
            (bean(&c, "IMPRESSION", &v("5")).replace("NORMAL", "SPONSOR"), "goalBean/variant", "enum"),
            (bean(&c, "IMPRESSION", &start), "goalBean/goalValue", "required"),
            (bean(&c, "IMPRESSION", &v("0")), "goalBean/goalValue", "range"),
            (bean(&c, "SHARE_OF_VOICE", &v("1.01")), "goalBean/goalValue", "range"),
            (bean(&c, "SHARE_OF_VOICE", &v("0.001")), "goalBean/goalValue", "range"),
            (bean(&c, "IMPRESSION", "<goalValue>5</goalValue>"), "goalBean/start", "required"),
            (bean(&c, "IMPRESSION", &format!("{}<end>{}</end>", v("5"), ts(&app, 0))), "goalBean/end", "afterStart"),
            (bean(&c, "IMPRESSION", &format!("{}<pricingModel>CPV</pricingModel>", v("5"))), "goalBean/pricingModel", "enum"),
            (bean(&c, "IMPRESSION", &format!("{}<name>{}</name>", v("5"), "n".repeat(256))), "goalBean/name", "maxLength"),
            (bean(&c, "IMPRESSION", &format!("{}<priority>11</priority>", v("5"))), "goalBean/priority", "range"),
            (bean(&c, "IMPRESSION", &format!("{}<frontLoadFactor>15</frontLoadFactor>", v("5"))), "goalBean/frontLoadFactor", "step"),
            (bean(&c, "IMPRESSION", &format!("{}<caps><cap><type>totalCap</type><value>5</value></cap></caps>", v("5"))), "goalBean/caps/cap[1]/type", "capType"),
            (bean(&c, "COMPLETE", &format!("{}<caps><cap><type>hourlyCap</type><value>5</value></cap></caps>", v("5"))), "goalBean/caps/cap[1]/type", "capType"),
            (bean(&c, "IMPRESSION", &format!("{}<midrollBreakTargeting>{}</midrollBreakTargeting>", v("5"),
                (1..=11).map(|i| format!("<midrollBreakNumber>{i}</midrollBreakNumber>")).collect::<String>())),
                "goalBean/midrollBreakTargeting/midrollBreakNumber", "maxCount"),
            (bean("00000000-0000-0000-0000-000000000000", "IMPRESSION", &v("5")), "goalBean/campaignId", "reference"),
            (bean(&c, "IMPRESSION", &format!("{}<id>x</id>", v("5"))), "goalBean/id", "notOnCreate"),
        ];
        for (body, field, rule) in cases {
            let r = app.post_xml("/api/1.0.cpvext/goal", &body).await;
            r.expect(400);
            assert_eq!(xml_text(&r.body, "field").as_deref(), Some(field), "{body}: {}", r.body);
            assert_eq!(xml_text(&r.body, "rule").as_deref(), Some(rule), "{body}: {}", r.body);
        }
        let list = app.get(&format!("/api/1.0.cpvext/goal/by_campaign_id;id={c}")).await;
        list.expect(200);
        assert!(xml_texts(&list.body, "goalBean").is_empty());
        assert!(xml_text(&app.get(&cpath(&c)).await.body, "start").is_none(), "the campaign is untouched");
        // Positive counterparts.
        app.create_xml("/api/1.0.cpvext/goal", &bean(&c, "SHARE_OF_VOICE", &format!("{}<caps><cap><type>totalCap</type><value>9</value></cap><cap><type>dailyCap</type><value>3</value></cap></caps>", v("1.0")))).await;
        app.create_xml("/api/1.0.cpvext/goal", &bean(&c, "UNLIMITED_IMPRESSION", &start)).await;
        app.create_xml("/api/1.0.cpvext/goal", &bean(&c, "CLICK_THROUGH", &format!("{}<caps><cap><type>hourlyEventCap</type><value>9</value></cap></caps><variant>BUMPER</variant>", v("7"))).replace("<variant>NORMAL</variant>", "")).await;
    }

    async fn another_accounts_campaign_cannot_hold_a_goal(app: TestApp) {
        let theirs_adv = app.send("POST", "/api/1.0/client", Some(&app.b.key), Some("application/xml"),
            "<clientBean><name>B</name><type>ADVERTISER</type></clientBean>").await.body;
        let theirs = app.send("POST", "/api/1.0/campaign", Some(&app.b.key), Some("application/xml"),
            &format!("<campaignBean><name>B</name><advertiserId>{theirs_adv}</advertiserId></campaignBean>")).await.body;
        let r = app.post_xml("/api/1.0.cpvext/goal", &bean(&theirs, "RTB", &format!("<start>{}</start>", ts(&app, 1)))).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("reference"));
    }

    async fn start_rule_one_past_starts_on_create(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let now = app.clock.now();
        let active = app.goal(&c, "IMPRESSION", -3, Some(3), "").await;
        let start = xml_text(&app.get(&gpath(&active)).await.body, "start").unwrap();
        assert_eq!(start, now.to_rfc3339_opts(SecondsFormat::Millis, true), "a past start of a live goal becomes the creation time");
        let inactive = app.goal(&c, "IMPRESSION", -10, Some(-5), "").await;
        let start = xml_text(&app.get(&gpath(&inactive)).await.body, "start").unwrap();
        let expect = (now - Duration::days(10)).to_rfc3339_opts(SecondsFormat::Secs, true);
        assert_eq!(start.replace(".000", ""), expect, "a wholly past goal keeps its start");
    }

    async fn start_rules_two_and_three_on_update(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let upcoming = app.goal(&c, "RTB", 2, Some(10), "").await;
        let put = |id: &str, start: i64| {
            let body = bean(&c, "RTB", &format!("<start>{}</start><end>{}</end>", ts(&app, start), ts(&app, 10)));
            let path = gpath(id);
            let app = &app;
            async move { app.put_xml(&path, &body).await }
        };
        // Upcoming: only to the future.
        let r = put(&upcoming, -1).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("startRule"));
        put(&upcoming, 1).await.expect(204);
        // Now it is active: its start can stay or move to the future, not elsewhere in the past.
        app.clock.set(app.clock.now() + Duration::days(3));
        let stored = xml_text(&app.get(&gpath(&upcoming)).await.body, "start").unwrap();
        let same = bean(&c, "RTB", &format!("<start>{stored}</start><end>{}</end>", ts(&app, 7)));
        app.put_xml(&gpath(&upcoming), &same).await.expect(204);
        let r = put(&upcoming, -1).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("startRule"));
        put(&upcoming, 1).await.expect(204);
        assert_eq!(xml_text(&app.get(&gpath(&upcoming)).await.body, "start").unwrap().replace(".000", ""), ts(&app, 1));
    }

    async fn the_campaign_flight_and_status_follow_its_goals(app: TestApp) {
        let (adv, c) = app.advertiser_campaign().await;
        let g1 = app.goal(&c, "IMPRESSION", 2, Some(5), "").await;
        let b = app.get(&cpath(&c)).await.body;
        assert_eq!(xml_text(&b, "status").as_deref(), Some("UPCOMING"));
        assert_eq!(xml_text(&b, "start").unwrap().replace(".000", ""), ts(&app, 2));
        assert_eq!(xml_text(&b, "end").unwrap().replace(".000", ""), ts(&app, 5));
        let g2 = app.goal(&c, "IMPRESSION", 1, Some(9), "").await;
        let b = app.get(&cpath(&c)).await.body;
        assert_eq!(xml_text(&b, "start").unwrap().replace(".000", ""), ts(&app, 1));
        assert_eq!(xml_text(&b, "end").unwrap().replace(".000", ""), ts(&app, 9));
        app.clock.set(app.clock.now() + Duration::days(3));
        assert_eq!(xml_text(&app.get(&cpath(&c)).await.body, "status").as_deref(), Some("ACTIVE"));
        assert_eq!(app.get("/api/1.0/campaign?status=active").await.body.matches("<campaignBean>").count(), 1);
        app.clock.set(app.clock.now() + Duration::days(30));
        assert_eq!(xml_text(&app.get(&cpath(&c)).await.body, "status").as_deref(), Some("RECENT"));
        app.delete(&gpath(&g1)).await.expect(204);
        app.delete(&gpath(&g2)).await.expect(204);
        let b = app.get(&cpath(&c)).await.body;
        assert_eq!(xml_text(&b, "status").as_deref(), Some("UPCOMING"));
        assert!(xml_text(&b, "start").is_none());
        // A campaign PUT keeps the flight.
        let g3 = app.goal(&c, "RTB", 1, None, "").await;
        app.put_xml(&cpath(&c), &format!("<campaignBean><name>R</name><advertiserId>{adv}</advertiserId></campaignBean>")).await.expect(204);
        let b = app.get(&cpath(&c)).await.body;
        assert_eq!(xml_text(&b, "start").unwrap().replace(".000", ""), ts(&app, 1));
        assert!(xml_text(&b, "end").is_none(), "a goal without end leaves the campaign open");
        app.get(&gpath(&g3)).await.expect(200);
    }

    async fn update_list_delete(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let (_, other) = app.advertiser_campaign().await;
        let a = app.goal(&c, "IMPRESSION", 2, Some(5), "<name>A</name>").await;
        let b = app.goal(&c, "IMPRESSION", 1, Some(5), "<name>B</name>").await;
        app.goal(&other, "IMPRESSION", 1, Some(5), "").await;
        let list = app.get(&format!("/api/1.0.cpvext/goal/by_campaign_id;id={c}")).await;
        list.expect(200);
        assert_eq!(xml_texts(&list.body, "id"), vec![b.clone(), a.clone()], "sorted by start");
        let body = bean(&c, "SHARE_OF_VOICE", &format!("<id>{a}</id><goalValue>0.25</goalValue><start>{}</start><end>{}</end><name>A2</name>", ts(&app, 2), ts(&app, 6)));
        app.put_xml(&gpath(&a), &body).await.expect(204);
        let got = app.get(&gpath(&a)).await.body;
        assert_eq!(xml_text(&got, "name").as_deref(), Some("A2"));
        assert_eq!(xml_text(&got, "type").as_deref(), Some("SHARE_OF_VOICE"));
        let moved = bean(&other, "IMPRESSION", &format!("<goalValue>5</goalValue><start>{}</start>", ts(&app, 2)));
        let r = app.put_xml(&gpath(&a), &moved).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("immutable"));
        let r = app.put_xml(&gpath(&a), &bean(&c, "IMPRESSION", &format!("<id>{b}</id><goalValue>5</goalValue><start>{}</start>", ts(&app, 2)))).await;
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("matchesPath"));
        app.delete(&gpath(&a)).await.expect(204);
        app.get(&gpath(&a)).await.expect(404);
        app.delete(&gpath(&a)).await.expect(404);
        let list = app.get(&format!("/api/1.0.cpvext/goal/by_campaign_id;id={c}")).await;
        assert_eq!(xml_texts(&list.body, "id"), vec![b.clone()]);
        // Deleting the campaign takes its goals.
        app.delete(&cpath(&c)).await.expect(204);
        app.get(&gpath(&b)).await.expect(404);
        app.get(&format!("/api/1.0.cpvext/goal/by_campaign_id;id={c}")).await.expect(404);
    }

    async fn notifications_about_goals(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let c = app.create_xml("/api/1.0/campaign", &format!("<campaignBean><name>C</name><advertiserId>{adv}</advertiserId><enabled>true</enabled></campaignBean>")).await;
        let live = app.goal(&c, "IMPRESSION", 1, Some(5), "<name>Live</name>").await;
        let ended = app.goal(&c, "IMPRESSION", -9, Some(-2), "<name>Old</name>").await;
        let r = app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={c}")).await;
        r.expect(200);
        let ids = xml_texts(&r.body, "id");
        assert!(r.body.contains(&format!("<concernedResource><id>{live}</id><type>GOAL</type></concernedResource><level>WARNING</level><message>Goal 'Live' has no ads")), "{}", r.body);
        assert!(r.body.contains(&format!("<concernedResource><id>{ended}</id><type>GOAL</type></concernedResource><level>WARNING</level><message>Goal 'Old' ended")), "{}", r.body);
        assert!(r.body.contains("under-delivered: 0 of 100000 (0 %), short by 100000"), "an ended goal under its target: {}", r.body);
        assert!(ids.iter().filter(|i| **i == c).count() >= 2, "related resource is the campaign");
    }

    async fn another_account_gets_404(app: TestApp) {
        let (_, c) = app.advertiser_campaign().await;
        let g = app.goal(&c, "IMPRESSION", 1, Some(5), "").await;
        let b = app.b.key.clone();
        app.get_as(&b, &gpath(&g)).await.expect(404);
        app.get_as(&b, &format!("/api/1.0.cpvext/goal/by_campaign_id;id={c}")).await.expect(404);
        app.get_as(&b, &format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={g}")).await.expect(404);
        let body = bean(&c, "IMPRESSION", &format!("<goalValue>5</goalValue><start>{}</start>", ts(&app, 2)));
        app.send("PUT", &gpath(&g), Some(&b), Some("application/xml"), &body).await.expect(404);
        app.send("DELETE", &gpath(&g), Some(&b), None, "").await.expect(404);
        app.get(&gpath(&g)).await.expect(200);
    }
}
