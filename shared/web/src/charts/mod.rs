//! The charts as SVG: the forecast reports, a goal's pacing and the delivery report.

pub mod delivery;
pub mod frame;
pub mod pacing;

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};

/// A chart as an answer: `image/svg+xml` that a browser may not sniff as anything else, under
/// a CSP that lets the document load and run nothing (opened directly, it is inert), kept
/// privately for `max_age` seconds.
pub fn svg_response(svg: String, max_age: u32) -> Response {
    let mut res = svg.into_response();
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("image/svg+xml"));
    h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static("default-src 'none'; frame-ancestors 'none'; sandbox"));
    if let Ok(v) = HeaderValue::from_str(&format!("private, max-age={max_age}")) {
        h.insert(header::CACHE_CONTROL, v);
    }
    res
}
