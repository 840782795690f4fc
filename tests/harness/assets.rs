//! Assets: a loopback file server for the downloader, and waiting for an asset to finish.

use axum::Router;

use crate::TestApp;

/// The bytes the file server serves at `/clip.mp4` (and `/big.mp4` is 10× that).
pub const CLIP: &[u8] = b"\x00\x00\x00\x18ftypmp42 this stands in for a video file, 64 bytes.";

/// A loopback HTTP server for the downloader: `/clip.mp4`, `/big.mp4`, `/moved.mp4`
/// (302 to the clip), `/missing.mp4` (404), `/slow.mp4` (answers after 3 s),
/// `/to-metadata.mp4` (302 to 169.254.169.254). Returns its base URL.
pub async fn spawn_file_server() -> String {
    use axum::http::{header, StatusCode};
    use axum::response::IntoResponse;
    use axum::routing::get;
    let app = Router::new()
        .route("/clip.mp4", get(|| async { ([(header::CONTENT_TYPE, "video/mp4")], CLIP) }))
        .route("/big.mp4", get(|| async { CLIP.repeat(10) }))
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
                CLIP
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
    /// Polls an asset until its status is final (READY or FAILED); returns its JSON.
    pub async fn wait_asset(&self, location: &str) -> serde_json::Value {
        for _ in 0..200 {
            let r = self.get(location).await;
            if r.status == 200 {
                let v = r.json();
                if v["status"] == "READY" || v["status"] == "FAILED" {
                    return v;
                }
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        panic!("asset {location} did not finish: {}", self.get(location).await.body);
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
