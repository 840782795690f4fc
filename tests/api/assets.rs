//! Video assets: seed 000 §4.4a and §3 (expiry); docs/goals-ads-assets.md.

use api_tests::chrono::Duration;
use api_tests::serde_json::json;
use api_tests::{both_stores, both_stores_with, clip, spawn_file_server, Backend, TestApp};
use web::clock::Clock;
use web::state::Settings;

async fn blob(app: &TestApp, account: &str, id: &str, name: &str) -> Option<Vec<u8>> {
    let key = web::model::asset::Asset::object_key(account, id, name);
    app.state.blobs.get(&key).await.unwrap()
}

fn id_of(location: &str) -> String {
    location.rsplit('/').next().unwrap().to_string()
}

async fn failed_with(backend: Backend, settings: Settings, url: &str, reason: &str) {
    let app = TestApp::spawn_with(backend, settings).await;
    let (_, v) = app.asset_from(url, "spot.mp4").await;
    assert_eq!(v["status"], "FAILED", "{v}");
    let got = v["failureReason"].as_str().unwrap_or("");
    assert!(got.contains(reason), "{got:?} should mention {reason:?}");
    assert!(!got.contains("127.0.0.1") && !got.contains("refused") && !got.contains("os error"), "no network detail: {got:?}");
}

both_stores! {
    async fn url_upload_is_downloaded_into_the_bucket(app: TestApp) {
        let base = spawn_file_server().await;
        let r = app.post_json("/v1/assets/video", &json!({"name": "Spring spot.mp4", "downloadUri": format!("{base}/clip.mp4")})).await;
        r.expect(201);
        assert!(r.body.is_empty(), "no body: {}", r.body);
        let loc = r.header("location").unwrap().to_string();
        assert!(loc.starts_with("/v1/assets/video/"));
        let v = app.wait_asset(&loc).await;
        assert_eq!(v["status"], "READY", "{v}");
        assert_eq!(v["size"], clip().len());
        assert_eq!(v["contentType"], "video/mp4");
        assert_eq!(v["source"], "url");
        assert_eq!(v["linked"], false);
        assert!(v["expires"].is_string());
        let id = id_of(&loc);
        assert_eq!(blob(&app, &app.a.id, &id, "Spring spot.mp4").await.as_deref(), Some(clip()), "the bytes are in the bucket");
    }

    async fn redirects_are_followed(app: TestApp) {
        let base = spawn_file_server().await;
        // The content type is this service's mapping of the name, not the remote server's.
        let (_, v) = app.asset_from(&format!("{base}/spoofed.mp4"), "s.mp4").await;
        assert_eq!((v["status"].as_str(), v["contentType"].as_str()), (Some("READY"), Some("video/mp4")), "{v}");
        let (_, v) = app.asset_from(&format!("{base}/moved.mp4"), "m.mp4").await;
        assert_eq!(v["status"], "READY", "{v}");
    }

    async fn octet_stream_upload_is_probed_then_ready(app: TestApp) {
        let r = app.send_bytes("POST", "/v1/assets/video?name=direct.mp4", Some(&app.a.key), "application/octet-stream", clip()).await;
        r.expect(201);
        let loc = r.header("location").unwrap().to_string();
        let v = app.wait_asset(&loc).await;
        assert_eq!((v["status"].as_str(), v["size"].as_u64(), v["source"].as_str()), (Some("READY"), Some(clip().len() as u64), Some("upload")));
        assert_eq!(v["contentType"], "video/mp4");
        assert_eq!(v["probe"]["width"], 320, "{v}");
        assert_eq!(blob(&app, &app.a.id, &id_of(&loc), "direct.mp4").await.as_deref(), Some(clip()));
        let r = app.send("POST", "/v1/assets/video?name=direct.txt", Some(&app.a.key), Some("application/octet-stream"), "x").await;
        r.expect(400);
        assert_eq!(r.json()["errors"][0]["rule"], "extension");
        let r = app.send("POST", "/v1/assets/video", Some(&app.a.key), Some("application/octet-stream"), "x").await;
        r.expect(400);
        assert_eq!(r.json()["errors"][0]["field"], "name");
        app.send("POST", "/v1/assets/video?name=e.mp4", Some(&app.a.key), Some("application/octet-stream"), "").await.expect(400);
    }

    // An asset's object lives as long as its record.
    async fn an_expired_assets_object_is_deleted_from_the_bucket(app: TestApp) {
        let id = app.upload_asset("gone.mp4", clip()).await;
        app.wait_asset(&format!("/v1/assets/video/{id}")).await;
        assert!(blob(&app, &app.a.id, &id, "gone.mp4").await.is_some());
        let item = app.store.get(&web::keys::record(&app.a.id, web::keys::ASSET, &id)).await.unwrap().unwrap();
        // The table stream's record of the TTL removal (DynamoDB's shape, old image).
        let record = |name: &str, identity: api_tests::serde_json::Value| json!({
            "eventID": "1", "eventName": name, "eventSource": "aws:dynamodb", "awsRegion": "eu-west-1",
            "userIdentity": identity,
            "dynamodb": {"Keys": {"pk": {"S": item.pk}, "sk": {"S": item.sk}}, "SequenceNumber": "100", "SizeBytes": 300,
                "StreamViewType": "OLD_IMAGE", "OldImage": {"pk": {"S": item.pk}, "sk": {"S": item.sk}, "body": {"S": item.body}, "v": {"N": "1"}}}
        });
        let ttl = json!({"type": "Service", "principalId": "dynamodb.amazonaws.com"});
        let event = |records: api_tests::serde_json::Value| -> aws_lambda_events::dynamodb::Event {
            api_tests::serde_json::from_value(json!({ "Records": records })).unwrap()
        };
        // A removal by someone else is not an expiry: the object stays.
        let res = web::workers::janitor::handle(app.state.blobs.as_ref(), &event(json!([record("REMOVE", json!(null)), record("MODIFY", ttl.clone())]))).await;
        assert!(res.batch_item_failures.is_empty());
        assert!(blob(&app, &app.a.id, &id, "gone.mp4").await.is_some());
        let res = web::workers::janitor::handle(app.state.blobs.as_ref(), &event(json!([record("REMOVE", ttl.clone())]))).await;
        assert!(res.batch_item_failures.is_empty());
        assert_eq!(blob(&app, &app.a.id, &id, "gone.mp4").await, None, "the object is deleted");
        // Redelivered: nothing to delete, no failure.
        let res = web::workers::janitor::handle(app.state.blobs.as_ref(), &event(json!([record("REMOVE", ttl)]))).await;
        assert!(res.batch_item_failures.is_empty());
    }

    async fn bad_requests_are_refused(app: TestApp) {
        let cases = [
            (json!({"name": "spot.jpg", "downloadUri": "https://cdn.example.com/a.jpg"}), "name", "extension"),
            (json!({"name": "spot", "downloadUri": "https://cdn.example.com/a"}), "name", "extension"),
            (json!({"downloadUri": "https://cdn.example.com/a.mp4"}), "name", "required"),
            (json!({"name": "a.mp4"}), "downloadUri", "required"),
            (json!({"name": "a.mp4", "downloadUri": "ftp://cdn.example.com/a.mp4"}), "downloadUri", "url"),
            (json!({"name": "a.mp4", "downloadUri": "file:///etc/passwd"}), "downloadUri", "url"),
            (json!({"name": "a.mp4", "downloadUri": "not a url"}), "downloadUri", "url"),
            (json!({"name": "a.mp4", "downloadUri": "https://x.example/a.mp4", "transcode": true}), "transcode", "unknown"),
            (json!({"name": 5, "downloadUri": "https://x.example/a.mp4"}), "name", "type"),
        ];
        for (body, field, rule) in cases {
            let r = app.post_json("/v1/assets/video", &body).await;
            r.expect(400);
            let e = &r.json()["errors"][0];
            assert_eq!((e["field"].as_str(), e["rule"].as_str()), (Some(field), Some(rule)), "{body}: {}", r.body);
        }
        let r = app.send("POST", "/v1/assets/video", Some(&app.a.key), Some("application/json"), "{not json").await;
        r.expect(400);
        assert_eq!(r.json()["type"], "MalformedRequest");
        app.send("POST", "/v1/assets/video", Some(&app.a.key), Some("text/plain"), "x").await.expect(415);
        app.send("POST", "/v1/assets/video", None, Some("application/json"), "{}").await.expect(401);
    }

    async fn download_failures_are_recorded(app: TestApp) {
        let base = spawn_file_server().await;
        let (_, v) = app.asset_from(&format!("{base}/missing.mp4"), "gone.mp4").await;
        assert_eq!(v["status"], "FAILED");
        assert!(v["failureReason"].as_str().unwrap().contains("HTTP 404"), "{v}");
    }

    async fn unlinked_assets_expire_after_24_hours(app: TestApp) {
        let loc = format!("/v1/assets/video/{}", app.upload_asset("x.mp4", clip()).await);
        app.clock.set(app.clock.now() + Duration::hours(23));
        app.get(&loc).await.expect(200);
        app.clock.set(app.clock.now() + Duration::hours(2));
        app.get(&loc).await.expect(404);
    }

    async fn another_account_gets_404(app: TestApp) {
        let loc = format!("/v1/assets/video/{}", app.upload_asset("x.mp4", clip()).await);
        app.get_as(&app.b.key, &loc).await.expect(404);
        app.get("/v1/assets/video/00000000-0000-0000-0000-000000000000").await.expect(404);
    }

    async fn redelivered_jobs_change_nothing(app: TestApp) {
        let base = spawn_file_server().await;
        let (loc, v) = app.asset_from(&format!("{base}/clip.mp4"), "a.mp4").await;
        assert_eq!(v["status"], "READY");
        let etag = app.get(&loc).await.header("etag").unwrap().to_string();
        let job = json!({"account": app.a.id, "asset": id_of(&loc)}).to_string();
        for _ in 0..3 {
            web::workers::dispatch(&app.state, web::queue::QueueName::Assets, &job).await.unwrap();
        }
        let after = app.get(&loc).await;
        assert_eq!(after.header("etag").unwrap(), etag, "a finished asset is not touched again");
        // A job for an asset that does not exist, or a malformed one, is dropped quietly.
        web::workers::dispatch(&app.state, web::queue::QueueName::Assets, &json!({"account": app.a.id, "asset": "nope"}).to_string()).await.unwrap();
        let r = web::workers::dispatch(&app.state, web::queue::QueueName::Assets, "garbage").await;
        assert!(matches!(r, Err(web::workers::JobError::Drop(_))), "malformed: dropped, not retried: {r:?}");
        assert!(web::workers::settle(&app.state, web::queue::QueueName::Assets, "garbage").await, "the message is done with");
    }
}

// Policies that need their own settings: one test per backend each.
macro_rules! failure_case {
    ($name:ident, $settings:expr, $path:expr, $reason:expr) => {
        mod $name {
            use super::*;
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn embedded() {
                let base = spawn_file_server().await;
                failed_with(Backend::Embedded, $settings, &format!("{base}{}", $path), $reason).await
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn dynamodb() {
                let base = spawn_file_server().await;
                failed_with(Backend::DynamoDb, $settings, &format!("{base}{}", $path), $reason).await
            }
        }
    };
}

failure_case!(
    private_addresses_are_refused,
    Settings { asset_allow_private_urls: false, ..TestApp::settings() },
    "/clip.mp4",
    "host could not be reached or is not allowed"
);
failure_case!(
    files_over_the_cap_fail,
    Settings { asset_max_bytes: 100, ..TestApp::settings() },
    "/big.mp4",
    "larger than the limit of 100 bytes"
);
failure_case!(
    slow_downloads_time_out,
    Settings { asset_download_timeout: std::time::Duration::from_secs(1), ..TestApp::settings() },
    "/slow.mp4",
    "did not finish within 1 s"
);

/// A bucket that is down.
struct DownBlobs;

#[async_trait::async_trait]
impl web::blobs::Blobs for DownBlobs {
    async fn put_file(&self, _: &str, _: &std::path::Path, _: &str) -> Result<u64, web::blobs::BlobError> {
        Err(web::blobs::BlobError::msg("bucket unavailable"))
    }
    async fn put_bytes(&self, _: &str, _: Vec<u8>, _: &str) -> Result<(), web::blobs::BlobError> {
        Err(web::blobs::BlobError::msg("bucket unavailable"))
    }
    async fn get(&self, _: &str) -> Result<Option<Vec<u8>>, web::blobs::BlobError> {
        Ok(None)
    }
    async fn size(&self, _: &str) -> Result<Option<u64>, web::blobs::BlobError> {
        Ok(None)
    }
    async fn open_from(&self, _: &str, _: u64) -> Result<Option<web::blobs::BlobReader>, web::blobs::BlobError> {
        Err(web::blobs::BlobError::msg("bucket unavailable"))
    }
    fn kind(&self) -> &'static str {
        "down"
    }
}

/// The worker Lambda's batch handler on a recorded SQS event: messages whose job fails for a
/// retryable reason (the bucket is down) are reported as batch item failures, the others not;
/// the failed asset stays DOWNLOADING so the redelivery can finish it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqs_batches_report_only_the_failed_messages() {
    let app = TestApp::spawn(Backend::Embedded).await;
    let base = spawn_file_server().await;
    // An asset whose download job will fail at the bucket (created straight in the store so
    // no in-process worker races the handler).
    let now = app.clock.now();
    let asset = web::model::asset::Asset {
        download_uri: Some(format!("{base}/clip.mp4")),
        expires: Some(now + Duration::hours(24)),
        ..web::model::asset::Asset::new(&uuid::Uuid::new_v4().to_string(), "a.mp4", web::model::enums::AssetSource::Url, now)
    };
    let item = web::repo::item(web::keys::record(&app.a.id, web::keys::ASSET, &asset.id), &asset, 1).unwrap();
    app.store.put(item, web::store::Cond::NotExists).await.unwrap();
    let down = app.state.clone().with_blobs(std::sync::Arc::new(DownBlobs));
    let record = |id: &str, body: String| {
        json!({
            "messageId": id, "receiptHandle": "AQEB-handle", "body": body,
            "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1795342542000", "SenderId": "AIDAEXAMPLE", "ApproximateFirstReceiveTimestamp": "1795342542001"},
            "messageAttributes": {}, "md5OfBody": "0", "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:eu-west-1:123456789012:video-ad-campaigns-AssetQueue", "awsRegion": "eu-west-1"
        })
    };
    let event: aws_lambda_events::sqs::SqsEvent = api_tests::serde_json::from_value(json!({"Records": [
        record("m-fails", json!({"account": app.a.id, "asset": asset.id}).to_string()),
        record("m-gone", json!({"account": app.a.id, "asset": "no-such-asset"}).to_string()),
        record("m-garbage", "not json".into()),
    ]}))
    .unwrap();
    let res = web::lambda::handle_batch(&down, web::queue::QueueName::Assets, event).await;
    let failed: Vec<String> = res.batch_item_failures.iter().map(|f| f.item_identifier.clone()).collect();
    assert_eq!(failed, vec!["m-fails".to_string()]);
    let v = app.get(&format!("/v1/assets/video/{}", asset.id)).await.json();
    assert_eq!(v["status"], "DOWNLOADING", "left for the redelivery: {v}");
    // The redelivery, with the bucket back, finishes it.
    let again: aws_lambda_events::sqs::SqsEvent = api_tests::serde_json::from_value(json!({"Records": [
        record("m-fails", json!({"account": app.a.id, "asset": asset.id}).to_string()),
    ]}))
    .unwrap();
    let res = web::lambda::handle_batch(&app.state, web::queue::QueueName::Assets, again).await;
    assert!(res.batch_item_failures.is_empty());
    assert_eq!(app.get(&format!("/v1/assets/video/{}", asset.id)).await.json()["status"], "READY");
}

// A local disk failure is not the file's fault.
fn bad_disk() -> Settings {
    Settings { asset_tmp_dir: "/nonexistent/asset-tmp".into(), ..TestApp::settings() }
}

both_stores_with! { super::bad_disk();
    async fn a_local_disk_failure_leaves_the_asset_for_a_retry(app: TestApp) {
        let base = spawn_file_server().await;
        let token = uuid::Uuid::new_v4().simple().to_string();
        let r = app.post_json("/v1/assets/video", &json!({"name": "a.mp4", "downloadUri": format!("{base}/counted/{token}/clip.mp4")})).await;
        r.expect(201);
        let loc = r.header("location").unwrap().to_string();
        let id = loc.rsplit('/').next().unwrap().to_string();
        // The worker ran and was given the message again (a second download): the first
        // attempt failed at the disk and left the asset for a retry, never FAILED.
        api_tests::wait_hits(&token, 2).await;
        let v = app.get(&loc).await.json();
        assert_eq!(v["status"], "DOWNLOADING", "{v}");
        assert!(v.get("failureReason").is_none_or(|r| r.is_null()), "{v}");
        // The redelivery on a healthy instance finishes it.
        let healthy = app.state.clone().with_settings(TestApp::settings());
        let job = json!({"account": app.a.id, "asset": id}).to_string();
        assert!(web::workers::settle(&healthy, web::queue::QueueName::Assets, &job).await);
        assert_eq!(app.get(&loc).await.json()["status"], "READY");
    }
}

/// The local server's TTL: the embedded store removes expired
/// records, and an expired asset's object leaves the bucket with its record.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_embedded_store_sweeps_expired_records_and_their_objects() {
    use web::store::{Cond, Item, Store};
    let embedded = std::sync::Arc::new(web::store::embedded::EmbeddedStore::in_memory().unwrap());
    let blobs = std::sync::Arc::new(web::blobs::MemoryBlobs::default());
    let st = web::state::AppState::new(embedded.clone(), blobs.clone(), std::sync::Arc::new(web::queue::NoQueue));
    let now = chrono::Utc::now().timestamp();
    let body = |key: &str| {
        api_tests::serde_json::json!({"id": "x", "name": "a.mp4", "source": "url", "status": "READY", "objectKey": key, "linked": false,
            "created": "2026-01-01T00:00:00Z", "modified": "2026-01-01T00:00:00Z"})
        .to_string()
    };
    for (sk, exp) in [("old", now - 10), ("fresh", now + 3600)] {
        let key = format!("acc/assets/{sk}/a.mp4");
        web::blobs::Blobs::put_bytes(blobs.as_ref(), &key, b"video".to_vec(), "video/mp4").await.unwrap();
        let item = Item {
            pk: web::keys::partition("acc", web::keys::ASSET),
            sk: sk.into(),
            version: 1,
            expires_at: Some(exp),
            body: body(&key),
            ..Item::default()
        };
        embedded.put(item, Cond::None).await.unwrap();
    }
    assert_eq!(web::workers::janitor::sweep_once(&st).await.unwrap(), 1);
    assert!(embedded.get(&web::keys::record("acc", web::keys::ASSET, "old")).await.unwrap().is_none());
    assert!(embedded.get(&web::keys::record("acc", web::keys::ASSET, "fresh")).await.unwrap().is_some());
    let get = |k: &'static str| {
        let blobs = blobs.clone();
        async move { web::blobs::Blobs::get(blobs.as_ref(), k).await.unwrap() }
    };
    assert!(get("acc/assets/old/a.mp4").await.is_none(), "the expired asset's object is deleted");
    assert!(get("acc/assets/fresh/a.mp4").await.is_some());
}
