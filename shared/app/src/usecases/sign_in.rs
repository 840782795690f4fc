//! Signing in and out of the console (docs/people-and-roles.md, "Sessions"): an email and
//! a password make a session; five failures of one email within 15 minutes hold it off,
//! whether the email exists or not, and the answer never tells which.

use chrono::{DateTime, Utc};

use super::UseCaseResult;
use crate::ids::hash_key;
use crate::model::access::normalise_email;
use crate::repo;
use crate::state::AppState;

/// How long a session lasts at most, however busy (its cookie's `Max-Age`).
pub const SESSION_MAX_AGE: chrono::Duration = repo::sessions::MAX_AGE;

/// What a sign-in came to.
#[derive(Debug, Clone, PartialEq)]
pub enum SignIn {
    /// A new session: its cookie's value (shown to the browser only) and its forms' token.
    Started { token: String, csrf: String, account: String },
    /// Wrong email or password (the same answer for both).
    Refused,
    /// Too many failures: tried again no sooner than this.
    Throttled { until: DateTime<Utc> },
}

/// A session or form token: 256 random bits from the operating system, as 64 hex characters.
pub fn token() -> String {
    crate::ids::secret_hex::<{ crate::ids::TOKEN_BYTES }>()
}

pub async fn sign_in(st: &AppState, email: &str, password: &str) -> UseCaseResult<SignIn> {
    let store = st.store.as_ref();
    let now = st.clock.now();
    let email = normalise_email(email);
    let email_hash = hash_key(&email);
    let mut accounts = repo::access::accounts_of_email(store, &email).await?;
    // An email nobody has is counted under no account ("A##SIGNIN"), like any other.
    let counted = if accounts.is_empty() { vec![String::new()] } else { accounts.clone() };
    for a in &counted {
        if let Some(until) = repo::sessions::throttled_until(store, a, &email_hash, now).await? {
            return Ok(SignIn::Throttled { until });
        }
    }
    accounts.truncate(crate::model::access::MAX_ACCOUNTS_PER_EMAIL);
    let mut candidates = Vec::new();
    for a in &accounts {
        let (dir, _) = repo::access::directory(store, a).await?;
        if let Some(u) = dir.user_by_email(&email).filter(|u| !u.disabled) {
            candidates.push((a.clone(), u.id.clone(), u.password_hash.clone()));
        }
    }
    if candidates.is_empty() {
        // The time of one verification all the same.
        crate::passwords::verify(password.to_string(), None).await;
    }
    for (account, user_id, phc) in candidates {
        if crate::passwords::verify(password.to_string(), Some(phc)).await {
            let (token, csrf) = (token(), token());
            repo::sessions::start(store, &account, &user_id, &hash_key(&token), &csrf, now).await?;
            return Ok(SignIn::Started { token, csrf, account });
        }
    }
    for a in &counted {
        repo::sessions::failed(store, a, &email_hash, now).await?;
    }
    Ok(SignIn::Refused)
}

/// Ends the session of this cookie (an unknown or ended one: nothing to do).
pub async fn sign_out(st: &AppState, token: &str) -> UseCaseResult<()> {
    let hash = hash_key(token);
    if let Some((session, _)) = repo::sessions::get(st.store.as_ref(), &hash, st.clock.now()).await? {
        repo::sessions::end(st.store.as_ref(), &session.account, &hash).await?;
    }
    Ok(())
}
