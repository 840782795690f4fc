//! The gate (docs/people-and-roles.md, "Roles"; docs/security.md): one layer in front of
//! every route of every function. A route is routed with its declaration (`Routes::route`
//! takes an `Access`); the gate admits a caller as the matched route declares, before any
//! other layer or the handler reads the request (its body included), and refuses whatever
//! declares nothing. Handlers take the admitted caller from the request (`Auth`, `Caller`,
//! the console's `ConsoleUser`): none authenticates on its own.

use std::collections::HashMap;
use std::sync::Arc;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::routes::{Declared, Surface};
use crate::api::error::AppError;
use crate::model::access::{Principal, Role};
use crate::model::account::Account;
use crate::state::AppState;

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

/// The caller the gate admitted to a route: kept in the request for the handler.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub account: Account,
    pub principal: Principal,
    /// The role the route needed for this method.
    pub needed: Role,
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
    match super::auth::admit(&mut parts, &g.st, needed, declared.surface).await {
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
            parts.extensions.insert(admitted);
            next.run(Request::from_parts(parts, body)).await
        }
        Err(e) => match declared.surface {
            Surface::Api => e.into_response(),
            Surface::Console { .. } => super::console::refused(e),
        },
    }
}
