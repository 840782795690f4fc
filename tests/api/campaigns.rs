//! Campaigns, seed 001 §4.1, §2.1, §2.5, §3.

use api_tests::chrono::{Datelike, TimeZone, Utc};
use api_tests::{both_stores, xml_text, xml_texts, TestApp};

fn path(id: &str) -> String {
    format!("/api/1.0/campaign/by_campaign_id;id={id}")
}

async fn ids(app: &TestApp, url: &str) -> Vec<String> {
    let r = app.get(url).await;
    r.expect(200);
    xml_texts(&r.body, "id")
}

async fn archive(app: &TestApp, id: &str, adv: &str) {
    app.put_xml(
        &path(id),
        &format!("<campaignBean><id>{id}</id><name>C</name><advertiserId>{adv}</advertiserId><status>ARCHIVED</status></campaignBean>"),
    )
    .await
    .expect(204);
}

both_stores! {
    async fn create_applies_the_defaults(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let id = app.campaign("Spring", &adv).await;
        let r = app.get(&path(&id)).await;
        r.expect(200);
        assert!(r.header("etag").is_some());
        let b = &r.body;
        assert!(b.contains("<collection><campaignBean>"));
        assert_eq!(xml_text(b, "name").as_deref(), Some("Spring"));
        assert_eq!(xml_text(b, "advertiserId").as_deref(), Some(adv.as_str()));
        assert_eq!(xml_text(b, "enabled").as_deref(), Some("false"));
        assert_eq!(xml_text(b, "includeInForecast").as_deref(), Some("true"));
        assert_eq!(xml_text(b, "exclusive").as_deref(), Some("false"));
        assert_eq!(xml_text(b, "vastEnabled").as_deref(), Some("false"));
        // The demo account's global settings: priority 5, frontload 0.
        assert_eq!(xml_text(b, "priority").as_deref(), Some("5"));
        assert_eq!(xml_text(b, "frontLoadFactor").as_deref(), Some("0"));
        // No goals yet: derived status UPCOMING, no start/end.
        assert_eq!(xml_text(b, "status").as_deref(), Some("UPCOMING"));
        assert!(xml_text(b, "start").is_none() && xml_text(b, "end").is_none());
    }

    async fn create_keeps_every_settable_field_and_ignores_the_rest(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let agency = app.client("Ag", "AGENCY").await;
        let brand = app.client("Br", "BRAND").await;
        let id = app.create_xml("/api/1.0/campaign", &format!("<campaignBean><advertiserId>{adv}</advertiserId>\
            <agencyId>{agency}</agencyId><brandId>{brand}</brandId><budget><value>25000.5</value></budget>\
            <cpmHigh><value>30</value></cpmHigh><cpmLow><value>1</value></cpmLow><customId>PO-77</customId>\
            <description>Launch</description><enabled>true</enabled><start>2020-01-01T00:00:00Z</start><end>2020-02-01T00:00:00Z</end>\
            <exclusive>true</exclusive><frontLoadFactor>30</frontLoadFactor><goalTotal>1000000</goalTotal><goalType>MIXED</goalType>\
            <includeInForecast>false</includeInForecast><name>Launch</name><priority>9</priority><vastEnabled>true</vastEnabled>\
            </campaignBean>")).await;
        let b = app.get(&path(&id)).await.body;
        for (el, v) in [("agencyId", agency.as_str()), ("brandId", brand.as_str()), ("customId", "PO-77"), ("description", "Launch"),
            ("enabled", "true"), ("exclusive", "true"), ("frontLoadFactor", "30"), ("goalTotal", "1000000"), ("goalType", "MIXED"),
            ("includeInForecast", "false"), ("priority", "9"), ("vastEnabled", "true")] {
            assert_eq!(xml_text(&b, el).as_deref(), Some(v), "{el} in {b}");
        }
        assert!(b.contains("<budget><value>25000.5</value></budget>"));
        // cpmHigh/cpmLow and start/end are ignored when set.
        assert!(!b.contains("cpmHigh") && !b.contains("cpmLow") && !b.contains("<start>") && !b.contains("<end>"), "{b}");
    }

    async fn rules_are_enforced_and_nothing_is_written(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let agency = app.client("Ag", "AGENCY").await;
        let bean = |extra: &str| format!("<campaignBean><name>C</name><advertiserId>{adv}</advertiserId>{extra}</campaignBean>");
        let cases = vec![
            ("<campaignBean><advertiserId>x</advertiserId></campaignBean>".to_string(), "campaignBean/name", "required"),
            ("<campaignBean><name>C</name></campaignBean>".to_string(), "campaignBean/advertiserId", "required"),
            (format!("<campaignBean><name>{}</name><advertiserId>{adv}</advertiserId></campaignBean>", "n".repeat(251)), "campaignBean/name", "maxLength"),
            (bean("<priority>0</priority>"), "campaignBean/priority", "range"),
            (bean("<priority>11</priority>"), "campaignBean/priority", "range"),
            (bean("<priority>high</priority>"), "campaignBean/priority", "integer"),
            (bean("<frontLoadFactor>25</frontLoadFactor>"), "campaignBean/frontLoadFactor", "step"),
            (bean("<frontLoadFactor>-10</frontLoadFactor>"), "campaignBean/frontLoadFactor", "range"),
            (bean("<goalType>CLICKS</goalType>"), "campaignBean/goalType", "enum"),
            (bean("<status>PAUSED</status>"), "campaignBean/status", "enum"),
            (bean("<status>ACTIVE</status>"), "campaignBean/status", "readOnly"),
            (bean("<enabled>1</enabled>"), "campaignBean/enabled", "boolean"),
            (bean("<budget><value>lots</value></budget>"), "campaignBean/budget/value", "number"),
            (bean("<goalTotal>-5</goalTotal>"), "campaignBean/goalTotal", "range"),
            (bean("<flight>x</flight>"), "campaignBean/flight", "unknown"),
            (bean("<name>twice</name>"), "campaignBean/name", "single"),
            (bean("<id>abc</id>"), "campaignBean/id", "notOnCreate"),
            (bean(&format!("<agencyId>{adv}</agencyId>")), "campaignBean/agencyId", "reference"),
            (bean(&format!("<brandId>{agency}</brandId>")), "campaignBean/brandId", "reference"),
            (format!("<campaignBean><name>C</name><advertiserId>{agency}</advertiserId></campaignBean>"), "campaignBean/advertiserId", "reference"),
            ("<campaignBean><name>C</name><advertiserId>00000000-0000-0000-0000-000000000000</advertiserId></campaignBean>".to_string(), "campaignBean/advertiserId", "reference"),
        ];
        for (body, field, rule) in cases {
            let r = app.post_xml("/api/1.0/campaign", &body).await;
            r.expect(400);
            assert_eq!(xml_text(&r.body, "field").as_deref(), Some(field), "{body}: {}", r.body);
            assert_eq!(xml_text(&r.body, "rule").as_deref(), Some(rule), "{body}: {}", r.body);
        }
        assert!(ids(&app, "/api/1.0/campaign").await.is_empty());
        assert!(ids(&app, "/api/1.0/campaign?state=archived").await.is_empty());
        // A status equal to the derived one is accepted (round-tripping a GET).
        app.create_xml("/api/1.0/campaign", &bean("<status>UPCOMING</status>")).await;
    }

    async fn another_accounts_advertiser_cannot_be_named(app: TestApp) {
        let theirs = app.send("POST", "/api/1.0/client", Some(&app.b.key), Some("application/xml"),
            "<clientBean><name>B</name><type>ADVERTISER</type></clientBean>").await.body;
        let r = app.post_xml("/api/1.0/campaign", &format!("<campaignBean><name>C</name><advertiserId>{theirs}</advertiserId></campaignBean>")).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("reference"));
    }

    async fn swapping_roles_checks_every_client_in_its_new_role(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let agency = app.client("Agency", "AGENCY").await;
        let id = app.create_xml("/api/1.0/campaign", &format!(
            "<campaignBean><name>C</name><advertiserId>{adv}</advertiserId><agencyId>{agency}</agencyId></campaignBean>")).await;
        // Both ids were already on the campaign: the swap must still be refused.
        let r = app.put_xml(&path(&id), &format!(
            "<campaignBean><id>{id}</id><name>C</name><advertiserId>{agency}</advertiserId><agencyId>{adv}</agencyId></campaignBean>")).await;
        r.expect(400);
        assert_eq!(xml_texts(&r.body, "field"), vec!["campaignBean/advertiserId", "campaignBean/agencyId"], "{}", r.body);
        assert!(xml_texts(&r.body, "rule").iter().all(|x| x == "reference"), "{}", r.body);
        let b = app.get(&path(&id)).await.body;
        assert_eq!(xml_text(&b, "advertiserId").as_deref(), Some(adv.as_str()), "nothing changed");
        assert_eq!(xml_text(&b, "agencyId").as_deref(), Some(agency.as_str()));
        // Keeping both in their roles is fine, and the references stay counted once.
        app.put_xml(&path(&id), &format!(
            "<campaignBean><id>{id}</id><name>C2</name><advertiserId>{adv}</advertiserId><agencyId>{agency}</agencyId></campaignBean>")).await.expect(204);
        app.delete(&path(&id)).await.expect(204);
        app.delete(&format!("/api/1.0/client/by_client_id;id={adv}")).await.expect(204);
        app.delete(&format!("/api/1.0/client/by_client_id;id={agency}")).await.expect(204);
    }

    async fn update_replaces_and_keeps_derived_fields(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let adv2 = app.client("Adv2", "ADVERTISER").await;
        let id = app.create_xml("/api/1.0/campaign", &format!(
            "<campaignBean><name>C</name><advertiserId>{adv}</advertiserId><priority>8</priority><enabled>true</enabled></campaignBean>")).await;
        app.put_xml(&path(&id), &format!("<campaignBean><id>{id}</id><name>C2</name><advertiserId>{adv2}</advertiserId></campaignBean>"))
            .await.expect(204);
        let b = app.get(&path(&id)).await.body;
        assert_eq!(xml_text(&b, "name").as_deref(), Some("C2"));
        assert_eq!(xml_text(&b, "advertiserId").as_deref(), Some(adv2.as_str()));
        // Omitted: back to the defaults (enabled false, the global priority).
        assert_eq!(xml_text(&b, "enabled").as_deref(), Some("false"));
        assert_eq!(xml_text(&b, "priority").as_deref(), Some("5"));
        // The old advertiser is released, the new one is held.
        app.delete(&format!("/api/1.0/client/by_client_id;id={adv}")).await.expect(204);
        app.delete(&format!("/api/1.0/client/by_client_id;id={adv2}")).await.expect(409);
        // Bad updates change nothing.
        let r = app.put_xml(&path(&id), &format!("<campaignBean><name>C3</name><advertiserId>{adv2}</advertiserId><priority>99</priority></campaignBean>")).await;
        r.expect(400);
        let r = app.put_xml(&path(&id), &format!("<campaignBean><id>x</id><name>C3</name><advertiserId>{adv2}</advertiserId></campaignBean>")).await;
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("matchesPath"));
        assert_eq!(xml_text(&app.get(&path(&id)).await.body, "name").as_deref(), Some("C2"));
        app.put_xml(&path("00000000-0000-0000-0000-000000000000"), &format!("<campaignBean><name>C</name><advertiserId>{adv2}</advertiserId></campaignBean>"))
            .await.expect(404);
    }

    async fn enabled_flag_moves_both_ways(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let id = app.campaign("C", &adv).await;
        for v in ["true", "false", "true"] {
            app.put_xml(&path(&id), &format!("<campaignBean><name>C</name><advertiserId>{adv}</advertiserId><enabled>{v}</enabled></campaignBean>"))
                .await.expect(204);
            assert_eq!(xml_text(&app.get(&path(&id)).await.body, "enabled").as_deref(), Some(v));
        }
        assert_eq!(ids(&app, "/api/1.0/campaign?state=enabled").await, vec![id.clone()]);
        assert!(ids(&app, "/api/1.0/campaign?state=disabled").await.is_empty());
    }

    async fn archiving_moves_it_to_the_archived_list(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let keep = app.campaign("Keep", &adv).await;
        let old = app.campaign("Old", &adv).await;
        archive(&app, &old, &adv).await;
        let b = app.get(&path(&old)).await.body;
        assert_eq!(xml_text(&b, "status").as_deref(), Some("ARCHIVED"));
        assert_eq!(ids(&app, "/api/1.0/campaign").await, vec![keep.clone()]);
        assert_eq!(ids(&app, "/api/1.0/campaign?state=archived").await, vec![old.clone()]);
        assert_eq!(ids(&app, "/api/1.0/campaign/archived").await, vec![old.clone()]);
        let now = app.clock.now_for_test();
        assert_eq!(ids(&app, &format!("/api/1.0/campaign/archived?year={}&month={}", now.0, now.1)).await, vec![old.clone()]);
        let prev = if now.1 == 1 { (now.0 - 1, 12) } else { (now.0, now.1 - 1) };
        assert!(ids(&app, &format!("/api/1.0/campaign/archived?year={}&month={}", prev.0, prev.1)).await.is_empty());
        // Still archived after an update without status; cannot be moved back.
        app.put_xml(&path(&old), &format!("<campaignBean><name>Old2</name><advertiserId>{adv}</advertiserId></campaignBean>")).await.expect(204);
        assert_eq!(xml_text(&app.get(&path(&old)).await.body, "status").as_deref(), Some("ARCHIVED"));
        let r = app.put_xml(&path(&old), &format!("<campaignBean><name>Old2</name><advertiserId>{adv}</advertiserId><status>UPCOMING</status></campaignBean>")).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("archived"));
        // Archiving twice is harmless.
        archive(&app, &old, &adv).await;
        assert_eq!(ids(&app, "/api/1.0/campaign/archived").await, vec![old]);
    }

    async fn archived_month_is_the_accounts_local_month(app: TestApp) {
        // 23:30 UTC on 31 January is already 1 February in Stockholm (the demo account's zone).
        app.clock.set(Utc.with_ymd_and_hms(2026, 1, 31, 23, 30, 0).unwrap());
        let adv = app.client("Adv", "ADVERTISER").await;
        let id = app.campaign("C", &adv).await;
        archive(&app, &id, &adv).await;
        assert_eq!(ids(&app, "/api/1.0/campaign/archived?year=2026&month=2").await, vec![id.clone()]);
        assert!(ids(&app, "/api/1.0/campaign/archived?year=2026&month=1").await.is_empty());
        // Without parameters: the current month, also local.
        assert_eq!(ids(&app, "/api/1.0/campaign/archived").await, vec![id.clone()]);
        assert_eq!(ids(&app, "/api/1.0/campaign/archived?month=2").await, vec![id]);
    }

    async fn archived_list_parameters_are_checked(app: TestApp) {
        for (q, field, rule) in [("year=26", "year", "format"), ("year=20266", "year", "format"), ("year=abcd", "year", "format"),
            ("month=0", "month", "range"), ("month=13", "month", "range"), ("month=june", "month", "range"), ("month=1&month=2", "month", "single")] {
            let r = app.get(&format!("/api/1.0/campaign/archived?{q}")).await;
            r.expect(400);
            assert_eq!(xml_text(&r.body, "field").as_deref(), Some(field), "{q}");
            assert_eq!(xml_text(&r.body, "rule").as_deref(), Some(rule), "{q}");
        }
    }

    async fn list_filters_by_status_and_state(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let on = app.create_xml("/api/1.0/campaign", &format!("<campaignBean><name>A on</name><advertiserId>{adv}</advertiserId><enabled>true</enabled></campaignBean>")).await;
        let off = app.campaign("B off", &adv).await;
        let gone = app.campaign("C archived", &adv).await;
        archive(&app, &gone, &adv).await;
        assert_eq!(ids(&app, "/api/1.0/campaign").await, vec![on.clone(), off.clone()]);
        assert_eq!(ids(&app, "/api/1.0/campaign?state=enabled").await, vec![on.clone()]);
        assert_eq!(ids(&app, "/api/1.0/campaign?state=disabled").await, vec![off.clone()]);
        assert_eq!(ids(&app, "/api/1.0/campaign?state=archived").await, vec![gone]);
        // Without goals both are UPCOMING; none is ACTIVE or RECENT yet.
        assert_eq!(ids(&app, "/api/1.0/campaign?status=upcoming").await, vec![on.clone(), off]);
        assert!(ids(&app, "/api/1.0/campaign?status=active").await.is_empty());
        assert!(ids(&app, "/api/1.0/campaign?status=recent").await.is_empty());
        assert_eq!(ids(&app, "/api/1.0/campaign?status=upcoming&state=enabled").await, vec![on]);
        for (q, field) in [("status=archived", "status"), ("status=live", "status"), ("state=deleted", "state")] {
            let r = app.get(&format!("/api/1.0/campaign?{q}")).await;
            r.expect(400);
            assert_eq!(xml_text(&r.body, "field").as_deref(), Some(field));
            assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("enum"));
        }
    }

    async fn delete_hides_it_everywhere(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let id = app.campaign("C", &adv).await;
        let arch = app.campaign("A", &adv).await;
        archive(&app, &arch, &adv).await;
        app.delete(&path(&id)).await.expect(204);
        app.delete(&path(&arch)).await.expect(204);
        app.get(&path(&id)).await.expect(404);
        app.delete(&path(&id)).await.expect(404);
        app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={id}")).await.expect(404);
        assert!(ids(&app, "/api/1.0/campaign").await.is_empty());
        assert!(ids(&app, "/api/1.0/campaign/archived").await.is_empty());
        // Its advertiser is free again.
        app.delete(&format!("/api/1.0/client/by_client_id;id={adv}")).await.expect(204);
    }

    async fn notifications_map(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let id = app.campaign("C", &adv).await;
        let r = app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={id}")).await;
        r.expect(200);
        assert_eq!(r.header("content-type"), Some("application/xml"));
        let expect = format!("<map><entry key=\"{id}\"><notificationList><notificationBeans><concernedResource><id>{id}</id><type>CAMPAIGN</type></concernedResource><level>WARNING</level>");
        assert!(r.body.contains(&expect), "{}", r.body);
        assert!(r.body.contains(&format!("<relatedResources><id>{id}</id><type>CAMPAIGN</type></relatedResources>")));
        assert!(xml_text(&r.body, "message").unwrap().contains("no goals"));
        // Archived campaigns have nothing to act on.
        archive(&app, &id, &adv).await;
        let r = app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={id}")).await;
        assert!(r.body.contains("<notificationList></notificationList>"), "{}", r.body);
    }

    async fn another_account_gets_404_and_never_sees_them(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let id = app.campaign("Mine", &adv).await;
        let arch = app.campaign("Mine archived", &adv).await;
        archive(&app, &arch, &adv).await;
        let b = app.b.key.clone();
        for p in [path(&id), format!("/api/1.0/campaign/notification/by_campaign_id;id={id}"), format!("/api/1.0/client/by_campaign_id;id={id}")] {
            app.get_as(&b, &p).await.expect(404);
        }
        app.send("PUT", &path(&id), Some(&b), Some("application/xml"), &format!("<campaignBean><name>X</name><advertiserId>{adv}</advertiserId></campaignBean>")).await.expect(404);
        app.send("DELETE", &path(&id), Some(&b), None, "").await.expect(404);
        for list in ["/api/1.0/campaign", "/api/1.0/campaign?state=archived", "/api/1.0/campaign/archived"] {
            let r = app.get_as(&b, list).await;
            r.expect(200);
            assert!(!r.body.contains(&id) && !r.body.contains(&arch), "{list}: {}", r.body);
        }
        assert_eq!(xml_text(&app.get(&path(&id)).await.body, "name").as_deref(), Some("Mine"));
    }

    async fn concurrent_updates_are_not_lost(app: TestApp) {
        // Twenty campaigns created at once for one advertiser: every reference is counted.
        let adv = app.client("Adv", "ADVERTISER").await;
        let mut handles = Vec::new();
        let app = std::sync::Arc::new(app);
        for i in 0..20 {
            let app = app.clone();
            let adv = adv.clone();
            handles.push(tokio::spawn(async move { app.campaign(&format!("C{i:02}"), &adv).await }));
        }
        let mut created = Vec::new();
        for h in handles {
            created.push(h.await.unwrap());
        }
        for id in &created[..19] {
            app.delete(&path(id)).await.expect(204);
        }
        app.delete(&format!("/api/1.0/client/by_client_id;id={adv}")).await.expect(409);
        app.delete(&path(&created[19])).await.expect(204);
        app.delete(&format!("/api/1.0/client/by_client_id;id={adv}")).await.expect(204);
    }
}

trait NowForTest {
    fn now_for_test(&self) -> (i32, u32);
}

impl NowForTest for web::clock::ManualClock {
    /// The current year and month in the demo account's zone.
    fn now_for_test(&self) -> (i32, u32) {
        use web::clock::Clock;
        let local = self.now().with_timezone(&"Europe/Stockholm".parse::<api_tests::chrono_tz::Tz>().unwrap());
        (local.year(), local.month())
    }
}
