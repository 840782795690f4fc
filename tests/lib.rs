//! Test harness: the app as a client sees it (HTTP through the real router), on either
//! store. `both_stores!` turns one test body into `<name>::embedded` and `<name>::dynamodb`.
//! The DynamoDB runs need the emulator the test script starts (`AWS_ENDPOINT_URL`); without
//! it they fail, they do not skip.

use std::sync::Arc;

use axum::body::Body;
use axum::http::{Method, Request};
use axum::Router;
use http_body_util::BodyExt;
use tower::ServiceExt;

use shared::assemble::Workers;
use shared::blobs::s3::S3Blobs;
use shared::blobs::{Blobs, MemoryBlobs};
use shared::clock::ManualClock;
use shared::queue::sqs::SqsQueue;
use shared::queue::{InProcessQueue, Queue};
use shared::seed::{self, SeedFile};
use shared::state::{AppState, Settings};
use shared::store::dynamodb::DynamoStore;
use shared::store::embedded::EmbeddedStore;
use shared::store::Store;

pub mod faults;
pub mod player;
pub mod scoped;

pub use chrono;
pub use chrono_tz;
pub use serde_json;

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Backend {
    Embedded,
    DynamoDb,
}

/// The table the emulator-backed runs share (each test uses fresh accounts).
fn table() -> String {
    std::env::var("TEST_TABLE_NAME").unwrap_or_else(|_| "adserver-test".into())
}

pub async fn store(backend: Backend) -> Arc<dyn Store> {
    match backend {
        Backend::Embedded => Arc::new(EmbeddedStore::in_memory().expect("in-memory store")),
        Backend::DynamoDb => {
            assert!(
                std::env::var("AWS_ENDPOINT_URL").is_ok(),
                "the DynamoDB-backed tests need the emulator: run ./scripts/test.sh (it starts moto and sets AWS_ENDPOINT_URL)"
            );
            let s = DynamoStore::from_env(table()).await;
            s.create_table_if_missing().await.expect("creating the test table");
            Arc::new(s)
        }
    }
}

pub struct Account {
    pub id: String,
    pub key: String,
}

pub struct TestApp {
    pub router: Router,
    pub state: AppState,
    pub store: Arc<dyn Store>,
    pub clock: Arc<ManualClock>,
    /// Two accounts with full reference data: `a` is the one tests act as, `b` the other
    /// tenant that must never see `a`'s records.
    pub a: Account,
    pub b: Account,
}

pub struct Res {
    pub status: u16,
    pub headers: axum::http::HeaderMap,
    pub body: String,
}

impl Res {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
    #[track_caller]
    pub fn expect(&self, status: u16) -> &Self {
        assert_eq!(self.status, status, "unexpected status; body: {}", self.body);
        self
    }
}

/// The demo seed, with fresh account ids and keys so tests never share data.
fn fresh_seed() -> (SeedFile, Vec<Account>) {
    let mut f = SeedFile::parse(seed::DEMO_SEED).expect("demo seed");
    let mut accounts = Vec::new();
    for a in &mut f.accounts {
        let id = format!("t-{}", uuid::Uuid::new_v4().simple());
        let key = shared::ids::new_api_key();
        let old = a.id.clone();
        a.id = id.clone();
        a.api_keys = vec![key.clone()];
        // Reference ids are per account in the demo seed; keep them unique per test too.
        let json = serde_json::to_string(&a).expect("seed account");
        *a = serde_json::from_str(&json.replace(&format!("\"{old}-"), &format!("\"{id}-"))).expect("seed account");
        accounts.push(Account { id, key });
    }
    (f, accounts)
}

impl TestApp {
    /// Settings of the tests: the downloader may reach the tests' own loopback servers.
    pub fn settings() -> Settings {
        Settings {
            asset_allow_private_urls: true,
            asset_download_timeout: std::time::Duration::from_secs(5),
            // Every ad request sees the latest version and pace records.
            delivery_refresh: std::time::Duration::ZERO,
            ..Settings::default()
        }
    }

    pub async fn spawn(backend: Backend) -> TestApp {
        Self::spawn_with(backend, Self::settings()).await
    }

    /// The app on one backend: the embedded store with memory blobs and in-process
    /// workers, or DynamoDB + S3 + SQS on the emulator with an SQS poller standing in for
    /// the Lambda event source (each test gets its own queue).
    pub async fn spawn_with(backend: Backend, settings: Settings) -> TestApp {
        Self::spawn_inner(backend, settings, None).await
    }

    /// The app with its ports failing on `faults`' schedule (the routers and workers see
    /// the faults; `TestApp::store` and `TestApp::state` do not, for setup and checks).
    pub async fn spawn_faulty(backend: Backend, settings: Settings, faults: Arc<faults::Faults>) -> TestApp {
        Self::spawn_inner(backend, settings, Some(faults)).await
    }

    async fn spawn_inner(backend: Backend, mut settings: Settings, faults: Option<Arc<faults::Faults>>) -> TestApp {
        let store = store(backend).await;
        let (blobs, queue, workers): (Arc<dyn Blobs>, Arc<dyn Queue>, Workers) = match backend {
            Backend::Embedded => {
                let (q, rx) = InProcessQueue::new();
                let q: Arc<dyn Queue> = Arc::new(q);
                (shared::assemble::notifying(Arc::new(MemoryBlobs::default()), &q, &settings.bucket_name), q, Workers::InProcess(rx))
            }
            Backend::DynamoDb => {
                // A bucket and queues per test: the bucket notification names one queue.
                let name = format!("t{}", uuid::Uuid::new_v4().simple());
                let b = S3Blobs::from_env(name.clone()).await;
                settings.bucket_name = name.clone();
                b.create_bucket_if_missing().await.expect("test bucket");
                let q = Arc::new(SqsQueue::create(&name).await.expect("test queues"));
                let arn = q.arn(shared::queue::QueueName::Audience).await.expect("queue ARN");
                b.notify_queue(&arn, shared::workers::audience::PREFIX).await.expect("bucket notification");
                (Arc::new(b), q.clone(), Workers::Sqs(q))
            }
        };
        let (file, mut accounts) = fresh_seed();
        seed::apply(store.as_ref(), &file).await.expect("seeding");
        let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
        let state = AppState::new(store.clone(), blobs.clone(), queue.clone()).with_clock(clock.clone()).with_settings(settings);
        // What the service runs on: the store behind the retry of refused requests (as
        // `assemble` builds it), and the faults when the test has some.
        let (served, blobs, queue): (Arc<dyn Store>, Arc<dyn Blobs>, Arc<dyn Queue>) = match &faults {
            None => (store.clone(), blobs, queue),
            Some(f) => (
                Arc::new(faults::FaultyStore { inner: store.clone(), faults: f.clone() }),
                Arc::new(faults::FaultyBlobs { inner: blobs, faults: f.clone() }),
                Arc::new(faults::FaultyQueue { inner: queue, faults: f.clone() }),
            ),
        };
        let served: Arc<dyn Store> = Arc::new(shared::store::RetryingStore::new(served));
        let service = state.clone().with_blobs(blobs).with_queue(queue);
        // Each group and worker writes through the permissions template.yaml gives its Lambda.
        let scopes = scoped::template_scopes();
        let scoped = |function: &str| service.clone().with_store(scoped::ScopedStore::wrap(served.clone(), function, &scopes));
        workers.start_with(|q| {
            scoped(match q {
                shared::queue::QueueName::Assets => "asset-worker",
                shared::queue::QueueName::Audience => "audience-worker",
                shared::queue::QueueName::Events => "events-worker",
                shared::queue::QueueName::Forecast => "forecast-worker",
            })
        });
        let router = shared::api::app_per_group(service.clone().with_store(served.clone()), scoped);
        let b = accounts.pop().expect("two accounts");
        let a = accounts.pop().expect("two accounts");
        TestApp { router, state, store, clock, a, b }
    }

    pub async fn post_json(&self, path: &str, body: &serde_json::Value) -> Res {
        self.send("POST", path, Some(&self.a.key), Some("application/json"), &body.to_string()).await
    }
    pub async fn put_json(&self, path: &str, body: &serde_json::Value) -> Res {
        self.send("PUT", path, Some(&self.a.key), Some("application/json"), &body.to_string()).await
    }
    pub async fn patch_json(&self, path: &str, body: &serde_json::Value) -> Res {
        self.send("PATCH", path, Some(&self.a.key), Some("application/json"), &body.to_string()).await
    }

    pub async fn send(&self, method: &str, path: &str, key: Option<&str>, content_type: Option<&str>, body: &str) -> Res {
        self.send_with_headers(method, path, key, content_type, body, &[]).await
    }

    /// `send` with extra request headers.
    pub async fn send_with_headers(
        &self,
        method: &str,
        path: &str,
        key: Option<&str>,
        content_type: Option<&str>,
        body: &str,
        extra: &[(&str, &str)],
    ) -> Res {
        let mut req = Request::builder().method(Method::from_bytes(method.as_bytes()).expect("method")).uri(path);
        for (n, v) in extra {
            req = req.header(*n, *v);
        }
        if let Some(k) = key {
            req = req.header("x-o-api-key", k);
        }
        if let Some(ct) = content_type {
            req = req.header("content-type", ct);
        }
        let res = self.router.clone().oneshot(req.body(Body::from(body.to_string())).expect("request")).await.expect("infallible");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        Res { status, headers, body: String::from_utf8_lossy(&bytes).into_owned() }
    }

    /// As account `a`.
    pub async fn get(&self, path: &str) -> Res {
        self.send("GET", path, Some(&self.a.key), None, "").await
    }
    pub async fn get_as(&self, key: &str, path: &str) -> Res {
        self.send("GET", path, Some(key), None, "").await
    }
    pub async fn delete(&self, path: &str) -> Res {
        self.send("DELETE", path, Some(&self.a.key), None, "").await
    }
    pub async fn post_xml(&self, path: &str, body: &str) -> Res {
        self.send("POST", path, Some(&self.a.key), Some("application/xml"), body).await
    }
    pub async fn put_xml(&self, path: &str, body: &str) -> Res {
        self.send("PUT", path, Some(&self.a.key), Some("application/xml"), body).await
    }

    /// Creates a record through the API and returns its id (asserting the 200 text/plain).
    pub async fn create_xml(&self, path: &str, body: &str) -> String {
        let r = self.post_xml(path, body).await;
        assert_eq!(r.status, 200, "create {path}: {}", r.body);
        assert!(r.header("content-type").unwrap_or("").starts_with("text/plain"), "content type {:?}", r.header("content-type"));
        assert!(uuid::Uuid::parse_str(&r.body).is_ok(), "id {:?}", r.body);
        r.body
    }

    pub async fn client(&self, name: &str, kind: &str) -> String {
        self.create_xml("/api/1.0/client", &format!("<clientBean><name>{name}</name><type>{kind}</type></clientBean>")).await
    }

    pub async fn campaign(&self, name: &str, advertiser: &str) -> String {
        self.create_xml(
            "/api/1.0/campaign",
            &format!("<campaignBean><name>{name}</name><advertiserId>{advertiser}</advertiserId></campaignBean>"),
        )
        .await
    }
}

impl TestApp {
    /// A goal through the API: `type`, `goalValue`, start/end offsets in days from now.
    pub async fn goal(&self, campaign: &str, kind: &str, start_days: i64, end_days: Option<i64>, extra: &str) -> String {
        let now = shared::clock::Clock::now(self.clock.as_ref());
        let ts = |d: i64| (now + chrono::Duration::days(d)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
        let value = if kind == "SHARE_OF_VOICE" { "0.5" } else { "100000" };
        let end = end_days.map(|d| format!("<end>{}</end>", ts(d))).unwrap_or_default();
        self.create_xml(
            "/api/1.0.cpvext/goal",
            &format!(
                "<goalBean><campaignId>{campaign}</campaignId><type>{kind}</type><variant>NORMAL</variant><goalValue>{value}</goalValue>\
                 <start>{}</start>{end}{extra}</goalBean>",
                ts(start_days)
            ),
        )
        .await
    }

    /// An advertiser and a campaign for it.
    pub async fn advertiser_campaign(&self) -> (String, String) {
        let adv = self.client("Adv", "ADVERTISER").await;
        let c = self.campaign("C", &adv).await;
        (adv, c)
    }
}

/// Text of every `<name>` element in document order (a light reader for assertions).
pub fn xml_texts(doc: &str, name: &str) -> Vec<String> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let mut out = Vec::new();
    let mut rest = doc;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        match after.find(&close) {
            Some(j) => {
                out.push(after[..j].to_string());
                rest = &after[j + close.len()..];
            }
            None => break,
        }
    }
    out
}

pub fn xml_text(doc: &str, name: &str) -> Option<String> {
    xml_texts(doc, name).into_iter().next()
}

#[macro_export]
macro_rules! both_stores {
    ($(async fn $name:ident($app:ident : TestApp) $body:block)*) => {
        $(
            async fn $name($app: $crate::TestApp) $body
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn embedded() {
                    super::$name($crate::TestApp::spawn($crate::Backend::Embedded).await).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn dynamodb() {
                    super::$name($crate::TestApp::spawn($crate::Backend::DynamoDb).await).await
                }
            }
        )*
    };
}

/// The same for store-contract cases, which take the store itself.
#[macro_export]
macro_rules! store_contract {
    ($(async fn $name:ident($s:ident : Store) $body:block)*) => {
        $(
            async fn $name($s: std::sync::Arc<dyn shared::store::Store>) $body
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn embedded() {
                    super::$name($crate::store($crate::Backend::Embedded).await).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn dynamodb() {
                    super::$name($crate::store($crate::Backend::DynamoDb).await).await
                }
            }
        )*
    };
}

/// The bytes the file server serves at `/clip.mp4` (and `/big.mp4` is 10× that).
pub const CLIP: &[u8] = b"\x00\x00\x00\x18ftypmp42 this stands in for a video file, 64 bytes.";

/// A loopback HTTP server for the downloader: `/clip.mp4`, `/big.mp4`, `/moved.mp4`
/// (302 to the clip), `/missing.mp4` (404), `/slow.mp4` (answers after 3 s),
/// `/to-metadata.mp4` (302 to 169.254.169.254). Returns its base URL.
pub async fn spawn_file_server() -> String {
    use axum::http::{header, StatusCode};
    use axum::response::IntoResponse;
    use axum::routing::get;
    let app = Router::new()
        .route("/clip.mp4", get(|| async { ([(header::CONTENT_TYPE, "video/mp4")], CLIP) }))
        .route("/big.mp4", get(|| async { CLIP.repeat(10) }))
        .route("/moved.mp4", get(|| async { (StatusCode::FOUND, [(header::LOCATION, "/clip.mp4")]).into_response() }))
        .route(
            "/to-metadata.mp4",
            get(|| async { (StatusCode::FOUND, [(header::LOCATION, "http://169.254.169.254/latest/meta-data/")]).into_response() }),
        )
        .route("/missing.mp4", get(|| async { StatusCode::NOT_FOUND }))
        .route(
            "/slow.mp4",
            get(|| async {
                tokio::time::sleep(std::time::Duration::from_secs(3)).await;
                CLIP
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

impl TestApp {
    /// Polls an asset until its status is final (READY or FAILED); returns its JSON.
    pub async fn wait_asset(&self, location: &str) -> serde_json::Value {
        for _ in 0..200 {
            let r = self.get(location).await;
            if r.status == 200 {
                let v = r.json();
                if v["status"] == "READY" || v["status"] == "FAILED" {
                    return v;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("asset {location} did not finish: {}", self.get(location).await.body);
    }

    /// Uploads an asset by URL and waits for it; returns (location, final JSON).
    pub async fn asset_from(&self, url: &str, name: &str) -> (String, serde_json::Value) {
        let r = self.post_json("/v1/assets/video", &serde_json::json!({"name": name, "downloadUri": url})).await;
        assert_eq!(r.status, 201, "{}", r.body);
        let loc = r.header("location").expect("Location").to_string();
        let v = self.wait_asset(&loc).await;
        (loc, v)
    }
}

impl TestApp {
    /// Changes an account's settings in the store (what the admin command would do).
    pub async fn set_account(&self, id: &str, change: impl FnOnce(&mut shared::model::account::Account)) {
        let key = shared::keys::account(id);
        let cur = shared::repo::get::<shared::model::account::Account>(self.store.as_ref(), &key).await.unwrap().unwrap();
        let mut a = cur.value.clone();
        change(&mut a);
        self.store.put(shared::repo::next(&cur.item, &a).unwrap(), shared::store::Cond::Version(cur.version())).await.unwrap();
    }
}

/// `both_stores!` with the app's settings given.
#[macro_export]
macro_rules! both_stores_with {
    ($settings:expr; $(async fn $name:ident($app:ident : TestApp) $body:block)*) => {
        $(
            async fn $name($app: $crate::TestApp) $body
            mod $name {
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn embedded() {
                    super::$name($crate::TestApp::spawn_with($crate::Backend::Embedded, $settings).await).await
                }
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn dynamodb() {
                    super::$name($crate::TestApp::spawn_with($crate::Backend::DynamoDb, $settings).await).await
                }
            }
        )*
    };
}

impl TestApp {
    /// Moves the service clock.
    pub fn advance(&self, d: chrono::Duration) {
        let now = shared::clock::Clock::now(self.clock.as_ref());
        self.clock.set(now + d);
    }

    /// Uploads a batch file (as account `a`).
    pub async fn upload_batch(&self, query: &str, body: Vec<u8>, gzip: bool) -> Res {
        let mut req = Request::builder()
            .method(Method::POST)
            .uri(format!("/v1/audience/batch?{query}"))
            .header("x-o-api-key", &self.a.key)
            .header("content-type", "text/csv");
        if gzip {
            req = req.header("content-encoding", "gzip");
        }
        let res = self.router.clone().oneshot(req.body(Body::from(body)).expect("request")).await.expect("infallible");
        let status = res.status().as_u16();
        let headers = res.headers().clone();
        let bytes = res.into_body().collect().await.expect("body").to_bytes();
        Res { status, headers, body: String::from_utf8_lossy(&bytes).into_owned() }
    }

    /// Polls a batch until it is finished or cancelled; returns its progress object.
    pub async fn wait_batch(&self, link: &str) -> serde_json::Value {
        for _ in 0..400 {
            let r = self.get(link).await;
            if r.status == 200 {
                let v = r.json();
                if v["status"] == "PROCESSING_FINISHED" || v["status"] == "CANCELLED" {
                    return v;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("batch {link} did not finish: {}", self.get(link).await.body);
    }
}

/// This process's peak resident memory (VmHWM) in MB, for the benches.
pub fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Runs this bench binary again as `<exe> --child <arg> <dir>` (a fresh process, so its peak
/// memory is its own) and returns the child's `RESULT ` line without the prefix, or what it
/// printed when it gave none.
pub fn run_bench_child(arg: &str, dir: &std::path::Path) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(exe).arg("--child").arg(arg).arg(dir).output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let _ = std::fs::remove_dir_all(dir);
    match text.lines().find_map(|l| l.strip_prefix("RESULT ")) {
        Some(l) => Ok(l.to_string()),
        None => Err(format!("{text}\n{}", String::from_utf8_lossy(&out.stderr))),
    }
}
