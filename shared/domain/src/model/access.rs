//! People, API keys and roles (docs/people-and-roles.md): the closed set of roles, the
//! account's directory of keys and users (one versioned record), the bodies of
//! `/v1/users` and `/v1/api-keys`, and their rules.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use crate::domain_error::{DomainError, FieldError};
use crate::json::Ignored;
use crate::rule::Rule;

/// API keys an account has at most.
pub const MAX_KEYS: usize = 100;
/// Users an account has at most.
pub const MAX_USERS: usize = 200;
/// Sessions a user has at most (the next sign-in ends the oldest).
pub const MAX_SESSIONS: usize = 10;
/// Accounts one email may have a user in.
pub const MAX_ACCOUNTS_PER_EMAIL: usize = 10;
/// A password's length, characters.
pub const PASSWORD_MIN: usize = 12;
pub const PASSWORD_MAX: usize = 128;
/// An email's length (RFC 5321's path limit).
pub const EMAIL_MAX: usize = 254;
/// A user's or key's name, characters.
pub const NAME_MAX: usize = 100;

pub use super::role::Role;

/// Stored keys and users made before roles existed are ADMIN.
fn admin() -> Role {
    Role::Admin
}

/// Who made a change or a request: a user or an API key.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Actor {
    /// USER or KEY
    pub kind: ActorKind,
    /// The user's id, or the key's id (its fingerprint).
    pub id: String,
    /// The user's email, or the key's name.
    pub name: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ActorKind {
    User,
    Key,
}

/// Who calls a request: the key or user, its role, and for a user's session that session.
#[derive(Debug, Clone, PartialEq)]
pub struct Principal {
    pub actor: Actor,
    pub role: Role,
    pub session: Option<SessionRef>,
}

/// A user's session as a request knows it: the SHA-256 of its cookie and the token every
/// form of the session carries (`csrf`).
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRef {
    pub hash: String,
    pub csrf: String,
    /// The account requires a second factor and this user has none yet: only their account
    /// page (to set one up) and signing out are open to them.
    pub must_enrol: bool,
}

/// How long a process trusts a resolved key or session: a revoked key, an ended session or
/// a disabled user is refused by every function within this.
pub const AUTH_CACHE_TTL: std::time::Duration = std::time::Duration::from_secs(4);

/// An API key in the account's directory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KeyEntry {
    /// The key's fingerprint (the first 12 hex characters of its SHA-256).
    pub id: String,
    pub name: String,
    #[serde(default = "admin")]
    pub role: Role,
    pub created: DateTime<Utc>,
    /// The key's SHA-256 (its record's partition), never shown.
    pub hash: String,
    /// The user who made it, when a user did (a key made with a key, or by the seed, has
    /// none): disabling, demoting or deleting that user revokes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub made_by: Option<String>,
}

/// A user in the account's directory, with their password's hash and session ids (the
/// SHA-256 of each cookie), oldest first.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserEntry {
    pub id: String,
    /// Lowercased.
    pub email: String,
    pub name: String,
    pub role: Role,
    pub disabled: bool,
    pub password_hash: String,
    #[serde(default)]
    pub sessions: Vec<String>,
    /// Their second factor (`model::two_factor`), once they began setting one up.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub two_factor: Option<super::two_factor::TwoFactor>,
    pub version: u64,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

/// The account's keys and users: one record, so every rule across them (bounds, one email
/// each, at least one ADMIN) is checked against what is stored, in one conditional write.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Directory {
    #[serde(default)]
    pub keys: Vec<KeyEntry>,
    #[serde(default)]
    pub users: Vec<UserEntry>,
    /// An ADMIN's choice: every user signs in with a second factor (one without sets it up
    /// before anything else, `must_enrol`).
    #[serde(default)]
    pub require_two_factor: bool,
    /// The account's OpenID provider (docs/single-sign-on.md), if it has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub single_sign_on: Option<super::sso::SingleSignOn>,
}

impl Directory {
    /// Whether an enabled ADMIN user or an ADMIN key remains.
    pub fn has_admin(&self) -> bool {
        self.keys.iter().any(|k| k.role == Role::Admin) || self.users.iter().any(|u| u.role == Role::Admin && !u.disabled)
    }

    /// Refuses a directory with no ADMIN left (409), when `before` had one.
    pub fn keeps_an_admin(&self, before: &Directory) -> Result<(), DomainError> {
        if before.has_admin() && !self.has_admin() {
            return Err(DomainError::Conflict(
                "the account must keep at least one ADMIN (an enabled user or an API key): make another ADMIN first".into(),
            ));
        }
        Ok(())
    }

    /// A user loses what they had (disabled, demoted or deleted): their sessions end and
    /// the keys they made are revoked (a key never outlives its maker's standing).
    pub fn revoke_made_by(&mut self, user_id: &str) {
        if let Some(u) = self.users.iter_mut().find(|u| u.id == user_id) {
            u.sessions.clear();
        }
        self.keys.retain(|k| k.made_by.as_deref() != Some(user_id));
    }

    /// Whether `user` must set up a second factor before anything else: the account
    /// requires one and theirs is not confirmed.
    pub fn must_enrol(&self, user: &UserEntry) -> bool {
        self.require_two_factor && !user.two_factor.as_ref().is_some_and(|t| t.confirmed)
    }

    pub fn user(&self, id: &str) -> Option<&UserEntry> {
        self.users.iter().find(|u| u.id == id)
    }

    pub fn user_by_email(&self, email: &str) -> Option<&UserEntry> {
        self.users.iter().find(|u| u.email == email)
    }
}

/// A user as the API shows it: never the password or its hash, never the sessions.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserView {
    pub id: String,
    /// Lowercased
    pub email: String,
    pub name: String,
    /// VIEWER, TRAFFICKER or ADMIN (docs/people-and-roles.md)
    pub role: Role,
    /// A disabled user cannot sign in
    pub disabled: bool,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

impl UserEntry {
    /// A new, enabled user with no session and no second factor.
    pub fn new(email: String, name: String, role: Role, password_hash: String, now: DateTime<Utc>) -> UserEntry {
        UserEntry {
            id: crate::ids::new_id(),
            email,
            name,
            role,
            disabled: false,
            password_hash,
            sessions: Vec::new(),
            two_factor: None,
            version: 1,
            created: now,
            modified: now,
        }
    }

    pub fn view(&self) -> UserView {
        UserView {
            id: self.id.clone(),
            email: self.email.clone(),
            name: self.name.clone(),
            role: self.role,
            disabled: self.disabled,
            created: self.created,
            modified: self.modified,
        }
    }
}

crate::wire_schema::bounded_string!(
    /// An email address: one `@`, at most 254 characters.
    Email, 3, EMAIL_MAX
);
crate::wire_schema::bounded_string!(
    /// 12 to 128 characters.
    Password, PASSWORD_MIN, PASSWORD_MAX
);
crate::wire_schema::bounded_string!(
    /// 1 to 100 characters.
    PersonName, 1, NAME_MAX
);

/// The body of `POST /v1/users`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct NewUser {
    /// The user's email: unique in the account, compared without case
    #[schema(value_type = Email, inline)]
    pub email: String,
    #[schema(value_type = PersonName, inline)]
    pub name: String,
    /// VIEWER, TRAFFICKER or ADMIN (docs/people-and-roles.md)
    pub role: Role,
    /// Write-only: stored as its Argon2id hash.
    #[schema(value_type = Password, inline)]
    pub password: String,
}

/// The body of `PUT /v1/users/{id}`: the user as GET shows it; `email`, `name`, `role` and
/// `disabled` may change.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserUpdate {
    /// Must equal the path's id when sent.
    #[schema(value_type = Option<String>)]
    pub id: Option<String>,
    /// The user's email: unique in the account, compared without case
    #[schema(value_type = Email, inline)]
    pub email: String,
    #[schema(value_type = PersonName, inline)]
    pub name: String,
    /// VIEWER, TRAFFICKER or ADMIN (docs/people-and-roles.md)
    pub role: Role,
    /// A disabled user cannot sign in, and their sessions end
    #[serde(default)]
    pub disabled: bool,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub created: Ignored,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub modified: Ignored,
}

/// The body of `POST /v1/users/{id}/password`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub struct NewPassword {
    /// 12 to 128 characters; stored only as its Argon2id hash
    #[schema(value_type = Password, inline)]
    pub password: String,
    /// The signed-in person's own password, asked of every change made through a console
    /// session (an ADMIN's API key gives none)
    #[serde(default)]
    #[schema(value_type = Option<Password>, inline)]
    pub current_password: Option<String>,
}

/// The body of `POST /v1/api-keys`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct NewKey {
    #[schema(value_type = PersonName, inline)]
    pub name: String,
    /// VIEWER, TRAFFICKER or ADMIN (docs/people-and-roles.md)
    pub role: Role,
}

/// A key as `GET /v1/api-keys` lists it: never the key.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyView {
    pub id: String,
    pub name: String,
    /// VIEWER, TRAFFICKER or ADMIN (docs/people-and-roles.md)
    pub role: Role,
    /// The first 12 hex characters of the key's SHA-256 (the same as its id)
    pub fingerprint: String,
    pub created: DateTime<Utc>,
    /// The hour the key was last used (none yet: null).
    pub last_used: Option<DateTime<Utc>>,
}

/// The answer of `POST /v1/api-keys`: the key, shown this once.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedKey {
    pub id: String,
    pub name: String,
    /// VIEWER, TRAFFICKER or ADMIN (docs/people-and-roles.md)
    pub role: Role,
    pub key: String,
    pub created: DateTime<Utc>,
}

/// An email as stored and compared: trimmed, lowercased.
pub fn normalise_email(e: &str) -> String {
    e.trim().to_lowercase()
}

/// The rules of an email field (after the schema's length): one `@` with text on each
/// side, no spaces or control characters.
pub fn check_email(email: &str, field: &str, errors: &mut Vec<FieldError>) {
    let ok = email.split('@').count() == 2
        && email.split('@').all(|p| !p.is_empty())
        && email.chars().all(|c| !c.is_whitespace() && !c.is_control());
    if !ok {
        errors.push(FieldError::new(field, Rule::Format, format!("{field} is an email address: name@domain")));
    }
}

/// The rule of a name (after the schema's length): not blank.
pub fn check_name(name: &str, field: &str, errors: &mut Vec<FieldError>) {
    if name.trim().is_empty() || name.chars().any(char::is_control) {
        errors.push(FieldError::new(field, Rule::Required, format!("{field} is 1 to {NAME_MAX} characters, not blank")));
    }
}

/// A password's length in characters (the schema counts them too; this is the rule's one
/// place for the forms that do not go through a JSON schema).
pub fn check_password(password: &str, field: &str, errors: &mut Vec<FieldError>) {
    let n = password.chars().count();
    let rule = if n < PASSWORD_MIN { Rule::MinLength } else { Rule::MaxLength };
    if !(PASSWORD_MIN..=PASSWORD_MAX).contains(&n) {
        errors.push(FieldError::new(field, rule, format!("{field} is {PASSWORD_MIN} to {PASSWORD_MAX} characters")));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_include_the_ones_below() {
        assert!(Role::Admin.allows(Role::Trafficker) && Role::Trafficker.allows(Role::Viewer));
        assert!(!Role::Viewer.allows(Role::Trafficker) && !Role::Trafficker.allows(Role::Admin));
        assert_eq!(Role::parse("TRAFFICKER"), Some(Role::Trafficker));
        assert_eq!(Role::parse("trafficker"), None);
    }

    #[test]
    fn an_account_keeps_an_admin() {
        let now = Utc::now();
        let key = |role| KeyEntry { id: "k".into(), name: "k".into(), role, created: now, hash: "h".into(), made_by: None };
        let before = Directory { keys: vec![key(Role::Admin)], users: vec![], ..Directory::default() };
        let after = Directory { keys: vec![key(Role::Viewer)], users: vec![], ..Directory::default() };
        assert!(after.keeps_an_admin(&before).is_err());
        assert!(before.keeps_an_admin(&before).is_ok());
        // A directory that never had one (a new account's) is not refused for it.
        assert!(after.keeps_an_admin(&Directory::default()).is_ok());
    }

    #[test]
    fn emails_and_passwords_follow_their_rules() {
        let mut e = Vec::new();
        check_email("a@b.example", "email", &mut e);
        check_password(&"é".repeat(12), "password", &mut e);
        assert!(e.is_empty());
        for bad in ["ab.example", "a@@b", "@b", "a b@c"] {
            check_email(bad, "email", &mut e);
        }
        check_password("short", "password", &mut e);
        check_password(&"x".repeat(129), "password", &mut e);
        assert_eq!(e.len(), 6);
        assert_eq!(normalise_email(" Ann@Example.COM "), "ann@example.com");
    }
}
