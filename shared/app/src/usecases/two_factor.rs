//! A user's second factor (docs/people-and-roles.md, "Two-factor"), set up and turned off by
//! the user themself on their account page, and the account's requirement of one, an
//! ADMIN's choice. The sign-in's code step is `usecases::sign_in::sign_in_code`.

use std::net::IpAddr;

use super::{UseCaseError, UseCaseResult};
use crate::domain_error::FieldError;
use crate::ids::AccountId;
use crate::model::two_factor::TwoFactor;
use crate::repo;
use crate::rule::Rule;
use crate::state::AppState;

fn not_found(id: &str) -> repo::RepoError {
    repo::RepoError::not_found("user", id)
}

/// The user's second factor as it stands (none, waiting for its first code, or on) and
/// whether the account requires one.
pub async fn status(st: &AppState, account: &AccountId, user_id: &str) -> UseCaseResult<(Option<TwoFactor>, bool)> {
    let (dir, _) = repo::access::directory(st.store.as_ref(), account).await?;
    let user = dir.user(user_id).ok_or_else(|| not_found(user_id))?;
    Ok((user.two_factor.clone(), dir.require_two_factor))
}

/// A new secret for the user, waiting for its first code (one not yet confirmed is
/// replaced); 409 when theirs is on already (turn it off first).
pub async fn begin(st: &AppState, account: &AccountId, user_id: &str) -> UseCaseResult<TwoFactor> {
    let fresh = TwoFactor::begin();
    Ok(repo::access::change(st.store.as_ref(), account, |dir| {
        let u = dir.users.iter_mut().find(|u| u.id == user_id).ok_or_else(|| not_found(user_id))?;
        if u.two_factor.as_ref().is_some_and(|t| t.confirmed) {
            return Err(repo::RepoError::conflict("two-factor sign-in is on already: turn it off before setting up another"));
        }
        u.two_factor = Some(fresh.clone());
        Ok((fresh.clone(), Vec::new()))
    })
    .await?)
}

/// Turns the waiting secret on with its first code: the ten recovery codes, shown this
/// once. A wrong code: 400 naming `code` (rule `credential`), nothing changed.
pub async fn confirm(st: &AppState, account: &AccountId, user_id: &str, code: &str) -> UseCaseResult<Vec<String>> {
    let at = st.clock.now().timestamp().max(0) as u64;
    let codes = repo::access::change(st.store.as_ref(), account, |dir| {
        let u = dir.users.iter_mut().find(|u| u.id == user_id).ok_or_else(|| not_found(user_id))?;
        let Some(tf) = u.two_factor.as_mut().filter(|t| !t.confirmed) else {
            return Err(repo::RepoError::conflict("there is no two-factor set-up waiting for a code: set it up first"));
        };
        Ok((tf.confirm(code, at), Vec::new()))
    })
    .await?;
    codes.ok_or_else(|| {
        UseCaseError::validation(vec![FieldError::new(
            "code",
            Rule::Credential,
            "the code is not the one your authenticator app shows now",
        )])
    })
}

/// Turns the user's second factor off, with their current password (counted as a password
/// change's check is); 409 while the account requires one.
pub async fn turn_off(
    st: &AppState,
    account: &AccountId,
    user_id: &str,
    current_password: &str,
    from: Option<IpAddr>,
) -> UseCaseResult<()> {
    let (dir, _) = repo::access::directory(st.store.as_ref(), account).await?;
    if dir.require_two_factor {
        return Err(UseCaseError::conflict("this account requires two-factor sign-in: an ADMIN can lift that in the sign-in settings"));
    }
    super::access::prove(st, account, user_id, current_password, from).await?;
    Ok(repo::access::change(st.store.as_ref(), account, |dir| {
        let u = dir.users.iter_mut().find(|u| u.id == user_id).ok_or_else(|| not_found(user_id))?;
        u.two_factor = None;
        Ok(((), Vec::new()))
    })
    .await?)
}

/// Requires (or stops requiring) a second factor of every user of the account (ADMIN).
pub async fn require(st: &AppState, account: &AccountId, required: bool) -> UseCaseResult<()> {
    Ok(repo::access::change(st.store.as_ref(), account, |dir| {
        dir.require_two_factor = required;
        Ok(((), Vec::new()))
    })
    .await?)
}
