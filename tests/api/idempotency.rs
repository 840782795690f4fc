//! `Idempotency-Key` on creates (docs/api.md).

use api_tests::serde_json::json;
use api_tests::{both_stores, xml_texts, TestApp};

async fn post_with_key(app: &TestApp, key_header: &str, path: &str, ct: &str, body: &str, api_key: &str) -> api_tests::Res {
    app.send_with_headers("POST", path, Some(api_key), Some(ct), body, &[("idempotency-key", key_header)]).await
}

both_stores! {
    async fn a_retried_create_gets_the_first_answer(app: TestApp) {
        let bean = "<clientBean><name>Once</name><type>ADVERTISER</type></clientBean>";
        let first = post_with_key(&app, "k-1", "/api/1.0/client", "application/xml", bean, &app.a.key).await;
        first.expect(200);
        let id = first.body.clone();
        let again = post_with_key(&app, "k-1", "/api/1.0/client", "application/xml", bean, &app.a.key).await;
        again.expect(200);
        assert_eq!(again.header("idempotent-replayed"), Some("true"));
        assert_eq!(again.body, first.body);
        assert_eq!(xml_texts(&app.get("/api/1.0/client").await.body, "clientBean").len(), 1, "one client");
        // The same key with another body: 422 naming the header, nothing created.
        let other = post_with_key(&app, "k-1", "/api/1.0/client", "application/xml", &bean.replace("Once", "Twice"), &app.a.key).await;
        other.expect(422);
        assert!(other.body.contains("<field>Idempotency-Key</field>") && other.body.contains("<status>422</status>"), "{}", other.body);
        // Another account's identical key is its own.
        let b = post_with_key(&app, "k-1", "/api/1.0/client", "application/xml", bean, &app.b.key).await;
        b.expect(200);
        assert_ne!(b.body, id);
        assert!(b.header("idempotent-replayed").is_none());
        assert_eq!(xml_texts(&app.get("/api/1.0/client").await.body, "clientBean").len(), 1);
    }

    async fn a_refused_create_can_be_retried_with_the_same_key(app: TestApp) {
        let bad = json!({"name": ""}).to_string();
        let r = post_with_key(&app, "tmpl-7", "/api/2.0/targeting-template", "application/json", &bad, &app.a.key).await;
        r.expect(400);
        let good = json!({"name": "Sports"}).to_string();
        let r = post_with_key(&app, "tmpl-7", "/api/2.0/targeting-template", "application/json", &good, &app.a.key).await;
        r.expect(200);
        let id = r.json()["id"].clone();
        let again = post_with_key(&app, "tmpl-7", "/api/2.0/targeting-template", "application/json", &good, &app.a.key).await;
        again.expect(200);
        assert_eq!(again.json()["id"], id);
        assert_eq!(app.get("/api/2.0/targeting-template/usage").await.json()["active"], 1);
        // A malformed key: 400 naming the header.
        let r = post_with_key(&app, "has space", "/api/2.0/targeting-template", "application/json", &good, &app.a.key).await;
        r.expect(400);
        assert!(r.body.contains("Idempotency-Key"), "{}", r.body);
    }

    async fn a_claim_whose_handler_died_is_free_after_its_lease(app: TestApp) {
        let bean = "<clientBean><name>Survivor</name><type>ADVERTISER</type></clientBean>";
        // A first attempt claimed the key, then its handler died (no answer, no release).
        let request = web::api::idempotency::request_hash("POST", "/api/1.0/client", bean.as_bytes());
        let now = web::clock::Clock::now(app.clock.as_ref()).timestamp();
        let claim = web::repo::idempotency::claim(app.store.as_ref(), &app.a.id, "k-dead", &request, now).await.unwrap();
        assert!(matches!(claim, web::repo::idempotency::Claim::Claimed(_)));
        let r = post_with_key(&app, "k-dead", "/api/1.0/client", "application/xml", bean, &app.a.key).await;
        r.expect(409);
        assert!(r.header("retry-after").is_some());
        // Past the lease (60 s), not 24 hours, the retry runs.
        app.advance(chrono::Duration::seconds(web::repo::idempotency::LEASE_SECS + 1));
        let r = post_with_key(&app, "k-dead", "/api/1.0/client", "application/xml", bean, &app.a.key).await;
        r.expect(200);
        let again = post_with_key(&app, "k-dead", "/api/1.0/client", "application/xml", bean, &app.a.key).await;
        again.expect(200);
        assert_eq!((again.body.as_str(), again.header("idempotent-replayed")), (r.body.as_str(), Some("true")));
    }
}
