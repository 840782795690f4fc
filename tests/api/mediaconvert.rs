//! The MediaConvert adapter against recorded SDK traffic (tests/fixtures/mediaconvert/): no
//! emulator serves MediaConvert, so a loopback stub stands at the client's endpoint, records
//! what the SDK sends (the Probe and CreateJob bodies, compared with the recorded requests)
//! and answers the recorded responses; the job's completion and error are the EventBridge
//! events as SQS delivers them to the asset worker. On both stores (the asset records and
//! the rendition objects live in the store and bucket under test).

use std::sync::{Arc, Mutex};

use api_tests::serde_json::{self, json, Value};
use api_tests::{one_store, TestApp};
use web::media::engine::MediaEngine;
use web::media::mediaconvert::MediaConvert;
use web::model::asset::{self, Asset, Probe};

const ASSET: &str = "6f1c2a9e-0d4b-4f1e-9a57-3c2b8d1e7f00";
const JOB: &str = "1795342542000-k3p9qs";
const ROLE: &str = "arn:aws:iam::111122223333:role/adserver-MediaConvertRole";

fn fixture(name: &str, app: &TestApp) -> String {
    let path = format!("{}/fixtures/mediaconvert/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    text.replace("BUCKET", &app.state.settings.bucket_name).replace("acc-1", &app.a.id)
}

type Recorded = Arc<Mutex<Vec<(String, Value)>>>;

/// The stub MediaConvert endpoint: records each request's path and JSON body, answers the
/// recorded response of its operation. Returns its URL and the recording.
async fn stub(probe: String, create_job: String) -> (String, Recorded) {
    use axum::extract::{Request, State};
    let seen: Recorded = Arc::default();
    let answers = Arc::new((probe, create_job));
    let app = axum::Router::new().fallback(move |State(seen): State<Recorded>, req: Request| {
        let answers = answers.clone();
        async move {
            let path = req.uri().path().to_string();
            let body = axum::body::to_bytes(req.into_body(), 1 << 20).await.unwrap_or_default();
            seen.lock().unwrap().push((path.clone(), serde_json::from_slice(&body).unwrap_or(Value::Null)));
            let answer = match path.as_str() {
                "/2017-08-29/probe" => answers.0.clone(),
                "/2017-08-29/jobs" => answers.1.clone(),
                _ => return (axum::http::StatusCode::NOT_FOUND, String::new()),
            };
            (axum::http::StatusCode::OK, answer)
        }
    });
    let app = app.with_state(seen.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    (url, seen)
}

fn engine(endpoint: &str, bucket: &str) -> MediaConvert {
    let conf = aws_sdk_mediaconvert::Config::builder()
        .endpoint_url(endpoint)
        .region(aws_sdk_mediaconvert::config::Region::new("eu-west-1"))
        .credentials_provider(aws_sdk_mediaconvert::config::Credentials::new("test", "test", None, None, "test"))
        .behavior_version(aws_sdk_mediaconvert::config::BehaviorVersion::latest())
        .build();
    MediaConvert { client: aws_sdk_mediaconvert::Client::from_conf(conf), role_arn: ROLE.into(), bucket: bucket.into() }
}

fn master_probe() -> Probe {
    Probe {
        container: "quicktime".into(),
        video_codec: "prores".into(),
        audio_codec: Some("pcm".into()),
        duration_ms: 30_030,
        width: 1920,
        height: 1080,
        bitrate: 147_843_000,
        frame_rate: Some(25.0),
    }
}

/// A linked asset whose transcode is due (TRANSCODING, no job yet).
async fn transcoding_asset(app: &TestApp, id: &str) -> Asset {
    let now = web::clock::Clock::now(app.clock.as_ref());
    let a = Asset {
        download_uri: Some("https://agency.example/master.mov".into()),
        status: asset::TRANSCODING,
        size: Some(554_948_250),
        content_type: Some("video/quicktime".into()),
        object_key: Some(Asset::object_key(&app.a.id, id, "master.mov")),
        linked: true,
        probe: Some(master_probe()),
        ..Asset::new(id, "master.mov", web::model::enums::AssetSource::Url, now)
    };
    web::repo::assets::create(app.store.as_ref(), &app.a.id, &a).await.unwrap();
    a
}

async fn asset_json(app: &TestApp, id: &str) -> Value {
    let r = app.get(&format!("/v1/assets/video/{id}")).await;
    r.expect(200);
    r.json()
}

one_store! {
    async fn probe_and_job_settings_match_the_recorded_requests(app: TestApp) {
        let (url, seen) = stub(fixture("probe.response.json", &app), fixture("create_job.response.json", &app)).await;
        let bucket = app.state.settings.bucket_name.clone();
        let mc = engine(&url, &bucket);
        let key = Asset::object_key(&app.a.id, ASSET, "master.mov");
        let probe = mc.probe(app.state.blobs.as_ref(), &key, None).await.unwrap();
        assert_eq!(probe, master_probe());
        assert_eq!(seen.lock().unwrap()[0], ("/2017-08-29/probe".to_string(), json!({"inputFiles": [{"fileUrl": format!("s3://{bucket}/{key}")}]})));

        // The worker submits the job once, with the recorded settings.
        transcoding_asset(&app, ASSET).await;
        let st = app.state.clone().with_media(Arc::new(mc));
        let job = json!({"account": app.a.id, "asset": ASSET}).to_string();
        web::workers::dispatch(&st, web::queue::QueueName::Assets, &job).await.unwrap();
        let sent = seen.lock().unwrap()[1].clone();
        assert_eq!(sent.0, "/2017-08-29/jobs");
        let recorded: Value = serde_json::from_str(&fixture("create_job.request.json", &app)).unwrap();
        assert_eq!(sent.1, recorded, "the CreateJob request is the recorded one:\n{}", serde_json::to_string_pretty(&sent.1).unwrap());
        let v = asset_json(&app, ASSET).await;
        assert_eq!((v["status"].as_str(), v["renditions"].as_array().map(Vec::len)), (Some("TRANSCODING"), Some(0)), "{v}");
        let stored = web::repo::assets::get(app.store.as_ref(), &app.a.id, ASSET).await.unwrap().unwrap().value;
        assert_eq!(stored.transcode_job.as_deref(), Some(JOB));
        // A redelivered message submits nothing more.
        web::workers::dispatch(&st, web::queue::QueueName::Assets, &job).await.unwrap();
        assert_eq!(seen.lock().unwrap().len(), 2, "one CreateJob per asset");
    }

    async fn the_completion_event_records_the_renditions(app: TestApp) {
        transcoding_asset(&app, ASSET).await;
        web::repo::assets::update(app.store.as_ref(), &app.a.id, ASSET, |x| x.transcode_job = Some(JOB.into())).await.unwrap();
        let event = fixture("job_state_change.complete.json", &app);
        let parsed: Value = serde_json::from_str(&event).unwrap();
        // The objects the job wrote (sizes read from the bucket).
        let mut sizes = Vec::new();
        for (i, o) in parsed["detail"]["outputGroupDetails"][0]["outputDetails"].as_array().unwrap().iter().enumerate() {
            let path = o["outputFilePaths"][0].as_str().unwrap();
            let key = path.split_once(&format!("{}/", app.state.settings.bucket_name)).unwrap().1.to_string();
            let bytes = vec![0u8; 1000 * (i + 1)];
            app.state.blobs.put_bytes(&key, bytes.clone(), "application/octet-stream").await.unwrap();
            sizes.push((key, bytes.len()));
        }
        // Through the queue as SQS delivers it (the EventBridge rule's target).
        web::workers::dispatch(&app.state, web::queue::QueueName::Assets, &event).await.unwrap();
        let v = asset_json(&app, ASSET).await;
        assert_eq!(v["status"], "TRANSCODED", "{v}");
        let got: Vec<(String, u64, u64, u64)> = v["renditions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["mime"].as_str().unwrap().into(), r["width"].as_u64().unwrap(), r["height"].as_u64().unwrap(), r["size"].as_u64().unwrap()))
            .collect();
        let want = [("video/mp4", 1920, 1080, 1000), ("video/mp4", 1280, 720, 2000), ("video/mp4", 854, 480, 3000), ("video/mp4", 640, 360, 4000),
            ("video/mp4", 426, 240, 5000), ("video/webm", 1280, 720, 6000)];
        assert_eq!(got, want.map(|(m, w, h, s)| (m.to_string(), w, h, s)).to_vec(), "{v}");
        assert_eq!(v["renditions"][0]["bitrate"], 1000 * 8000 / 30_030, "measured from the size over the probed length");
        assert!(v["still"]["url"].as_str().unwrap().ends_with("/r/v_still.0000001.jpg"), "{v}");
        assert_eq!((v["still"]["width"].as_u64(), v["still"]["height"].as_u64()), (Some(1280), Some(720)));
        // Redelivered: nothing changes.
        let etag = app.get(&format!("/v1/assets/video/{ASSET}")).await.header("etag").unwrap().to_string();
        web::workers::dispatch(&app.state, web::queue::QueueName::Assets, &event).await.unwrap();
        assert_eq!(app.get(&format!("/v1/assets/video/{ASSET}")).await.header("etag").unwrap(), etag);
    }

    async fn an_error_event_fails_the_asset_with_the_reason(app: TestApp) {
        transcoding_asset(&app, ASSET).await;
        web::repo::assets::update(app.store.as_ref(), &app.a.id, ASSET, |x| x.transcode_job = Some(JOB.into())).await.unwrap();
        // An event of another job (an older submission) changes nothing.
        let other = fixture("job_state_change.error.json", &app).replace(JOB, "1795340000000-old");
        web::workers::dispatch(&app.state, web::queue::QueueName::Assets, &other).await.unwrap();
        assert_eq!(asset_json(&app, ASSET).await["status"], "TRANSCODING");
        web::workers::dispatch(&app.state, web::queue::QueueName::Assets, &fixture("job_state_change.error.json", &app)).await.unwrap();
        let v = asset_json(&app, ASSET).await;
        assert_eq!(v["status"], "FAILED", "{v}");
        assert_eq!(
            v["failureReason"],
            "transcode failed: the transcoding service could not make the renditions (MediaConvert error 1030)"
        );
        // A completion that can never be recorded (the asset has no probe to describe its
        // renditions with) ends the asset FAILED with the reason; the message is done with.
        transcoding_asset(&app, "no-probe").await;
        web::repo::assets::update(app.store.as_ref(), &app.a.id, "no-probe", |x| {
            x.transcode_job = Some(JOB.into());
            x.probe = None;
        })
        .await
        .unwrap();
        let complete = fixture("job_state_change.complete.json", &app).replace(ASSET, "no-probe");
        assert!(web::workers::settle(&app.state, web::queue::QueueName::Assets, &complete).await, "done with, not redelivered");
        let v = asset_json(&app, "no-probe").await;
        assert_eq!((v["status"].as_str(), v["failureReason"].as_str()), (Some("FAILED"), Some("the asset has no probe: its renditions cannot be described")), "{v}");
        // An event naming no asset of this service is dropped, not retried.
        let foreign = fixture("job_state_change.error.json", &app).replace("\"userMetadata\"", "\"otherMetadata\"");
        let r = web::workers::dispatch(&app.state, web::queue::QueueName::Assets, &foreign).await;
        assert!(matches!(r, Err(web::workers::JobError::Drop(_))), "{r:?}");
    }
}
