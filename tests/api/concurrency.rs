//! No lost updates: N clients change one record at the same time, each
//! the way a careful client does (read with its ETag, change, write with If-Match, read
//! again on 412 or 409). Each appends its own mark to the name; at the end every mark is
//! there: no write overwrote another it had not seen. Run for an ad (PUT and PATCH), a goal,
//! a campaign, an insertion policy and a targeting template.

use std::sync::Arc;

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, xml_text, TestApp};

const CLIENTS: usize = 8;

/// How a record is read and written back with one more mark.
#[derive(Clone, Copy)]
enum Kind {
    AdPut,
    AdPatch,
    Goal,
    Campaign,
    Policy,
    Template,
}

fn tag(kind: Kind) -> &'static str {
    match kind {
        Kind::AdPut => "u",
        Kind::AdPatch => "p",
        Kind::Goal => "g",
        Kind::Campaign => "c",
        Kind::Policy => "i",
        Kind::Template => "t",
    }
}

fn bean(xml: &str, root: &str) -> String {
    let start = xml.find(&format!("<{root}>")).expect("bean");
    let end = xml.find(&format!("</{root}>")).expect("bean end") + root.len() + 3;
    xml[start..end].to_string()
}

/// One client: appends ` m<i>` to the name; returns how many writes it sent.
async fn append(app: Arc<TestApp>, kind: Kind, get: String, i: usize, start: Arc<tokio::sync::Barrier>) -> usize {
    let mark = format!(" {}{i}", tag(kind));
    for attempt in 1..=200 {
        let r = app.get(&get).await;
        r.expect(200);
        let etag = r.header("etag").expect("ETag").to_string();
        if attempt == 1 {
            // Every client has read the same version before any writes: they all race.
            start.wait().await;
        }
        let (method, path, ct, body) = match kind {
            Kind::AdPut | Kind::AdPatch | Kind::Policy | Kind::Template => {
                let mut v: Value = r.json();
                let name = format!("{}{mark}", v["name"].as_str().unwrap());
                match kind {
                    Kind::AdPut => {
                        v["name"] = json!(name);
                        ("PUT", "/v1/ads".to_string(), "application/json", v.to_string())
                    }
                    Kind::AdPatch => ("PATCH", "/v1/ads".to_string(), "application/json", json!({"id": v["id"], "name": name}).to_string()),
                    Kind::Policy => {
                        v["name"] = json!(name);
                        ("PUT", "/v1/insertion-policy".to_string(), "application/json", v.to_string())
                    }
                    _ => ("PUT", get.clone(), "application/json", json!({"name": name}).to_string()),
                }
            }
            Kind::Goal | Kind::Campaign => {
                let root = if matches!(kind, Kind::Goal) { "goalBean" } else { "campaignBean" };
                let b = bean(&r.body, root);
                let name = xml_text(&b, "name").unwrap();
                let b = b.replacen(&format!("<name>{name}</name>"), &format!("<name>{name}{mark}</name>"), 1);
                ("PUT", get.clone(), "application/xml", b)
            }
        };
        let w = app.send_with_headers(method, &path, Some(&app.a.key), Some(ct), &body, &[("if-match", &etag)]).await;
        match w.status {
            200..=299 => return attempt,
            412 | 409 => continue,
            other => panic!("{method} {path}: {other} {}", w.body),
        }
    }
    panic!("client {i} never got its write in")
}

async fn race(app: &Arc<TestApp>, kind: Kind, get: &str) -> (String, usize) {
    let start = Arc::new(tokio::sync::Barrier::new(CLIENTS));
    let tasks: Vec<_> = (0..CLIENTS).map(|i| tokio::spawn(append(app.clone(), kind, get.to_string(), i, start.clone()))).collect();
    let mut writes = 0;
    for t in tasks {
        writes += t.await.expect("client");
    }
    let r = app.get(get).await;
    let name = match kind {
        Kind::Goal | Kind::Campaign => xml_text(&r.body, "name").unwrap(),
        _ => r.json()["name"].as_str().unwrap().to_string(),
    };
    for i in 0..CLIENTS {
        let m = format!(" {}{i}", tag(kind));
        assert!(name.contains(&format!("{m} ")) || name.ends_with(&m), "mark {m} lost: {name:?}");
    }
    (name, writes)
}

both_stores! {
    async fn concurrent_changes_lose_no_update(app: TestApp) {
        let app = Arc::new(app);
        let (_, campaign) = app.advertiser_campaign().await;
        let goal = app.goal(&campaign, "IMPRESSION", 1, Some(9), "<name>Goal</name>").await;
        let r = app.post_json("/v1/ads", &json!({"name": "Ad", "goalId": goal, "creative": {"type": "spotPlaceholder", "insertionPoint": "preroll"}})).await;
        r.expect(201);
        let ad = r.json()["id"].as_str().unwrap().to_string();
        let r = app.post_json("/v1/insertion-policy", &json!({"name": "Policy"})).await;
        r.expect(201);
        let policy = r.json()["id"].as_str().unwrap().to_string();
        let r = app.post_json("/api/2.0/targeting-template", &json!({"name": "Template"})).await;
        r.expect(200);
        let template = r.json()["id"].as_str().unwrap().to_string();
        let cases = [
            (Kind::AdPut, format!("/v1/ads/{ad}")),
            (Kind::AdPatch, format!("/v1/ads/{ad}")),
            (Kind::Goal, format!("/api/1.0.cpvext/goal/by_goal_id;id={goal}")),
            (Kind::Campaign, format!("/api/1.0/campaign/by_campaign_id;id={campaign}")),
            (Kind::Policy, format!("/v1/insertion-policy/{policy}")),
            (Kind::Template, format!("/api/2.0/targeting-template/{template}")),
        ];
        for (kind, get) in cases {
            let (_, writes) = race(&app, kind, &get).await;
            // All read one version: one write wins per round, the others are refused (412).
            assert!(writes >= CLIENTS * 2 - 1, "{writes}");
            eprintln!("{get}: {CLIENTS} concurrent clients, {writes} writes sent, every mark kept");
        }
    }
}
