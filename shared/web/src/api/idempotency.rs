//! `Idempotency-Key` on creates (docs/api.md, "Retrying a create"): a POST carrying the
//! header is run once per account and key for 24 hours; a retry of the same request gets
//! the first success back (status, `Location`, `ETag`, body) with `Idempotent-Replayed:
//! true`. The same key with another request is 422; while the first is still running, 409.
//! Only successes are kept: a refused request wrote nothing, so running it again is safe.

use crate::api::Within;
use crate::rule::Rule;
use axum::body::Body;
use axum::extract::{FromRequestParts, Request};
use axum::http::{HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::Auth;
use crate::api::error::AppError;
use crate::limits::IDEMPOTENCY_KEY_MAX;
use crate::repo::idempotency::{self as idem_repo, Claim, Kept};
use crate::state::AppState;

pub const HEADER: &str = "idempotency-key";
/// How long a key is remembered.
const KEEP_HOURS: i64 = 24;
/// Answers larger than this are not kept (creates answer a few KB).
const MAX_KEPT_BODY: usize = 256 * 1024;
/// Response headers a replay repeats.
const KEPT_HEADERS: &[&str] = &["location", "etag", "content-type"];

/// The middleware (every group, inside the error rendering): a body over its route's
/// declared limit is refused first (`body_limit`), then creates with a key run once.
pub async fn layer(Within(st): Within, req: Request, next: Next) -> Response {
    if let Some(refused) = super::body_limit::refuse_declared(&st.settings, &req) {
        return refused;
    }
    // Declared or not (chunked), no reader gets past the route's bound.
    let req = super::body_limit::bounded(&st.settings, req);
    if req.method() != Method::POST || !req.headers().contains_key(HEADER) {
        return next.run(req).await;
    }
    match run(&st, req, next).await {
        Ok(res) | Err(res) => res,
    }
}

async fn run(st: &AppState, req: Request, next: Next) -> Result<Response, Response> {
    let idem = req.headers().get(HEADER).and_then(|v| v.to_str().ok()).unwrap_or("").trim().to_string();
    if idem.is_empty() || idem.len() > IDEMPOTENCY_KEY_MAX || !idem.bytes().all(|b| (0x21..0x7f).contains(&b)) {
        return Err(AppError::field(
            "Idempotency-Key",
            Rule::Format,
            format!("Idempotency-Key must be 1-{IDEMPOTENCY_KEY_MAX} visible ASCII characters"),
        )
        .into_response());
    }
    let (mut parts, body) = req.into_parts();
    let Auth(account) = Auth::from_request_parts(&mut parts, st).await.map_err(IntoResponse::into_response)?;
    // The route's own limit (not the largest of any route): bigger bodies stop here.
    let max = super::body_limit::limit_for(&st.settings, &parts.method, parts.uri.path());
    let bytes = axum::body::to_bytes(body, max).await.map_err(|_| AppError::PayloadTooLarge(max).into_response())?;
    let request = request_hash(parts.method.as_str(), parts.uri.path_and_query().map(|p| p.as_str()).unwrap_or(""), &bytes);
    let now = st.clock.now();
    let expires = (now + chrono::Duration::hours(KEEP_HOURS)).timestamp();
    let store = st.store.as_ref();
    let version = match idem_repo::claim(store, &account.id, &idem, &request, now.timestamp()).await {
        Ok(Claim::Claimed(v)) => v,
        Ok(Claim::Taken(kept)) => return Err(replay(kept, &request)),
        Err(e) => return Err(AppError::from(e).into_response()),
    };
    let res = next.run(Request::from_parts(parts, Body::from(bytes))).await;
    if !res.status().is_success() {
        // Nothing was created: forget the key, so a retry runs again.
        if let Err(e) = idem_repo::release(store, &account.id, &idem, version).await {
            tracing::warn!(error = %e, "could not release an idempotency key");
        }
        return Ok(res);
    }
    let (parts, body) = res.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    match String::from_utf8(bytes.to_vec()) {
        Ok(text) if text.len() <= MAX_KEPT_BODY => {
            let headers = KEPT_HEADERS
                .iter()
                .filter_map(|n| parts.headers.get(*n).and_then(|v| v.to_str().ok()).map(|v| (n.to_string(), v.to_string())))
                .collect();
            let done = Kept { request, done: true, status: parts.status.as_u16(), headers, body: text };
            if let Err(e) = idem_repo::keep(store, &account.id, &idem, version, &done, expires).await {
                tracing::warn!(error = %e, "could not keep an idempotent answer");
            }
        }
        _ => {
            let _ = idem_repo::release(store, &account.id, &idem, version).await;
        }
    }
    Ok(Response::from_parts(parts, Body::from(bytes)))
}

/// What identifies a request under a key: SHA-256 of method, path and query, and body.
pub fn request_hash(method: &str, path_and_query: &str, body: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(method.as_bytes());
    h.update([0]);
    h.update(path_and_query.as_bytes());
    h.update([0]);
    h.update(body);
    hex::encode(h.finalize())
}

/// The key is taken: the first answer, or why not.
fn replay(kept: Option<Kept>, request: &str) -> Response {
    let Some(kept) = kept else {
        return AppError::Conflict("a request with this Idempotency-Key has just finished; retry it".into()).into_response();
    };
    if kept.request != request {
        let e = AppError::field(
            "Idempotency-Key",
            Rule::Reused,
            "this Idempotency-Key was used for a different request (method, path or body)",
        );
        let mut body = e.body();
        body.status = 422;
        let mut res = (
            StatusCode::UNPROCESSABLE_ENTITY,
            [(axum::http::header::CONTENT_TYPE, "application/json")],
            serde_json::to_vec(&body).unwrap_or_default(),
        )
            .into_response();
        // XML routes re-render from this, like every error.
        res.extensions_mut().insert(body);
        return res;
    }
    if !kept.done {
        let mut res = AppError::Conflict(format!(
            "a request with this Idempotency-Key is still running (a claim is held at most {} s)",
            idem_repo::LEASE_SECS
        ))
        .into_response();
        res.headers_mut().insert(axum::http::header::RETRY_AFTER, HeaderValue::from_static("1"));
        return res;
    }
    let mut res = Response::new(Body::from(kept.body));
    *res.status_mut() = StatusCode::from_u16(kept.status).unwrap_or(StatusCode::OK);
    for (n, v) in &kept.headers {
        if let (Ok(n), Ok(v)) = (axum::http::HeaderName::try_from(n.as_str()), HeaderValue::from_str(v)) {
            res.headers_mut().insert(n, v);
        }
    }
    res.headers_mut().insert("idempotent-replayed", HeaderValue::from_static("true"));
    res
}
