//! The app under test: its store (embedded or the emulator's DynamoDB), its two tenants,
//! and how it is assembled for a test.

use std::sync::Arc;

use axum::Router;

use web::assemble::Workers;
use web::blobs::s3::S3Blobs;
use web::blobs::{Blobs, MemoryBlobs};
use web::clock::ManualClock;
use web::queue::durable::DurableQueue;
use web::queue::sqs::SqsQueue;
use web::queue::Queue;
use web::seed::{self, SeedFile};
use web::state::{AppState, Settings};
use web::store::dynamodb::DynamoStore;
use web::store::embedded::EmbeddedStore;
use web::store::Store;

use crate::{faults, scoped};

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Backend {
    Embedded,
    DynamoDb,
}

/// A table of its own for each emulator-backed store: moto answers a GSI query (and sorts
/// the answer) by walking every item of the table, so one table shared by the whole run
/// made each query slower as the run went on (docs/testing.md).
fn table() -> String {
    let base = std::env::var("TEST_TABLE_NAME").unwrap_or_else(|_| "adserver-test".into());
    format!("{base}-{}", &uuid::Uuid::new_v4().simple().to_string()[..12])
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

#[derive(Clone)]
pub struct Account {
    pub id: String,
    pub key: String,
}

pub struct TestApp {
    pub router: Router,
    pub state: AppState,
    pub store: Arc<dyn Store>,
    /// The bidders port: in-process stubs register here (`Bidder::in_process`).
    pub bidders: Arc<crate::bidder::InProcessBidders>,
    pub clock: Arc<ManualClock>,
    /// Two accounts with full reference data: `a` is the one tests act as, `b` the other
    /// tenant that must never see `a`'s records.
    pub a: Account,
    pub b: Account,
}

/// The demo seed, with fresh account ids and keys so tests never share data.
fn fresh_seed() -> (SeedFile, Vec<Account>) {
    let mut f = SeedFile::parse(seed::DEMO_SEED).expect("demo seed");
    let mut accounts = Vec::new();
    for a in &mut f.accounts {
        let id = format!("t-{}", uuid::Uuid::new_v4().simple());
        let key = web::ids::new_api_key();
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
            // The stub bidders of the tests answer on loopback.
            demand_allow_private_urls: true,
            sso_allow_private_urls: true,
            asset_download_timeout: std::time::Duration::from_secs(5),
            // Every ad request sees the latest version and pace records.
            delivery_refresh: std::time::Duration::ZERO,
            // The tests are scripts: no per-account rate (its own test sets one).
            account_rate_per_sec: 0.0,
            ..Settings::default()
        }
    }

    pub async fn spawn(backend: Backend) -> TestApp {
        Self::spawn_with(backend, Self::settings()).await
    }

    /// The app served over HTTP on a loopback port (for a real browser): its documents'
    /// ad-request, tracking and media links point at that port. Returns the app and its
    /// base URL.
    pub async fn spawn_listening(backend: Backend) -> (TestApp, String) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let base = format!("http://{}", listener.local_addr().expect("addr"));
        let settings = Settings {
            ad_request_base_url: base.clone(),
            media_base_url: format!("{base}{}", web::settings::MEDIA_PATH),
            ..Self::settings()
        };
        let app = Self::spawn_with(backend, settings).await;
        let router = app.router.clone();
        tokio::spawn(async move {
            let _ = axum::serve(listener, router.into_make_service_with_connect_info::<std::net::SocketAddr>()).await;
        });
        (app, base)
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
                // The local server's queue: durable, its messages in the same store.
                let dq = Arc::new(DurableQueue::open(store.clone()).await.expect("local queue"));
                let q: Arc<dyn Queue> = dq.clone();
                (web::assemble::notifying(Arc::new(MemoryBlobs::default()), &q, &settings.bucket_name), q, Workers::Durable(dq))
            }
            Backend::DynamoDb => {
                // A bucket and queues per test: the bucket notification names one queue.
                let name = format!("t{}", uuid::Uuid::new_v4().simple());
                let b = S3Blobs::from_env(name.clone()).await;
                settings.bucket_name = name.clone();
                b.create_bucket_if_missing().await.expect("test bucket");
                let q = Arc::new(SqsQueue::create(&name).await.expect("test queues"));
                let arn = q.arn(web::queue::QueueName::Audience).await.expect("queue ARN");
                b.notify_queue(&arn, web::workers::audience::PREFIX).await.expect("bucket notification");
                (Arc::new(b), q.clone(), Workers::Sqs(q))
            }
        };
        let (file, mut accounts) = fresh_seed();
        seed::apply(store.as_ref(), &file).await.expect("seeding");
        let clock = Arc::new(ManualClock::new(chrono::Utc::now()));
        let resolver: Arc<dyn web::resolve::Resolve> = Arc::new(crate::bidder::TestResolver);
        let bidders = Arc::new(crate::bidder::InProcessBidders::new(resolver.clone()));
        let state = AppState::new(store.clone(), blobs.clone(), queue.clone())
            .with_media(Arc::new(web::media::local::Ffmpeg::new(std::env::temp_dir())))
            .with_clock(clock.clone())
            .with_settings(settings)
            .with_resolver(resolver)
            .with_bidders(bidders.clone());
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
        let served: Arc<dyn Store> = Arc::new(web::store::RetryingStore::new(served));
        let service = state.clone().with_blobs(blobs).with_queue(queue);
        // Each group and worker writes through the permissions template.yaml gives its Lambda.
        let scopes = scoped::template_scopes();
        let scoped = |function: &str| service.clone().with_store(scoped::ScopedStore::wrap(served.clone(), function, &scopes));
        workers.start_with(|q| {
            // Each worker is a Lambda of its own: its own snapshot cache.
            scoped(match q {
                web::queue::QueueName::Assets => "asset-worker",
                web::queue::QueueName::Audience => "audience-worker",
                web::queue::QueueName::Events => "events-worker",
                web::queue::QueueName::Forecast => "forecast-worker",
                web::queue::QueueName::Notices => "notices-worker",
                web::queue::QueueName::Compile => "compile-worker",
            })
            .with_own_delivery_cache()
        });
        // The groups, and the media route the local server serves (MEDIA_BASE_URL points there).
        let router = web::api::app_per_group(service.clone().with_store(served.clone()), scoped)
            .merge(web::api::media::router(service.clone().with_store(served.clone())));
        let b = accounts.pop().expect("two accounts");
        let a = accounts.pop().expect("two accounts");
        TestApp { router, state, store, bidders, clock, a, b }
    }
}
