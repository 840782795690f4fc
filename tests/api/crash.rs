//! The embedded default loses no accepted work (docs/operations.md, "The local queue"): the
//! local server, as a process of its own over a store file, accepts tracking events and
//! forecast jobs, is killed with SIGKILL at once, and is started again on the same file.
//! Every accepted event is counted once, every job finishes, and the account's forecast
//! quota is free again.

use std::time::{Duration, Instant};

use api_tests::serde_json::{json, Value};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;

const KEY: &str = "alpha-demo-key-7f3c9a1e5b2d4680";
const ACCOUNT: &str = "demo-alpha";
const BROWSER: &str = api_tests::PLAYER_UA;

struct Answer {
    status: u16,
    location: Option<String>,
    body: String,
}

impl Answer {
    fn json(&self) -> Value {
        api_tests::serde_json::from_str(&self.body).unwrap_or(Value::Null)
    }
}

/// One HTTP/1.1 request to the server on `port`.
async fn call(port: u16, method: &str, path: &str, content_type: Option<&str>, body: &str) -> Result<Answer, String> {
    let stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.map_err(|e| e.to_string())?;
    let (mut send, conn) = hyper::client::conn::http1::handshake(hyper_util::rt::TokioIo::new(stream)).await.map_err(|e| e.to_string())?;
    tokio::spawn(conn);
    let mut req = hyper::Request::builder().method(method).uri(path).header("host", "127.0.0.1").header("user-agent", BROWSER);
    if !path.starts_with("/v1/adrequest") && !path.starts_with("/v1/track") {
        req = req.header("x-o-api-key", KEY);
    }
    if let Some(ct) = content_type {
        req = req.header("content-type", ct);
    }
    let res = send
        .send_request(req.body(Full::new(Bytes::from(body.to_string()))).map_err(|e| e.to_string())?)
        .await
        .map_err(|e| e.to_string())?;
    let status = res.status().as_u16();
    let location = res.headers().get("location").and_then(|v| v.to_str().ok()).map(str::to_string);
    let bytes = res.into_body().collect().await.map_err(|e| e.to_string())?.to_bytes();
    Ok(Answer { status, location, body: String::from_utf8_lossy(&bytes).into_owned() })
}

/// The local server on a fresh port over `dir`, once it answers.
async fn start(dir: &std::path::Path) -> (Server, u16) {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_local-server-for-tests"))
        .args(["--port", &port.to_string()])
        .env("STORE", "embedded")
        .env("DATA_DIR", dir)
        .env("RUST_LOG", "warn")
        .env_remove("AWS_ENDPOINT_URL")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the local server starts");
    let child = Server(child);
    for _ in 0..300 {
        if call(port, "GET", "/openapi.json", None, "").await.is_ok_and(|a| a.status == 200) {
            return (child, port);
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the local server did not answer on {port}");
}

/// The id an XML create answers (its body, as text).
fn created(a: &Answer) -> String {
    assert_eq!(a.status, 200, "{}", a.body);
    assert!(uuid::Uuid::parse_str(&a.body).is_ok(), "id {:?}", a.body);
    a.body.clone()
}

/// The server process, killed when the test ends however it ends.
struct Server(std::process::Child);

impl Server {
    /// SIGKILL, then reaped.
    fn kill(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
    }
}

fn day(days: i64) -> String {
    (chrono::Utc::now() + chrono::Duration::days(days)).format("%Y-%m-%dT00:00:00.000Z").to_string()
}

/// An enabled campaign with one live goal and one IPTV preroll (nothing to download).
async fn live_ad(port: u16) -> String {
    let xml = Some("application/xml");
    let adv = created(
        &call(port, "POST", "/api/1.0/client", xml, "<clientBean><name>Crash Adv</name><type>ADVERTISER</type></clientBean>")
            .await
            .unwrap(),
    );
    let c = created(
        &call(
            port,
            "POST",
            "/api/1.0/campaign",
            xml,
            &format!("<campaignBean><name>C</name><advertiserId>{adv}</advertiserId><enabled>true</enabled></campaignBean>"),
        )
        .await
        .unwrap(),
    );
    let now = chrono::Utc::now();
    let ts = |d: i64| (now + chrono::Duration::days(d)).to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
    let goal = format!(
        "<goalBean><campaignId>{c}</campaignId><type>IMPRESSION</type><variant>NORMAL</variant><goalValue>100000</goalValue><start>{}</start><end>{}</end></goalBean>",
        ts(0),
        ts(10)
    );
    let g = created(&call(port, "POST", "/api/1.0.cpvext/goal", xml, &goal).await.unwrap());
    let ad = json!({"name": "Spot", "goalId": g, "enabled": true,
        "creative": {"type": "iptv", "insertionPoint": "preroll", "videoCreativeId": "vc-1", "clickDestinationUri": "https://example.com/buy"}});
    let r = call(port, "POST", "/v1/ads", Some("application/json"), &ad.to_string()).await.unwrap();
    assert_eq!(r.status, 201, "{}", r.body);
    r.json()["id"].as_str().unwrap().to_string()
}

fn impression_link(doc: &str) -> String {
    let i = doc.find("/v1/track/impression?").unwrap_or_else(|| panic!("no impression link in {doc}"));
    let rest = &doc[i..];
    rest[..rest.find([']', '<', '"']).unwrap_or(rest.len())].replace("&amp;", "&")
}

fn inventory() -> String {
    json!({"name": "Crash inventory", "variant": "NORMAL", "startDate": day(2), "endDate": day(9),
        "formatTypes": ["PREROLL"], "deviceContainers": [format!("{ACCOUNT}-dc-desktop")],
        "targeting": {"targetingTemplates": null, "targetingRules": {}}})
    .to_string()
}

async fn impressions(port: u16, ad: &str) -> i64 {
    let r = call(port, "GET", &format!("/v3/ads/{ad}?embed=metrics"), None, "").await.unwrap();
    r.json()["metrics"]["impression"].as_i64().unwrap_or(-1)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_killed_local_server_keeps_every_accepted_event_and_job() {
    let dir = std::env::temp_dir().join(format!("crash-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).unwrap();
    let (mut server, port) = start(&dir).await;
    let ad = live_ad(port).await;
    // 60 documents, then their 60 impressions and 3 forecast jobs at once; SIGKILL as soon
    // as the last one is answered.
    let mut links = Vec::new();
    for _ in 0..60 {
        let doc = call(port, "GET", &format!("/v1/adrequest?account={ACCOUNT}&format=preroll"), None, "").await.unwrap();
        assert_eq!(doc.status, 200, "{}", doc.body);
        links.push(impression_link(&doc.body));
    }
    let fired = futures_util::future::join_all(links.iter().map(|l| call(port, "GET", l, None, ""))).await;
    let body = inventory();
    let jobs =
        futures_util::future::join_all((0..3).map(|_| call(port, "POST", "/api/2.0/forecast/inventory", Some("application/json"), &body)))
            .await;
    server.kill();
    assert!(fired.iter().all(|r| r.as_ref().is_ok_and(|a| a.status == 204)), "every impression was accepted");
    let jobs: Vec<String> = jobs
        .into_iter()
        .map(|r| r.unwrap())
        .map(|a| {
            assert_eq!(a.status, 202, "{}", a.body);
            a.location.unwrap()
        })
        .collect();

    // The same store file, a new process: what was accepted is done, once.
    let (mut server, port) = start(&dir).await;
    let deadline = Instant::now() + Duration::from_secs(60);
    while impressions(port, &ad).await < 60 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for job in &jobs {
        loop {
            let r = call(port, "GET", job, None, "").await.unwrap();
            if r.status == 201 {
                assert_eq!(r.json()["status"], "FINISHED", "{}", r.body);
                break;
            }
            assert!(Instant::now() < deadline, "{job} did not finish after the restart: {}", r.body);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    // Counted once: nothing more arrives later.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(impressions(port, &ad).await, 60, "every accepted impression counted once");
    // The jobs' quota slots are free: a new forecast is accepted.
    let again = call(port, "POST", "/api/2.0/forecast/inventory", Some("application/json"), &inventory()).await.unwrap();
    assert_eq!(again.status, 202, "{}", again.body);
    server.kill();
    let _ = std::fs::remove_dir_all(&dir);
}
