//! Tenant isolation, swept from the route table: every path pattern of
//! every group (`web::api::groups::ALL`, the same table the Lambdas and the local server
//! are built from), filled with the ids of account A's records, tried with every method by
//! account B. B never gets a success on A's record, never a 5xx, never sees A's data (every
//! name of A's records carries a marker), and A's view of every record is unchanged after.

use futures_util::StreamExt;
use std::collections::BTreeMap;

use api_tests::serde_json::json;
use api_tests::{both_stores, TestApp};
use axum::http::Method;
use web::api::roles::required;
use web::model::access::Role;

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
            "{kind}" => vec!["category".into(), "content-partner".into()],
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
        // A's keys of the roles below ADMIN, for the role sweep.
        let mut role_keys = Vec::new();
        for role in [Role::Viewer, Role::Trafficker] {
            let r = app.post_json("/v1/api-keys", &json!({"name": format!("sweep {}", role.as_str()), "role": role.as_str()})).await;
            r.expect(201);
            role_keys.push((role, r.json()["key"].as_str().unwrap().to_string()));
        }
        let mut patterns: Vec<&'static str> = Vec::new();
        for (_, group) in web::api::groups::ALL {
            // The console's pages are a person's, signed in with a session (tests/api/console.rs);
            // the access group serves its administration pages.
            patterns.extend(group().paths.into_iter().filter(|p| !p.starts_with("/console")));
        }
        assert!(patterns.len() >= 40, "the route table lists {} paths", patterns.len());
        // What A sees of every concrete path, before.
        let mut before = BTreeMap::new();
        let mut concrete = Vec::new();
        for p in &patterns {
            for path in fill(p, &ids) {
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
            .map(|(m, path, ct, body, has_param)| async move {
                let r = app_ref.send(m, &path, Some(&app_ref.b.key), Some(ct), &body).await;
                (m, path, has_param, r)
            })
            .buffer_unordered(16)
            .collect()
            .await;
        for (m, path, has_param, r) in answers {
            assert!(r.status < 500, "{m} {path} as B: {} {}", r.status, r.body);
            assert!(!r.body.contains(MARK), "{m} {path} as B shows A's data: {}", r.body);
            if has_param {
                assert!(!(200..300).contains(&r.status), "{m} {path} as B: {} {}", r.status, r.body);
            }
        }
        // Roles (docs/people-and-roles.md): A's own VIEWER and TRAFFICKER keys try every write
        // of every route their role does not allow: each is 403 Forbidden (or 405: no such
        // method there), naming the role it needs, and nothing of A's changes (below).
        let mut role_attempts = Vec::new();
        for (role, key) in &role_keys {
            let (role, key) = (*role, key.clone());
            for (pattern, path) in &concrete {
                let ct = if path.starts_with("/api/1.0") { "application/xml" } else { "application/json" };
                for m in ["POST", "PUT", "PATCH", "DELETE"] {
                    let needed = required(&Method::from_bytes(m.as_bytes()).unwrap(), pattern);
                    if !role.allows(needed) {
                        role_attempts.push((role, needed, key.clone(), m, path.clone(), ct, before.get(path).cloned().unwrap_or_default()));
                    }
                }
            }
        }
        let refused = role_attempts.len();
        assert!(refused >= 100, "{refused} writes outside a role");
        let answers: Vec<_> = futures_util::stream::iter(role_attempts)
            .map(|(role, needed, key, m, path, ct, body)| async move {
                (role, needed, m, path.clone(), app_ref.send(m, &path, Some(&key), Some(ct), &body).await)
            })
            .buffer_unordered(16)
            .collect()
            .await;
        let mut forbidden = 0;
        for (role, needed, m, path, r) in answers {
            if r.status == 405 {
                continue;
            }
            assert_eq!(r.status, 403, "{m} {path} as {}: {}", role.as_str(), r.body);
            assert!(r.body.contains("Forbidden") && r.body.contains(needed.as_str()), "{m} {path} as {}: {}", role.as_str(), r.body);
            forbidden += 1;
        }
        assert!(forbidden >= 50, "{forbidden} writes refused for their role");
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
        eprintln!("tenant sweep: {} route patterns, {} concrete paths, {tried} requests as B, {forbidden} of {refused} writes outside a role refused with 403 (the rest 405)", patterns.len(), concrete.len());
    }
}
