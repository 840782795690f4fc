//! Who may call a route (docs/people-and-roles.md, "Roles"), declared where the route is
//! routed (`Routes::route` takes one, so a route without it does not compile) and enforced
//! before anything else of the request runs (`api::gate`). Nothing is allowed by default.

use axum::http::Method;

use crate::model::access::{Principal, Role};
use crate::model::account::Account;

/// A route's declaration: public, or the least role each kind of method needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Anyone, with no key or session: ad requests, tracking, preview links, the sign-in
    /// page, static files and the API's documentation.
    Public,
    /// An API key or a session whose role is at least `read` for `GET` and `HEAD`, and at
    /// least `write` for every other method.
    Roles { read: Role, write: Role },
}

impl Access {
    /// The records of ad operations: reads VIEWER's, writes TRAFFICKER's.
    pub const RECORDS: Access = Access::Roles { read: Role::Viewer, write: Role::Trafficker };
    /// Reads VIEWER's, writes ADMIN's (programmatic demand, stitchers).
    pub const ADMIN_WRITES: Access = Access::Roles { read: Role::Viewer, write: Role::Admin };
    /// Every method ADMIN's, reads included (people, keys, their pages).
    pub const ADMIN: Access = Access::Roles { read: Role::Admin, write: Role::Admin };
    /// Every method VIEWER's: work that changes no record of the account (running a
    /// forecast, a user's own password, whose handler checks who).
    pub const VIEWER: Access = Access::Roles { read: Role::Viewer, write: Role::Viewer };

    /// The role `method` needs; `None` for a public route.
    pub fn required(&self, method: &Method) -> Option<Role> {
        match self {
            Access::Public => None,
            Access::Roles { read, write } => Some(if is_read(method) { *read } else { *write }),
        }
    }
}

/// Where a route's callers come from, and how its refusals read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Surface {
    /// The API: an API key (`x-o-api-key`) or a console session's cookie; refusals in the
    /// interface's JSON or XML.
    Api,
    /// A console page: a person's session only; refusals as pages (the sign-in page, a 403
    /// page). `keep_alive`: the session's idle end is pushed on (not by a function that
    /// writes nothing: the queries function).
    Console { keep_alive: bool },
}

/// What a route declares: who may call it, and through which surface.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declared {
    pub access: Access,
    pub surface: Surface,
}

/// The caller the gate admitted to a route: kept in the request for the handler.
#[derive(Debug, Clone)]
pub struct Admitted {
    pub account: Account,
    pub principal: Principal,
    /// The role the route needed for this method.
    pub needed: Role,
}

/// Whether a method only reads.
pub fn is_read(m: &Method) -> bool {
    m == Method::GET || m == Method::HEAD
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_and_writes_take_their_declared_roles() {
        assert_eq!(Access::RECORDS.required(&Method::GET), Some(Role::Viewer));
        assert_eq!(Access::RECORDS.required(&Method::HEAD), Some(Role::Viewer));
        assert_eq!(Access::RECORDS.required(&Method::POST), Some(Role::Trafficker));
        assert_eq!(Access::RECORDS.required(&Method::DELETE), Some(Role::Trafficker));
        assert_eq!(Access::ADMIN_WRITES.required(&Method::GET), Some(Role::Viewer));
        assert_eq!(Access::ADMIN_WRITES.required(&Method::PUT), Some(Role::Admin));
        assert_eq!(Access::ADMIN.required(&Method::GET), Some(Role::Admin));
        assert_eq!(Access::VIEWER.required(&Method::POST), Some(Role::Viewer));
        assert_eq!(Access::Public.required(&Method::POST), None);
    }
}
