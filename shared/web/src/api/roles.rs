//! The role every route needs (docs/people-and-roles.md, "Roles"): one table. A read
//! (`GET`, `HEAD`) needs VIEWER and a write TRAFFICKER, but for the routes listed here.
//! `api::auth` checks it before the handler runs; `tests/api/roles.rs` sweeps every route.

use axum::http::Method;

use crate::model::access::Role;

/// Which methods of a route an entry covers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Methods {
    /// Every method.
    All,
    /// Every method but `GET` and `HEAD`.
    Writes,
    /// `POST` only.
    Post,
}

/// The exceptions to "reads VIEWER, writes TRAFFICKER", by route pattern.
pub const TABLE: &[(&str, Methods, Role)] = &[
    // Forecasts are reads: running one (and cancelling it) is VIEWER's.
    ("/api/2.0/forecast/campaign", Methods::Post, Role::Viewer),
    ("/api/2.0/forecast/inventory", Methods::Post, Role::Viewer),
    ("/api/2.0/forecast/job/{id}/cancel", Methods::Post, Role::Viewer),
    ("/console/forecasts", Methods::Post, Role::Viewer),
    ("/console/forecasts/campaign", Methods::Post, Role::Viewer),
    // People and keys: ADMIN's, reads included.
    ("/v1/users", Methods::All, Role::Admin),
    ("/v1/users/{id}", Methods::All, Role::Admin),
    // A user's own password: anyone signed in as that user (the handler checks who), or an ADMIN.
    ("/v1/users/{id}/password", Methods::Post, Role::Viewer),
    ("/v1/api-keys", Methods::All, Role::Admin),
    ("/v1/api-keys/{id}", Methods::All, Role::Admin),
    // The console's administration pages: ADMIN's, reads included.
    ("/console/users", Methods::All, Role::Admin),
    ("/console/users/new", Methods::All, Role::Admin),
    ("/console/users/{id}", Methods::All, Role::Admin),
    ("/console/users/{id}/password", Methods::All, Role::Admin),
    ("/console/api-keys", Methods::All, Role::Admin),
    ("/console/api-keys/new", Methods::All, Role::Admin),
    ("/console/api-keys/{id}/revoke", Methods::All, Role::Admin),
    ("/console/demand", Methods::All, Role::Admin),
    ("/console/demand/partners", Methods::All, Role::Admin),
    ("/console/demand/partners/new", Methods::All, Role::Admin),
    ("/console/demand/partners/{id}", Methods::All, Role::Admin),
    ("/console/demand/marketplaces", Methods::All, Role::Admin),
    ("/console/demand/marketplaces/new", Methods::All, Role::Admin),
    ("/console/demand/marketplaces/{id}", Methods::All, Role::Admin),
    ("/console/stitchers", Methods::All, Role::Admin),
    ("/console/stitchers/new", Methods::All, Role::Admin),
    ("/console/stitchers/{id}", Methods::All, Role::Admin),
    // Programmatic demand and stitchers: their writes are ADMIN's.
    ("/v1/demand-partners", Methods::Writes, Role::Admin),
    ("/v1/demand-partners/{id}", Methods::Writes, Role::Admin),
    ("/v1/marketplaces", Methods::Writes, Role::Admin),
    ("/v1/marketplaces/{id}", Methods::Writes, Role::Admin),
    ("/v1/stitchers", Methods::Writes, Role::Admin),
    ("/v1/stitchers/{id}", Methods::Writes, Role::Admin),
];

fn is_read(m: &Method) -> bool {
    m == Method::GET || m == Method::HEAD
}

/// The role `method` on route pattern `path` needs.
pub fn required(method: &Method, path: &str) -> Role {
    let listed = TABLE.iter().find(|(p, methods, _)| {
        *p == path
            && match methods {
                Methods::All => true,
                Methods::Writes => !is_read(method),
                Methods::Post => method == Method::POST,
            }
    });
    match listed {
        Some((_, _, role)) => *role,
        None if is_read(method) => Role::Viewer,
        None => Role::Trafficker,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_are_viewers_writes_traffickers_and_the_table_says_the_rest() {
        assert_eq!(required(&Method::GET, "/api/1.0/campaign"), Role::Viewer);
        assert_eq!(required(&Method::POST, "/api/1.0/campaign"), Role::Trafficker);
        assert_eq!(required(&Method::POST, "/api/2.0/forecast/campaign"), Role::Viewer);
        assert_eq!(required(&Method::GET, "/v1/demand-partners"), Role::Viewer);
        assert_eq!(required(&Method::PUT, "/v1/demand-partners/{id}"), Role::Admin);
        assert_eq!(required(&Method::GET, "/v1/users"), Role::Admin);
        assert_eq!(required(&Method::POST, "/v1/users/{id}/password"), Role::Viewer);
    }
}
