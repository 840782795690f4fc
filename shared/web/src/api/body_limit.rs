//! Request bodies are refused by their size before they are read (docs/traffic-quality.md
//! §6): a declared `Content-Length` over the route's limit is 413 at once, and a body
//! without one (chunked) is cut off at the limit as it streams (`to_bytes` with the limit:
//! nothing past it is buffered). The limits:
//! - audience batch uploads: `AUDIENCE_UPLOAD_MAX_BYTES` (64 MB);
//! - video asset uploads (octet-stream): `UPLOAD_MAX_BYTES` (64 MB);
//! - everything else: `MAX_BODY` (1 MB); API Gateway's own payload limit is 10 MB.

use axum::extract::Request;
use axum::http::{header, Method};
use axum::response::{IntoResponse, Response};

use crate::api::error::AppError;
use crate::settings::Settings;

/// The largest body a route takes.
pub fn limit_for(settings: &Settings, method: &Method, path: &str) -> usize {
    match (method, path) {
        (&Method::POST, "/v1/audience/batch" | "/v1/audience/provider/batch") => settings.audience_upload_max_bytes,
        (&Method::POST, "/v1/assets/video") => settings.upload_max_bytes.max(super::MAX_BODY),
        // The console's ad form: the video and a few short fields (multipart).
        (&Method::POST, p) if p.starts_with("/console/goals/") && p.ends_with("/ads") => {
            settings.upload_max_bytes.max(super::MAX_BODY) + 64 * 1024
        }
        _ => super::MAX_BODY,
    }
}

/// The request with its body cut off at its route's bound as it streams, whatever the
/// reader (a multipart form's fields included): past it, the reader gets an error (413).
pub fn bounded(settings: &Settings, req: Request) -> Request {
    let max = limit_for(settings, req.method(), req.uri().path());
    req.map(|body| axum::body::Body::new(http_body_util::Limited::new(body, max)))
}

/// The declared length, when the request has one.
fn declared(req: &Request) -> Option<u64> {
    req.headers().get(header::CONTENT_LENGTH)?.to_str().ok()?.trim().parse().ok()
}

/// The 413 of a request whose declared length is over its route's limit (checked by the
/// request middleware, `idempotency::layer`, before anything reads the body).
pub fn refuse_declared(settings: &Settings, req: &Request) -> Option<Response> {
    let max = limit_for(settings, req.method(), req.uri().path());
    declared(req).is_some_and(|n| n > max as u64).then(|| AppError::PayloadTooLarge(max).into_response())
}
