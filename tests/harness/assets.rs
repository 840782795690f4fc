//! Assets: real media made by ffmpeg (tiny clips, once per test binary), a loopback file
//! server for the downloader, and waiting for an asset to arrive or be transcoded.

use std::sync::OnceLock;

use axum::Router;

use crate::TestApp;

/// Makes a clip with ffmpeg (Debian's `ffmpeg`; scripts/test.sh installs it): a test
/// pattern with a tone, `args` choosing the size, length and codecs.
fn make(name: &str, args: &[&str]) -> Vec<u8> {
    let dir = std::env::temp_dir().join(format!("adserver-test-media-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("media dir");
    let out = dir.join(name);
    let status = std::process::Command::new(std::env::var("FFMPEG").unwrap_or_else(|_| "ffmpeg".into()))
        .args(["-hide_banner", "-loglevel", "error", "-y"])
        .args(args)
        .arg(&out)
        .status()
        .expect("ffmpeg runs (apt-get install ffmpeg; scripts/test.sh does)");
    assert!(status.success(), "ffmpeg could not make {name}");
    let bytes = std::fs::read(&out).expect("the clip");
    // The clips live in memory from here: the files and (once empty) the folder go.
    let _ = std::fs::remove_file(&out);
    let _ = std::fs::remove_dir(&dir);
    bytes
}

/// A 2 s 320×180 H.264/AAC MP4 (about 30 KB): what `/clip.mp4` serves.
pub fn clip() -> &'static [u8] {
    static CLIP: OnceLock<Vec<u8>> = OnceLock::new();
    CLIP.get_or_init(|| {
        make(
            "clip.mp4",
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc2=size=320x180:rate=15:duration=2",
                "-f",
                "lavfi",
                "-i",
                "sine=frequency=440:duration=2",
                "-c:v",
                "libx264",
                "-preset",
                "ultrafast",
                "-pix_fmt",
                "yuv420p",
                "-c:a",
                "aac",
                "-b:a",
                "64k",
                "-shortest",
                "-movflags",
                "+faststart",
            ],
        )
    })
}

/// A 2 s 640×360 ProRes 422 master with PCM audio in a QuickTime `.mov` (what agencies
/// deliver; no browser plays it): `/master.mov`.
pub fn prores_master() -> &'static [u8] {
    static MASTER: OnceLock<Vec<u8>> = OnceLock::new();
    MASTER.get_or_init(|| {
        make(
            "master.mov",
            &[
                "-f",
                "lavfi",
                "-i",
                "testsrc2=size=640x360:rate=25:duration=2",
                "-f",
                "lavfi",
                "-i",
                "sine=frequency=660:duration=2",
                "-c:v",
                "prores_ks",
                "-profile:v",
                "2",
                "-c:a",
                "pcm_s16le",
                "-shortest",
            ],
        )
    })
}

/// Random-looking bytes named `.mp4` (not a video).
pub const NOT_A_VIDEO: &[u8] = b"\x00\x00\x00\x18ftypmp42 these bytes only look like the start of an MP4 file.";

/// Requests of `/counted/{token}/clip.mp4` so far, by token.
static HITS: std::sync::Mutex<Option<std::collections::HashMap<String, u32>>> = std::sync::Mutex::new(None);

/// How many times the file server answered `/counted/{token}/clip.mp4` (a download attempt
/// made: the worker ran).
pub fn hits(token: &str) -> u32 {
    HITS.lock().map(|h| h.as_ref().and_then(|m| m.get(token).copied()).unwrap_or(0)).unwrap_or(0)
}

/// Waits (at most 180 s) until `/counted/{token}/clip.mp4` was asked for `n` times.
pub async fn wait_hits(token: &str, n: u32) {
    crate::eventually(&format!("{n} download attempt(s) of {token}"), std::time::Duration::from_secs(180), || async {
        (hits(token) >= n).then_some(())
    })
    .await
}

/// A loopback HTTP server for the downloader: `/clip.mp4`, `/master.mov`, `/junk.mp4`, `/big.mp4`, `/moved.mp4`
/// (302 to the clip), `/missing.mp4` (404), `/slow.mp4` (answers after 3 s),
/// `/to-metadata.mp4` (302 to 169.254.169.254), `/counted/{token}/clip.mp4` (the clip, each
/// request counted: `hits`). Returns its base URL.
pub async fn spawn_file_server() -> String {
    use axum::http::{header, StatusCode};
    use axum::response::IntoResponse;
    use axum::routing::get;
    let app = Router::new()
        .route(
            "/counted/{token}/clip.mp4",
            get(|axum::extract::Path(token): axum::extract::Path<String>| async move {
                if let Ok(mut h) = HITS.lock() {
                    *h.get_or_insert_with(Default::default).entry(token).or_insert(0) += 1;
                }
                ([(header::CONTENT_TYPE, "video/mp4")], clip())
            }),
        )
        .route("/clip.mp4", get(|| async { ([(header::CONTENT_TYPE, "video/mp4")], clip()) }))
        // A server that names another type for the same bytes (never stored or served).
        .route("/spoofed.mp4", get(|| async { ([(header::CONTENT_TYPE, "video/x-ms-asf")], clip()) }))
        .route("/master.mov", get(|| async { ([(header::CONTENT_TYPE, "video/quicktime")], prores_master()) }))
        .route("/junk.mp4", get(|| async { ([(header::CONTENT_TYPE, "video/mp4")], NOT_A_VIDEO) }))
        .route("/big.mp4", get(|| async { clip().repeat(10) }))
        .route("/moved.mp4", get(|| async { (StatusCode::FOUND, [(header::LOCATION, "/clip.mp4")]).into_response() }))
        .route(
            "/to-metadata.mp4",
            get(|| async { (StatusCode::FOUND, [(header::LOCATION, "http://169.254.169.254/latest/meta-data/")]).into_response() }),
        )
        .route("/missing.mp4", get(|| async { StatusCode::NOT_FOUND }))
        .route(
            "/slow.mp4",
            get(|| async {
                tokio::time::sleep(std::time::Duration::from_secs(3)).await;
                clip()
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}")
}

impl TestApp {
    /// Polls an asset until its status is one of `done`; returns its JSON.
    pub async fn wait_asset_in(&self, location: &str, done: &[&str]) -> serde_json::Value {
        crate::eventually(&format!("asset {location} to reach {done:?}"), std::time::Duration::from_secs(120), || async {
            let r = self.get(location).await;
            let v = (r.status == 200).then(|| r.json())?;
            done.iter().any(|d| v["status"] == *d).then_some(v)
        })
        .await
    }

    /// Polls an asset until its file arrived (READY, or TRANSCODING/TRANSCODED when an ad
    /// linked it meanwhile) or FAILED; returns its JSON.
    pub async fn wait_asset(&self, location: &str) -> serde_json::Value {
        self.wait_asset_in(location, &["READY", "TRANSCODING", "TRANSCODED", "FAILED"]).await
    }

    /// Polls a linked asset until its renditions are made (TRANSCODED) or it FAILED.
    pub async fn wait_transcoded(&self, location: &str) -> serde_json::Value {
        self.wait_asset_in(location, &["TRANSCODED", "FAILED"]).await
    }

    /// Uploads `bytes` as an octet-stream asset named `name` (as account `a`); returns its id.
    pub async fn upload_asset(&self, name: &str, bytes: &[u8]) -> String {
        let r =
            self.send_bytes("POST", &format!("/v1/assets/video?name={name}"), Some(&self.a.key), "application/octet-stream", bytes).await;
        assert_eq!(r.status, 201, "{}", r.body);
        r.header("location").expect("Location").rsplit('/').next().expect("id").to_string()
    }

    /// Uploads an asset by URL and waits for it; returns (location, final JSON).
    pub async fn asset_from(&self, url: &str, name: &str) -> (String, serde_json::Value) {
        let r = self.post_json("/v1/assets/video", &serde_json::json!({"name": name, "downloadUri": url})).await;
        assert_eq!(r.status, 201, "{}", r.body);
        let loc = r.header("location").expect("Location").to_string();
        let v = self.wait_asset(&loc).await;
        (loc, v)
    }
}
