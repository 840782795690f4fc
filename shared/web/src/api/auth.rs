//! Authentication and roles (docs/people-and-roles.md): the caller is an API key
//! (`x-o-api-key`) or a user's console session (the `o_session` cookie); either resolves,
//! hashed and cached for at most `AUTH_CACHE_TTL`, to the account, who it is and its role.
//! The gate (`api::gate`) admits every caller as the route declares (`api::roles::Access`)
//! before the handler, or any other layer, reads anything; then the account's request rate
//! is taken.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{header, HeaderMap};

use crate::api::error::AppError;
use crate::api::roles::Admitted;

use crate::model::account::Account;
use crate::repo;
use crate::state::AppState;
use crate::usecases::callers;

/// The header carrying an API key.
pub const API_KEY_HEADER: &str = "x-o-api-key";
/// The console session's cookie.
pub const SESSION_COOKIE: &str = "o_session";
pub use crate::model::access::{Principal, AUTH_CACHE_TTL};

/// The authenticated account, its role checked against the route's (by the gate).
pub struct Auth(pub Account);

/// The authenticated account and who called (a handler that needs to know who).
pub struct Caller(pub Account, pub Principal);

impl FromRequestParts<AppState> for Auth {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Self, AppError> {
        Ok(Auth(admitted(parts)?.account.clone()))
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Self, AppError> {
        let a = admitted(parts)?;
        Ok(Caller(a.account.clone(), a.principal.clone()))
    }
}

/// The caller the gate admitted: none on a public route, whose handler then refuses.
pub fn admitted(parts: &Parts) -> Result<&Admitted, AppError> {
    parts.extensions.get::<Admitted>().ok_or_else(|| AppError::Unauthorized(format!("the {API_KEY_HEADER} header is required")))
}

/// Forgets a session this process resolved (signing out answers 401 at once here).
pub fn forget_session(st: &AppState, hash: &str) {
    callers::forget_session(st, hash);
}

/// A cookie's value, when the request carries it (the `cookie` crate reads the header).
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(cookie::Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|c| c.name() == name)
        .map(|c| c.value().to_string())
}

/// Whether the request's `Origin` is this site: the scheme the request came over (https
/// when API Gateway or a proxy says so in `X-Forwarded-Proto`) and the host it was sent to
/// (`Host`, never a forwarded host a client can write). A write without an `Origin` is
/// refused: every browser sends one with a POST.
pub fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else { return false };
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("");
    let https = headers.get("x-forwarded-proto").and_then(|v| v.to_str().ok()).is_some_and(|p| p.eq_ignore_ascii_case("https"));
    let Some((scheme, origin_host)) = origin.split_once("://") else { return false };
    let scheme_ok = if https {
        scheme.eq_ignore_ascii_case("https")
    } else {
        scheme.eq_ignore_ascii_case("http") || scheme.eq_ignore_ascii_case("https")
    };
    scheme_ok && !host.is_empty() && origin_host.eq_ignore_ascii_case(host)
}

/// The state a handler works with: the process's, within the request's unit of work when
/// it has one (`repo::changes::Work`, made by the router for a request that may write), so
/// its writes carry their change records and the compiles they ask for.
pub struct Within(pub AppState);

impl FromRequestParts<AppState> for Within {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, Self::Rejection> {
        Ok(Within(match parts.extensions.get::<std::sync::Arc<repo::changes::Work>>() {
            Some(work) => st.clone().with_work(work.clone()),
            None => st.clone(),
        }))
    }
}
