//! The console in a real browser (tests/node/console.mjs: headless Chromium through
//! puppeteer-core, controls found by their accessible names, axe-core on every page), on
//! both stores: sign in; a campaign named like markup, its goal and an ad with a video
//! from disk, transcoded and previewed; the goal's end changed, seen in Changes with the
//! person's email and reverted; a bulk edit refused on one goal; a form from another
//! origin refused; the old cookie after sign-out; a VIEWER, who sets up two-factor sign-in
//! and signs in with a code; a flow with JavaScript off; a person signing in through the
//! account's OpenID provider (the tests' own).
//! `SCREENSHOTS=<dir>` saves each page as a PNG (scripts/console-screenshots.sh).

use std::process::Command;

use api_tests::chrono::{self, TimeZone, Timelike};
use api_tests::serde_json::{json, Value};
use api_tests::{Backend, TestApp};

/// The most a page may weigh over the wire, media excluded.
const PAGE_BUDGET: u64 = 100 * 1024;
const PASSWORD: &str = "a long enough password";
/// The person the tests' OpenID provider signs in.
const SSO_EMAIL: &str = "sso.person@corp.example";

fn run(base: &str, clip: &std::path::Path, running: &str, server_time: i64, account: &str) -> Value {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/node");
    assert!(
        std::path::Path::new(dir).join("node_modules/axe-core").exists(),
        "axe-core is not installed: run `npm ci` in tests/node (scripts/test.sh does)"
    );
    let out = Command::new("node")
        .arg("console.mjs")
        .arg(base)
        .env("TRAFFICKER", "ann@a.example")
        .env("VIEWER", "vic@a.example")
        .env("ADMIN", "ada@a.example")
        .env("PASSWORD", PASSWORD)
        .env("CLIP", clip)
        .env("RUNNING_GOAL", running)
        .env("RUNNING_END", RUNNING_END)
        .env("SERVER_TIME", server_time.to_string())
        .env("SSO_ACCOUNT", account)
        .env("SSO_NAME", "Test IdP")
        .env("SSO_EMAIL", SSO_EMAIL)
        .current_dir(dir)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let v: Value = api_tests::serde_json::from_str(text.trim())
        .unwrap_or_else(|_| panic!("the driver prints JSON: {text}\n{}", String::from_utf8_lossy(&out.stderr)));
    assert!(out.status.success() && v["failed"].is_null(), "the console flow failed: {}\nsteps done: {}", v["failed"], v["steps"]);
    v
}

async fn a_day_in_the_console(backend: Backend) {
    let (app, base) = TestApp::spawn_listening(backend).await;
    for (email, role) in [("ann@a.example", "TRAFFICKER"), ("vic@a.example", "VIEWER"), ("ada@a.example", "ADMIN")] {
        app.post_json("/v1/users", &json!({"email": email, "name": "Ann Lee", "role": role, "password": PASSWORD})).await.expect(201);
    }
    // Delivery for the Reports page: three impressions of an ad of another campaign.
    let c = crate::serving::enabled_campaign(&app).await;
    let g = crate::serving::goal(&app, &c, "IMPRESSION", "100000", 0, "<name>Delivered</name>").await;
    let ad = crate::serving::ad(&app, &g, "preroll", json!({})).await;
    for i in 0..3 {
        crate::reports::serve_and_fire(&app, &format!("format=preroll&pid=b{i}"), &ad, &[], None).await;
    }
    app.wait_metric(&ad, "impression", 3).await;
    // A goal made to start now: its start is the moment it was created, with its seconds and
    // milliseconds (the console shows minutes). The person changes its end in the browser.
    let now = web::clock::Clock::now(app.clock.as_ref());
    // (Forward only: the changes made so far stay older.)
    let later = now + chrono::Duration::seconds(if now.second() >= 57 { 5 } else { 2 });
    let odd = later.with_nanosecond(417_000_000).unwrap_or(later);
    app.clock.set(odd);
    let running = crate::serving::goal(&app, &c, "IMPRESSION", "100000", -1, "<name>Running</name>").await;
    let before = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={running}")).await.body;
    let start = api_tests::xml_text(&before, "start").expect("a start");
    assert!(start.ends_with(".417Z"), "the start has its milliseconds: {start}");
    let dir = std::env::temp_dir().join(format!("console-{}-{}", std::process::id(), uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("a directory for the clip");
    let clip = dir.join("spot-15s.mp4");
    std::fs::write(&clip, api_tests::clip()).expect("write the clip");
    let running_goal = running.clone();
    let server_time = web::clock::Clock::now(app.clock.as_ref()).timestamp();
    // The account's OpenID provider (the tests' own, on a loopback port).
    let provider = api_tests::oidc::Provider::start(api_tests::oidc::Person {
        email: SSO_EMAIL.into(),
        name: "Sso Person".into(),
        groups: vec!["ad-ops".into()],
    })
    .await;
    let sso = web::model::sso::SsoInput {
        name: "Test IdP".into(),
        issuer: provider.issuer.clone(),
        client_id: api_tests::oidc::CLIENT_ID.into(),
        client_secret: api_tests::oidc::CLIENT_SECRET.into(),
        role_claim: "groups".into(),
        roles: "ad-ops=TRAFFICKER".into(),
        default_role: String::new(),
    };
    web::usecases::sso::set(&app.state, &app.a.id.clone().into(), &sso).await.expect("the provider is set");
    let account = app.a.id.clone();
    let v = tokio::task::spawn_blocking(move || run(&base, &clip, &running_goal, server_time, &account)).await.expect("the driver ran");
    let _ = std::fs::remove_dir_all(&dir);
    let pages = v["pages"].as_array().cloned().unwrap_or_default();
    assert!(pages.len() >= 8, "every page was checked: {v}");
    eprintln!("| page | path | bytes over the wire | axe violations |");
    for p in &pages {
        eprintln!("| {} | {} | {} | {} |", p["name"], p["path"], p["bytes"], p["violations"].as_array().map_or(0, Vec::len));
    }
    for p in &pages {
        // axe-core clean: no violation of any impact.
        let found = p["violations"].as_array().cloned().unwrap_or_default();
        assert!(found.is_empty(), "axe-core on {}: {found:?}", p["name"]);
        let bytes = p["bytes"].as_u64().unwrap_or(u64::MAX);
        assert!(bytes > 0 && bytes <= PAGE_BUDGET, "{} weighs {bytes} bytes (budget {PAGE_BUDGET})", p["name"]);
    }
    assert_eq!(v["foreign"], json!([]), "nothing is loaded from another origin");
    assert_eq!(v["dialogs"], json!([]), "no script ran from a record's name");
    // The running goal's new end is stored, its start unchanged to the millisecond.
    let after = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={running}")).await.body;
    assert_eq!(api_tests::xml_text(&after, "start").as_deref(), Some(start.as_str()), "{after}");
    let account = web::repo::accounts::get(app.store.as_ref(), &app.a.id).await.ok().flatten().expect("account A");
    let zone: api_tests::chrono_tz::Tz = account.time_zone.parse().expect("the account's zone");
    let end = chrono::NaiveDateTime::parse_from_str(RUNNING_END, "%Y-%m-%dT%H:%M").expect("the end typed");
    let end = zone.from_local_datetime(&end).earliest().expect("a local time").with_timezone(&chrono::Utc);
    assert_eq!(
        api_tests::xml_text(&after, "end").as_deref(),
        Some(end.to_rfc3339_opts(chrono::SecondsFormat::Millis, true).as_str()),
        "{after}"
    );
}

/// The end the person types for the running goal (the account's local time).
const RUNNING_END: &str = "2030-03-31T18:30";

api_tests::both_backends! {
    async fn a_trafficker_s_day_in_the_console_in_chromium(backend: Backend) {
        a_day_in_the_console(backend).await
    }
}
