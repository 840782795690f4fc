//! The OpenAPI document against the router (issue 12, item 4): every documented operation
//! is routed (never 405), and every method a documented path does not list is 405, so the
//! document names exactly the operations the service answers. The responses' shapes are
//! checked by schemathesis against the running local server (`scripts/schemathesis.sh`).

use api_tests::both_stores;

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

both_stores! {
    async fn the_document_names_exactly_the_routed_operations(app: TestApp) {
        let doc: serde_json::Value = serde_json::from_str(&shared::openapi::json()).unwrap();
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
