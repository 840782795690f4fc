//! The OpenAPI document against the router: every documented operation
//! is routed (never 405), and every method a documented path does not list is 405, so the
//! document names exactly the operations the service answers. The responses' shapes are
//! checked by schemathesis against the running local server (`scripts/schemathesis.sh`).

use api_tests::one_store;

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

fn concrete(pattern: &str) -> String {
    pattern
        .split('/')
        .map(|p| match p {
            "{seg}" => "by_campaign_id;id=x".to_string(),
            "{kind}" => "category".to_string(),
            "{event}" => "impression".to_string(),
            p if p.starts_with('{') => "x".to_string(),
            p => p.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

one_store! {
    async fn the_document_names_exactly_the_routed_operations(app: TestApp) {
        let doc: serde_json::Value = serde_json::from_str(&web::openapi::json()).unwrap();
        let paths = doc["paths"].as_object().unwrap();
        assert!(paths.len() >= 50, "{} paths", paths.len());
        let mut checked = 0;
        for (pattern, item) in paths {
            let path = concrete(pattern);
            for m in METHODS {
                let documented = item.get(m.to_lowercase()).is_some();
                let r = app.send(m, &path, Some(&app.a.key), None, "").await;
                if documented {
                    assert_ne!(r.status, 405, "{m} {pattern} is documented but not routed");
                } else {
                    assert_eq!(r.status, 405, "{m} {pattern} is routed ({}) but not documented", r.status);
                }
                assert!(r.status < 500, "{m} {path}: {}", r.status);
                checked += 1;
            }
        }
        assert!(checked >= 250);
    }
}

/// The interactive reference: a static page over `/openapi.json`, its
/// script and stylesheet served by the API itself (no CDN), nothing of the request in it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_page_is_served_without_a_key_and_reflects_nothing() {
    let app = api_tests::TestApp::spawn(api_tests::Backend::Embedded).await;
    let page = app.send("GET", "/docs?x=%22%3E%3Cscript%3Ealert(1)%3C/script%3E", None, None, "").await;
    page.expect(200);
    assert!(page.header("content-type").is_some_and(|t| t.starts_with("text/html")));
    let csp = page.header("content-security-policy").unwrap_or_default();
    assert!(csp.contains("default-src 'self'") && !csp.contains("script-src"), "{csp}");
    assert!(page.body.contains("/docs/swagger-ui-bundle.js") && page.body.contains("/docs/init.js"), "{}", page.body);
    assert!(!page.body.contains("alert") && !page.body.contains("<script>"), "no inline script, nothing reflected: {}", page.body);
    for (file, kind, at_least) in [
        ("swagger-ui-bundle.js", "text/javascript", 1_000_000),
        ("swagger-ui.css", "text/css", 100_000),
        ("init.js", "text/javascript", 50),
    ] {
        let r = app.send("GET", &format!("/docs/{file}"), None, None, "").await;
        r.expect(200);
        assert!(r.header("content-type").is_some_and(|t| t.starts_with(kind)), "{file}");
        assert!(r.body.len() >= at_least, "{file}: {} bytes", r.body.len());
    }
    let init = app.send("GET", "/docs/init.js", None, None, "").await.body;
    assert!(init.contains("'/openapi.json'"), "{init}");
    assert!(init.contains("persistAuthorization: false"), "the API key is never kept in the browser's storage: {init}");
    app.send("GET", "/docs/other.js", None, None, "").await.expect(404);
    let doc = app.send("GET", "/openapi.json", None, None, "").await;
    doc.expect(200);
    assert_eq!(doc.header("access-control-allow-origin"), Some("*"));
    assert_eq!(doc.json()["openapi"], "3.1.0");
}

/// What a reader sees: headless Chromium draws every operation of the document.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_browser_draws_every_operation_of_the_reference() {
    let (_app, base) = api_tests::TestApp::spawn_listening(api_tests::Backend::Embedded).await;
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/node");
    let out = tokio::task::spawn_blocking(move || std::process::Command::new("node").arg("docs.mjs").arg(&base).current_dir(dir).output())
        .await
        .expect("joins")
        .expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}\n{}", String::from_utf8_lossy(&out.stderr));
    let seen: serde_json::Value = serde_json::from_str(text.trim()).expect("the driver prints JSON");
    let doc: serde_json::Value = serde_json::from_str(&web::openapi::json()).unwrap();
    let operations: usize = doc["paths"].as_object().unwrap().values().map(|i| i.as_object().unwrap().len()).sum();
    assert_eq!(seen["operations"].as_u64(), Some(operations as u64), "{seen}");
    assert!(seen["title"].as_str().is_some_and(|t| t.starts_with("Video advertising campaigns API")), "{seen}");
    assert!(
        seen["summaries"].as_array().unwrap().iter().any(|s| s == "Delivery by day or hour, grouped by dimension (JSON or CSV)"),
        "{seen}"
    );
    assert_eq!(seen["errors"], serde_json::json!([]), "no refused script, style or request: {seen}");
}
