//! Programmatic demand's records (docs/programmatic.md, "Records"): demand partners and
//! marketplaces through `/v1`, their rules, the write-only auth header, tenant isolation,
//! and goals' `marketplaceId`.

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, Bidder, TestApp};

pub(crate) async fn partner(app: &TestApp, endpoint: &str, extra: Value) -> String {
    let mut body = json!({"name": "DSP", "endpoint": endpoint, "timeoutMs": 150});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    let r = app.post_json("/v1/demand-partners", &body).await;
    r.expect(201);
    r.json()["id"].as_str().unwrap().to_string()
}

pub(crate) async fn marketplace(app: &TestApp, partners: &[String], auction: &str, floor: f64, extra: Value) -> String {
    let mut body = json!({"name": "Market", "demandPartnerIds": partners, "auctionType": auction, "floorCpm": floor});
    if let (Some(b), Some(e)) = (body.as_object_mut(), extra.as_object()) {
        for (k, v) in e {
            b.insert(k.clone(), v.clone());
        }
    }
    let r = app.post_json("/v1/marketplaces", &body).await;
    r.expect(201);
    r.json()["id"].as_str().unwrap().to_string()
}

/// The body of a stored item ("" when there is none).
async fn stored(app: &TestApp, key: web::store::Key) -> String {
    app.store.get(&key).await.expect("read").map(|i| i.body).unwrap_or_default()
}

fn fields(r: &api_tests::Res) -> Vec<(String, String)> {
    r.json()["errors"]
        .as_array()
        .map(|a| a.iter().map(|e| (e["field"].as_str().unwrap_or("").to_string(), e["rule"].as_str().unwrap_or("").to_string())).collect())
        .unwrap_or_default()
}

both_stores! {
    async fn demand_partners_are_created_read_replaced_and_removed(app: TestApp) {
        let bidder = Bidder::in_process(&app);
        let body = json!({"name": "Acme DSP", "endpoint": bidder.endpoint("nobid", ""), "timeoutMs": 120, "currency": "EUR",
            "authHeader": {"name": "Authorization", "value": "Bearer s3cret-token"}});
        let r = app.post_json("/v1/demand-partners", &body).await;
        r.expect(201);
        let loc = r.header("location").unwrap().to_string();
        let etag = r.header("etag").unwrap().to_string();
        let v = r.json();
        assert_eq!((v["name"].as_str(), v["currency"].as_str(), v["timeoutMs"].as_u64(), v["enabled"].as_bool(), v["authHeaderSet"].as_bool()),
            (Some("Acme DSP"), Some("EUR"), Some(120), Some(true), Some(true)), "{v}");
        let got = app.get(&loc).await;
        got.expect(200);
        assert!(!got.body.contains("s3cret") && !app.get("/v1/demand-partners").await.body.contains("s3cret"), "the auth header is write-only");
        // The value is kept apart from the record, where only serving and this function read.
        let record = stored(&app, web::keys::demand_partners(&app.a.id)).await;
        let secrets = || stored(&app, web::keys::secrets(&app.a.id, web::repo::demand::PARTNER_SECRETS));
        assert!(record.contains("authorization") && !record.contains("s3cret"), "{record}");
        assert!(secrets().await.contains("Bearer s3cret-token"));
        // PUT the record as GET shows it: the auth header is kept; a stale ETag is 412.
        let mut back = got.json();
        back["timeoutMs"] = json!(300);
        let put = app.send_with_headers("PUT", &loc, Some(&app.a.key), Some("application/json"), &back.to_string(), &[("if-match", etag.as_str())]).await;
        put.expect(200);
        assert_eq!((put.json()["timeoutMs"].as_u64(), put.json()["authHeaderSet"].as_bool()), (Some(300), Some(true)));
        app.send_with_headers("PUT", &loc, Some(&app.a.key), Some("application/json"), &back.to_string(), &[("if-match", etag.as_str())]).await.expect(412);
        // The secret is never carried over to another server: moving the endpoint to another
        // host or port without sending authHeader again is refused, and changes nothing.
        let other = Bidder::in_process(&app);
        let mut moved = app.get(&loc).await.json();
        moved["endpoint"] = json!(other.endpoint("nobid", ""));
        let refused = app.send("PUT", &loc, Some(&app.a.key), Some("application/json"), &moved.to_string()).await;
        refused.expect(400);
        assert!(fields(&refused).contains(&("authHeader".to_string(), "required".to_string())), "{}", refused.body);
        assert_eq!(app.get(&loc).await.json()["endpoint"], back["endpoint"], "nothing changed");
        // Another path on the same server keeps it; sending it again (or null) moves it.
        let mut same = app.get(&loc).await.json();
        same["endpoint"] = json!(bidder.endpoint("inline", "price=1"));
        app.send("PUT", &loc, Some(&app.a.key), Some("application/json"), &same.to_string()).await.expect(200);
        moved["authHeader"] = json!({"name": "Authorization", "value": "Bearer another-token"});
        let put = app.send("PUT", &loc, Some(&app.a.key), Some("application/json"), &moved.to_string()).await;
        put.expect(200);
        assert_eq!(put.json()["authHeaderSet"], true);
        let (record, kept) = (stored(&app, web::keys::demand_partners(&app.a.id)).await, secrets().await);
        assert!(kept.contains("another-token") && !kept.contains("s3cret") && !record.contains("another-token"), "{kept}");
        // The change of the secret is history, without its value.
        let changes = app.get(&format!("/v1/changes?recordId={}", loc.rsplit('/').next().unwrap_or(""))).await;
        assert!(changes.body.contains("\"writeOnly\":true") && !changes.body.contains("another-token"), "{}", changes.body);
        // Bad bodies name their fields and rules; nothing is written.
        let bad = app.post_json("/v1/demand-partners", &json!({"name": "", "endpoint": "ftp://x", "timeoutMs": 5000, "currency": "usd"})).await;
        bad.expect(400);
        let f = fields(&bad);
        for (field, rule) in [("name", "required"), ("endpoint", "url"), ("timeoutMs", "range"), ("currency", "enum")] {
            assert!(f.contains(&(field.to_string(), rule.to_string())), "{field} {rule}: {}", bad.body);
        }
        // Link-local and metadata addresses are never allowed, not even for local testing.
        let meta = app.post_json("/v1/demand-partners", &json!({"name": "x", "endpoint": "http://169.254.169.254/latest/meta-data/"})).await;
        meta.expect(400);
        assert!(meta.body.contains("endpoint") && meta.body.contains("link-local"), "{}", meta.body);
        assert_eq!(app.get("/v1/demand-partners").await.json()["demandPartners"].as_array().map(Vec::len), Some(1));
        // Another account's partner is 404, never its data.
        app.get_as(&app.b.key, &loc).await.expect(404);
        assert_eq!(app.get_as(&app.b.key, "/v1/demand-partners").await.json()["demandPartners"], json!([]));
        app.delete(&loc).await.expect(204);
        app.get(&loc).await.expect(404);
        assert!(!secrets().await.contains("another-token"), "a removed partner's secret goes with it");
    }

    async fn marketplaces_name_the_accounts_partners_and_goals_name_marketplaces(app: TestApp) {
        let bidder = Bidder::in_process(&app);
        let p = partner(&app, &bidder.endpoint("nobid", ""), json!({})).await;
        // Partners of another account, or none at all: 400 naming the item.
        let theirs = json!({"name": "B's DSP", "endpoint": bidder.endpoint("nobid", "")}).to_string();
        let other = app.send("POST", "/v1/demand-partners", Some(&app.b.key), Some("application/json"), &theirs).await;
        other.expect(201);
        let other = other.json()["id"].as_str().unwrap().to_string();
        let bad = app.post_json("/v1/marketplaces", &json!({"name": "M", "demandPartnerIds": [p, other], "auctionType": "FIRST_PRICE"})).await;
        bad.expect(400);
        assert_eq!(fields(&bad), [("demandPartnerIds[1]".to_string(), "unknown".to_string())], "{}", bad.body);
        let fixed = app.post_json("/v1/marketplaces", &json!({"name": "M", "demandPartnerIds": [p], "auctionType": "FIXED_PRICE"})).await;
        fixed.expect(400);
        assert_eq!(fields(&fixed), [("deals".to_string(), "required".to_string())]);
        let m = marketplace(&app, std::slice::from_ref(&p), "SECOND_PRICE", 2.5,
            json!({"deals": [{"id": "deal-1", "floorCpm": 9, "seats": ["s1"]}], "blockedDomains": ["Rival.example"], "blockedCategories": ["IAB25"]})).await;
        let got = app.get(&format!("/v1/marketplaces/{m}")).await;
        got.expect(200);
        let v = got.json();
        assert_eq!((v["auctionType"].as_str(), v["floorCpm"].as_f64(), v["currency"].as_str(), v["blockedDomains"][0].as_str()),
            (Some("SECOND_PRICE"), Some(2.5), Some("USD"), Some("rival.example")), "{v}");
        app.get_as(&app.b.key, &format!("/v1/marketplaces/{m}")).await.expect(404);
        // A partner a marketplace asks cannot be removed.
        let del = app.delete(&format!("/v1/demand-partners/{p}")).await;
        del.expect(409);
        assert!(del.body.contains(&m), "{}", del.body);

        // Goals: marketplaceId on IMPRESSION and RTB goals only, and only the account's.
        let c = crate::serving::enabled_campaign(&app).await;
        let bean = |kind: &str, value: &str, market: &str| format!(
            "<goalBean><campaignId>{c}</campaignId><type>{kind}</type><variant>NORMAL</variant>{value}<start>2030-01-01T00:00:00Z</start><marketplaceId>{market}</marketplaceId></goalBean>");
        let sov = app.post_xml("/api/1.0.cpvext/goal", &bean("SHARE_OF_VOICE", "<goalValue>0.5</goalValue><end>2030-02-01T00:00:00Z</end>", &m)).await;
        sov.expect(400);
        assert!(sov.body.contains("goalBean/marketplaceId") && sov.body.contains("notAllowed"), "{}", sov.body);
        let unknown = app.post_xml("/api/1.0.cpvext/goal", &bean("RTB", "", "no-such-market")).await;
        unknown.expect(400);
        assert!(unknown.body.contains("goalBean/marketplaceId") && unknown.body.contains("unknown"), "{}", unknown.body);
        let theirs = app.send("POST", "/api/1.0.cpvext/goal", Some(&app.b.key), Some("application/xml"), &bean("RTB", "", &m)).await;
        theirs.expect(400);
        assert!(theirs.body.contains("marketplaceId"), "another account's marketplace is unknown: {}", theirs.body);
        let g = app.create_xml("/api/1.0.cpvext/goal", &bean("RTB", "", &m)).await;
        let xml = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={g}")).await.body;
        assert!(xml.contains(&format!("<marketplaceId>{m}</marketplaceId>")), "{xml}");
        let v3 = app.get(&format!("/v3/goals/{g}")).await.json();
        assert_eq!(v3["marketplaceId"].as_str(), Some(m.as_str()), "{v3}");
    }
}

/// Only the demand function (which writes them) and serving (which sends them) may read the
/// secrets' partition: every function's reads are scoped (template.yaml), and no other
/// function's scope names it.
#[test]
fn only_the_demand_and_serving_functions_may_read_the_secrets() {
    use api_tests::scoped::{like, template_read_scopes, template_scopes, text_of};
    let secrets = web::keys::secrets("acct", web::repo::demand::PARTNER_SECRETS).pk;
    let template = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml")).expect("template.yaml");
    let reads = template_read_scopes();
    let readers: Vec<String> = template_scopes()
        .into_iter()
        .filter(|(f, scoped)| {
            let names = |patterns: &Vec<String>| patterns.iter().any(|p| like(p, &secrets));
            let whole_table = ["DynamoDBReadPolicy", "DynamoDBCrudPolicy"].iter().any(|p| text_of(&template, f).contains(p));
            // Scoped reads; else the whole table (a read policy), or the partitions of a
            // statement that grants reads with its writes.
            reads.get(f).map_or(whole_table || names(scoped), names)
        })
        .map(|(f, _)| f)
        .collect();
    assert_eq!(readers, ["demand", "serving"]);
}

/// No function may read the whole table: each names its partitions.
#[test]
fn every_function_reads_only_named_partitions() {
    let template = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml")).expect("template.yaml");
    assert!(!template.contains("DynamoDBReadPolicy") && !template.contains("DynamoDBCrudPolicy") && !template.contains("dynamodb:Scan"));
}
