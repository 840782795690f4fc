//! An account's OpenID provider (docs/single-sign-on.md): its settings and their rules, and
//! the role a signed-in person's claims give them.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::role::Role;
use crate::domain_error::FieldError;
use crate::rule::Rule;

pub const NAME_MAX: usize = 60;
pub const ISSUER_MAX: usize = 300;
pub const CLIENT_ID_MAX: usize = 200;
pub const CLIENT_SECRET_MAX: usize = 500;
pub const CLAIM_MAX: usize = 100;
pub const ROLES_MAX: usize = 20;
pub const VALUE_MAX: usize = 200;

/// The account's provider, as its directory keeps it (the client secret is kept apart).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SingleSignOn {
    /// The sign-in page's button: "Sign in with <name>".
    pub name: String,
    pub issuer: String,
    pub client_id: String,
    /// The ID token's claim with the person's groups or roles.
    pub role_claim: String,
    #[serde(default)]
    pub roles: Vec<RoleMapping>,
    /// The role of a person no line matches; none: refused.
    #[serde(default)]
    pub default_role: Option<Role>,
    /// When the client secret (kept apart) was last set: the history shows it changed.
    #[serde(default)]
    pub secret_set: Option<chrono::DateTime<chrono::Utc>>,
}

/// A claim value and the role it gives.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoleMapping {
    pub value: String,
    pub role: Role,
}

/// The settings as a form gives them (text fields).
#[derive(Debug, Clone, Default)]
pub struct SsoInput {
    pub name: String,
    pub issuer: String,
    pub client_id: String,
    /// Blank: keep the one set.
    pub client_secret: String,
    pub role_claim: String,
    /// Lines `value=ROLE`.
    pub roles: String,
    /// Blank, or a role.
    pub default_role: String,
}

fn visible(s: &str) -> bool {
    s.chars().all(|c| !c.is_control())
}

impl SsoInput {
    /// The settings, or every rule they break (`secret_set`: a client secret is kept already).
    pub fn check(&self, secret_set: bool) -> Result<SingleSignOn, Vec<FieldError>> {
        let mut errors = Vec::new();
        let mut text = |field: &str, value: &str, max: usize| {
            let v = value.trim();
            if v.is_empty() {
                errors.push(FieldError::new(field, Rule::Required, format!("{field} is required")));
            } else if v.chars().count() > max {
                errors.push(FieldError::new(field, Rule::MaxLength, format!("{field} is at most {max} characters")));
            } else if !visible(v) {
                errors.push(FieldError::new(field, Rule::Format, format!("{field} holds control characters")));
            }
            v.to_string()
        };
        let name = text("name", &self.name, NAME_MAX);
        let issuer = text("issuer", &self.issuer, ISSUER_MAX).trim_end_matches('/').to_string();
        let client_id = text("clientId", &self.client_id, CLIENT_ID_MAX);
        let claim = if self.role_claim.trim().is_empty() { "groups".to_string() } else { text("roleClaim", &self.role_claim, CLAIM_MAX) };
        if !(issuer.is_empty() || issuer.starts_with("https://") || issuer.starts_with("http://")) {
            errors.push(FieldError::new("issuer", Rule::Url, "issuer is an absolute https URL"));
        }
        let secret = self.client_secret.trim();
        if secret.is_empty() && !secret_set {
            errors.push(FieldError::new("clientSecret", Rule::Required, "clientSecret is required"));
        } else if secret.chars().count() > CLIENT_SECRET_MAX || !visible(secret) {
            errors.push(FieldError::new(
                "clientSecret",
                Rule::MaxLength,
                format!("clientSecret is at most {CLIENT_SECRET_MAX} visible characters"),
            ));
        }
        let mut roles = Vec::new();
        for (i, line) in self.roles.lines().map(str::trim).filter(|l| !l.is_empty()).enumerate() {
            let at = format!("roles[{i}]");
            if i >= ROLES_MAX {
                errors.push(FieldError::new("roles", Rule::MaxItems, format!("roles holds at most {ROLES_MAX} lines")));
                break;
            }
            match line.rsplit_once('=').map(|(v, r)| (v.trim(), Role::parse(r.trim()))) {
                Some((v, Some(role))) if !v.is_empty() && v.chars().count() <= VALUE_MAX => {
                    roles.push(RoleMapping { value: v.to_string(), role })
                }
                _ => errors.push(FieldError::new(
                    at,
                    Rule::Format,
                    format!("each line of roles is value=ROLE (VIEWER, TRAFFICKER or ADMIN): {line:?}"),
                )),
            }
        }
        let default_role = match self.default_role.trim() {
            "" => None,
            r => match Role::parse(r) {
                Some(role) => Some(role),
                None => {
                    errors.push(FieldError::new("defaultRole", Rule::Enum, "defaultRole is none, VIEWER, TRAFFICKER or ADMIN"));
                    None
                }
            },
        };
        if !errors.is_empty() {
            return Err(errors);
        }
        Ok(SingleSignOn { name, issuer, client_id, role_claim: claim, roles, default_role, secret_set: None })
    }
}

impl SingleSignOn {
    /// The role an ID token's claims give: the highest role a value of the role claim (a
    /// string, or a list of strings) maps to, else the default; `None`: no role here.
    pub fn role_of(&self, claims: &serde_json::Map<String, Value>) -> Option<Role> {
        let values: Vec<&str> = match claims.get(&self.role_claim) {
            Some(Value::String(s)) => vec![s.as_str()],
            Some(Value::Array(a)) => a.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        self.roles.iter().filter(|m| values.contains(&m.value.as_str())).map(|m| m.role).max().or(self.default_role)
    }

    /// The settings as the form shows them again.
    pub fn roles_text(&self) -> String {
        self.roles.iter().map(|m| format!("{}={}", m.value, m.role.as_str())).collect::<Vec<_>>().join("\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn input() -> SsoInput {
        SsoInput {
            name: "Acme IdP".into(),
            issuer: "https://id.acme.example/".into(),
            client_id: "console".into(),
            client_secret: "s3cret".into(),
            role_claim: String::new(),
            roles: "ad-admins=ADMIN\n ad-ops = TRAFFICKER\n".into(),
            default_role: "VIEWER".into(),
        }
    }

    #[test]
    fn settings_are_checked_and_roles_mapped_highest_first() {
        let s = input().check(false).unwrap();
        assert_eq!(s.issuer, "https://id.acme.example");
        assert_eq!(s.role_claim, "groups");
        let claims = |v: Value| v.as_object().unwrap().clone();
        assert_eq!(s.role_of(&claims(serde_json::json!({"groups": ["ad-ops", "ad-admins"]}))), Some(Role::Admin));
        assert_eq!(s.role_of(&claims(serde_json::json!({"groups": "ad-ops"}))), Some(Role::Trafficker));
        assert_eq!(s.role_of(&claims(serde_json::json!({"groups": ["finance"]}))), Some(Role::Viewer));
        let strict = SingleSignOn { default_role: None, ..s };
        assert_eq!(strict.role_of(&claims(serde_json::json!({}))), None);
    }

    #[test]
    fn each_broken_rule_is_named() {
        let bad = SsoInput {
            name: String::new(),
            issuer: "ftp://x".into(),
            client_secret: String::new(),
            roles: "a=KING".into(),
            default_role: "X".into(),
            ..input()
        };
        let fields: Vec<String> = bad.check(false).unwrap_err().into_iter().map(|e| e.field).collect();
        assert_eq!(fields, ["name", "issuer", "clientSecret", "roles[0]", "defaultRole"]);
        // A secret kept already may stay blank.
        assert!(SsoInput { client_secret: String::new(), ..input() }.check(true).is_ok());
    }
}
