//! The console's page frame: the document, its navigation, the security headers every page
//! carries, and the stylesheet (served from this origin; no inline style or script).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup, DOCTYPE};

use super::ConsoleUser;

/// The headers of every console answer.
const CSP: &str = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/// A rendered page.
pub struct Page(Markup);

impl IntoResponse for Page {
    fn into_response(self) -> Response {
        let mut res = (StatusCode::OK, self.0.into_string()).into_response();
        let h = res.headers_mut();
        h.insert(header::CONTENT_TYPE, HeaderValue::from_static("text/html; charset=utf-8"));
        h.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
        h.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
        h.insert(header::REFERRER_POLICY, HeaderValue::from_static("same-origin"));
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
        res
    }
}

/// A page: its title, the signed-in person's navigation (none on the sign-in page), the body.
pub fn page(title: &str, user: Option<&ConsoleUser>, body: Markup) -> Page {
    Page(html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { (title) " - Ad operations console" }
                link rel="stylesheet" href="/console/console.css";
                script src="/console/console.js" defer {}
            }
            body {
                a.skip href="#main" { "Skip to content" }
                @if let Some(u) = user {
                    header {
                        nav aria-label="Main" {
                            a href="/console/" { "Home" }
                            a href="/console/campaigns" { "Campaigns" }
                            a href="/console/reports" { "Reports" }
                            a href="/console/forecasts" { "Forecasts" }
                            a href="/console/audiences" { "Audiences" }
                            a href="/console/why-not-serving" { "Why not serving" }
                            a href="/console/changes" { "Changes" }
                            a href="/console/account" { "Your account" }
                            @if u.role.allows(crate::model::access::Role::Admin) {
                                a href="/console/users" { "Users" }
                                a href="/console/api-keys" { "API keys" }
                                a href="/console/demand" { "Demand" }
                            }
                        }
                        form method="post" action=(action(u, "/console/sign-out")) {
                            input type="hidden" name="csrf" value=(u.csrf);
                            span { (u.email) " (" (u.role.as_str()) ")" }
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main #main tabindex="-1" { (body) }
            }
        }
    })
}

/// Lets the page play media from the media origin (on AWS the media distribution; locally
/// this server): `media-src` only, nothing else from another origin.
pub fn allow_media(res: &mut Response, media_base: &str) {
    let origin: String = match media_base.split_once("://") {
        Some((scheme, rest)) => format!("{scheme}://{}", rest.split('/').next().unwrap_or("")),
        None => return,
    };
    let csp = format!("{CSP}; media-src 'self' {origin}");
    if let Ok(v) = HeaderValue::from_str(&csp) {
        res.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
    }
}

/// A page answered with `status` (a refused form: 422, with the person's input kept).
pub fn with_status(p: Page, status: StatusCode) -> Response {
    let mut res = p.into_response();
    *res.status_mut() = status;
    res
}

/// A long job's state as `console.js` polls it (`data-poll`): its words, how far it is (the scale of its `progress` element) and
/// whether it is done; never cached.
pub fn progress(words: &str, progress: f64, done: bool) -> Response {
    let body = serde_json::json!({ "words": words, "progress": progress, "done": done });
    let mut res = axum::Json(body).into_response();
    res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    res
}

/// 403 with a page saying why (a forged or stale form).
pub fn forbidden(message: &str) -> Response {
    let mut res = page("Refused", None, html! { h1 { "Refused" } p role="alert" { (message) } }).into_response();
    *res.status_mut() = StatusCode::FORBIDDEN;
    res
}

/// The stylesheet and the script, served from this origin (no inline style or script).
const CSS: &str = include_str!("static/console.css");
const JS: &str = include_str!("static/console.js");

pub async fn stylesheet() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8"), (header::CACHE_CONTROL, "public, max-age=300")], CSS).into_response()
}

pub async fn script() -> Response {
    ([(header::CONTENT_TYPE, "text/javascript; charset=utf-8"), (header::CACHE_CONTROL, "public, max-age=300")], JS).into_response()
}

/// A form's action: its path with the session's token in the query string, which the gate
/// checks before a byte of the body is read (`api::gate`; the hidden field is checked
/// again by the handler).
pub fn action(user: &ConsoleUser, path: &str) -> String {
    format!("{path}?csrf={}", user.csrf)
}
