//! Authentication and roles (docs/people-and-roles.md): the caller is an API key
//! (`x-o-api-key`) or a user's console session (the `o_session` cookie); either resolves,
//! hashed and cached for at most `AUTH_CACHE_TTL`, to the account, who it is and its role.
//! The role the route needs (`api::roles`) is checked before the handler reads anything;
//! then the account's request rate is taken.

use std::sync::Arc;

use axum::extract::{FromRequestParts, MatchedPath};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, Method};

use crate::api::error::AppError;
use crate::model::account::Account;
use crate::repo;
use crate::state::AppState;
use crate::usecases::callers;

/// The header carrying an API key.
pub const API_KEY_HEADER: &str = "x-o-api-key";
/// The console session's cookie.
pub const SESSION_COOKIE: &str = "o_session";
pub use crate::model::access::{Principal, AUTH_CACHE_TTL};

/// The authenticated account, its role checked against the route's.
pub struct Auth(pub Account);

/// The authenticated account and who called (a handler that needs to know who).
pub struct Caller(pub Account, pub Principal);

impl FromRequestParts<AppState> for Auth {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, AppError> {
        Ok(Auth(authenticate(parts, st).await?.0))
    }
}

impl FromRequestParts<AppState> for Caller {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, AppError> {
        let (account, principal) = authenticate(parts, st).await?;
        Ok(Caller(account, principal))
    }
}

/// The request's account and caller, once per request (a handler may take both `Auth` and
/// `Caller`).
async fn authenticate(parts: &mut Parts, st: &AppState) -> Result<(Account, Principal), AppError> {
    authenticate_with(parts, st, false).await
}

/// The caller of a request with its `x-o-api-key`, or its session cookie (`keep_alive`:
/// the session's idle end is pushed on, as every console page but the queries function's
/// does), its role checked against the route's, its change records naming it, and the
/// account's request rate taken. Once per request: the result is kept in its extensions.
pub async fn authenticate_with(parts: &mut Parts, st: &AppState, keep_alive: bool) -> Result<(Account, Principal), AppError> {
    let path = parts.extensions.get::<MatchedPath>().map(|p| p.as_str().to_string()).unwrap_or_default();
    let needed = crate::api::roles::required(&parts.method, &path);
    // Resolved earlier in this request (the Idempotency-Key layer authenticates before the
    // unit of work exists): the same caller, its role and its change records all the same.
    if let Some((account, principal)) = parts.extensions.get::<(Account, Principal)>().cloned() {
        if !principal.role.allows(needed) {
            return Err(AppError::RoleRequired(needed));
        }
        name_the_writer(parts, &principal, needed);
        return Ok((account, principal));
    }
    let (account, principal) = match parts.headers.get(API_KEY_HEADER) {
        Some(v) => callers::by_key(st, v.to_str().unwrap_or("").trim()).await?.ok_or_else(unknown_key)?,
        None => match cookie(&parts.headers, SESSION_COOKIE) {
            Some(token) => {
                let found = callers::by_session(st, &token, keep_alive).await?.ok_or_else(session_ended)?;
                if !is_read(&parts.method) && !same_origin(&parts.headers) {
                    return Err(AppError::Forbidden("a write with a session cookie must come from this site (Origin)".into()));
                }
                found
            }
            None => return Err(AppError::Unauthorized(format!("the {API_KEY_HEADER} header is required"))),
        },
    };
    if !principal.role.allows(needed) {
        return Err(AppError::RoleRequired(needed));
    }
    name_the_writer(parts, &principal, needed);
    // The request span (see `request_span`) carries the account from here on.
    tracing::Span::current().record("account", account.id.as_str());
    st.rate_limiter.take(&account.id, st.settings.account_rate_per_sec, st.settings.account_burst, st.clock.instant())?;
    parts.extensions.insert((account.clone(), principal.clone()));
    Ok((account, principal))
}

/// A write's change records name who made it (never the key's secret) and the role the
/// route needed, so a revert can ask for the same.
fn name_the_writer(parts: &Parts, principal: &Principal, needed: crate::model::access::Role) {
    if let Some(work) = parts.extensions.get::<Arc<repo::changes::Work>>() {
        work.set_actor(principal.actor.clone());
        work.set_role(needed);
    }
}

fn unknown_key() -> AppError {
    AppError::Unauthorized("unknown API key".into())
}

fn session_ended() -> AppError {
    AppError::Unauthorized("the session has ended: sign in again".into())
}

/// Forgets a session this process resolved (signing out answers 401 at once here).
pub fn forget_session(st: &AppState, hash: &str) {
    callers::forget_session(st, hash);
}

fn is_read(m: &Method) -> bool {
    m == Method::GET || m == Method::HEAD
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
