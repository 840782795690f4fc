//! Users and API keys (docs/people-and-roles.md): one use case per operation of
//! `/v1/users` and `/v1/api-keys`, and the admin command's. Every change is one
//! conditional write of the account's directory (`repo::access`).

use super::{UseCaseError, UseCaseResult};
use crate::domain_error::DomainError;
use crate::ids::AccountId;
use crate::model::access::{normalise_email, CreatedKey, KeyView, NewKey, NewUser, Role, UserEntry, UserUpdate, UserView};
use crate::repo::{self, RepoError};
use crate::rule::Rule;
use crate::state::AppState;

/// The hex characters of a key's fingerprint (its id in the directory and the pages).
pub use crate::repo::accounts::FINGERPRINT_LEN;

fn not_found(id: &str) -> RepoError {
    RepoError::not_found("user", id)
}

fn email_taken(email: &str) -> RepoError {
    RepoError::Rule(DomainError::field("email", Rule::Unique, format!("the account already has a user with email {email}")))
}

/// Hashes a password on the blocking pool.
async fn hash(password: String) -> UseCaseResult<String> {
    crate::passwords::hash(password).await.map_err(UseCaseError::Internal)
}

pub async fn create_user(st: &AppState, account: &AccountId, input: NewUser) -> UseCaseResult<UserView> {
    let password_hash = hash(input.password).await?;
    let now = st.clock.now();
    let email = normalise_email(&input.email);
    let user = UserEntry::new(email.clone(), input.name.trim().to_string(), input.role, password_hash, now);
    let view = user.view();
    repo::access::change(st.store.as_ref(), account, |dir| {
        if dir.user_by_email(&email).is_some() {
            return Err(email_taken(&email));
        }
        dir.users.push(user.clone());
        Ok(((), Vec::new()))
    })
    .await?;
    Ok(view)
}

pub async fn list_users(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<UserView>> {
    Ok(repo::access::directory(st.store.as_ref(), account).await?.0.users.iter().map(UserEntry::view).collect())
}

/// A user and their version (the ETag).
pub async fn get_user(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<(UserView, u64)> {
    let (dir, _) = repo::access::directory(st.store.as_ref(), account).await?;
    let u = dir.user(id).ok_or_else(|| not_found(id))?;
    Ok((u.view(), u.version))
}

/// Replaces a user's email, name, role and state at version `expected` (412 otherwise).
/// Disabling or demoting a user ends their sessions and revokes the keys they made.
pub async fn update_user(
    st: &AppState,
    account: &AccountId,
    id: &str,
    input: UserUpdate,
    expected: Option<u64>,
) -> UseCaseResult<(UserView, u64)> {
    let now = st.clock.now();
    let email = normalise_email(&input.email);
    Ok(repo::access::change(st.store.as_ref(), account, |dir| {
        if dir.users.iter().any(|u| u.email == email && u.id != id) {
            return Err(email_taken(&email));
        }
        let u = dir.users.iter_mut().find(|u| u.id == id).ok_or_else(|| not_found(id))?;
        if expected.is_some_and(|v| v != u.version) {
            return Err(RepoError::Stale(format!("user {id} has changed since the ETag was read")));
        }
        let loses = (input.disabled && !u.disabled) || !input.role.allows(u.role);
        u.email = email.clone();
        u.name = input.name.trim().to_string();
        u.role = input.role;
        u.disabled = input.disabled;
        if u.disabled {
            u.sessions.clear();
        }
        u.version += 1;
        u.modified = now;
        let out = (u.view(), u.version);
        if loses {
            dir.revoke_made_by(id);
        }
        Ok((out, Vec::new()))
    })
    .await?)
}

/// Deletes a user (their sessions end with them, and the keys they made are revoked).
pub async fn delete_user(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    Ok(repo::access::change(st.store.as_ref(), account, |dir| {
        dir.revoke_made_by(id);
        let before = dir.users.len();
        dir.users.retain(|u| u.id != id);
        if dir.users.len() == before {
            return Err(not_found(id));
        }
        Ok(((), Vec::new()))
    })
    .await?)
}

/// A person asking for a password change through their session: who they are, the session
/// that asked (it stays; their others end when it is their own password), their own current
/// password, and the address they ask from.
pub struct Asker<'a> {
    pub user_id: &'a str,
    pub session: &'a str,
    pub current_password: &'a str,
    pub from: Option<std::net::IpAddr>,
}

/// Sets a user's password; the user's other sessions end. A person (`asker`) proves it is
/// them with their own current password first (a stolen session cannot take the account for
/// good); an ADMIN's API key (`None`) is no person and has none to give.
pub async fn set_password(st: &AppState, account: &AccountId, id: &str, password: String, asker: Option<Asker<'_>>) -> UseCaseResult<()> {
    if repo::access::directory(st.store.as_ref(), account).await?.0.user(id).is_none() {
        return Err(not_found(id).into());
    }
    let keep = asker.as_ref().filter(|a| a.user_id == id).map(|a| a.session.to_string());
    if let Some(a) = &asker {
        prove(st, account, a.user_id, a.current_password, a.from).await?;
    }
    let password_hash = hash(password).await?;
    let now = st.clock.now();
    Ok(repo::access::change(st.store.as_ref(), account, |dir| {
        let u = dir.users.iter_mut().find(|u| u.id == id).ok_or_else(|| not_found(id))?;
        u.password_hash = password_hash.clone();
        u.sessions.retain(|s| Some(s) == keep.as_ref());
        u.version += 1;
        u.modified = now;
        Ok(((), Vec::new()))
    })
    .await?)
}

/// Checks that `current_password` is the signed-in user's own (a password change and
/// turning two-factor off ask for it): 400 naming `currentPassword` when it is missing
/// (not counted) or wrong (rule `credential`), 429 past the allowance, 503 when busy.
pub async fn prove(
    st: &AppState,
    account: &AccountId,
    user_id: &str,
    current_password: &str,
    from: Option<std::net::IpAddr>,
) -> UseCaseResult<()> {
    use super::sign_in::SignIn;
    if current_password.is_empty() {
        return Err(UseCaseError::validation(vec![crate::domain_error::FieldError::new(
            "currentPassword",
            crate::rule::Rule::Required,
            "currentPassword is required: your own password, to show it is you",
        )]));
    }
    match super::sign_in::confirm_password(st, account, user_id, current_password, from).await? {
        None => Ok(()),
        Some(SignIn::Throttled { until }) => {
            let retry_after = (until - st.clock.now()).num_seconds().max(1) as u64;
            Err(UseCaseError::Quota { message: "too many wrong passwords: try again later".into(), retry_after })
        }
        Some(SignIn::Busy) => Err(UseCaseError::Busy("the service is busy checking passwords: try again in a moment".into())),
        Some(_) => Err(UseCaseError::validation(vec![crate::domain_error::FieldError::new(
            "currentPassword",
            crate::rule::Rule::Credential,
            "currentPassword is not your password",
        )])),
    }
}

/// A new key; `made_by`: the user who made it (signed in), whose standing it never outlives.
pub async fn create_key(st: &AppState, account: &AccountId, input: NewKey, made_by: Option<&str>) -> UseCaseResult<CreatedKey> {
    let made_by = made_by.map(str::to_string);
    Ok(repo::accounts::create_key(st.store.as_ref(), account, input.name.trim().to_string(), input.role, made_by, st.clock.now()).await?)
}

pub async fn list_keys(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<KeyView>> {
    Ok(repo::accounts::list_keys(st.store.as_ref(), account).await?)
}

/// Revokes a key by its id (its fingerprint).
pub async fn revoke_key(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    let (dir, _) = repo::access::directory(st.store.as_ref(), account).await?;
    if !dir.keys.iter().any(|k| k.id == id) {
        return Err(UseCaseError::not_found("API key", id));
    }
    Ok(repo::accounts::revoke_key(st.store.as_ref(), account, id).await?)
}

/// Whether `role` is one of the closed set (a form's value).
pub fn role_of(s: &str) -> Option<Role> {
    Role::parse(s)
}
