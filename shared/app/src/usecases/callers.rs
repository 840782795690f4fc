//! Who calls (docs/people-and-roles.md): an API key or a console session resolved to its
//! account, who it is and its role. Both the API and the console resolve callers here, so a
//! caller is read once per `AUTH_CACHE_TTL` a process (`AppState::auth_cache`), whichever
//! entry point it came through.

use super::UseCaseResult;
use crate::ids::hash_key;
use crate::model::access::{Actor, ActorKind, Principal, Role, SessionRef};
use crate::model::account::Account;
use crate::repo;
use crate::state::AppState;

/// The longest key or session token looked up (anything longer cannot exist).
pub const TOKEN_MAX: usize = 256;

/// A resolved caller: the account and who calls in it.
pub type Caller = (Account, Principal);

/// The account and key of an API key; `None` for a key that is not (or no longer) one. A
/// key recorded without a role (made before keys had roles) acts as ADMIN.
pub async fn by_key(st: &AppState, key: &str) -> UseCaseResult<Option<Caller>> {
    if key.is_empty() || key.len() > TOKEN_MAX {
        return Ok(None);
    }
    let h = hash_key(key);
    if let Some(found) = st.auth_cache.get(&h, st.clock.instant()) {
        return Ok(Some(found));
    }
    let Some((account, rec)) = repo::accounts::by_key_hash(st.store.as_ref(), &h).await? else { return Ok(None) };
    let id = repo::access::fingerprint(&h);
    let actor = Actor { kind: ActorKind::Key, name: rec.label.clone().unwrap_or_else(|| id.clone()), id };
    let found = (account, Principal { actor, role: rec.role.unwrap_or(Role::Admin), session: None });
    st.auth_cache.put(h.clone(), found.clone(), st.clock.instant());
    note_key_used(st, h);
    Ok(Some(found))
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
/// listed), with the session's form token. `keep_alive`: when the session is read (not
/// answered from the cache), its idle end is pushed on (at most once a minute); a function
/// that writes nothing (the queries function) passes false.
pub async fn by_session(st: &AppState, token: &str, keep_alive: bool) -> UseCaseResult<Option<Caller>> {
    if token.is_empty() || token.len() > TOKEN_MAX {
        return Ok(None);
    }
    let h = hash_key(token);
    let cache_key = session_cache_key(&h);
    if let Some(found) = st.auth_cache.get(&cache_key, st.clock.instant()) {
        return Ok(Some(found));
    }
    let store = st.store.as_ref();
    let now = st.clock.now();
    let Some((session, version)) = repo::sessions::get(store, &h, now).await? else { return Ok(None) };
    let (dir, _) = repo::access::directory(store, &session.account).await?;
    let Some(user) = dir.user(&session.user_id).filter(|u| !u.disabled && u.sessions.contains(&h)) else { return Ok(None) };
    let Some(account) = repo::accounts::get(store, &session.account).await? else { return Ok(None) };
    if keep_alive {
        if let Err(e) = repo::sessions::touch(store, &h, &session, version, now).await {
            tracing::warn!(error = %e, "a session's last use could not be noted");
        }
    }
    let actor = Actor { kind: ActorKind::User, id: user.id.clone(), name: user.email.clone() };
    let found = (account, Principal { actor, role: user.role, session: Some(SessionRef { hash: h, csrf: session.csrf }) });
    st.auth_cache.put(cache_key, found.clone(), st.clock.instant());
    Ok(Some(found))
}

/// Forgets a session this process resolved (signing out answers 401 at once here).
pub fn forget_session(st: &AppState, hash: &str) {
    st.auth_cache.remove(&session_cache_key(hash));
}

fn session_cache_key(hash: &str) -> String {
    format!("session:{hash}")
}
