//! The player side of the serving tests: served documents parsed by the IAB clients a
//! web player uses (`@dailymotion/vast-client`, `@dailymotion/vmap`) under Node
//! (`tests/node/parse.mjs`; `scripts/test.sh` installs them with `npm ci`), and the
//! tracking links of a served document fired the way a player fires them.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::Value;

use crate::{Res, TestApp};

/// Runs a browser driver of tests/node (`play.mjs`, `preview.mjs`) on `url`: the page's
/// result as JSON; panics with the driver's output when the ad did not play to the end.
pub fn in_browser(script: &str, url: &str) -> Value {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/node");
    assert!(
        std::path::Path::new(dir).join("node_modules/puppeteer-core").exists(),
        "puppeteer-core is not installed: run `npm ci` in tests/node (scripts/test.sh does)"
    );
    let out = Command::new("node").arg(script).arg(url).current_dir(dir).output().expect("node runs");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "the ad did not play to the end: {text}\n{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_str(text.trim()).expect("the driver prints JSON")
}

/// What the player-side client makes of a document (`kind`: `vast` or `vmap`); panics
/// with the client's message when it rejects the document.
pub fn parse(kind: &str, doc: &str) -> Value {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/node");
    assert!(
        std::path::Path::new(dir).join("node_modules/@dailymotion/vast-client").exists(),
        "the player-side clients are not installed: run `npm ci` in tests/node (scripts/test.sh does)"
    );
    let mut child = Command::new("node")
        .arg("parse.mjs")
        .arg(kind)
        .current_dir(dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("node runs");
    child.stdin.take().expect("stdin").write_all(doc.as_bytes()).expect("write the document");
    let out = child.wait_with_output().expect("node finishes");
    assert!(out.status.success(), "the {kind} client rejected the document: {}\n{doc}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("the helper prints JSON")
}

/// The path of a served absolute link (the test router serves it).
pub fn path_of(link: &str) -> String {
    let rest = link.split_once("://").map_or(link, |(_, r)| r);
    rest.find('/').map_or_else(|| "/".to_string(), |i| rest[i..].to_string())
}

impl TestApp {
    /// `GET /v1/adrequest?account=<a>&<query>` (no API key, as a player calls it).
    pub async fn ad_request(&self, query: &str) -> Res {
        self.send("GET", &format!("/v1/adrequest?account={}&{query}", self.a.id), None, None, "").await
    }

    /// Many ad requests, 25 at a time as concurrent players would send them (one at a
    /// time is minutes on the emulator); the answers in the order of `queries`.
    pub async fn ad_requests(&self, queries: &[String]) -> Vec<Res> {
        use futures_util::StreamExt;
        futures_util::stream::iter(queries).map(|q| self.ad_request(q)).buffered(25).collect().await
    }

    /// Fires a served tracking link.
    pub async fn fire(&self, link: &str) -> Res {
        self.send("GET", &path_of(link), None, None, "").await
    }

    /// Fires a served tracking link with request headers (User-Agent, X-Forwarded-For).
    pub async fn fire_with(&self, link: &str, headers: &[(&str, &str)]) -> Res {
        self.send_with_headers("GET", &path_of(link), None, None, "", headers).await
    }

    /// Polls an ad's `/v3` metrics until the value at `pointer` (`/invalid/crawler`)
    /// reaches `n`; returns the metrics.
    pub async fn wait_metric_at(&self, ad: &str, pointer: &str, n: i64) -> Value {
        // Up to 120 s: the events worker on the emulator, on a loaded 2-core machine.
        crate::eventually(&format!("{pointer} of ad {ad} to reach {n}"), std::time::Duration::from_secs(120), || async {
            let m = self.get(&format!("/v3/ads/{ad}?embed=metrics")).await.json()["metrics"].clone();
            (m.pointer(pointer).and_then(Value::as_i64) == Some(n)).then_some(m)
        })
        .await
    }

    /// Polls an ad's `/v3` metrics until `counter` reaches `n` (the event worker runs in the
    /// background); returns the metrics.
    pub async fn wait_metric(&self, ad: &str, counter: &str, n: i64) -> Value {
        self.wait_metric_at(ad, &format!("/{counter}"), n).await
    }
}
