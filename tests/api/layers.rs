//! The crates of `shared/` are the layer diagram (docs/architecture.md, "Crates"): read from
//! cargo's own resolution of the workspace, the domain reaches no adapter, no web code, no
//! async runtime and no AWS SDK; the adapters reach neither the application nor the web;
//! the application does not reach the web. (The domain's doc tests show the same breach
//! failing to compile.)

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use api_tests::serde_json::Value;

/// The normal (not dev or build) dependencies of every package, by name.
fn graph() -> HashMap<String, BTreeSet<String>> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let out = Command::new(env!("CARGO"))
        .args([
            "metadata",
            "--format-version",
            "1",
            "--locked",
            "--filter-platform",
            &format!("{}-unknown-linux-gnu", std::env::consts::ARCH),
        ])
        .current_dir(root)
        .output()
        .expect("cargo metadata runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v: Value = api_tests::serde_json::from_slice(&out.stdout).expect("cargo metadata's JSON");
    let name_of: HashMap<String, String> = v["packages"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| Some((p["id"].as_str()?.to_string(), p["name"].as_str()?.to_string())))
        .collect();
    let mut g = HashMap::new();
    for node in v["resolve"]["nodes"].as_array().into_iter().flatten() {
        let Some(name) = node["id"].as_str().and_then(|id| name_of.get(id)) else { continue };
        let deps: BTreeSet<String> = node["deps"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|d| d["dep_kinds"].as_array().into_iter().flatten().any(|k| k["kind"].is_null()))
            .filter_map(|d| d["pkg"].as_str().and_then(|id| name_of.get(id)).cloned())
            .collect();
        g.entry(name.clone()).or_insert_with(BTreeSet::new).extend(deps);
    }
    g
}

fn reach(g: &HashMap<String, BTreeSet<String>>, from: &str) -> BTreeSet<String> {
    let mut seen = BTreeSet::new();
    let mut todo = vec![from.to_string()];
    while let Some(p) = todo.pop() {
        for d in g.get(&p).into_iter().flatten() {
            if seen.insert(d.clone()) {
                todo.push(d.clone());
            }
        }
    }
    seen
}

#[test]
fn the_crates_depend_only_downwards() {
    let g = graph();
    let domain = reach(&g, "domain");
    let banned = ["ports", "app", "web", "tokio", "axum", "hyper", "redb", "lambda_http", "lambda_runtime", "maud"];
    let breaches: Vec<&String> = domain.iter().filter(|d| banned.contains(&d.as_str()) || d.starts_with("aws-")).collect();
    assert!(breaches.is_empty(), "the domain reaches {breaches:?}");
    let ports = reach(&g, "ports");
    assert!(ports.contains("domain") && !ports.contains("app") && !ports.contains("web"), "ports: {ports:?}");
    let app = reach(&g, "app");
    assert!(app.contains("ports") && !app.contains("web") && !app.contains("axum") && !app.contains("maud"), "app: {app:?}");
    assert!(reach(&g, "web").contains("app"));
}
