//! The console's page frame: the document, its navigation, the security headers every page
//! carries, and the stylesheet (served from this origin; no inline style or script).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup, DOCTYPE};

use super::ConsoleUser;
use crate::state::AppState;

/// The headers of every console answer.
const CSP: &str = "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; form-action 'self'; base-uri 'none'";

/// A rendered page.
pub struct Page(Markup);

impl Page {
    /// The page (the state is where later pages read the account's settings).
    pub fn with_state(self, _: &AppState) -> Response {
        self.into_response()
    }
}

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
            }
            body {
                @if let Some(u) = user {
                    header {
                        nav aria-label="Main" {
                            a href="/console/" { "Home" }
                        }
                        form method="post" action="/console/sign-out" {
                            input type="hidden" name="csrf" value=(u.csrf);
                            span { (u.email) " (" (u.role.as_str()) ")" }
                            button type="submit" { "Sign out" }
                        }
                    }
                }
                main { (body) }
            }
        }
    })
}

/// 403 with a page saying why (a forged or stale form).
pub fn forbidden(message: &str) -> Response {
    let mut res = page("Refused", None, html! { h1 { "Refused" } p role="alert" { (message) } }).into_response();
    *res.status_mut() = StatusCode::FORBIDDEN;
    res
}

const CSS: &str = "body{font-family:system-ui,sans-serif;margin:0;color:#1a1a1a;background:#fff}\
main{max-width:60rem;margin:0 auto;padding:1rem}\
header{display:flex;justify-content:space-between;align-items:center;padding:.5rem 1rem;background:#16324f;color:#fff}\
header a{color:#fff;margin-right:1rem}\
header form{display:flex;gap:.5rem;align-items:center}\
label{display:block;margin-top:.75rem;font-weight:600}\
input,select{display:block;font-size:1rem;padding:.4rem;min-width:18rem}\
button{display:block;font-size:1rem;margin-top:1rem;padding:.4rem 1rem}\
header button{margin-top:0}\
:focus-visible{outline:3px solid #d97706;outline-offset:2px}\
.error{color:#9b1c1c;font-weight:600}";

pub async fn stylesheet() -> Response {
    ([(header::CONTENT_TYPE, "text/css; charset=utf-8"), (header::CACHE_CONTROL, "public, max-age=300")], CSS).into_response()
}
