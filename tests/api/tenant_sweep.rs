//! Tenant isolation, swept from the route table: every path pattern of
//! every group (`web::api::groups::ALL`, the same table the Lambdas and the local server
//! are built from), filled with the ids of account A's records, tried with every method by
//! account B. B never gets a success on A's record, never a 5xx, never sees A's data (every
//! name of A's records carries a marker), and A's view of every record is unchanged after.
//! The console's pages and forms are tried with B's ADMIN's session (and B's form token).

use futures_util::StreamExt;
use std::collections::BTreeMap;

use api_tests::serde_json::json;
use api_tests::{both_stores, Browser, TestApp, CONSOLE_HOST, CONSOLE_ORIGIN};

const MARK: &str = "SecretOfA";
const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/// One record of every kind in account A; returns (kind, id).
async fn records_of_a(app: &TestApp) -> Vec<(&'static str, String)> {
    let client = app.client(&format!("{MARK} client"), "ADVERTISER").await;
    let contact = app
        .create_xml("/api/1.0/contact", &format!("<contactBean><firstName>{MARK}</firstName><lastName>C</lastName></contactBean>"))
        .await;
    let campaign = app.campaign(&format!("{MARK} campaign"), &client).await;
    let goal = app.goal(&campaign, "IMPRESSION", 1, Some(9), "").await;
    let r = app
        .post_json(
            "/v1/ads",
            &json!({"name": format!("{MARK} ad"), "goalId": goal, "creative": {"type": "spotPlaceholder", "insertionPoint": "preroll"}}),
        )
        .await;
    r.expect(201);
    let ad = r.json()["id"].as_str().unwrap().to_string();
    let asset = app.upload_asset(&format!("{MARK}.mp4"), api_tests::clip()).await;
    // Probed before the sweep (the record changes once more when it is READY).
    app.wait_asset(&format!("/v1/assets/video/{asset}")).await;
    let r = app.post_json("/v1/insertion-policy", &json!({"name": format!("{MARK} policy")})).await;
    r.expect(201);
    let policy = r.json()["id"].as_str().unwrap().to_string();
    let r = app.post_json("/api/2.0/targeting-template", &json!({"name": format!("{MARK} template")})).await;
    r.expect(200);
    let template = r.json()["id"].as_str().unwrap().to_string();
    let r = app.upload_batch(&format!("providerId={}-ap-dmp", app.a.id), format!("{MARK}|age=18-24\n").into_bytes(), false).await;
    r.expect(202);
    let batch = r.json()["batchId"].as_str().unwrap().to_string();
    let r = app
        .post_json(
            "/v1/users",
            &json!({"email": "sweep@a.example", "name": format!("{MARK} user"), "role": "VIEWER", "password": "a long enough password"}),
        )
        .await;
    r.expect(201);
    let user = r.json()["id"].as_str().unwrap().to_string();
    let r = app.post_json("/v1/api-keys", &json!({"name": format!("{MARK} key"), "role": "VIEWER"})).await;
    r.expect(201);
    let key = r.json()["id"].as_str().unwrap().to_string();
    let a = &app.a.id;
    vec![
        ("client", client),
        ("contact", contact),
        ("campaign", campaign),
        ("goal", goal),
        ("ad", ad),
        ("asset", asset),
        ("policy", policy),
        ("template", template),
        ("batch", batch),
        ("user", user),
        ("apiKey", key),
        ("provider", format!("{a}-ap-dmp")),
        ("category", format!("{a}-cat-sports")),
        ("partner", format!("{a}-cp-studio")),
    ]
}

/// Every concrete path for a pattern: each `{…}` filled with each of A's ids (matrix
/// segments in every `by_<kind>_id` form).
fn fill(pattern: &str, ids: &[(&str, String)]) -> Vec<String> {
    let mut out = vec![String::new()];
    for part in pattern.split('/').skip(1) {
        let options: Vec<String> = match part {
            "{seg}" => ["campaign", "goal", "client", "contact"]
                .iter()
                .flat_map(|k| ids.iter().filter(move |(kind, _)| kind == k).map(move |(_, id)| format!("by_{k}_id;id={id}")))
                .collect(),
            "{kind}" => vec!["category".into(), "content-partner".into(), "campaigns".into(), "goals".into()],
            p if p.starts_with('{') => ids.iter().map(|(_, id)| id.clone()).collect(),
            p => vec![p.to_string()],
        };
        out = out.iter().flat_map(|prefix| options.iter().map(move |o| format!("{prefix}/{o}"))).collect();
    }
    // The inspector draws with a random seed unless given one: a fixed seed keeps A's view comparable.
    out.into_iter().map(|p| if p == "/v3/inspect" { format!("{p}?seed=1") } else { p }).collect()
}

both_stores! {
    async fn no_route_lets_another_account_reach_a_record(app: TestApp) {
        let ids = records_of_a(&app).await;
        // B's ADMIN signed in to the console: B tries A's console pages and forms with it.
        let r = app
            .send(
                "POST",
                "/v1/users",
                Some(&app.b.key),
                Some("application/json"),
                &json!({"email": "admin@b.example", "name": "B's admin", "role": "ADMIN", "password": "a long enough password"}).to_string(),
            )
            .await;
        r.expect(201);
        let b_console = Browser::sign_in(&app, "admin@b.example", "a long enough password").await;
        let mut patterns: Vec<&'static str> = Vec::new();
        for (_, group) in web::api::groups::ALL {
            patterns.extend(group().paths());
        }
        assert!(patterns.len() >= 40, "the route table lists {} paths", patterns.len());
        // What A sees of every concrete path, before.
        let mut before = BTreeMap::new();
        let mut concrete = Vec::new();
        for p in &patterns {
            for path in fill(p, &ids) {
                // (A console page is a session's: B's answers are checked below.)
                if p.starts_with("/console") {
                    concrete.push((*p, path));
                    continue;
                }
                let r = app.get(&path).await;
                if r.status == 200 {
                    before.insert(path.clone(), r.body);
                }
                concrete.push((*p, path));
            }
        }
        assert!(before.len() >= 20, "A reads {} of its records", before.len());
        // B's requests, 16 at a time (they are independent; one at a time is minutes on the emulator).
        let mut attempts = Vec::new();
        for (pattern, path) in &concrete {
            let has_param = pattern.contains('{');
            if path.starts_with("/console") {
                // The console's forms: B's session, B's own form token.
                for m in METHODS {
                    if (!has_param && m == "POST") || path == "/console/sign-out" {
                        continue;
                    }
                    let path = format!("{path}?csrf={}", b_console.csrf);
                    attempts.push((m, path, "application/x-www-form-urlencoded", format!("csrf={}", b_console.csrf), has_param));
                }
                continue;
            }
            // B sends A's own representation of the record when there is one.
            let body = before.get(path).cloned().unwrap_or_default();
            let ct = if path.starts_with("/api/1.0") { "application/xml" } else { "application/json" };
            for m in METHODS {
                if !has_param && m == "POST" {
                    continue; // creates in B's own account
                }
                attempts.push((m, path.clone(), ct, body.clone(), has_param));
            }
        }
        let tried = attempts.len();
        let app_ref = &app;
        let answers: Vec<_> = futures_util::stream::iter(attempts)
            .map(|(m, path, ct, body, has_param)| {
                let b_console = &b_console;
                async move {
                    let r = if path.starts_with("/console") {
                        let cookie = format!("o_session={}", b_console.session);
                        let headers = [("host", CONSOLE_HOST), ("origin", CONSOLE_ORIGIN), ("cookie", cookie.as_str())];
                        app_ref.send_with_headers(m, &path, None, Some(ct), &body, &headers).await
                    } else {
                        app_ref.send(m, &path, Some(&app_ref.b.key), Some(ct), &body).await
                    };
                    (m, path, has_param, r)
                }
            })
            .buffer_unordered(16)
            .collect()
            .await;
        for (m, path, has_param, r) in answers {
            assert!(r.status < 500, "{m} {path} as B: {} {}", r.status, r.body);
            assert!(!r.body.contains(MARK), "{m} {path} as B shows A's data: {}", r.body);
            if has_param && path.starts_with("/console") {
                // A console form that worked answers 303: none may.
                assert!(r.status >= 400, "{m} {path} as B's console: {} {}", r.status, r.body);
            } else if has_param {
                assert!(!(200..300).contains(&r.status), "{m} {path} as B: {} {}", r.status, r.body);
            }
        }
        // Nothing of A's changed.
        // (A key's `lastUsed` moves when the key is used: that is no change of A's.)
        let unused = |body: &str| -> String {
            let mut v: serde_json::Value = serde_json::from_str(body).unwrap_or(serde_json::Value::String(body.to_string()));
            if let Some(keys) = v.get_mut("apiKeys").and_then(|k| k.as_array_mut()) {
                keys.iter_mut().filter_map(|k| k.as_object_mut()).for_each(|k| {
                    k.remove("lastUsed");
                });
            }
            v.to_string()
        };
        for (path, body) in &before {
            assert_eq!(unused(&app.get(path).await.body), unused(body), "A's {path} changed");
        }
        eprintln!("tenant sweep: {} route patterns, {} concrete paths, {tried} requests as B (its ADMIN key and its ADMIN's console session)", patterns.len(), concrete.len());
    }
}
