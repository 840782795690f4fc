//! The console in a real browser (tests/node/console.mjs: headless Chromium through
//! puppeteer-core, controls found by their accessible names, axe-core on every page), on
//! both stores: sign in; a campaign named like markup, its goal and an ad with a video
//! from disk, transcoded and previewed; the goal's end changed, seen in Changes with the
//! person's email and reverted; a bulk edit refused on one goal; a form from another
//! origin refused; the old cookie after sign-out; a VIEWER; a flow with JavaScript off.
//! `SCREENSHOTS=<dir>` saves each page as a PNG (scripts/console-screenshots.sh).

use std::process::Command;

use api_tests::serde_json::{json, Value};
use api_tests::{Backend, TestApp};

/// The most a page may weigh over the wire, media excluded.
const PAGE_BUDGET: u64 = 100 * 1024;
const PASSWORD: &str = "a long enough password";

fn run(base: &str, clip: &std::path::Path) -> Value {
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
    let dir = std::env::temp_dir().join(format!("console-{}-{}", std::process::id(), uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("a directory for the clip");
    let clip = dir.join("spot-15s.mp4");
    std::fs::write(&clip, api_tests::clip()).expect("write the clip");
    let v = tokio::task::spawn_blocking(move || run(&base, &clip)).await.expect("the driver ran");
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
}

api_tests::both_backends! {
    async fn a_trafficker_s_day_in_the_console_in_chromium(backend: Backend) {
        a_day_in_the_console(backend).await
    }
}
