//! Console sessions and failed sign-ins (docs/people-and-roles.md, "Sessions"). A session
//! is a record under the SHA-256 of its cookie, listed in its user's directory entry (at
//! most `MAX_SESSIONS`: the next sign-in ends the oldest), so ending a user's sessions is
//! part of the directory change that disables or deletes them.

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::{RepoError, RepoResult};
use crate::keys;
use crate::model::access::MAX_SESSIONS;
use crate::store::{Cond, Key, Store, TxOp};

/// A session ends after this long without a request.
pub const IDLE: Duration = Duration::hours(12);
/// And after this long whatever happens.
pub const MAX_AGE: Duration = Duration::days(7);
/// `lastSeen` is written at most this often.
pub const TOUCH_EVERY: Duration = Duration::minutes(1);
/// Failed sign-ins of one email allowed in `FAILURE_WINDOW`; the next is refused.
pub const MAX_FAILURES: usize = 5;
/// Failed sign-ins from one address, whatever the email, within `FAILURE_WINDOW`.
pub const MAX_ADDRESS_FAILURES: usize = 20;
pub const FAILURE_WINDOW: Duration = Duration::minutes(15);

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub account: String,
    pub user_id: String,
    pub created: DateTime<Utc>,
    pub last_seen: DateTime<Utc>,
    /// The token every form of the session carries (`csrf`).
    pub csrf: String,
    /// The password was right and the second factor's code is awaited: no request is
    /// admitted with it; the code step (`complete`) ends it for a session of its own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub awaiting_code: bool,
}

/// How long the code step waits after the password.
pub const CODE_WAIT: Duration = Duration::minutes(5);

impl Session {
    /// When it ends if nothing more happens.
    pub fn ends(&self) -> DateTime<Utc> {
        if self.awaiting_code {
            return self.created + CODE_WAIT;
        }
        (self.last_seen + IDLE).min(self.created + MAX_AGE)
    }
}

/// A live session by its cookie's hash (an ended one reads as none).
pub async fn get(store: &dyn Store, hash: &str, now: DateTime<Utc>) -> RepoResult<Option<(Session, u64)>> {
    Ok(super::get::<Session>(store, &keys::session(hash)).await?.filter(|v| v.value.ends() > now).map(|v| {
        let version = v.version();
        (v.value, version)
    }))
}

fn session_item(
    account: &str,
    user_id: &str,
    hash: &str,
    csrf: &str,
    awaiting_code: bool,
    now: DateTime<Utc>,
) -> RepoResult<crate::store::Item> {
    let session = Session {
        account: account.to_string(),
        user_id: user_id.to_string(),
        created: now,
        last_seen: now,
        csrf: csrf.to_string(),
        awaiting_code,
    };
    let mut item = super::item(keys::session(hash), &session, 1)?;
    item.expires_at = Some(session.ends().timestamp());
    Ok(item)
}

fn list_session(user: &mut crate::model::access::UserEntry, hash: &str) {
    user.sessions.push(hash.to_string());
    let over = user.sessions.len().saturating_sub(MAX_SESSIONS);
    user.sessions.drain(..over);
}

/// Starts a session of `user_id` (the directory lists it; the oldest past the bound ends);
/// `awaiting_code`: one that waits for the second factor's code (`complete`).
pub async fn start(
    store: &dyn Store,
    account: &str,
    user_id: &str,
    hash: &str,
    csrf: &str,
    awaiting_code: bool,
    now: DateTime<Utc>,
) -> RepoResult<()> {
    let item = session_item(account, user_id, hash, csrf, awaiting_code, now)?;
    super::access::change(store, account, |dir| {
        let user = dir.users.iter_mut().find(|u| u.id == user_id && !u.disabled).ok_or_else(|| RepoError::not_found("user", user_id))?;
        list_session(user, hash);
        Ok(((), vec![TxOp::Put(item.clone(), Cond::NotExists)]))
    })
    .await
}

/// The code step: `accept` judges the code against the user's second factor (recording
/// the step or recovery code it used); when it does, the waiting session `pending` ends
/// and the session `hash` (with its form token `csrf`) starts, in the same directory change. Whether it was accepted.
pub async fn complete(
    store: &dyn Store,
    account: &str,
    user_id: &str,
    pending: &str,
    (hash, csrf): (&str, &str),
    now: DateTime<Utc>,
    mut accept: impl FnMut(&mut crate::model::two_factor::TwoFactor) -> bool,
) -> RepoResult<bool> {
    let item = session_item(account, user_id, hash, csrf, false, now)?;
    super::access::change(store, account, |dir| {
        let user = dir.users.iter_mut().find(|u| u.id == user_id && !u.disabled).ok_or_else(|| RepoError::not_found("user", user_id))?;
        let Some(tf) = user.two_factor.as_mut().filter(|t| t.confirmed) else { return Ok((false, Vec::new())) };
        if !user.sessions.iter().any(|s| s == pending) || !accept(tf) {
            return Ok((false, Vec::new()));
        }
        user.sessions.retain(|s| s != pending);
        list_session(user, hash);
        Ok((true, vec![TxOp::Put(item.clone(), Cond::NotExists)]))
    })
    .await
}

/// Ends a session (signing out): its record goes with the directory's change.
pub async fn end(store: &dyn Store, account: &str, hash: &str) -> RepoResult<()> {
    super::access::change(store, account, |dir| {
        let listed = dir.users.iter().any(|u| u.sessions.iter().any(|s| s == hash));
        for u in dir.users.iter_mut() {
            u.sessions.retain(|s| s != hash);
        }
        // A listed session's record goes with the directory's change (`repo::access`); one
        // the directory no longer lists is deleted all the same.
        Ok(((), if listed { Vec::new() } else { vec![TxOp::Delete(keys::session(hash), Cond::None)] }))
    })
    .await
}

/// Notes a request of the session (at most once a minute), pushing its idle end.
pub async fn touch(store: &dyn Store, hash: &str, session: &Session, version: u64, now: DateTime<Utc>) -> RepoResult<()> {
    if now - session.last_seen < TOUCH_EVERY {
        return Ok(());
    }
    if session.awaiting_code {
        return Ok(());
    }
    let next = Session { last_seen: now, ..session.clone() };
    let mut item = super::item(keys::session(hash), &next, version + 1)?;
    item.expires_at = Some(next.ends().timestamp());
    match store.put(item, Cond::Version(version)).await {
        Ok(()) | Err(crate::store::StoreError::ConditionFailed) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Failures {
    #[serde(default)]
    at: Vec<DateTime<Utc>>,
}

/// Takes one of the `max` sign-in attempts the window allows under `key`, before the
/// password is verified: an attempt is counted first and forgiven (`release`) only when it
/// signs in, so N guesses sent at once verify at most `max`.
pub async fn reserve(store: &dyn Store, key: &Key, max: usize, now: DateTime<Utc>) -> RepoResult<Reserved> {
    let mut tries = super::Attempts::worker("sign-in attempts", &key.sk);
    loop {
        if tries.next_worker_try().await.is_err() {
            return Ok(Reserved::Contended);
        }
        let prev = super::get::<Failures>(store, key).await?;
        let mut f = prev.as_ref().map(|v| v.value.clone()).unwrap_or_default();
        f.at.retain(|t| now - *t < FAILURE_WINDOW);
        if f.at.len() >= max {
            return Ok(Reserved::Full { until: f.at.iter().min().copied().unwrap_or(now) + FAILURE_WINDOW });
        }
        f.at.push(now);
        if write(store, key, prev.as_ref(), &f, now, &tries).await? {
            return Ok(Reserved::Taken);
        }
    }
}

/// The key of one sign-in allowance (`keys::sign_in_failures`).
pub type Allowance = Key;

/// What `reserve` did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reserved {
    /// One attempt is counted.
    Taken,
    /// None is left until then.
    Full { until: DateTime<Utc> },
    /// Too many sign-ins raced for the same allowance: none is counted, try again shortly.
    Contended,
}

/// Forgives one attempt taken at `at` (it signed in, or it never ran).
pub async fn release(store: &dyn Store, key: &Key, at: DateTime<Utc>, now: DateTime<Utc>) -> RepoResult<()> {
    let mut tries = super::Attempts::worker("sign-in attempts", &key.sk);
    loop {
        tries.next_worker_try().await?;
        let Some(prev) = super::get::<Failures>(store, key).await? else { return Ok(()) };
        let mut f = prev.value.clone();
        let Some(i) = f.at.iter().position(|t| *t == at) else { return Ok(()) };
        f.at.remove(i);
        if write(store, key, Some(&prev), &f, now, &tries).await? {
            return Ok(());
        }
    }
}

/// Writes the attempts at the version read (false: it changed meanwhile, read again).
async fn write(
    store: &dyn Store,
    key: &Key,
    prev: Option<&super::Versioned<Failures>>,
    f: &Failures,
    now: DateTime<Utc>,
    tries: &super::Attempts,
) -> RepoResult<bool> {
    let mut item = match prev {
        Some(p) => super::next(&p.item, f)?,
        None => super::item(key.clone(), f, 1)?,
    };
    item.expires_at = Some((now + FAILURE_WINDOW).timestamp());
    let cond = prev.map_or(Cond::NotExists, |p| Cond::Version(p.version()));
    tries.commit(store, vec![TxOp::Put(item, cond)]).await
}
