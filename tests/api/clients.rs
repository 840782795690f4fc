//! Clients, seed 001 §4.3 and §2.3.

use api_tests::{both_stores, xml_text, xml_texts, TestApp};

const FULL: &str = "<clientBean><name>Acme &amp; Sons</name><type>ADVERTISER</type><comments>Key account</comments>\
<email>ops@acme.example</email><faxNumber><countryCode>+46</countryCode><number>8-555 01</number></faxNumber>\
<phoneNumber><countryCode>46</countryCode><number>8-555 00</number></phoneNumber>\
<postalAddress><address1>Box 1</address1><city>Stockholm</city><country>swe</country><zipCode>111 11</zipCode></postalAddress>\
<visitingAddress><address1>Main St 1</address1><address2>Floor 3</address2><city>Stockholm</city><country>SWE</country>\
<stateProvinceRegion>Stockholm</stateProvinceRegion><zipCode>111 12</zipCode></visitingAddress></clientBean>";

async fn count(app: &TestApp) -> usize {
    xml_texts(&app.get("/api/1.0/client").await.expect(200).body, "clientBean").len()
}

both_stores! {
    // Lists come in bounded pages with the total in a header.
    async fn the_client_list_is_paged(app: TestApp) {
        for n in ["c", "a", "b"] {
            app.client(n, "ADVERTISER").await;
        }
        let r = app.get("/api/1.0/client").await;
        r.expect(200);
        assert_eq!((r.header("x-total-count"), r.header("x-page-size")), (Some("3"), Some("1000")));
        let names = |r: &api_tests::Res| xml_texts(&r.body, "name");
        let r = app.get("/api/1.0/client?pageSize=2").await;
        assert_eq!(names(&r), ["a", "b"]);
        let r = app.get("/api/1.0/client?pageSize=2&pageNumber=2").await;
        assert_eq!((names(&r), r.header("x-total-count")), (vec!["c".to_string()], Some("3")));
        for bad in ["pageSize=0", "pageSize=1001", "pageNumber=0"] {
            let r = app.get(&format!("/api/1.0/client?{bad}")).await;
            r.expect(400);
            assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("range"), "{bad}: {}", r.body);
        }
    }

    async fn create_then_get_shows_every_field(app: TestApp) {
        let id = app.create_xml("/api/1.0/client", FULL).await;
        let r = app.get(&format!("/api/1.0/client/by_client_id;id={id}")).await;
        r.expect(200);
        assert_eq!(r.header("content-type"), Some("application/xml"));
        assert!(r.header("etag").is_some());
        assert!(r.body.contains("<collection><clientBean>"), "{}", r.body);
        assert_eq!(xml_text(&r.body, "id").as_deref(), Some(id.as_str()));
        assert_eq!(xml_text(&r.body, "name").as_deref(), Some("Acme &amp; Sons"));
        assert_eq!(xml_text(&r.body, "type").as_deref(), Some("ADVERTISER"));
        assert_eq!(xml_text(&r.body, "email").as_deref(), Some("ops@acme.example"));
        assert!(r.body.contains("<faxNumber><countryCode>+46</countryCode><number>8-555 01</number></faxNumber>"));
        assert!(r.body.contains("<phoneNumber><countryCode>46</countryCode>"));
        // Country is shown as an upper-case three-letter code.
        assert!(r.body.contains("<postalAddress><address1>Box 1</address1><city>Stockholm</city><country>SWE</country><zipCode>111 11</zipCode></postalAddress>"), "{}", r.body);
        assert!(r.body.contains("<stateProvinceRegion>Stockholm</stateProvinceRegion>"));
    }

    async fn list_holds_the_accounts_clients_sorted_by_name(app: TestApp) {
        let b = app.client("beta", "BRAND").await;
        let a = app.client("Alpha", "AGENCY").await;
        let r = app.get("/api/1.0/client").await;
        r.expect(200);
        assert_eq!(xml_texts(&r.body, "id"), vec![a, b]);
        assert!(r.body.starts_with("<?xml") && r.body.contains("<collection>"));
    }

    async fn required_fields_and_limits_are_enforced_and_nothing_is_written(app: TestApp) {
        let cases = [
            ("<clientBean><type>ADVERTISER</type></clientBean>", "clientBean/name", "required"),
            ("<clientBean><name>A</name></clientBean>", "clientBean/type", "required"),
            ("<clientBean><name>A</name><type>SPONSOR</type></clientBean>", "clientBean/type", "enum"),
            (&format!("<clientBean><name>{}</name><type>BRAND</type></clientBean>", "n".repeat(251)), "clientBean/name", "maxLength"),
            (&format!("<clientBean><name>A</name><type>BRAND</type><comments>{}</comments></clientBean>", "c".repeat(1001)), "clientBean/comments", "maxLength"),
            ("<clientBean><name>A</name><type>BRAND</type><email>nope</email></clientBean>", "clientBean/email", "format"),
            ("<clientBean><name>A</name><type>BRAND</type><postalAddress><country>SE</country></postalAddress></clientBean>", "clientBean/postalAddress/country", "format"),
            ("<clientBean><name>A</name><type>BRAND</type><phoneNumber><countryCode>abc</countryCode></phoneNumber></clientBean>", "clientBean/phoneNumber/countryCode", "format"),
            ("<clientBean><name>A</name><type>BRAND</type><nickname>x</nickname></clientBean>", "clientBean/nickname", "unknown"),
            ("<clientBean><id>x</id><name>A</name><type>BRAND</type></clientBean>", "clientBean/id", "notOnCreate"),
        ];
        for (body, field, rule) in cases {
            let r = app.post_xml("/api/1.0/client", body).await;
            r.expect(400);
            assert_eq!(r.header("content-type"), Some("application/xml"));
            assert_eq!(xml_text(&r.body, "field").as_deref(), Some(field), "{body}: {}", r.body);
            assert_eq!(xml_text(&r.body, "rule").as_deref(), Some(rule), "{body}: {}", r.body);
        }
        assert_eq!(count(&app).await, 0);
        // The limits themselves are allowed.
        let ok = format!("<clientBean><name>{}</name><type>BRAND</type><comments>{}</comments></clientBean>", "n".repeat(250), "c".repeat(1000));
        app.create_xml("/api/1.0/client", &ok).await;
    }

    async fn update_replaces_the_bean(app: TestApp) {
        let id = app.create_xml("/api/1.0/client", FULL).await;
        let path = format!("/api/1.0/client/by_client_id;id={id}");
        let r = app.put_xml(&path, &format!("<clientBean><id>{id}</id><name>Renamed</name><type>ADVERTISER</type></clientBean>")).await;
        r.expect(204);
        assert!(r.body.is_empty());
        let got = app.get(&path).await.body;
        assert_eq!(xml_text(&got, "name").as_deref(), Some("Renamed"));
        // Full replace: what the PUT left out is unset.
        assert!(xml_text(&got, "email").is_none() && !got.contains("postalAddress"), "{got}");
        // The body id may be left out; when given it must be the path's.
        app.put_xml(&path, "<clientBean><name>No id</name><type>ADVERTISER</type></clientBean>").await.expect(204);
        let r = app.put_xml(&path, "<clientBean><id>other</id><name>X</name><type>ADVERTISER</type></clientBean>").await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("matchesPath"));
        let r = app.put_xml(&path, "<clientBean><name></name><type>ADVERTISER</type></clientBean>").await;
        r.expect(400);
        assert_eq!(xml_text(&app.get(&path).await.body, "name").as_deref(), Some("No id"));
    }

    async fn if_match_guards_against_lost_updates(app: TestApp) {
        let id = app.client("A", "AGENCY").await;
        let path = format!("/api/1.0/client/by_client_id;id={id}");
        let etag = app.get(&path).await.header("etag").unwrap().to_string();
        let body = "<clientBean><name>B</name><type>AGENCY</type></clientBean>";
        let send = |tag: String| {
            let app = &app;
            let path = path.clone();
            async move {
                let req = axum::http::Request::builder().method("PUT").uri(&path)
                    .header("x-o-api-key", &app.a.key).header("content-type", "application/xml").header("if-match", tag)
                    .body(axum::body::Body::from(body)).unwrap();
                use tower::ServiceExt;
                app.router.clone().oneshot(req).await.unwrap().status().as_u16()
            }
        };
        assert_eq!(send(etag.clone()).await, 204);
        assert_eq!(send(etag).await, 412, "the first PUT changed the version");
        assert_eq!(send("\"not-a-version\"".into()).await, 400);
    }

    async fn delete_removes_it(app: TestApp) {
        let id = app.client("A", "AGENCY").await;
        let path = format!("/api/1.0/client/by_client_id;id={id}");
        app.delete(&path).await.expect(204);
        app.get(&path).await.expect(404);
        app.delete(&path).await.expect(404);
        assert_eq!(count(&app).await, 0);
    }

    async fn a_client_named_by_a_campaign_cannot_be_deleted_or_change_type(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let campaign = app.campaign("C", &adv).await;
        let path = format!("/api/1.0/client/by_client_id;id={adv}");
        let r = app.delete(&path).await;
        r.expect(409);
        assert!(xml_text(&r.body, "message").unwrap().contains("1 campaign"), "{}", r.body);
        app.put_xml(&path, "<clientBean><name>Adv</name><type>AGENCY</type></clientBean>").await.expect(409);
        app.put_xml(&path, "<clientBean><name>Adv renamed</name><type>ADVERTISER</type></clientBean>").await.expect(204);
        app.get(&path).await.expect(200);
        // Once the campaign is gone, so is the reference.
        app.delete(&format!("/api/1.0/campaign/by_campaign_id;id={campaign}")).await.expect(204);
        app.delete(&path).await.expect(204);
    }

    async fn list_by_campaign_gives_its_advertiser_agency_and_brand(app: TestApp) {
        let adv = app.client("Adv", "ADVERTISER").await;
        let agency = app.client("Agency", "AGENCY").await;
        let brand = app.client("Brand", "BRAND").await;
        app.client("Unrelated", "ADVERTISER").await;
        let c = app.create_xml("/api/1.0/campaign", &format!(
            "<campaignBean><name>C</name><advertiserId>{adv}</advertiserId><agencyId>{agency}</agencyId><brandId>{brand}</brandId></campaignBean>")).await;
        let r = app.get(&format!("/api/1.0/client/by_campaign_id;id={c}")).await;
        r.expect(200);
        assert_eq!(xml_texts(&r.body, "id"), vec![adv, agency, brand]);
        app.get("/api/1.0/client/by_campaign_id;id=00000000-0000-0000-0000-000000000000").await.expect(404);
    }

    async fn another_account_gets_404_and_never_sees_them(app: TestApp) {
        let id = app.client("Mine", "ADVERTISER").await;
        let path = format!("/api/1.0/client/by_client_id;id={id}");
        let b = app.b.key.clone();
        app.get_as(&b, &path).await.expect(404);
        let r = app.send("PUT", &path, Some(&b), Some("application/xml"), "<clientBean><name>Stolen</name><type>ADVERTISER</type></clientBean>").await;
        r.expect(404);
        app.send("DELETE", &path, Some(&b), None, "").await.expect(404);
        let list = app.get_as(&b, "/api/1.0/client").await;
        list.expect(200);
        assert!(!list.body.contains(&id));
        assert_eq!(xml_text(&app.get(&path).await.body, "name").as_deref(), Some("Mine"));
    }
}
