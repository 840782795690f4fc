//! Unknown query parameters are refused on every interface (`/api/1.0`, `/v0`, `/v1` here;
//! `/v3` and `/api/2.0` check their own), naming the operation's known ones: a misspelt
//! `pagesize` is a 400, never a silently ignored default.

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use crate::api::error::{AppError, FieldError};
use crate::api::{query_pairs, API_KEY_HEADER};
use crate::rule::Rule;

const PAGES: &[&str] = &["pageSize", "pageNumber"];

/// The query parameters each operation reads (`method`, route pattern); any other route
/// takes none. Each handler reads exactly these (the tests of each list cover them).
const KNOWN: &[(&str, &str, &[&str])] = &[
    ("GET", "/api/1.0/campaign", &["pageSize", "pageNumber", "status", "state"]),
    ("GET", "/api/1.0/campaign/archived", &["pageSize", "pageNumber", "year", "month"]),
    ("GET", "/api/1.0/client", PAGES),
    ("GET", "/v1/ads", &["created.after", "created.before"]),
    ("POST", "/v1/assets/video", &["name"]),
    ("GET", "/v1/assets/video", &["limit", "status", "after"]),
    ("GET", "/v1/insertion-policy", PAGES),
    ("GET", "/v1/audience/provider", PAGES),
    ("POST", "/v1/audience/batch", &["providerId", "region"]),
    ("GET", "/v1/audience/batch", &["providerId", "pageSize", "pageNumber"]),
    ("POST", "/v1/audience/provider/batch", &["providerId", "region"]),
    ("GET", "/v1/changes", crate::api::changes::PARAMS),
];

/// The interfaces this layer checks: the ad request, tracking links and previews take
/// parameters of their own (key-values, signed fields).
fn checked(path: &str) -> bool {
    (path.starts_with("/api/1.0") || path.starts_with("/v0/") || path.starts_with("/v1/"))
        && !path.starts_with("/v1/adrequest")
        && !path.starts_with("/v1/track/")
        && !path.starts_with("/v1/preview/")
}

/// The layer (every function's router, `routes::finish`). A request without an API key
/// is left to the handler (401 comes first).
pub async fn layer(req: Request, next: Next) -> Response {
    let query = req.uri().query().unwrap_or("");
    if query.is_empty() || !checked(req.uri().path()) || !req.headers().contains_key(API_KEY_HEADER) {
        return next.run(req).await;
    }
    let Some(pattern) = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_string()) else { return next.run(req).await };
    let known: &[&str] = KNOWN.iter().find(|(m, p, _)| *m == req.method().as_str() && *p == pattern).map_or(&[], |(_, _, k)| k);
    let pairs = match query_pairs(Some(query)) {
        Ok(p) => p,
        Err(e) => return AppError::from(e).into_response(),
    };
    let mut errors: Vec<FieldError> = Vec::new();
    for (k, _) in &pairs {
        if !known.contains(&k.as_str()) && !errors.iter().any(|e| &e.field == k) {
            let hint = if known.is_empty() { "this operation takes none".to_string() } else { format!("known: {}", known.join(", ")) };
            errors.push(FieldError::new(k.clone(), Rule::Unknown, format!("unknown query parameter {k} ({hint})")));
        }
    }
    if errors.is_empty() {
        next.run(req).await
    } else {
        AppError::Validation(errors).into_response()
    }
}
