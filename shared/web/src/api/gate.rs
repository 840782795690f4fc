//! The gate (docs/people-and-roles.md, "Roles"; docs/security.md): one layer in front of
//! every route of every function. A route is routed with its declaration (`Routes::route`
//! takes an `Access`); the gate admits a caller as the matched route declares, before any
//! other layer or the handler reads the request (its body included), and refuses whatever
//! declares nothing. Handlers take the admitted caller from the request (`Auth`, `Caller`,
//! the console's `ConsoleUser`): none authenticates on its own.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::auth::{cookie, same_origin, API_KEY_HEADER, SESSION_COOKIE};
use super::roles::{is_read, Admitted, Declared, Surface};
use crate::api::error::AppError;
use crate::model::access::Role;
use crate::state::AppState;
use crate::usecases::callers;

/// Every route's declaration, by path pattern, and the state callers are resolved with.
#[derive(Clone)]
pub struct Gate {
    st: AppState,
    table: Arc<HashMap<&'static str, Declared>>,
}

impl Gate {
    pub fn new(st: AppState, declared: &[(&'static str, Declared)]) -> Self {
        Gate { st, table: Arc::new(declared.iter().copied().collect()) }
    }
}

/// The layer. A request that matched no route goes on to the 404 (or a method the route
/// lacks to the 405, once its caller is admitted).
pub async fn layer(State(g): State<Gate>, req: Request, next: Next) -> Response {
    let Some(path) = req.extensions().get::<MatchedPath>().map(|p| p.as_str().to_string()) else { return next.run(req).await };
    let Some(declared) = g.table.get(path.as_str()).copied() else {
        // Unreachable by construction (`Routes::route` declares every route); refused all the same.
        tracing::error!(route = %path, "a route without a declaration was refused");
        return AppError::Forbidden("this route declares no caller".into()).into_response();
    };
    let Some(needed) = declared.access.required(req.method()) else { return next.run(req).await };
    let (mut parts, body) = req.into_parts();
    match admit(&mut parts, &g.st, needed, declared.surface).await {
        Ok(admitted) => {
            // The account requires a second factor and this person has none yet: their
            // account page (to set one up) and signing out only.
            if admitted.principal.session.as_ref().is_some_and(|s| s.must_enrol) && !super::console::open_before_enrolment(&path) {
                return match declared.surface {
                    Surface::Api => AppError::Forbidden(
                        "this account requires two-factor sign-in: set it up on your account page (/console/account) first".into(),
                    )
                    .into_response(),
                    Surface::Console { .. } => super::console::enrol_first(),
                };
            }
            // A console form carries the session's token in its action's query string: checked
            // here, before a byte of the body is read (the handler checks its field again).
            if matches!(declared.surface, Surface::Console { .. }) && !is_read(&parts.method) {
                let token = admitted.principal.session.as_ref().map_or("", |s| s.csrf.as_str());
                if !super::console::token_in_query(parts.uri.query(), token) {
                    return super::console::refused(AppError::Forbidden(super::console::NOT_FROM_THIS_SITE.into()));
                }
            }
            parts.extensions.insert(admitted);
            next.run(Request::from_parts(parts, body)).await
        }
        Err(e) => match declared.surface {
            Surface::Api => e.into_response(),
            Surface::Console { .. } => super::console::refused(e),
        },
    }
}

/// Admits the caller of a request to a route that needs `needed` (`api::gate`): its
/// `x-o-api-key`, or its session cookie (a console page takes a session only), its role
/// checked, and the account's request rate taken. An ADMIN's write is admitted on the
/// caller as stored now, never a cached one: a demoted or disabled ADMIN is refused at once.
pub async fn admit(parts: &mut Parts, st: &AppState, needed: Role, surface: Surface) -> Result<Admitted, AppError> {
    let write = !is_read(&parts.method);
    let fresh = write && needed == Role::Admin;
    let console = matches!(surface, Surface::Console { .. });
    if console {
        // The console is a person's: an API key is no console user.
        if parts.headers.contains_key(API_KEY_HEADER) {
            return Err(AppError::Unauthorized("the console takes a session, not an API key".into()));
        }
        // A form from another site is refused before anything is read, in the console's words.
        if write && !same_origin(&parts.headers) {
            return Err(AppError::Forbidden(crate::api::console::NOT_FROM_THIS_SITE.into()));
        }
    }
    let lookup = callers::Lookup { keep_alive: matches!(surface, Surface::Console { keep_alive: true }), fresh };
    let (account, principal) = match parts.headers.get(API_KEY_HEADER) {
        Some(v) => callers::by_key(st, v.to_str().unwrap_or("").trim(), lookup).await?.ok_or_else(unknown_key)?,
        None => match cookie(&parts.headers, SESSION_COOKIE) {
            Some(token) => {
                let found = callers::by_session(st, &token, lookup).await?.ok_or_else(session_ended)?;
                if write && !same_origin(&parts.headers) {
                    return Err(AppError::Forbidden("a write with a session cookie must come from this site (Origin)".into()));
                }
                found
            }
            None => return Err(AppError::Unauthorized(format!("the {API_KEY_HEADER} header is required"))),
        },
    };
    if !principal.role.allows(needed) {
        return Err(AppError::RoleRequired(needed));
    }
    // The request span (see `request_span`) carries the account from here on.
    tracing::Span::current().record("account", account.id.as_str());
    st.rate_limiter.take(&account.id, st.settings.account_rate_per_sec, st.settings.account_burst, st.clock.instant())?;
    Ok(Admitted { account, principal, needed })
}

fn unknown_key() -> AppError {
    AppError::Unauthorized("unknown API key".into())
}

fn session_ended() -> AppError {
    AppError::Unauthorized("the session has ended: sign in again".into())
}
