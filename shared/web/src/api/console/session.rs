//! The signed-in person of a console page: the request's caller as the API resolves it
//! (`api::auth::authenticate_with`: cached, its role checked against the route's, the
//! account's rate taken, its change records naming the person), when that caller is a
//! console session, with the session's form token.

use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::request::Parts;

use super::error::ConsoleError;
use crate::api::auth::authenticate_with;
use crate::api::error::AppError;
use crate::model::access::Role;
use crate::model::account::Account;
use crate::state::AppState;

/// A console page's person: who, their role, their account and their forms' token.
#[derive(Debug, Clone)]
pub struct ConsoleUser {
    pub account: Account,
    pub user_id: String,
    pub email: String,
    pub role: Role,
    /// The session's token every form carries (`csrf`).
    pub csrf: String,
}

impl ConsoleUser {
    /// Whether this person may make changes (sees write controls).
    pub fn writes(&self) -> bool {
        self.role.allows(Role::Trafficker)
    }
}

/// A console page's person on a page served by a function that writes nothing (the
/// queries function): the session is checked, its idle end not pushed on.
pub struct ConsoleReader(pub ConsoleUser);

impl FromRequestParts<AppState> for ConsoleReader {
    type Rejection = ConsoleError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, Self::Rejection> {
        resolve(parts, st, false).await.map(ConsoleReader)
    }
}

impl FromRequestParts<AppState> for ConsoleUser {
    type Rejection = ConsoleError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, Self::Rejection> {
        resolve(parts, st, true).await
    }
}

/// No one signed in is `None` (the home page sends them to sign in); every other refusal
/// (a role, the account's rate) is the refusal's page.
impl OptionalFromRequestParts<AppState> for ConsoleUser {
    type Rejection = ConsoleError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Option<Self>, Self::Rejection> {
        match resolve(parts, st, true).await {
            Ok(u) => Ok(Some(u)),
            Err(ConsoleError::SignIn) => Ok(None),
            Err(e) => Err(e),
        }
    }
}

async fn resolve(parts: &mut Parts, st: &AppState, keep_alive: bool) -> Result<ConsoleUser, ConsoleError> {
    // The console is a person's: an API key is no console user.
    if parts.headers.contains_key(crate::api::auth::API_KEY_HEADER) {
        return Err(ConsoleError::SignIn);
    }
    // A form from another site is refused before anything is read, in the console's words.
    let write = parts.method != axum::http::Method::GET && parts.method != axum::http::Method::HEAD;
    if write && !crate::api::auth::same_origin(&parts.headers) {
        return Err(ConsoleError::Forbidden(super::form::NOT_FROM_THIS_SITE.into()));
    }
    let (account, principal) = authenticate_with(parts, st, keep_alive).await?;
    let Some(session) = principal.session else { return Err(AppError::Unauthorized("no console session".into()).into()) };
    Ok(ConsoleUser { account, user_id: principal.actor.id, email: principal.actor.name, role: principal.role, csrf: session.csrf })
}
