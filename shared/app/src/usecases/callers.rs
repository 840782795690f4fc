//! Who calls (docs/people-and-roles.md): an API key or a console session resolved to its
//! account, who it is and its role. Both the API and the console resolve callers here, so a
//! caller is read once per `AUTH_CACHE_TTL` a process (`AppState::auth_cache`), whichever
//! entry point it came through.

use super::UseCaseResult;
use crate::ids::hash_key;
use crate::model::access::{Actor, ActorKind, Principal, SessionRef};
use crate::model::account::Account;
use crate::repo;
use crate::state::AppState;

/// The longest key or session token looked up (anything longer cannot exist).
pub const TOKEN_MAX: usize = 256;

/// A resolved caller: the account and who calls in it.
pub type Caller = (Account, Principal);

/// How a caller is looked up.
#[derive(Debug, Clone, Copy, Default)]
pub struct Lookup {
    /// A session's idle end is pushed on when it is read (at most once a minute); a
    /// function that writes nothing (the queries function) passes false.
    pub keep_alive: bool,
    /// Read as stored now, never from the cache (an ADMIN's write: a demoted or disabled
    /// caller is refused at once). What is read refreshes the cache.
    pub fresh: bool,
}

/// The account and key of an API key; `None` for a key that is not (or no longer) one, or
/// a key recorded without a role (the seed and the migration give every key one).
pub async fn by_key(st: &AppState, key: &str, lookup: Lookup) -> UseCaseResult<Option<Caller>> {
    if key.is_empty() || key.len() > TOKEN_MAX {
        return Ok(None);
    }
    let h = hash_key(key);
    if !lookup.fresh {
        if let Some(found) = st.auth_cache.get(&h, st.clock.instant()) {
            return Ok(Some(found));
        }
    }
    let Some((account, rec)) = repo::accounts::by_key_hash(st.store.as_ref(), &h).await? else { return Ok(None) };
    let Some(role) = rec.role else {
        tracing::warn!(account = %account.id, "an API key without a role was refused");
        return Ok(None);
    };
    let id = repo::access::fingerprint(&h);
    let actor = Actor { kind: ActorKind::Key, name: rec.label.clone().unwrap_or_else(|| id.clone()), id };
    let found = (account, Principal { actor, role, session: None });
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
/// listed), with the session's form token.
pub async fn by_session(st: &AppState, token: &str, lookup: Lookup) -> UseCaseResult<Option<Caller>> {
    if token.is_empty() || token.len() > TOKEN_MAX {
        return Ok(None);
    }
    let h = hash_key(token);
    let cache_key = session_cache_key(&h);
    if !lookup.fresh {
        if let Some(found) = st.auth_cache.get(&cache_key, st.clock.instant()) {
            return Ok(Some(found));
        }
    }
    let store = st.store.as_ref();
    let now = st.clock.now();
    // A session waiting for its second factor's code is admitted nowhere.
    let Some((session, version)) = repo::sessions::get(store, &h, now).await?.filter(|(s, _)| !s.awaiting_code) else { return Ok(None) };
    let (dir, _) = repo::access::directory(store, &session.account).await?;
    let Some(user) = dir.user(&session.user_id).filter(|u| !u.disabled && u.sessions.contains(&h)) else { return Ok(None) };
    let Some(account) = repo::accounts::get(store, &session.account).await? else { return Ok(None) };
    if lookup.keep_alive {
        if let Err(e) = repo::sessions::touch(store, &h, &session, version, now).await {
            tracing::warn!(error = %e, "a session's last use could not be noted");
        }
    }
    let actor = Actor { kind: ActorKind::User, id: user.id.clone(), name: user.email.clone() };
    let must_enrol = dir.must_enrol(user);
    let found = (account, Principal { actor, role: user.role, session: Some(SessionRef { hash: h, csrf: session.csrf, must_enrol }) });
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
