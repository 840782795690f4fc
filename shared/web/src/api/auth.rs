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
use crate::ids::hash_key;
use crate::model::access::{Actor, ActorKind, Role};
use crate::model::account::Account;
use crate::repo;
use crate::state::AppState;

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
    if let Some(found) = parts.extensions.get::<(Account, Principal)>() {
        return Ok(found.clone());
    }
    let (account, principal) = match parts.headers.get(API_KEY_HEADER) {
        Some(v) => by_key(st, v.to_str().unwrap_or("").trim()).await?,
        None => match cookie(&parts.headers, SESSION_COOKIE) {
            Some(token) => {
                let found = by_session(st, &token).await?;
                if !is_read(&parts.method) && !same_origin(&parts.headers) {
                    return Err(AppError::Forbidden("a write with a session cookie must come from this site (Origin)".into()));
                }
                found
            }
            None => return Err(AppError::Unauthorized(format!("the {API_KEY_HEADER} header is required"))),
        },
    };
    let path = parts.extensions.get::<MatchedPath>().map(|p| p.as_str().to_string()).unwrap_or_default();
    let needed = crate::api::roles::required(&parts.method, &path);
    if !principal.role.allows(needed) {
        return Err(AppError::RoleRequired(needed));
    }
    // A write's change records name who made it, never the key.
    if let Some(work) = parts.extensions.get::<Arc<repo::changes::Work>>() {
        work.set_actor(principal.actor.clone());
    }
    // The request span (see `request_span`) carries the account from here on.
    tracing::Span::current().record("account", account.id.as_str());
    st.rate_limiter.take(&account.id, st.settings.account_rate_per_sec, st.settings.account_burst, st.clock.instant())?;
    parts.extensions.insert((account.clone(), principal.clone()));
    Ok((account, principal))
}

fn unknown_key() -> AppError {
    AppError::Unauthorized("unknown API key".into())
}

async fn by_key(st: &AppState, key: &str) -> Result<(Account, Principal), AppError> {
    if key.is_empty() || key.len() > 256 {
        return Err(unknown_key());
    }
    let h = hash_key(key);
    if let Some(found) = st.auth_cache.get(&h, st.clock.instant()) {
        return Ok(found);
    }
    let (account, rec) = repo::accounts::by_key_hash(st.store.as_ref(), &h).await?.ok_or_else(unknown_key)?;
    let id = repo::access::fingerprint(&h);
    let actor = Actor { kind: ActorKind::Key, name: rec.label.clone().unwrap_or_else(|| id.clone()), id };
    let found = (account, Principal { actor, role: rec.role.unwrap_or(Role::Admin), session: None });
    st.auth_cache.put(h.clone(), found.clone(), st.clock.instant());
    note_key_used(st, h);
    Ok(found)
}

/// Notes the key's use once an hour a process (`lastUsed`), off the request's path.
fn note_key_used(st: &AppState, hash: String) {
    let now = st.clock.now();
    let hour = repo::access::hour_of(now).timestamp();
    let noted = st.key_use_noted.update(hash.clone(), st.clock.instant(), |last| (hour, last != Some(hour)));
    if noted != Some(true) {
        return;
    }
    let store = st.store.clone();
    tokio::spawn(async move {
        if let Err(e) = repo::access::note_key_used(store.as_ref(), &hash, now).await {
            tracing::warn!(error = %e, "a key's last use could not be noted");
        }
    });
}

/// The user of a live session, checked against the directory (enabled, the session still
/// listed).
async fn by_session(st: &AppState, token: &str) -> Result<(Account, Principal), AppError> {
    let ended = || AppError::Unauthorized("the session has ended: sign in again".into());
    if token.is_empty() || token.len() > 256 {
        return Err(ended());
    }
    let h = hash_key(token);
    let cache_key = format!("session:{h}");
    if let Some(found) = st.auth_cache.get(&cache_key, st.clock.instant()) {
        return Ok(found);
    }
    let (session, _) = repo::sessions::get(st.store.as_ref(), &h, st.clock.now()).await?.ok_or_else(ended)?;
    let (dir, _) = repo::access::directory(st.store.as_ref(), &session.account).await?;
    let user = dir.user(&session.user_id).filter(|u| !u.disabled && u.sessions.contains(&h)).ok_or_else(ended)?;
    let account = repo::accounts::get(st.store.as_ref(), &session.account).await?.ok_or_else(ended)?;
    let actor = Actor { kind: ActorKind::User, id: user.id.clone(), name: user.email.clone() };
    let found = (account, Principal { actor, role: user.role, session: Some(h) });
    st.auth_cache.put(cache_key, found.clone(), st.clock.instant());
    Ok(found)
}

/// Forgets a session this process resolved (signing out answers 401 at once here).
pub fn forget_session(st: &AppState, hash: &str) {
    st.auth_cache.remove(&format!("session:{hash}"));
}

fn is_read(m: &Method) -> bool {
    m == Method::GET || m == Method::HEAD
}

/// A cookie's value, when the request carries it.
pub fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|c| c.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v.to_string())
}

/// Whether the request's `Origin` (when sent; a browser sends it with every POST) names the
/// host the request was sent to.
pub fn same_origin(headers: &HeaderMap) -> bool {
    let Some(origin) = headers.get(header::ORIGIN).and_then(|v| v.to_str().ok()) else { return true };
    let host = headers.get("x-forwarded-host").or_else(|| headers.get(header::HOST)).and_then(|v| v.to_str().ok()).unwrap_or("");
    let origin_host = origin.split_once("://").map(|(_, h)| h).unwrap_or("");
    !host.is_empty() && origin_host.eq_ignore_ascii_case(host)
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
