//! The console (docs/console.md): server-rendered pages over the same use cases as the
//! API, signed in with a user's session (docs/people-and-roles.md, "Sessions"). Every page
//! answers with a strict CSP (`default-src 'self'`, no inline script or style,
//! `frame-ancestors 'none'`); every POST carries the form's `csrf` token and a same-origin
//! `Origin`.
mod account;
mod ads;
mod audiences;
mod campaign_page;
mod campaigns;
mod changes;
mod collections;
mod error;
mod forecasts;
mod form;
mod goals;
mod inspector;
mod pacing;
mod page;
mod people;
mod reports;
mod session;
mod sign_in;
mod sso;
mod targeting;

use crate::api::Access;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use maud::html;

use crate::api::Within;
pub use account::{enrol_first, open_before_enrolment};
pub use audiences::router as audience_router;
pub use collections::{demand_router, stitchers_router};
use error::ConsoleResult;
pub use forecasts::router as forecast_router;
pub use form::NOT_FROM_THIS_SITE;
pub use session::ConsoleUser;

/// A refusal of the gate (`api::gate`) on a console route, as a console page answers it:
/// the sign-in page, or a 403 page saying why.
pub fn refused(e: crate::api::error::AppError) -> Response {
    error::ConsoleError::from(e).into_response()
}

/// The cookie of the sign-in form's token (double submit: the form carries the same).
pub const CSRF_COOKIE: &str = "o_csrf";

pub fn router() -> super::Routes {
    super::Routes::console()
        .route("/console", Access::Public, get(|| async { redirect("/console/") }))
        .route("/console/", Access::RECORDS, get(home))
        .route("/console/sign-in", Access::Public, get(sign_in::page).post(sign_in::sign_in))
        .route("/console/sign-in/code", Access::Public, get(sign_in::code_page).post(sign_in::code))
        .route("/console/sign-in/sso/callback", Access::Public, get(sso::callback))
        .route("/console/sign-in/sso/{account}", Access::Public, get(sso::begin))
        .route("/console/sign-out", Access::VIEWER, post(sign_in::sign_out))
        .route("/console/console.css", Access::Public, get(page::stylesheet))
        .route("/console/console.js", Access::Public, get(page::script))
        .route("/console/campaigns", Access::RECORDS, get(campaigns::list).post(campaigns::create))
        .route("/console/campaigns/new", Access::RECORDS, get(campaigns::new_form))
        .route("/console/campaigns/{id}", Access::RECORDS, get(campaign_page::show).post(campaign_page::update))
        .route("/console/campaigns/{id}/bulk", Access::RECORDS, post(campaign_page::bulk_edit))
        .route("/console/campaigns/{id}/duplicate", Access::RECORDS, post(campaign_page::duplicate))
        .route("/console/campaigns/{id}/goals/new", Access::RECORDS, get(goals::new_form))
        .route("/console/campaigns/{id}/goals", Access::RECORDS, post(goals::create))
        .route("/console/{kind}/{id}/targeting", Access::RECORDS, get(targeting::show).post(targeting::save))
        .route("/console/goals/{id}", Access::RECORDS, get(goals::show).post(goals::update))
        .route("/console/goals/{id}/ads/new", Access::RECORDS, get(ads::new_form))
        .route("/console/goals/{id}/ads", Access::RECORDS, post(ads::create).layer(axum::extract::DefaultBodyLimit::disable()))
        .route("/console/ads/{id}", Access::RECORDS, get(ads::show))
        .route("/console/ads/{id}/status", Access::RECORDS, get(ads::status))
        .route("/console/changes", Access::RECORDS, get(changes::list))
        .route("/console/changes/{id}/revert", Access::RECORDS, post(changes::revert))
}

/// The pages the queries function serves (it reads the compiled snapshots, the report
/// cells and the traffic model): Why not serving, Reports, a goal's pacing.
pub fn queries_router() -> super::Routes {
    super::Routes::console_reading()
        .route("/console/why-not-serving", Access::RECORDS, get(inspector::show))
        .route("/console/reports", Access::RECORDS, get(reports::show))
        .route("/console/reports/chart.svg", Access::RECORDS, get(reports::chart))
        .route("/console/goals/{id}/pacing", Access::RECORDS, get(pacing::show))
}

/// The administration pages (users and API keys, ADMIN): served by the access group's
/// function, the one function that writes API-key records.
pub fn admin_router() -> super::Routes {
    super::Routes::console()
        .route("/console/users", Access::ADMIN, get(people::list).post(people::create))
        .route("/console/users/new", Access::ADMIN, get(people::new_form))
        .route("/console/users/{id}", Access::ADMIN, get(people::show).post(people::update))
        .route("/console/users/{id}/password", Access::ADMIN, post(people::set_password))
        .route("/console/api-keys", Access::ADMIN, get(people::keys).post(people::create_key))
        .route("/console/api-keys/new", Access::ADMIN, get(people::new_key))
        .route("/console/api-keys/{id}/revoke", Access::ADMIN, post(people::revoke_key))
        .route("/console/account", Access::VIEWER, get(account::show))
        .route("/console/account/two-factor/begin", Access::VIEWER, post(account::begin))
        .route("/console/account/two-factor/confirm", Access::VIEWER, post(account::confirm))
        .route("/console/account/two-factor/off", Access::VIEWER, post(account::turn_off))
        .route("/console/account/sign-in-settings", Access::ADMIN, post(account::settings))
        .route("/console/account/single-sign-on", Access::ADMIN, post(account::save_sso))
        .route("/console/account/single-sign-on/remove", Access::ADMIN, post(account::remove_sso))
}

/// A console form's body as its typed struct (`serde_html_form`: repeated fields such as
/// checkboxes fill a `Vec`); a body that is no form of it is 400, nothing changed.
pub struct ConsoleForm<T>(pub T);

impl<T: serde::de::DeserializeOwned, S: Send + Sync> axum::extract::FromRequest<S> for ConsoleForm<T> {
    type Rejection = error::ConsoleError;

    async fn from_request(req: axum::extract::Request, st: &S) -> Result<Self, Self::Rejection> {
        let bytes = axum::body::Bytes::from_request(req, st).await.map_err(error::ConsoleError::Body)?;
        serde_html_form::from_bytes(&bytes)
            .map(ConsoleForm)
            .map_err(|e| error::ConsoleError::Service(crate::api::error::AppError::Malformed(format!("the form could not be read: {e}"))))
    }
}

/// A 303 to `to` (post, redirect, get).
pub fn redirect(to: &str) -> Response {
    let mut r = StatusCode::SEE_OTHER.into_response();
    if let Ok(v) = HeaderValue::from_str(to) {
        r.headers_mut().insert(header::LOCATION, v);
    }
    r
}

/// Whether the request came over HTTPS (API Gateway, a proxy, or the browser's Origin).
fn https(headers: &HeaderMap) -> bool {
    headers.get("x-forwarded-proto").and_then(|v| v.to_str().ok()).is_some_and(|p| p.eq_ignore_ascii_case("https"))
        || headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()).is_some_and(|o| o.starts_with("https://"))
}

/// A `Set-Cookie` value (the `cookie` crate writes it): HttpOnly, SameSite=Lax, Path=/,
/// Secure over HTTPS.
fn set_cookie(headers: &HeaderMap, name: &str, value: &str, max_age: i64) -> String {
    cookie::Cookie::build((name, value))
        .http_only(true)
        .same_site(cookie::SameSite::Lax)
        .path("/")
        .max_age(cookie::time::Duration::seconds(max_age))
        .secure(https(headers))
        .build()
        .to_string()
}

async fn home(Within(st): Within, user: Option<ConsoleUser>) -> ConsoleResult {
    use crate::usecases::attention::{of_account, Concern};
    let Some(user) = user else { return Ok(redirect("/console/sign-in")) };
    let (items, total) = of_account(&st, &user.account).await?;
    let section = |c: Concern| match c {
        Concern::NoPlayableAd => "Serving nothing",
        Concern::NoBids => "No bids",
        Concern::BehindPace => "Behind pace",
        Concern::EndedUnderTarget => "Ended under target",
    };
    Ok(page::page(
        "Home",
        Some(&user),
        html! {
            h1 { "What needs attention" }
            p { "Signed in as " strong { (user.email) } " (" (user.role.as_str()) ") in account " (user.account.name) ". Dates are in " (user.account.time_zone) "." }
            @if items.is_empty() {
                p role="status" { "Nothing needs attention: every live goal is on pace and can serve." }
            } @else {
                @if total > items.len() { p role="status" { "The worst " (items.len()) " of " (total) "." } }
                ol.attention {
                    @for i in &items {
                        li {
                            strong { (section(i.concern)) ": " }
                            a href={ "/console/goals/" (i.goal_id) } { (i.goal_name.clone().unwrap_or_else(|| format!("Goal {}", i.goal_id))) }
                            " — " (i.message)
                            @if !i.campaign_id.is_empty() { " (" a href={ "/console/campaigns/" (i.campaign_id) } { "its campaign" } ")" }
                        }
                    }
                }
            }
            p { a.button href="/console/campaigns" { "See the campaigns" } }
        },
    )
    .into_response())
}

/// Whether a form's action carries the session's token (`?csrf=`, `form::action`).
pub fn token_in_query(query: Option<&str>, expected: &str) -> bool {
    let given = query.into_iter().flat_map(|q| q.split('&')).find_map(|pair| pair.strip_prefix("csrf=")).unwrap_or("");
    token_matches(given, expected)
}

/// Whether a form's token is the expected one (constant time).
fn token_matches(form: &str, expected: &str) -> bool {
    use subtle::ConstantTimeEq;
    !expected.is_empty() && form.len() == expected.len() && bool::from(form.as_bytes().ct_eq(expected.as_bytes()))
}
