//! The sign-in and upload attacks of docs/security.md, measured: each scenario runs in a
//! process of its own (so its peak memory is its own), on the embedded store, through the
//! real router, with requests sent as browsers send them.
//!   - 300 concurrent sign-ins to unknown emails, each from its own address (so no
//!     allowance holds them off: only the Argon2 gate does), and the same from one address;
//!     the answers by status, the passwords verified, and the process's peak memory above
//!     what it held before;
//!   - 30 concurrent wrong guesses of one user's password from one address: how many were
//!     verified;
//!   - a VIEWER's 600 MB chunked upload to the ad form without the form's token: its answer,
//!     how much of the body was read, and the peak memory above before.
//!
//!   cargo bench -p api-tests --bench sign_in_attacks

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use api_tests::serde_json::json;
use api_tests::{peak_rss_mb, run_bench_child, Backend, Browser, TestApp};
use tower::ServiceExt;

const PASSWORD: &str = "a long enough password";
/// Each request's deadline: an answer later than this counts as timed out.
const DEADLINE: Duration = Duration::from_secs(30);

fn counts(statuses: &[u16]) -> String {
    let mut by: BTreeMap<u16, usize> = BTreeMap::new();
    for s in statuses {
        *by.entry(*s).or_default() += 1;
    }
    by.iter().map(|(s, n)| format!("{s}: {n}")).collect::<Vec<_>>().join(", ")
}

/// `n` sign-ins at once to unknown emails; `one_address`: all from 10.1.0.1.
async fn unknown_emails(app: &TestApp, n: usize, one_address: bool) -> (Vec<u16>, usize) {
    let attempts = (0..n).map(|i| async move {
        let from = if one_address { "10.1.0.1".to_string() } else { format!("10.{}.{}.{}", 2 + i / 65536, (i / 256) % 256, i % 256) };
        let email = format!("nobody-{i}@example.com");
        match tokio::time::timeout(DEADLINE, app.console_sign_in_from(&email, "a wrong password!", Some(&from))).await {
            Ok((r, _)) => r.status,
            Err(_) => 0,
        }
    });
    let statuses = futures_util::future::join_all(attempts).await;
    let timed_out = statuses.iter().filter(|s| **s == 0).count();
    (statuses, timed_out)
}

async fn child(scenario: &str) -> String {
    let app = TestApp::spawn(Backend::Embedded).await;
    match scenario {
        "unknown-many" | "unknown-one" => {
            let before = peak_rss_mb();
            let started = Instant::now();
            let verified = app.state.passwords.verified();
            let (statuses, timed_out) = unknown_emails(&app, 300, scenario == "unknown-one").await;
            let took = started.elapsed().as_secs_f64();
            format!(
                "{} | {} | {timed_out} | {} | {:.0} | {:.1} |",
                counts(&statuses),
                statuses.len(),
                app.state.passwords.verified() - verified,
                peak_rss_mb() - before,
                took
            )
        }
        "guesses" => {
            app.post_json("/v1/users", &json!({"email": "dee@example.com", "name": "Dee", "role": "VIEWER", "password": PASSWORD}))
                .await
                .expect(201);
            let verified = app.state.passwords.verified();
            let guesses = (0..30).map(|i| {
                let app = &app;
                async move { app.console_sign_in_from("dee@example.com", &format!("wrong guess {i}!"), Some("10.66.0.2")).await.0.status }
            });
            let statuses = futures_util::future::join_all(guesses).await;
            format!("{} | {} |", counts(&statuses), app.state.passwords.verified() - verified)
        }
        "upload" => {
            for (email, role) in [("ann@a.example", "TRAFFICKER"), ("vic@a.example", "VIEWER")] {
                app.post_json("/v1/users", &json!({"email": email, "name": "Ann", "role": role, "password": PASSWORD})).await.expect(201);
            }
            let ann = Browser::sign_in(&app, "ann@a.example", PASSWORD).await;
            let vic = Browser::sign_in(&app, "vic@a.example", PASSWORD).await;
            let r = ann.post("/console/campaigns", &[("name", "Winter"), ("new_advertiser", "Acme"), ("state", "live")]).await;
            let c = api_tests::location(&r).rsplit('/').next().unwrap_or("").to_string();
            let fields = [
                ("name", "Morning"),
                ("type", "IMPRESSION"),
                ("start", "2030-01-01T00:00"),
                ("end", "2030-01-31T00:00"),
                ("value", "1000"),
            ];
            let r = ann.post(&format!("/console/campaigns/{c}/goals"), &fields).await;
            let g = api_tests::location(&r).rsplit('/').next().unwrap_or("").to_string();
            let before = peak_rss_mb();
            let pulled = Arc::new(AtomicUsize::new(0));
            // 600 MB, chunked (no Content-Length), no form token.
            let req = axum::http::Request::builder()
                .method("POST")
                .uri(format!("/console/goals/{g}/ads"))
                .header("host", api_tests::CONSOLE_HOST)
                .header("origin", api_tests::CONSOLE_ORIGIN)
                .header("cookie", format!("o_session={}", vic.session))
                .header("content-type", "multipart/form-data; boundary=XBOUNDARY")
                .body(api_tests::ad_form(&[("name", "A spot")], 600 * 16, pulled.clone()))
                .expect("request");
            let started = Instant::now();
            let res = app.router.clone().oneshot(req).await.expect("answer");
            let status = res.status().as_u16();
            let _ = http_body_util::BodyExt::collect(res.into_body()).await;
            format!(
                "{status} | {:.1} | {:.1} | {:.2} |",
                pulled.load(Ordering::Relaxed) as f64 / 1_048_576.0,
                peak_rss_mb() - before,
                started.elapsed().as_secs_f64()
            )
        }
        other => format!("unknown scenario {other}"),
    }
}

#[tokio::main(flavor = "multi_thread")]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        let out = child(args.get(2).map(String::as_str).unwrap_or("")).await;
        println!("RESULT {out}");
        return;
    }
    let dir = std::env::temp_dir().join(format!("sign-in-attacks-{}", std::process::id()));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("Sign-in and upload attacks, embedded store, {cores} cores, each scenario in a process of its own.\n");
    println!("| 300 concurrent sign-ins to unknown emails | answers | n | timed out (> 30 s) | passwords verified | peak memory above before, MB | s |");
    println!("|---|---|---|---|---|---|---|");
    for (label, scenario) in [("each from its own address", "unknown-many"), ("all from one address", "unknown-one")] {
        match run_bench_child(scenario, &dir) {
            Ok(line) => println!("| {label} | {line}"),
            Err(e) => println!("| {label} | failed: {e} |"),
        }
    }
    println!("\n| 30 concurrent wrong guesses, one email, one address | answers | passwords verified |\n|---|---|---|");
    match run_bench_child("guesses", &dir) {
        Ok(line) => println!("| at once | {line}"),
        Err(e) => println!("| at once | failed: {e} |"),
    }
    println!("\n| a VIEWER's 600 MB chunked ad upload, no form token | status | body read, MB | peak memory above before, MB | s |\n|---|---|---|---|---|");
    match run_bench_child("upload", &dir) {
        Ok(line) => println!("| console ad form | {line}"),
        Err(e) => println!("| console ad form | failed: {e} |"),
    }
}
