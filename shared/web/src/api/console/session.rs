//! The signed-in person of a console page: their session (the `o_session` cookie),
//! checked against their directory entry at every page, its idle end pushed on.

use axum::extract::{FromRequestParts, OptionalFromRequestParts};
use axum::http::request::Parts;

use crate::api::auth::{cookie, SESSION_COOKIE};
use crate::model::access::{Actor, ActorKind, Role};
use crate::model::account::Account;
use crate::repo;
use crate::state::AppState;

/// A console page's person: who, their role, their account and their forms' token.
#[derive(Debug, Clone)]
pub struct ConsoleUser {
    pub account: Account,
    pub user_id: String,
    pub email: String,
    pub name: String,
    pub role: Role,
    /// The session's token every form carries (`csrf`).
    pub csrf: String,
    /// The role this request's route needs (`api::roles`; a page's POST: TRAFFICKER).
    pub needed: Role,
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
    type Rejection = axum::response::Response;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, Self::Rejection> {
        resolve(parts, st, false).await.map(ConsoleReader).ok_or_else(|| super::redirect("/console/sign-in"))
    }
}

impl OptionalFromRequestParts<AppState> for ConsoleUser {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Option<Self>, Self::Rejection> {
        Ok(resolve(parts, st, true).await)
    }
}

impl FromRequestParts<AppState> for ConsoleUser {
    type Rejection = axum::response::Response;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, Self::Rejection> {
        resolve(parts, st, true).await.ok_or_else(|| super::redirect("/console/sign-in"))
    }
}

async fn resolve(parts: &Parts, st: &AppState, touch: bool) -> Option<ConsoleUser> {
    let token = cookie(&parts.headers, SESSION_COOKIE).filter(|t| !t.is_empty() && t.len() <= 256)?;
    let hash = crate::ids::hash_key(&token);
    let store = st.store.as_ref();
    let now = st.clock.now();
    let (session, version) = repo::sessions::get(store, &hash, now).await.ok()??;
    let (dir, _) = repo::access::directory(store, &session.account).await.ok()?;
    let user = dir.user(&session.user_id).filter(|u| !u.disabled && u.sessions.contains(&hash))?;
    let account = repo::accounts::get(store, &session.account).await.ok()??;
    let path = parts.extensions.get::<axum::extract::MatchedPath>().map(|p| p.as_str().to_string()).unwrap_or_default();
    let needed = crate::api::roles::required(&parts.method, &path);
    // A write's change records name the person.
    if let Some(work) = parts.extensions.get::<std::sync::Arc<repo::changes::Work>>() {
        work.set_actor(Actor { kind: ActorKind::User, id: user.id.clone(), name: user.email.clone() });
    }
    if !touch {
        // (nothing to push on)
    } else if let Err(e) = repo::sessions::touch(store, &hash, &session, version, now).await {
        tracing::warn!(error = %e, "a session's last use could not be noted");
    }
    Some(ConsoleUser {
        account,
        user_id: user.id.clone(),
        email: user.email.clone(),
        name: user.name.clone(),
        role: user.role,
        csrf: session.csrf,
        needed,
    })
}
