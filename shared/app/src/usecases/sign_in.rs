//! Signing in and out of the console (docs/people-and-roles.md, "Sessions"): an email and
//! a password make a session; five failures of one email within 15 minutes hold it off,
//! whether the email exists or not, and the answer never tells which.

use chrono::{DateTime, Utc};

use super::UseCaseResult;
use std::net::IpAddr;

use crate::ids::hash_key;
use crate::keys;
use crate::model::access::normalise_email;
use crate::repo;
use crate::repo::sessions::Reserved;
use crate::state::AppState;

/// How long a session lasts at most, however busy (its cookie's `Max-Age`).
pub const SESSION_MAX_AGE: chrono::Duration = repo::sessions::MAX_AGE;
/// How long the code step waits after a right password (two-factor).
pub const CODE_WAIT: chrono::Duration = repo::sessions::CODE_WAIT;

/// What a sign-in came to.
#[derive(Debug, Clone, PartialEq)]
pub enum SignIn {
    /// A new session: its cookie's value (shown to the browser only) and its forms' token.
    Started { token: String, csrf: String, account: String },
    /// The password was right; the second factor's code is next: the waiting session's
    /// cookie value (good for `CODE_WAIT`, admitted nowhere but the code step).
    CodeNeeded { pending: String },
    /// Wrong email or password (the same answer for both).
    Refused,
    /// Too many failures: tried again no sooner than this.
    Throttled { until: DateTime<Utc> },
    /// The process verifies as many passwords as it can at once: try again in a second.
    Busy,
}

/// A session or form token: 256 random bits from the operating system, as 64 hex characters.
pub fn token() -> String {
    crate::ids::secret_hex::<{ crate::ids::TOKEN_BYTES }>()
}

/// Signs in with an email and a password, from the address `from` (the platform's, never
/// the caller's word; `None` counts under one shared unknown address).
///
/// Each attempt is counted before its password is verified, against two allowances
/// (docs/security.md, "Sign-in"): `MAX_FAILURES` for the email from this address, so a
/// stranger elsewhere cannot lock the user out, and `MAX_ADDRESS_FAILURES` for the address
/// whatever the email, so one address cannot try many emails. An attempt that signs in (or
/// never ran) is forgiven. The verification passes the process's gate: past it, `Busy`.
pub async fn sign_in(st: &AppState, email: &str, password: &str, from: Option<IpAddr>) -> UseCaseResult<SignIn> {
    let store = st.store.as_ref();
    let now = st.clock.now();
    let email = normalise_email(email);
    let mut accounts = repo::access::accounts_of_email(store, &email).await?;
    accounts.truncate(crate::model::access::MAX_ACCOUNTS_PER_EMAIL);
    let held = match reserve(st, &email, &accounts, from, now).await? {
        Ok(held) => held,
        Err(refused) => return Ok(refused),
    };
    let mut candidates = Vec::new();
    for a in &accounts {
        let (dir, _) = repo::access::directory(store, a).await?;
        if let Some(u) = dir.user_by_email(&email).filter(|u| !u.disabled) {
            let second = u.two_factor.as_ref().is_some_and(|t| t.confirmed);
            candidates.push((a.clone(), u.id.clone(), second, u.password_hash.clone()));
        }
    }
    // An unknown email costs one verification all the same: (who, their password's hash).
    type Try = (Option<(String, String, bool)>, Option<String>);
    let tries: Vec<Try> = if candidates.is_empty() {
        vec![(None, None)]
    } else {
        candidates.into_iter().map(|(a, u, second, phc)| (Some((a, u, second)), Some(phc))).collect()
    };
    for (who, phc) in tries {
        match st.passwords.verify(password.to_string(), phc).await {
            Err(crate::passwords::Busy) => {
                forgive(st, &held, now).await?;
                return Ok(SignIn::Busy);
            }
            Ok(true) => {
                let Some((account, user_id, second)) = who else { continue };
                let (token, csrf) = (token(), token());
                // The password was right: its attempt is forgiven (the code step counts its own).
                forgive(st, &held, now).await?;
                if second {
                    repo::sessions::start(store, &account, &user_id, &hash_key(&token), &csrf, true, now).await?;
                    return Ok(SignIn::CodeNeeded { pending: token });
                }
                repo::sessions::start(store, &account, &user_id, &hash_key(&token), &csrf, false, now).await?;
                return Ok(SignIn::Started { token, csrf, account });
            }
            Ok(false) => {}
        }
    }
    Ok(SignIn::Refused)
}

/// Takes one attempt of `email` from `from` (of a user in `accounts`), before its password
/// is verified: the allowances held, or why not (`Throttled`, `Busy`).
async fn reserve(
    st: &AppState,
    email: &str,
    accounts: &[String],
    from: Option<IpAddr>,
    now: DateTime<Utc>,
) -> UseCaseResult<Result<Vec<repo::sessions::Allowance>, SignIn>> {
    let email_hash = hash_key(email);
    let address = hash_key(&from.map(|a| a.to_string()).unwrap_or_default());
    // An email nobody has is counted under no account ("A##SIGNIN"), like any other.
    let counted = if accounts.is_empty() { vec![String::new()] } else { accounts.to_vec() };
    let mut allowances = vec![(keys::sign_in_failures("", &format!("addr#{address}")), repo::sessions::MAX_ADDRESS_FAILURES)];
    allowances
        .extend(counted.iter().map(|a| (keys::sign_in_failures(a, &format!("{email_hash}#{address}")), repo::sessions::MAX_FAILURES)));
    take(st, allowances, now).await
}

/// Takes one attempt of the address `from` (a sign-in through an account's provider), at
/// `now`: the attempt held (forgive it at `now` when the sign-in succeeds), or why not.
pub(crate) async fn count_address(
    st: &AppState,
    from: Option<IpAddr>,
    now: DateTime<Utc>,
) -> UseCaseResult<Result<Vec<repo::sessions::Allowance>, SignIn>> {
    let address = hash_key(&from.map(|a| a.to_string()).unwrap_or_default());
    take(st, vec![(keys::sign_in_failures("", &format!("addr#{address}")), repo::sessions::MAX_ADDRESS_FAILURES)], now).await
}

/// Takes one attempt under each allowance at `now` (forgiven by `forgive` at the same
/// instant), or none (`Throttled`, `Busy`).
async fn take(
    st: &AppState,
    allowances: Vec<(repo::sessions::Allowance, usize)>,
    now: DateTime<Utc>,
) -> UseCaseResult<Result<Vec<repo::sessions::Allowance>, SignIn>> {
    let store = st.store.as_ref();
    let mut held = Vec::new();
    for (key, max) in allowances {
        match repo::sessions::reserve(store, &key, max, now).await? {
            Reserved::Taken => held.push(key),
            Reserved::Full { until } => {
                forgive(st, &held, now).await?;
                return Ok(Err(SignIn::Throttled { until }));
            }
            Reserved::Contended => {
                forgive(st, &held, now).await?;
                return Ok(Err(SignIn::Busy));
            }
        }
    }
    Ok(Ok(held))
}

/// Whether `password` is the signed-in user's own (a password change asks for it). Each
/// check is counted before it runs: `MAX_FAILURES` for the user from anywhere (a stolen
/// session cannot guess it by moving address; at worst it holds off the user's own password
/// change, never their sign-in) and the address's allowance, shared with sign-ins. `Started` is never answered: `Refused` (wrong), `Throttled`,
/// `Busy`, or `None` for right.
pub async fn confirm_password(
    st: &AppState,
    account: &str,
    user_id: &str,
    password: &str,
    from: Option<IpAddr>,
) -> UseCaseResult<Option<SignIn>> {
    let now = st.clock.now();
    let (dir, _) = repo::access::directory(st.store.as_ref(), account).await?;
    let Some(user) = dir.user(user_id).filter(|u| !u.disabled) else { return Ok(Some(SignIn::Refused)) };
    let address = hash_key(&from.map(|a| a.to_string()).unwrap_or_default());
    let allowances = vec![
        (keys::sign_in_failures("", &format!("addr#{address}")), repo::sessions::MAX_ADDRESS_FAILURES),
        (keys::sign_in_failures(account, &format!("confirm#{}", user.id)), repo::sessions::MAX_FAILURES),
    ];
    let held = match take(st, allowances, now).await? {
        Ok(held) => held,
        Err(refused) => return Ok(Some(refused)),
    };
    match st.passwords.verify(password.to_string(), Some(user.password_hash.clone())).await {
        Err(crate::passwords::Busy) => {
            forgive(st, &held, now).await?;
            Ok(Some(SignIn::Busy))
        }
        Ok(true) => {
            forgive(st, &held, now).await?;
            Ok(None)
        }
        Ok(false) => Ok(Some(SignIn::Refused)),
    }
}

/// The code step of a sign-in with a second factor: `pending` is the waiting session's
/// cookie value, `code` a TOTP code or an unused recovery code. Counted before it is judged,
/// as a sign-in of the user's email from `from` is; right, the waiting session ends and a
/// session of its own starts (`Started`); wrong, `Refused` (the waiting session stays until
/// `CODE_WAIT` is up); an ended or unknown waiting session is `Refused` too.
pub async fn sign_in_code(st: &AppState, pending: &str, code: &str, from: Option<IpAddr>) -> UseCaseResult<SignIn> {
    let store = st.store.as_ref();
    let now = st.clock.now();
    if pending.is_empty() || pending.len() > super::callers::TOKEN_MAX || code.len() > crate::model::two_factor::CODE_MAX {
        return Ok(SignIn::Refused);
    }
    let pending_hash = hash_key(pending);
    let Some((session, _)) = repo::sessions::get(store, &pending_hash, now).await?.filter(|(s, _)| s.awaiting_code) else {
        return Ok(SignIn::Refused);
    };
    let (dir, _) = repo::access::directory(store, &session.account).await?;
    let Some(user) = dir.user(&session.user_id).filter(|u| !u.disabled) else { return Ok(SignIn::Refused) };
    let held = match reserve(st, &user.email, std::slice::from_ref(&session.account), from, now).await? {
        Ok(held) => held,
        Err(refused) => return Ok(refused),
    };
    let (token, csrf) = (token(), token());
    let at = now.timestamp().max(0) as u64;
    let accepted =
        repo::sessions::complete(store, &session.account, &session.user_id, &pending_hash, (&hash_key(&token), &csrf), now, |tf| {
            tf.accept(code, at)
        })
        .await?;
    if !accepted {
        return Ok(SignIn::Refused);
    }
    // The code was right: its attempt is forgiven.
    forgive(st, &held, now).await?;
    Ok(SignIn::Started { token, csrf, account: session.account })
}

/// Forgives the attempts taken at `at` under `keys`.
pub(crate) async fn forgive(st: &AppState, keys: &[repo::sessions::Allowance], at: chrono::DateTime<Utc>) -> UseCaseResult<()> {
    for k in keys {
        repo::sessions::release(st.store.as_ref(), k, at, st.clock.now()).await?;
    }
    Ok(())
}

/// Ends the session of this cookie (an unknown or ended one: nothing to do).
pub async fn sign_out(st: &AppState, token: &str) -> UseCaseResult<()> {
    let hash = hash_key(token);
    if let Some((session, _)) = repo::sessions::get(st.store.as_ref(), &hash, st.clock.now()).await? {
        repo::sessions::end(st.store.as_ref(), &session.account, &hash).await?;
    }
    Ok(())
}
