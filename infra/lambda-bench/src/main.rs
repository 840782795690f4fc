//! lambda-bench: an emulated Lambda Runtime API (the `/2018-06-01/runtime/...` endpoints a
//! `bootstrap` talks to) that measures cold starts the way Lambda sees them.
//!
//! For each function it spawns the binary with `AWS_LAMBDA_RUNTIME_API` pointing here and
//! measures: spawn → first `GET /next` (init), first `GET /next` → its response (first
//! invoke), and the peak resident set (`VmHWM`) once it has answered. Each function is run
//! alternately with a baseline binary, so both see the same machine state, and the medians
//! and their ratios are printed.
//!
//! Usage: lambda-bench [--runs N] --baseline <bootstrap> <name>=<bootstrap> ...
//! HTTP functions receive an API Gateway HTTP API (v2) event; names ending in `-worker`
//! and `-janitor` receive an SQS (or DynamoDB stream) event with no records.

use std::net::SocketAddr;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Router;
use tokio::sync::Notify;

#[derive(Default)]
struct Run {
    event: Option<String>,
    first_next: Option<Instant>,
    answered: Option<(Instant, bool)>,
}

#[derive(Clone, Default)]
struct Api {
    run: Arc<Mutex<Run>>,
    done: Arc<Notify>,
}

const REQUEST_ID: &str = "8476a536-e9f4-11e8-9739-2dfe598c3fcd";

async fn next(State(api): State<Api>) -> Response {
    let event = {
        let Ok(mut run) = api.run.lock() else { return StatusCode::INTERNAL_SERVER_ERROR.into_response() };
        run.first_next.get_or_insert_with(Instant::now);
        run.event.take()
    };
    let Some(event) = event else {
        // The function is idle: hold the long poll until it is killed.
        std::future::pending::<()>().await;
        return StatusCode::NO_CONTENT.into_response();
    };
    let mut h = HeaderMap::new();
    h.insert("lambda-runtime-aws-request-id", HeaderValue::from_static(REQUEST_ID));
    let deadline = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap_or_default() + Duration::from_secs(30);
    if let Ok(v) = HeaderValue::from_str(&deadline.as_millis().to_string()) {
        h.insert("lambda-runtime-deadline-ms", v);
    }
    h.insert("lambda-runtime-invoked-function-arn", HeaderValue::from_static("arn:aws:lambda:us-east-1:123456789012:function:bench"));
    h.insert(
        "lambda-runtime-trace-id",
        HeaderValue::from_static("Root=1-5bef4de7-ad49b0e87f6ef6c87fc2e700;Parent=9a9197af755a6419;Sampled=1"),
    );
    h.insert("content-type", HeaderValue::from_static("application/json"));
    (StatusCode::OK, h, event).into_response()
}

async fn answered(api: &Api, ok: bool) -> StatusCode {
    if let Ok(mut run) = api.run.lock() {
        run.answered.get_or_insert((Instant::now(), ok));
    }
    api.done.notify_one();
    StatusCode::ACCEPTED
}

async fn response(State(api): State<Api>, Path(_id): Path<String>) -> StatusCode {
    answered(&api, true).await
}

async fn error(State(api): State<Api>, Path(_id): Path<String>, body: String) -> StatusCode {
    eprintln!("  function reported an error: {body}");
    answered(&api, false).await
}

async fn init_error(State(api): State<Api>, body: String) -> StatusCode {
    eprintln!("  init error: {body}");
    answered(&api, false).await
}

fn http_event() -> String {
    serde_json::json!({
        "version": "2.0", "routeKey": "$default", "rawPath": "/api/1.0/client", "rawQueryString": "",
        "headers": {"accept": "*/*", "host": "bench.execute-api.us-east-1.amazonaws.com", "user-agent": "lambda-bench"},
        "requestContext": {"accountId": "123456789012", "apiId": "bench", "domainName": "bench.execute-api.us-east-1.amazonaws.com",
            "domainPrefix": "bench", "http": {"method": "GET", "path": "/api/1.0/client", "protocol": "HTTP/1.1",
            "sourceIp": "127.0.0.1", "userAgent": "lambda-bench"}, "requestId": "bench", "routeKey": "$default",
            "stage": "$default", "time": "23/Nov/2026:10:00:00 +0000", "timeEpoch": 1795428000000u64},
        "isBase64Encoded": false
    })
    .to_string()
}

struct Sample {
    init: Duration,
    invoke: Duration,
    rss_kib: u64,
}

fn peak_rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok()).unwrap_or(0)
}

async fn measure(api: &Api, addr: SocketAddr, bin: &str, event: String) -> Result<Sample, String> {
    if let Ok(mut run) = api.run.lock() {
        *run = Run { event: Some(event), ..Run::default() };
    }
    let start = Instant::now();
    let mut child = tokio::process::Command::new(bin)
        .env_clear()
        .env("PATH", std::env::var("PATH").unwrap_or_default())
        .env("AWS_LAMBDA_RUNTIME_API", addr.to_string())
        .env("AWS_LAMBDA_FUNCTION_NAME", "bench")
        .env("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "256")
        .env("AWS_LAMBDA_FUNCTION_VERSION", "$LATEST")
        .env("AWS_LAMBDA_LOG_GROUP_NAME", "/aws/lambda/bench")
        .env("AWS_LAMBDA_LOG_STREAM_NAME", "bench")
        .env("AWS_LAMBDA_LOG_LEVEL", "WARN")
        .env("AWS_REGION", "us-east-1")
        .env("AWS_ACCESS_KEY_ID", "test")
        .env("AWS_SECRET_ACCESS_KEY", "test")
        .env("TABLE_NAME", "bench")
        .env("BUCKET_NAME", "bench")
        .env("ASSET_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/assets")
        .env("AUDIENCE_QUEUE_URL", "https://sqs.us-east-1.amazonaws.com/123456789012/audience")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("spawning {bin}: {e}"))?;
    let pid = child.id().unwrap_or(0);
    let waited = tokio::time::timeout(Duration::from_secs(20), api.done.notified()).await;
    let rss_kib = peak_rss_kib(pid);
    let _ = child.kill().await;
    waited.map_err(|_| format!("{bin} did not answer within 20 s"))?;
    let run = api.run.lock().map_err(|_| "state poisoned".to_string())?;
    let (first_next, (answered, ok)) = match (run.first_next, run.answered) {
        (Some(n), Some(a)) => (n, a),
        _ => return Err(format!("{bin} answered without asking for an event")),
    };
    if !ok {
        return Err(format!("{bin} failed its invocation"));
    }
    Ok(Sample { init: first_next - start, invoke: answered - first_next, rss_kib })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    match v.len() {
        0 => f64::NAN,
        n if n % 2 == 1 => v[n / 2],
        n => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

struct Summary {
    size_mb: f64,
    init_ms: f64,
    invoke_ms: f64,
    rss_mb: f64,
}

fn summarise(bin: &str, samples: &[Sample]) -> Summary {
    Summary {
        size_mb: std::fs::metadata(bin).map(|m| m.len() as f64 / 1e6).unwrap_or(f64::NAN),
        init_ms: median(samples.iter().map(|s| s.init.as_secs_f64() * 1e3).collect()),
        invoke_ms: median(samples.iter().map(|s| s.invoke.as_secs_f64() * 1e3).collect()),
        rss_mb: median(samples.iter().map(|s| s.rss_kib as f64 / 1024.0).collect()),
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 1)]
async fn main() {
    if let Err(e) = run().await {
        eprintln!("lambda-bench: {e}");
        std::process::exit(1);
    }
}

async fn run() -> Result<(), String> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut runs = 15usize;
    let mut baseline = None;
    let mut functions = Vec::new();
    let mut it = args.into_iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--runs" => runs = it.next().and_then(|v| v.parse().ok()).ok_or("--runs takes a number")?,
            "--baseline" => baseline = Some(it.next().ok_or("--baseline takes a path")?),
            f => {
                let (name, bin) = f.split_once('=').ok_or_else(|| format!("expected <name>=<bootstrap>, got {f}"))?;
                functions.push((name.to_string(), bin.to_string()));
            }
        }
    }
    let baseline = baseline.ok_or("--baseline <bootstrap> is required")?;
    if functions.is_empty() {
        return Err("name at least one function: <name>=<bootstrap>".into());
    }
    let api = Api::default();
    let app = Router::new()
        .route("/2018-06-01/runtime/invocation/next", get(next))
        .route("/2018-06-01/runtime/invocation/{id}/response", post(response))
        .route("/2018-06-01/runtime/invocation/{id}/error", post(error))
        .route("/2018-06-01/runtime/init/error", post(init_error))
        .with_state(api.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });

    println!("{runs} alternating cold starts per function (medians); ratios against {baseline}");
    println!("{:<20} {:>8} {:>6} {:>9} {:>6} {:>10} {:>8} {:>6}", "function", "size MB", "x", "init ms", "x", "invoke ms", "RSS MB", "x");
    let mut worst = (0.0f64, 0.0f64);
    for (name, bin) in &functions {
        let event = if name.ends_with("-worker") || name.ends_with("-janitor") { r#"{"Records":[]}"#.to_string() } else { http_event() };
        // One unmeasured start of each warms the page cache.
        measure(&api, addr, &baseline, http_event()).await?;
        measure(&api, addr, bin, event.clone()).await?;
        let (mut base, mut this) = (Vec::new(), Vec::new());
        for _ in 0..runs {
            base.push(measure(&api, addr, &baseline, http_event()).await?);
            this.push(measure(&api, addr, bin, event.clone()).await?);
        }
        let (b, t) = (summarise(&baseline, &base), summarise(bin, &this));
        let (size_x, init_x, rss_x) = (t.size_mb / b.size_mb, t.init_ms / b.init_ms, t.rss_mb / b.rss_mb);
        worst = (worst.0.max(size_x), worst.1.max(init_x));
        println!(
            "{:<20} {:>8.2} {:>6.2} {:>9.2} {:>6.2} {:>10.2} {:>8.1} {:>6.2}",
            name, t.size_mb, size_x, t.init_ms, init_x, t.invoke_ms, t.rss_mb, rss_x
        );
        println!("{:<20} {:>8.2} {:>6} {:>9.2} {:>6} {:>10.2} {:>8.1}", "  baseline", b.size_mb, "", b.init_ms, "", b.invoke_ms, b.rss_mb);
    }
    println!("largest ratios: size {:.2}x, cold init {:.2}x", worst.0, worst.1);
    Ok(())
}
