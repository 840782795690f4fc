//! Every file of `events/` (the `sam local invoke` events) through the code that
//! serves it in a Lambda: HTTP API events through lambda_http's parsing into their
//! function's group router, SQS events through the worker batch handler, the stream event
//! through the asset janitor. The demo account's key is in the events, so the store is
//! seeded with the demo seed; placeholders are filled with records made here.

use std::collections::BTreeMap;
use std::sync::Arc;

use api_tests::serde_json::{self, Value};
use http_body_util::BodyExt;
use tower::ServiceExt;
use web::state::{AppState, Settings};

const EVENTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../events");

fn files(dir: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = std::fs::read_dir(format!("{EVENTS}/{dir}"))
        .expect("events dir")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| (p.file_stem().unwrap().to_string_lossy().into_owned(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    out.sort();
    out
}

fn fill(text: &str, vars: &BTreeMap<&str, String>) -> String {
    vars.iter().fold(text.to_string(), |t, (k, v)| t.replace(&format!("${{{k}}}"), v))
}

async fn call(router: axum::Router, method: &str, path: &str, body: String) -> (u16, String) {
    let req = axum::http::Request::builder()
        .method(method)
        .uri(path)
        .header("x-o-api-key", "alpha-demo-key-7f3c9a1e5b2d4680")
        .header("content-type", if path.starts_with("/api/1.0") { "application/xml" } else { "application/json" })
        .body(axum::body::Body::from(body))
        .unwrap();
    let res = router.oneshot(req).await.unwrap();
    let status = res.status().as_u16();
    let b = res.into_body().collect().await.unwrap().to_bytes();
    (status, String::from_utf8_lossy(&b).into_owned())
}

/// A signed impression link's query (the tracking event carries one a served document had).
fn tracking_query(settings: &Settings, campaign: &str, goal: &str, ad: &str) -> String {
    let t = web::delivery::tracking::Token {
        account: "demo-alpha".into(),
        campaign: campaign.into(),
        goal: goal.into(),
        ad: ad.into(),
        impression: "5f0e7a52-0a7e-4c7e-9a55-3c2d1b0e9f11".into(),
        viewer: Some("viewer-1".into()),
        issued: chrono::Utc::now().timestamp(),
        delivered: "impression".into(),
        click: None,
        key: Some(settings.tracking_keys.signing().0.to_string()),
        dims: None,
    };
    t.query(settings.tracking_keys.signing().1, "impression")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_event_file_runs_through_its_function() {
    let store: Arc<dyn web::store::Store> = Arc::new(web::store::embedded::EmbeddedStore::in_memory().unwrap());
    let seed = web::seed::SeedFile::parse(web::seed::DEMO_SEED).unwrap();
    web::seed::apply(store.as_ref(), &seed).await.unwrap();
    let (q, _rx) = web::queue::InProcessQueue::new();
    let blobs = Arc::new(web::blobs::MemoryBlobs::default());
    let settings = Settings { asset_allow_private_urls: true, ..Settings::default() };
    let st = AppState::new(store.clone(), blobs.clone(), Arc::new(q)).with_settings(settings.clone());
    let app = web::api::app(st.clone());
    // The records the placeholders name.
    let (_, client) =
        call(app.clone(), "POST", "/api/1.0/client", "<clientBean><name>Adv</name><type>ADVERTISER</type></clientBean>".into()).await;
    let (_, contact) =
        call(app.clone(), "POST", "/api/1.0/contact", "<contactBean><firstName>A</firstName><lastName>B</lastName></contactBean>".into())
            .await;
    let (_, campaign) = call(
        app.clone(),
        "POST",
        "/api/1.0/campaign",
        format!("<campaignBean><name>C</name><advertiserId>{client}</advertiserId></campaignBean>"),
    )
    .await;
    let (_, goal) = call(app.clone(), "POST", "/api/1.0.cpvext/goal", format!("<goalBean><campaignId>{campaign}</campaignId><type>IMPRESSION</type><variant>NORMAL</variant><start>2030-01-01T00:00:00Z</start><end>2030-02-01T00:00:00Z</end><goalValue>10</goalValue></goalBean>")).await;
    let (_, ad) = call(
        app.clone(),
        "POST",
        "/v1/ads",
        serde_json::json!({"name": "A", "goalId": goal, "creative": {"type": "spotPlaceholder", "insertionPoint": "preroll"}}).to_string(),
    )
    .await;
    let ad: Value = serde_json::from_str(&ad).unwrap();
    let asset_id = uuid::Uuid::new_v4().to_string();
    let mut asset = web::model::asset::Asset {
        status: web::model::asset::READY,
        size: Some(5),
        content_type: Some("video/mp4".into()),
        object_key: Some(web::model::asset::Asset::object_key("demo-alpha", &asset_id, "spring.mp4")),
        ..web::model::asset::Asset::new(&asset_id, "spring.mp4", web::model::enums::AssetSource::Upload, chrono::Utc::now())
    };
    store
        .put(web::repo::item(web::keys::record("demo-alpha", web::keys::ASSET, &asset_id), &asset, 1).unwrap(), web::store::Cond::None)
        .await
        .unwrap();
    web::blobs::Blobs::put_bytes(blobs.as_ref(), asset.object_key.as_deref().unwrap(), b"bytes".to_vec(), "video/mp4").await.unwrap();
    asset.status = web::model::asset::READY;
    // A forecast job for the status and worker events.
    let day = |d: i64| (chrono::Utc::now() + chrono::Duration::days(d)).format("%Y-%m-%dT00:00:00.000Z").to_string();
    let inv = serde_json::json!({"name": "Q", "variant": "NORMAL", "startDate": day(2), "endDate": day(4), "targeting": {"targetingTemplates": null}});
    let req = axum::http::Request::builder()
        .method("POST")
        .uri("/api/2.0/forecast/inventory")
        .header("x-o-api-key", "alpha-demo-key-7f3c9a1e5b2d4680")
        .header("content-type", "application/json")
        .body(axum::body::Body::from(inv.to_string()))
        .unwrap();
    let res = app.clone().oneshot(req).await.unwrap();
    assert_eq!(res.status(), 202);
    let job_id = res.headers()["location"].to_str().unwrap().rsplit('/').next().unwrap().to_string();
    let vars: BTreeMap<&str, String> = BTreeMap::from([
        ("forecastStart", day(2)),
        ("forecastEnd", day(9)),
        ("forecastJobId", job_id),
        ("clientId", client),
        ("contactId", contact),
        ("campaignId", campaign.clone()),
        ("goalId", goal.clone()),
        ("adId", ad["id"].as_str().unwrap().to_string()),
        ("assetId", asset_id.clone()),
        ("assetBody", serde_json::to_string(&asset).unwrap().replace('"', "\\\"")),
        ("bucket", settings.bucket_name.clone()),
        ("trackingQuery", tracking_query(&settings, &campaign, &goal, ad["id"].as_str().unwrap())),
    ]);

    // HTTP: <function>-<name>.json through that function's router only.
    let http = files("http");
    assert!(http.len() >= 22, "{} HTTP events", http.len());
    let mut seen_groups = std::collections::BTreeSet::new();
    for (name, text) in &http {
        let (group_name, group) = web::api::groups::ALL
            .iter()
            .filter(|(g, _)| name.starts_with(&format!("{g}-")))
            .max_by_key(|(g, _)| g.len())
            .unwrap_or_else(|| panic!("events/http/{name}.json names no function"));
        seen_groups.insert(*group_name);
        let req = lambda_http::request::from_str(&fill(text, &vars)).unwrap_or_else(|e| panic!("{name}: not an API Gateway event: {e}"));
        let req = req.map(|b| axum::body::Body::from(b.to_vec()));
        let router = web::api::finish(group(), st.clone());
        let res = router.oneshot(req).await.unwrap();
        let status = res.status().as_u16();
        let body = res.into_body().collect().await.unwrap().to_bytes();
        assert!((200..300).contains(&status), "events/http/{name}.json: {status} {}", String::from_utf8_lossy(&body));
    }
    assert_eq!(seen_groups.len(), web::api::groups::ALL.len(), "every HTTP function has events: {seen_groups:?}");

    // SQS: the workers' batch handler (the dropped file must exist for the audience worker).
    web::blobs::Blobs::put_bytes(
        blobs.as_ref(),
        "audience/demo-alpha/demo-alpha-ap-dmp/nightly export.csv",
        b"n1|age=18-24\n".to_vec(),
        "text/csv",
    )
    .await
    .unwrap();
    for (name, text) in files("sqs") {
        let q = if name.starts_with("asset-worker") {
            web::queue::QueueName::Assets
        } else if name.starts_with("events-worker") {
            web::queue::QueueName::Events
        } else if name.starts_with("forecast-worker") {
            web::queue::QueueName::Forecast
        } else if name.starts_with("notices-worker") {
            // A notice to the metadata address: dropped, never called.
            web::queue::QueueName::Notices
        } else {
            web::queue::QueueName::Audience
        };
        let event: aws_lambda_events::sqs::SqsEvent = serde_json::from_str(&fill(&text, &vars)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let res = web::lambda::handle_batch(&st, q, event).await;
        assert!(res.batch_item_failures.is_empty(), "events/sqs/{name}.json failed");
    }
    let batches = store.query(web::store::Query::partition(web::keys::partition("demo-alpha", web::keys::BATCH))).await.unwrap();
    // The upload event's batch and the dropped file's (recorded, over the one-a-day limit).
    assert_eq!(batches.items.len(), 2);
    assert!(batches.items.iter().any(|i| i.body.contains("\"source\":\"bucket\"")), "the dropped file became a batch");
    // S3: the notification inside the SQS event above, as a file of its own.
    for (name, text) in files("s3") {
        let v: Value = serde_json::from_str(&fill(&text, &vars)).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(v["Records"][0]["s3"]["bucket"]["name"], settings.bucket_name.as_str());
        web::workers::dispatch(&st, web::queue::QueueName::Audience, &v.to_string()).await.unwrap();
    }
    // Stream: the janitor deletes the expired asset's object.
    for (name, text) in files("stream") {
        let v: Value = serde_json::from_str(&fill(&text, &vars)).unwrap_or_else(|e| panic!("{name}: {e}"));
        let event: aws_lambda_events::dynamodb::Event = serde_json::from_value(v).unwrap_or_else(|e| panic!("{name}: {e}"));
        let res = web::workers::janitor::handle(st.blobs.as_ref(), &event).await;
        assert!(res.batch_item_failures.is_empty(), "{name}");
    }
    assert_eq!(web::blobs::Blobs::get(blobs.as_ref(), asset.object_key.as_deref().unwrap()).await.unwrap(), None);
}
