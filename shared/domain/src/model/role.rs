//! The closed set of roles (docs/people-and-roles.md, "Roles").

use serde::{Deserialize, Serialize};

/// A role: what a key or a user may do. Ordered: each includes the ones before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Role {
    /// Every read, report, forecast, inspector and preview.
    Viewer,
    /// VIEWER plus writes to campaigns, goals, ads and the rest of the trafficking records.
    Trafficker,
    /// TRAFFICKER plus users, API keys, demand partners, marketplaces and stitchers.
    Admin,
}

impl Role {
    pub const ALL: [Role; 3] = [Role::Viewer, Role::Trafficker, Role::Admin];
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "VIEWER",
            Role::Trafficker => "TRAFFICKER",
            Role::Admin => "ADMIN",
        }
    }
    pub fn parse(s: &str) -> Option<Role> {
        Role::ALL.into_iter().find(|r| r.as_str() == s)
    }
    /// Whether this role may do what `needed` may.
    pub fn allows(self, needed: Role) -> bool {
        self >= needed
    }
}
