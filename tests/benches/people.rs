//! People and roles' figures (docs/people-and-roles.md), on the embedded store:
//!   - one Argon2id hash and one verification (OWASP's parameters, this build), median and max;
//!   - sign-in: the sign-in page and form through the router, p50 and p99, alone and while
//!     four other tasks read campaigns (what a sign-in costs the requests beside it: their
//!     p99 with and without sign-ins running);
//!   - revocation: a key used (so cached), revoked, then tried every 10 ms until refused.
//!
//!   cargo bench -p api-tests --bench people

use std::sync::Arc;
use std::time::{Duration, Instant};

use api_tests::serde_json::json;
use api_tests::{Backend, TestApp};

fn pct(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(((v.len() as f64 - 1.0) * p).round() as usize).copied().unwrap_or(f64::NAN)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

async fn sign_in_once(app: &TestApp, email: &str, password: &str) -> Duration {
    let started = Instant::now();
    let (r, session) = app.console_sign_in(email, password).await;
    assert!(r.status == 303 && session.is_some(), "{}", r.body);
    started.elapsed()
}

/// p99 of campaign reads by four tasks (spawned: they run beside whatever else runs) for `d`.
async fn reads_p99(app: &Arc<TestApp>, d: Duration) -> (f64, usize) {
    let until = Instant::now() + d;
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let app = app.clone();
            tokio::spawn(async move {
                let mut t = Vec::new();
                while Instant::now() < until {
                    let s = Instant::now();
                    let r = app.get("/api/1.0/campaign").await;
                    assert_eq!(r.status, 200, "{}", r.body);
                    t.push(ms(s.elapsed()));
                    // A served request waits on its socket; this in-process one never does, so
                    // it lets the runtime run the other tasks between two (as a server would).
                    tokio::task::yield_now().await;
                }
                t
            })
        })
        .collect();
    let mut all: Vec<f64> = futures_util::future::join_all(tasks).await.into_iter().flat_map(Result::unwrap_or_default).collect();
    let n = all.len();
    (pct(&mut all, 0.99), n)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 4)]
async fn main() {
    // Hashing, alone.
    let (mut hash, mut verify) = (Vec::new(), Vec::new());
    for i in 0..20 {
        let s = Instant::now();
        let h = web::passwords::hash(format!("a password of twenty {i}")).await.expect("hash");
        hash.push(ms(s.elapsed()));
        let s = Instant::now();
        assert!(web::passwords::verify(format!("a password of twenty {i}"), Some(h)).await);
        verify.push(ms(s.elapsed()));
    }
    println!("| Argon2id (19 MiB, t=2, p=1) | median ms | max ms |\n|---|---|---|");
    println!("| hash | {:.1} | {:.1} |", pct(&mut hash.clone(), 0.5), pct(&mut hash, 1.0));
    println!("| verify | {:.1} | {:.1} |", pct(&mut verify.clone(), 0.5), pct(&mut verify, 1.0));

    let app = Arc::new(TestApp::spawn(Backend::Embedded).await);
    let password = "a long benchmark password";
    for i in 0..4 {
        let r = app
            .post_json(
                "/v1/users",
                &json!({"email": format!("u{i}@bench.example"), "name": "Bench", "role": "VIEWER", "password": password}),
            )
            .await;
        assert_eq!(r.status, 201, "{}", r.body);
    }
    // Sign-ins alone.
    let mut alone = Vec::new();
    for i in 0..40 {
        alone.push(ms(sign_in_once(&app, &format!("u{}@bench.example", i % 4), password).await));
    }
    // Reads alone, then reads while four tasks sign in.
    let window = Duration::from_secs(3);
    let (quiet_p99, quiet_n) = reads_p99(&app, window).await;
    let signing = async {
        let until = Instant::now() + window;
        let tasks: Vec<_> = (0..4)
            .map(|i| {
                let app = app.clone();
                tokio::spawn(async move {
                    let mut t = Vec::new();
                    while Instant::now() < until {
                        t.push(ms(sign_in_once(&app, &format!("u{i}@bench.example"), password).await));
                    }
                    t
                })
            })
            .collect();
        futures_util::future::join_all(tasks).await.into_iter().flat_map(Result::unwrap_or_default).collect::<Vec<f64>>()
    };
    let ((busy_p99, busy_n), mut concurrent) = tokio::join!(reads_p99(&app, window), signing);
    println!("\n| sign-in (page + form, embedded store) | n | p50 ms | p99 ms |\n|---|---|---|---|");
    println!("| one at a time | {} | {:.1} | {:.1} |", alone.len(), pct(&mut alone.clone(), 0.5), pct(&mut alone, 0.99));
    println!(
        "| four at once, beside four readers | {} | {:.1} | {:.1} |",
        concurrent.len(),
        pct(&mut concurrent.clone(), 0.5),
        pct(&mut concurrent, 0.99)
    );
    println!("\n| campaign reads (4 tasks, 3 s) | n | p99 ms |\n|---|---|---|");
    println!("| alone | {quiet_n} | {quiet_p99:.2} |");
    println!("| while four tasks sign in | {busy_n} | {busy_p99:.2} |");

    // Revocation: the key cached by a use, then revoked.
    let mut delays = Vec::new();
    for _ in 0..5 {
        let r = app.post_json("/v1/api-keys", &json!({"name": "bench", "role": "VIEWER"})).await;
        let (id, key) = (r.json()["id"].as_str().unwrap_or("").to_string(), r.json()["key"].as_str().unwrap_or("").to_string());
        assert_eq!(app.get_as(&key, "/api/1.0/client").await.status, 200);
        assert_eq!(app.delete(&format!("/v1/api-keys/{id}")).await.status, 204);
        let s = Instant::now();
        while app.get_as(&key, "/api/1.0/client").await.status != 401 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        delays.push(ms(s.elapsed()));
    }
    println!("\n| revocation: a cached key refused after | runs | median ms | max ms |\n|---|---|---|---|");
    println!("| DELETE /v1/api-keys/{{id}} | {} | {:.0} | {:.0} |", delays.len(), pct(&mut delays.clone(), 0.5), pct(&mut delays, 1.0));
}
