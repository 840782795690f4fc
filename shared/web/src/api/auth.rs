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
use crate::api::gate::Admitted;
use crate::api::routes::Surface;
use crate::model::access::Role;
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

/// Admits the caller of a request to a route that needs `needed` (`api::gate`): its
/// `x-o-api-key`, or its session cookie (a console page takes a session only), its role
/// checked, and the account's request rate taken. An ADMIN's write is admitted on the
/// caller as stored now, never a cached one: a demoted or disabled ADMIN is refused at once.
pub async fn admit(parts: &mut Parts, st: &AppState, needed: Role, surface: Surface) -> Result<Admitted, AppError> {
    let write = !is_read(&parts.method);
    let fresh = write && needed == Role::Admin;
    let console = matches!(surface, Surface::Console { .. });
    if console {
        // The console is a person's: an API key is no console user.
        if parts.headers.contains_key(API_KEY_HEADER) {
            return Err(AppError::Unauthorized("the console takes a session, not an API key".into()));
        }
        // A form from another site is refused before anything is read, in the console's words.
        if write && !same_origin(&parts.headers) {
            return Err(AppError::Forbidden(crate::api::console::NOT_FROM_THIS_SITE.into()));
        }
    }
    let lookup = callers::Lookup { keep_alive: matches!(surface, Surface::Console { keep_alive: true }), fresh };
    let (account, principal) = match parts.headers.get(API_KEY_HEADER) {
        Some(v) => callers::by_key(st, v.to_str().unwrap_or("").trim(), lookup).await?.ok_or_else(unknown_key)?,
        None => match cookie(&parts.headers, SESSION_COOKIE) {
            Some(token) => {
                let found = callers::by_session(st, &token, lookup).await?.ok_or_else(session_ended)?;
                if write && !same_origin(&parts.headers) {
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
    // The request span (see `request_span`) carries the account from here on.
    tracing::Span::current().record("account", account.id.as_str());
    st.rate_limiter.take(&account.id, st.settings.account_rate_per_sec, st.settings.account_burst, st.clock.instant())?;
    Ok(Admitted { account, principal, needed })
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

use crate::api::roles::is_read;

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
