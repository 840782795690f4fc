//! Request bodies are refused by their size before they are read (docs/traffic-quality.md
//! §6): a declared `Content-Length` over the route's limit is 413 at once, and a body
//! without one (chunked) is cut off at the limit as it streams (`to_bytes` with the limit:
//! nothing past it is buffered). The limits:
//! - audience batch uploads: `AUDIENCE_UPLOAD_MAX_BYTES` (64 MB);
//! - video asset uploads (octet-stream): `UPLOAD_MAX_BYTES` (64 MB);
//! - everything else: `MAX_BODY` (1 MB); API Gateway's own payload limit is 10 MB.

use axum::extract::{Request, State};
use axum::http::{header, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::error::AppError;
use crate::settings::Settings;
use crate::state::AppState;

/// The largest body a route takes.
pub fn limit_for(settings: &Settings, method: &Method, path: &str) -> usize {
    match (method, path) {
        (&Method::POST, "/v1/audience/batch" | "/v1/audience/provider/batch") => settings.audience_upload_max_bytes,
        (&Method::POST, "/v1/assets/video") => settings.upload_max_bytes.max(super::MAX_BODY),
        _ => super::MAX_BODY,
    }
}

/// The declared length, when the request has one.
fn declared(req: &Request) -> Option<u64> {
    req.headers().get(header::CONTENT_LENGTH)?.to_str().ok()?.trim().parse().ok()
}

/// The middleware (every group, inside the error rendering): the size check, then the
/// idempotency of creates.
pub async fn layer(State(st): State<AppState>, req: Request, next: Next) -> Response {
    let max = limit_for(&st.settings, req.method(), req.uri().path());
    if declared(&req).is_some_and(|n| n > max as u64) {
        return AppError::PayloadTooLarge(max).into_response();
    }
    // Then `Idempotency-Key` (one middleware for both: a layer less on every request).
    super::idempotency::layer(State(st), req, next).await
}
