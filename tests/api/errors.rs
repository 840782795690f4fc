//! Authentication, formats and malformed requests across the XML interfaces.

use api_tests::{one_store, xml_text, xml_texts, TestApp};

async fn client_count(app: &TestApp) -> usize {
    xml_texts(&app.get("/api/1.0/client").await.body, "clientBean").len()
}

one_store! {
    async fn hostile_bodies_get_a_bounded_answer_and_change_nothing(app: TestApp) {
        // 0.94 MB of XML: 90,000 unknown children and 35,000 repeated <name>.
        let mut bean = String::from("<clientBean><type>ADVERTISER</type>");
        for i in 0..90_000 {
            bean.push_str(&format!("<u{}/>", i % 7));
        }
        for _ in 0..35_000 {
            bean.push_str("<name>n</name>");
        }
        bean.push_str("</clientBean>");
        let r = app.post_xml("/api/1.0/client", &bean).await;
        r.expect(400);
        let fields = xml_texts(&r.body, "field");
        assert_eq!(fields.len(), web::api::error::MAX_FIELD_ERRORS, "the error list is capped");
        assert!(r.body.len() < 64 * 1024, "a bounded answer: {} bytes", r.body.len());
        assert!(xml_text(&r.body, "message").unwrap().contains("124999 field errors in all"), "{}", &r.body[..300]);
        assert_eq!(app.get("/api/1.0/client").await.body.matches("<clientBean>").count(), 0, "nothing written");
        // An ad naming 60,000 device containers: refused by count, not de-duplicated first.
        let many: Vec<String> = (0..60_000).map(|i| format!("dc-{i}")).collect();
        let body = api_tests::serde_json::json!({"name": "A", "goalId": "g", "creative": {"type": "placeholder"}, "deviceContainers": many});
        let r = app.post_json("/v1/ads", &body).await;
        r.expect(400);
        assert!(r.body.contains("\"rule\":\"maxItems\""), "{}", &r.body[..r.body.len().min(400)]);
    }

    async fn missing_or_unknown_key_is_401_with_an_xml_body(app: TestApp) {
        for key in [None, Some("not-a-key-at-all-0000"), Some("")] {
            for (method, path) in [("GET", "/api/1.0/client"), ("GET", "/api/1.0/campaign/archived"), ("POST", "/api/1.0/contact")] {
                let r = app.send(method, path, key, Some("application/xml"), "<contactBean><firstName>A</firstName></contactBean>").await;
                r.expect(401);
                assert_eq!(r.header("content-type"), Some("application/xml"));
                assert_eq!(xml_text(&r.body, "status").as_deref(), Some("401"));
                assert_eq!(xml_text(&r.body, "type").as_deref(), Some("Unauthorized"));
            }
        }
        // Nothing was created by the unauthenticated POSTs.
        let r = app.get("/api/1.0/contact/by_contact_id;id=x").await;
        r.expect(404);
    }

    async fn malformed_xml_is_400_and_writes_nothing(app: TestApp) {
        for body in ["", "<clientBean>", "<clientBean><name>A</type></clientBean>", "not xml", "<clientBean><name>A &bogus; B</name><type>BRAND</type></clientBean>",
            "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]><clientBean><name>&e;</name><type>BRAND</type></clientBean>",
            "<clientBean><name>A</name><type>BRAND</type></clientBean><clientBean/>"] {
            let r = app.post_xml("/api/1.0/client", body).await;
            r.expect(400);
            assert_eq!(xml_text(&r.body, "type").as_deref(), Some("MalformedRequest"), "{body}: {}", r.body);
            assert!(xml_text(&r.body, "message").unwrap().contains("malformed XML"));
        }
        assert_eq!(client_count(&app).await, 0);
    }

    async fn wrong_root_or_content_type_is_refused(app: TestApp) {
        let r = app.post_xml("/api/1.0/client", "<contactBean><firstName>A</firstName></contactBean>").await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "rule").as_deref(), Some("root"));
        let r = app.send("POST", "/api/1.0/client", Some(&app.a.key), Some("application/json"), "{\"name\":\"A\"}").await;
        r.expect(415);
        assert!(xml_text(&r.body, "message").unwrap().contains("application/xml"));
        let r = app.send("POST", "/api/1.0/campaign", Some(&app.a.key), None, "<campaignBean/>").await;
        r.expect(415);
        // text/xml with a charset is fine.
        let r = app.send("POST", "/api/1.0/client", Some(&app.a.key), Some("text/xml; charset=UTF-8"), "<clientBean><name>A</name><type>BRAND</type></clientBean>").await;
        r.expect(200);
        assert_eq!(client_count(&app).await, 1);
    }

    async fn oversized_bodies_are_413(app: TestApp) {
        let big = format!("<clientBean><name>A</name><type>BRAND</type><comments>{}</comments></clientBean>", "x".repeat(1_100_000));
        app.post_xml("/api/1.0/client", &big).await.expect(413);
        assert_eq!(client_count(&app).await, 0);
    }

    async fn matrix_parameters_are_checked(app: TestApp) {
        let r = app.get("/api/1.0/campaign/by_campaign_id").await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "field").as_deref(), Some("by_campaign_id;id"));
        app.get("/api/1.0/campaign/by_campaign_id;id=").await.expect(400);
        app.get("/api/1.0/campaign/by_goal_id;id=abc").await.expect(404);
        app.get("/api/1.0/client/by_client_id;id=../../etc").await.expect(404);
        // Percent-encoded separators work like raw ones.
        let id = app.client("A", "ADVERTISER").await;
        app.get(&format!("/api/1.0/client/by_client_id%3Bid%3D{id}")).await.expect(200);
        // A matrix parameter other than id is refused, not ignored.
        let r = app.get(&format!("/api/1.0/client/by_client_id;id={id};color=red")).await;
        r.expect(400);
        assert_eq!((xml_text(&r.body, "field").as_deref(), xml_text(&r.body, "rule").as_deref()), (Some("by_client_id;color"), Some("unknown")));
    }

    async fn unknown_routes_and_methods(app: TestApp) {
        let r = app.get("/api/1.0/nothing").await;
        r.expect(404);
        assert_eq!(r.header("content-type"), Some("application/xml"));
        let r = app.get("/v9/nothing").await;
        r.expect(404);
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.json()["type"], "NotFound");
        app.send("PATCH", "/api/1.0/client", Some(&app.a.key), None, "").await.expect(405);
    }
}

#[test]
fn the_rules_table_is_the_rule_list() {
    // Every rule a 400 can name is a `web::rule::Rule` (the type allows no other), and
    // docs/api.md's table is generated from that list (`cargo run -p admin -- rules-table`).
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let doc = std::fs::read_to_string(format!("{root}/docs/api.md")).unwrap();
    let table = web::rule::Rule::table();
    assert!(doc.contains(&table), "docs/api.md's rules table is not `admin rules-table`'s output:\n{table}");
    assert!(web::rule::Rule::ALL.len() > 50);
}

one_store! {
    async fn unknown_query_parameters_are_refused_on_every_interface(app: TestApp) {
        // A misspelt page size is a 400 naming the known ones, not the default page.
        let r = app.get("/api/1.0/campaign?pagesize=5").await;
        r.expect(400);
        assert_eq!(xml_text(&r.body, "field").as_deref(), Some("pagesize"));
        assert!(r.body.contains("known: pageSize, pageNumber"), "{}", r.body);
        app.get("/api/1.0/campaign?pageSize=5").await.expect(200);
        for path in ["/v0/categories?x=1", "/v1/ads?limit=5", "/v1/demand-partners?page=2", "/v1/assets/video?statuss=READY", "/api/1.0/client?sort=name"] {
            let r = app.get(path).await;
            r.expect(400);
            assert!(r.body.contains("unknown query parameter"), "{path}: {}", r.body);
        }
        for path in ["/v1/ads?created.after=2020-01-01T00:00:00Z", "/v1/assets/video?status=READY&limit=5", "/api/1.0/client?pageSize=2&pageNumber=1"] {
            app.get(path).await.expect(200);
        }
        // Without a key the answer is still 401 first.
        app.send("GET", "/v0/categories?x=1", None, None, "").await.expect(401);
    }
}
