//! Contacts, seed 001 §4.4 and §2.4.

use api_tests::{both_stores, xml_text, xml_texts, TestApp};

async fn contact(app: &TestApp, first: &str) -> String {
    app.create_xml("/api/1.0/contact", &format!("<contactBean><firstName>{first}</firstName></contactBean>")).await
}

async fn associate(app: &TestApp, key: &str, body: &str) -> api_tests::Res {
    app.send("PUT", "/api/1.0/contact/associate/by_contact_id", Some(key), Some("application/x-www-form-urlencoded"), body).await
}

both_stores! {
    async fn create_get_update_delete(app: TestApp) {
        let id = app.create_xml("/api/1.0/contact", "<contactBean><firstName>Ann</firstName><lastName>Lind</lastName>\
            <description>Buyer</description><email>ann@example.com</email><mobilePhoneNumber><countryCode>46</countryCode>\
            <number>70 123</number></mobilePhoneNumber><workPhoneNumber><number>08 1</number></workPhoneNumber></contactBean>").await;
        let path = format!("/api/1.0/contact/by_contact_id;id={id}");
        let r = app.get(&path).await;
        r.expect(200);
        assert!(r.body.contains("<collection><contactBean>"));
        assert_eq!(xml_text(&r.body, "lastName").as_deref(), Some("Lind"));
        assert!(r.body.contains("<mobilePhoneNumber><countryCode>46</countryCode><number>70 123</number></mobilePhoneNumber>"));
        app.put_xml(&path, &format!("<contactBean><id>{id}</id><firstName>Anna</firstName></contactBean>")).await.expect(204);
        let r = app.get(&path).await;
        assert_eq!(xml_text(&r.body, "firstName").as_deref(), Some("Anna"));
        assert!(xml_text(&r.body, "lastName").is_none());
        app.delete(&path).await.expect(204);
        app.get(&path).await.expect(404);
    }

    async fn first_name_is_required_and_rules_hold(app: TestApp) {
        for (body, field, rule) in [
            ("<contactBean><lastName>X</lastName></contactBean>", "contactBean/firstName", "required"),
            ("<contactBean><firstName>A</firstName><email>a@b</email></contactBean>", "contactBean/email", "format"),
            ("<contactBean><firstName>A</firstName><phoneNumber/></contactBean>", "contactBean/phoneNumber", "unknown"),
            ("<contactBean><firstName>A</firstName><faxNumber><number>abc</number></faxNumber></contactBean>", "contactBean/faxNumber/number", "format"),
        ] {
            let r = app.post_xml("/api/1.0/contact", body).await;
            r.expect(400);
            assert_eq!(xml_text(&r.body, "field").as_deref(), Some(field), "{}", r.body);
            assert_eq!(xml_text(&r.body, "rule").as_deref(), Some(rule), "{}", r.body);
        }
        let id = contact(&app, "Bo").await;
        let path = format!("/api/1.0/contact/by_contact_id;id={id}");
        app.put_xml(&path, "<contactBean><firstName></firstName></contactBean>").await.expect(400);
        assert_eq!(xml_text(&app.get(&path).await.body, "firstName").as_deref(), Some("Bo"));
    }

    async fn a_reverted_association_moves_the_contact_back(app: TestApp) {
        let first = app.client("First", "ADVERTISER").await;
        let second = app.client("Second", "ADVERTISER").await;
        let ann = contact(&app, "Ann").await;
        associate(&app, &app.a.key, &format!("contactId={ann};clientId={first}")).await.expect(204);
        associate(&app, &app.a.key, &format!("contactId={ann};clientId={second}")).await.expect(204);
        let list = app.get(&format!("/v1/changes?recordId={ann}")).await.json();
        let id = list["changes"][0]["id"].as_str().unwrap().to_string();
        app.send("POST", &format!("/v1/changes/{id}/revert"), Some(&app.a.key), Some("application/json"), "").await.expect(200);
        // Its client's list follows the clientId put back (the index too, not only the record).
        let of = |client: String| {
            let app = &app;
            async move { xml_texts(&app.get(&format!("/api/1.0/contact/by_client_id;id={client}")).await.body, "firstName") }
        };
        assert_eq!(of(first.clone()).await, vec!["Ann"]);
        assert!(of(second.clone()).await.is_empty());
    }

    async fn associate_and_list_by_client(app: TestApp) {
        let client = app.client("Acme", "ADVERTISER").await;
        let other = app.client("Other", "AGENCY").await;
        let ann = contact(&app, "Ann").await;
        let bo = contact(&app, "Bo").await;
        contact(&app, "Unassociated").await;
        associate(&app, &app.a.key, &format!("contactId={bo};clientId={client}")).await.expect(204);
        associate(&app, &app.a.key, &format!("contactId={ann}&clientId={client}")).await.expect(204);
        let r = app.get(&format!("/api/1.0/contact/by_client_id;id={client}")).await;
        r.expect(200);
        assert!(r.body.contains(&format!("<contacts><contacts clientId=\"{client}\"><contactList><contacts><id>{ann}</id>")), "{}", r.body);
        assert_eq!(xml_texts(&r.body, "firstName"), vec!["Ann", "Bo"]);
        // Associating again moves the contact.
        associate(&app, &app.a.key, &format!("contactId={bo};clientId={other}")).await.expect(204);
        let r = app.get(&format!("/api/1.0/contact/by_client_id;id={client}")).await;
        assert_eq!(xml_texts(&r.body, "firstName"), vec!["Ann"]);
        let r = app.get(&format!("/api/1.0/contact/by_client_id;id={other}")).await;
        assert_eq!(xml_texts(&r.body, "firstName"), vec!["Bo"]);
        // A client without contacts has an empty list; an unknown client is 404.
        let empty = app.client("Empty", "BRAND").await;
        let r = app.get(&format!("/api/1.0/contact/by_client_id;id={empty}")).await;
        r.expect(200);
        assert!(r.body.contains("<contactList></contactList>"), "{}", r.body);
        app.get("/api/1.0/contact/by_client_id;id=nope").await.expect(404);
        // Deleting the contact removes it from the list.
        app.delete(&format!("/api/1.0/contact/by_contact_id;id={ann}")).await.expect(204);
        let r = app.get(&format!("/api/1.0/contact/by_client_id;id={client}")).await;
        assert!(xml_texts(&r.body, "firstName").is_empty());
    }

    async fn associate_rejects_bad_requests(app: TestApp) {
        let client = app.client("Acme", "ADVERTISER").await;
        let ann = contact(&app, "Ann").await;
        let k = app.a.key.clone();
        let r = app.send("PUT", "/api/1.0/contact/associate/by_contact_id", Some(&k), Some("application/xml"), "<x/>").await;
        r.expect(415);
        let r = associate(&app, &k, &format!("contactId={ann}")).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "field").as_deref(), Some("clientId"));
        let r = associate(&app, &k, &format!("clientId={client}")).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "field").as_deref(), Some("contactId"));
        let r = associate(&app, &k, &format!("contactId={ann};clientId={client};role=x")).await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("unknown"));
        associate(&app, &k, &format!("contactId={ann};clientId=00000000-0000-0000-0000-000000000000")).await.expect(404);
        associate(&app, &k, &format!("contactId=00000000-0000-0000-0000-000000000000;clientId={client}")).await.expect(404);
        let r = app.get(&format!("/api/1.0/contact/by_client_id;id={client}")).await;
        assert!(xml_texts(&r.body, "firstName").is_empty(), "nothing was associated");
    }

    async fn deleting_a_client_ends_its_associations(app: TestApp) {
        let client = app.client("Acme", "ADVERTISER").await;
        let ann = contact(&app, "Ann").await;
        associate(&app, &app.a.key, &format!("contactId={ann};clientId={client}")).await.expect(204);
        app.delete(&format!("/api/1.0/client/by_client_id;id={client}")).await.expect(204);
        app.get(&format!("/api/1.0/contact/by_client_id;id={client}")).await.expect(404);
        app.get(&format!("/api/1.0/contact/by_contact_id;id={ann}")).await.expect(200);
    }

    async fn another_account_gets_404_and_cannot_associate(app: TestApp) {
        let client = app.client("Acme", "ADVERTISER").await;
        let ann = contact(&app, "Ann").await;
        let path = format!("/api/1.0/contact/by_contact_id;id={ann}");
        let b = app.b.key.clone();
        app.get_as(&b, &path).await.expect(404);
        app.send("PUT", &path, Some(&b), Some("application/xml"), "<contactBean><firstName>X</firstName></contactBean>").await.expect(404);
        app.send("DELETE", &path, Some(&b), None, "").await.expect(404);
        associate(&app, &b, &format!("contactId={ann};clientId={client}")).await.expect(404);
        app.get_as(&b, &format!("/api/1.0/contact/by_client_id;id={client}")).await.expect(404);
        // B's own client cannot receive A's contact either.
        let theirs = app.send("POST", "/api/1.0/client", Some(&b), Some("application/xml"), "<clientBean><name>B</name><type>BRAND</type></clientBean>").await.body;
        associate(&app, &b, &format!("contactId={ann};clientId={theirs}")).await.expect(404);
        associate(&app, &app.a.key, &format!("contactId={ann};clientId={theirs}")).await.expect(404);
        assert_eq!(xml_text(&app.get(&path).await.body, "firstName").as_deref(), Some("Ann"));
    }
}
