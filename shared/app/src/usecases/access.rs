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
    let user = UserEntry {
        id: crate::ids::new_id(),
        email: email.clone(),
        name: input.name.trim().to_string(),
        role: input.role,
        disabled: false,
        password_hash,
        sessions: Vec::new(),
        version: 1,
        created: now,
        modified: now,
    };
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
/// Disabling a user ends their sessions.
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
        u.email = email.clone();
        u.name = input.name.trim().to_string();
        u.role = input.role;
        u.disabled = input.disabled;
        if u.disabled {
            u.sessions.clear();
        }
        u.version += 1;
        u.modified = now;
        Ok(((u.view(), u.version), Vec::new()))
    })
    .await?)
}

/// Deletes a user (their sessions end with them).
pub async fn delete_user(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    Ok(repo::access::change(st.store.as_ref(), account, |dir| {
        let before = dir.users.len();
        dir.users.retain(|u| u.id != id);
        if dir.users.len() == before {
            return Err(not_found(id));
        }
        Ok(((), Vec::new()))
    })
    .await?)
}

/// Sets a user's password; the user's other sessions end (`keep`: the session that asked).
pub async fn set_password(st: &AppState, account: &AccountId, id: &str, password: String, keep: Option<&str>) -> UseCaseResult<()> {
    if repo::access::directory(st.store.as_ref(), account).await?.0.user(id).is_none() {
        return Err(not_found(id).into());
    }
    let password_hash = hash(password).await?;
    let now = st.clock.now();
    Ok(repo::access::change(st.store.as_ref(), account, |dir| {
        let u = dir.users.iter_mut().find(|u| u.id == id).ok_or_else(|| not_found(id))?;
        u.password_hash = password_hash.clone();
        u.sessions.retain(|s| Some(s.as_str()) == keep);
        u.version += 1;
        u.modified = now;
        Ok(((), Vec::new()))
    })
    .await?)
}

pub async fn create_key(st: &AppState, account: &AccountId, input: NewKey) -> UseCaseResult<CreatedKey> {
    Ok(repo::accounts::create_key(st.store.as_ref(), account, input.name.trim().to_string(), input.role, st.clock.now()).await?)
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
