//! `GET /media/<key>`: the local server serves the media objects itself (docs/media.md,
//! "Delivery"), from the blob port (the embedded store's directory, or S3 on an emulator),
//! so the documents' MediaFiles play with no CDN. Only the objects of TRANSCODED assets
//! (`<account>/assets/<asset>/...`: master, renditions, still) are served, never a FAILED
//! or unlinked upload, never audience files; always with `X-Content-Type-Options: nosniff`. Byte ranges (206,
//! 416), `Content-Type`, `ETag`, `Accept-Ranges`, CORS and long-lived caching (a key's
//! content never changes). On AWS CloudFront serves these keys instead.

use crate::api::Within;
use axum::body::Body;
use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use sha2::{Digest, Sha256};
use tokio::io::AsyncReadExt;

use crate::api::error::{AppError, AppResult};
use crate::model::asset::content_type_for;
use crate::state::AppState;

/// The path prefix `MEDIA_BASE_URL` defaults to on the local server.
pub const PREFIX: &str = crate::settings::MEDIA_PATH;

pub fn router(state: AppState) -> Router {
    Router::new().route("/media/{*key}", get(serve)).with_state(state)
}

/// Whether `key` is an asset object (`<account>/assets/<asset>/<file>`).
pub fn is_media_key(key: &str) -> bool {
    let parts: Vec<&str> = key.split('/').collect();
    parts.len() >= 4 && parts[1] == "assets" && parts.iter().all(|p| !p.is_empty() && *p != "." && *p != "..")
}

/// A range that cannot be served (416).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Unsatisfiable;

/// A `Range: bytes=...` header against an object of `size` bytes: `Ok(None)` without one
/// (or one this server does not honour, e.g. several ranges: the whole object then, as
/// RFC 9110 allows), `Err` when it cannot be satisfied (416).
pub fn range(header: Option<&str>, size: u64) -> Result<Option<(u64, u64)>, Unsatisfiable> {
    let Some(spec) = header.and_then(|h| h.trim().strip_prefix("bytes=")) else { return Ok(None) };
    if spec.contains(',') {
        return Ok(None);
    }
    let (a, b) = spec.split_once('-').ok_or(Unsatisfiable)?;
    let (a, b) = (a.trim(), b.trim());
    let (start, end) = match (a.is_empty(), b.is_empty()) {
        // The last `b` bytes.
        (true, false) => {
            let n: u64 = b.parse().map_err(|_| Unsatisfiable)?;
            if n == 0 || size == 0 {
                return Err(Unsatisfiable);
            }
            (size.saturating_sub(n), size - 1)
        }
        (false, _) => {
            let s: u64 = a.parse().map_err(|_| Unsatisfiable)?;
            let e = if b.is_empty() {
                size.saturating_sub(1)
            } else {
                b.parse::<u64>().map_err(|_| Unsatisfiable)?.min(size.saturating_sub(1))
            };
            (s, e)
        }
        (true, true) => return Err(Unsatisfiable),
    };
    if size == 0 || start >= size || end < start {
        return Err(Unsatisfiable);
    }
    Ok(Some((start, end)))
}

async fn serve(Within(st): Within, Path(key): Path<String>, headers: HeaderMap) -> AppResult<Response> {
    if !is_media_key(&key) || crate::blobs::check_key(&key).is_err() || !crate::usecases::assets::servable(&st, &key).await? {
        return Err(AppError::NoRoute(format!("{PREFIX}/{key}")));
    }
    let Some(size) = st.blobs.size(&key).await? else {
        return Err(AppError::NoRoute(format!("{PREFIX}/{key}")));
    };
    let etag = format!("\"{:x}-{}\"", size, &hex::encode(Sha256::digest(key.as_bytes()))[..16]);
    let mut res = Response::builder()
        .header(header::CONTENT_TYPE, content_type_of(&key))
        .header(header::X_CONTENT_TYPE_OPTIONS, "nosniff")
        .header(header::ACCEPT_RANGES, "bytes")
        .header(header::ETAG, &etag)
        .header(header::CACHE_CONTROL, "public, max-age=31536000, immutable")
        .header(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")
        .header(header::ACCESS_CONTROL_EXPOSE_HEADERS, "Content-Length, Content-Range, Accept-Ranges, ETag");
    if headers.get(header::IF_NONE_MATCH).and_then(|v| v.to_str().ok()).is_some_and(|v| v.split(',').any(|t| t.trim() == etag)) {
        return res.status(StatusCode::NOT_MODIFIED).body(Body::empty()).map_err(AppError::internal);
    }
    // A Range that names another version (If-Range) gets the whole object.
    let if_range_ok = headers.get(header::IF_RANGE).and_then(|v| v.to_str().ok()).is_none_or(|v| v.trim() == etag);
    let wanted = if if_range_ok { headers.get(header::RANGE).and_then(|v| v.to_str().ok()) } else { None };
    let (status, start, len) = match range(wanted, size) {
        Ok(None) => (StatusCode::OK, 0, size),
        Ok(Some((s, e))) => {
            res = res.header(header::CONTENT_RANGE, format!("bytes {s}-{e}/{size}"));
            (StatusCode::PARTIAL_CONTENT, s, e - s + 1)
        }
        Err(Unsatisfiable) => {
            let r = res.status(StatusCode::RANGE_NOT_SATISFIABLE).header(header::CONTENT_RANGE, format!("bytes */{size}"));
            return r.body(Body::empty()).map_err(AppError::internal);
        }
    };
    let Some(reader) = st.blobs.open_from(&key, start).await? else {
        return Err(AppError::NoRoute(format!("{PREFIX}/{key}")));
    };
    let stream = chunks(reader.take(len));
    res = res.status(status).header(header::CONTENT_LENGTH, HeaderValue::from(len));
    res.body(Body::from_stream(stream)).map_err(AppError::internal)
}

fn content_type_of(key: &str) -> &'static str {
    if key.ends_with(".jpg") || key.ends_with(".jpeg") {
        "image/jpeg"
    } else {
        content_type_for(key)
    }
}

/// The bytes of `r` as a stream of chunks of at most 64 KiB (one buffer a chunk, none for
/// a poll that waits).
fn chunks(
    r: impl tokio::io::AsyncRead + Send + Unpin + 'static,
) -> impl futures_util::Stream<Item = Result<Vec<u8>, std::io::Error>> + Send + 'static {
    futures_util::stream::unfold(r, |mut r| async move {
        let mut buf = vec![0u8; 64 * 1024];
        match r.read(&mut buf).await {
            Ok(0) => None,
            Ok(n) => {
                buf.truncate(n);
                Some((Ok(buf), r))
            }
            Err(e) => Some((Err(e), r)),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranges_as_rfc_9110_reads_them() {
        assert_eq!(range(None, 100), Ok(None));
        assert_eq!(range(Some("bytes=0-9"), 100), Ok(Some((0, 9))));
        assert_eq!(range(Some("bytes=90-"), 100), Ok(Some((90, 99))));
        assert_eq!(range(Some("bytes=-10"), 100), Ok(Some((90, 99))));
        assert_eq!(range(Some("bytes=50-500"), 100), Ok(Some((50, 99))));
        assert_eq!(range(Some("bytes=0-1,5-6"), 100), Ok(None));
        assert_eq!(range(Some("bytes=100-"), 100), Err(Unsatisfiable));
        assert_eq!(range(Some("bytes=9-3"), 100), Err(Unsatisfiable));
        assert_eq!(range(Some("bytes=x-"), 100), Err(Unsatisfiable));
        assert_eq!(range(Some("bytes=-0"), 100), Err(Unsatisfiable));
    }

    #[test]
    fn only_asset_objects_are_served() {
        assert!(is_media_key("acct/assets/a1/r/720p.mp4"));
        assert!(is_media_key("acct/assets/a1/spot.mp4"));
        assert!(!is_media_key("audience/acct/p/batch.csv"));
        assert!(!is_media_key("acct/assets/../x"));
        assert!(!is_media_key("acct/assets/a1"));
    }
}
