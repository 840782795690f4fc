//! The signed-in person of a console page: the caller the gate admitted to the page's
//! route (`api::gate`), with the session's form token.

use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::request::Parts;

use super::error::ConsoleError;
use crate::api::roles::Admitted;
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

impl FromRequestParts<AppState> for ConsoleUser {
    type Rejection = ConsoleError;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Self, Self::Rejection> {
        resolve(parts).ok_or(ConsoleError::SignIn)
    }
}

/// No one signed in is `None`: a handler routed as public (none is today) shows what an
/// anonymous visitor sees.
impl OptionalFromRequestParts<AppState> for ConsoleUser {
    type Rejection = ConsoleError;

    async fn from_request_parts(parts: &mut Parts, _: &AppState) -> Result<Option<Self>, Self::Rejection> {
        Ok(resolve(parts))
    }
}

/// The person the gate admitted (`api::gate`: on a console route, a session only, its role
/// checked against the route's, the account's rate taken).
fn resolve(parts: &Parts) -> Option<ConsoleUser> {
    let a = parts.extensions.get::<Admitted>()?;
    let session = a.principal.session.as_ref()?;
    Some(ConsoleUser {
        account: a.account.clone(),
        user_id: a.principal.actor.id.clone(),
        email: a.principal.actor.name.clone(),
        role: a.principal.role,
        csrf: session.csrf.clone(),
    })
}
