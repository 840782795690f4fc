//! The errors of the rules: what a parser, a validator or a state rule of `model/`,
//! `delivery/` or `forecast/` says is wrong with a request, in domain terms. They know
//! nothing of HTTP or of storage; `api/` maps them to statuses through `api::error::AppError`
//! (400 for `Validation`/`Malformed`, 404 for `NotFound`, 409 for `Conflict`).

use crate::rule::Rule;
use serde::Serialize;

use crate::cause::Cause;

/// Most field errors one response lists (the message says how many there were).
pub const MAX_FIELD_ERRORS: usize = 100;

#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
pub struct FieldError {
    /// Path of the offending element or parameter, e.g. `campaignBean/name`.
    pub field: String,
    /// The rule that failed, a stable token: `required`, `maxLength`, `enum`, `range`, ...
    pub rule: Rule,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, rule: Rule, message: impl Into<String>) -> Self {
        FieldError { field: field.into(), rule, message: message.into() }
    }

    /// Adds an error made by `make` while fewer than [`MAX_FIELD_ERRORS`] are listed; past
    /// that only counts it (an empty entry, nothing formatted): a body with 100,000 bad
    /// fields costs no 100,000 messages.
    pub fn push_capped(errors: &mut Vec<FieldError>, make: impl FnOnce() -> FieldError) {
        if errors.len() < MAX_FIELD_ERRORS {
            errors.push(make());
        } else {
            errors.push(FieldError { field: String::new(), rule: Rule::Omitted, message: String::new() });
        }
    }
}

/// The rule of an update whose body names its record: an id in the body (when sent) must be
/// the path's (`matchesPath`); `field` is the body's id field as the client wrote it.
pub fn matches_path(field: &str, body_id: &str, path_id: &str) -> Option<FieldError> {
    (body_id != path_id)
        .then(|| FieldError::new(field, Rule::MatchesPath, format!("{field} ({body_id}) must equal the id in the path ({path_id})")))
}

/// The rule of a create whose body could name its record: the service assigns ids, so an
/// id in a create's body is refused (`notOnCreate`); `root` is the body's element
/// (`clientBean`), the field is `<root>/id`.
pub fn no_id_on_create(root: &str, body_id: Option<&str>) -> Result<(), DomainError> {
    match body_id {
        Some(_) => Err(DomainError::field(
            format!("{root}/id"),
            Rule::NotOnCreate,
            format!("{root}/id is set only when updating; the service assigns ids"),
        )),
        None => Ok(()),
    }
}

/// The rule of an XML update: the body's `<root>/id`, when sent, is the path's.
pub fn same_id(root: &str, body_id: Option<&str>, path_id: &str) -> Result<(), DomainError> {
    match body_id.and_then(|b| matches_path(&format!("{root}/id"), b, path_id)) {
        Some(e) => Err(DomainError::Validation(vec![e])),
        None => Ok(()),
    }
}

/// What a rule refuses.
#[derive(Debug, Clone, PartialEq)]
pub enum DomainError {
    /// One or more fields break a rule.
    Validation(Vec<FieldError>),
    /// The document could not be read at all (malformed XML/JSON).
    Malformed(String),
    /// `what` with this id is not in the caller's account.
    NotFound { what: &'static str, id: String },
    /// The request contradicts the record's state (a rule already set, a job finished).
    Conflict(String),
    /// A stored record breaks an invariant (written by a bug or by hand); logged, not shown.
    Corrupt(Cause),
}

impl DomainError {
    pub fn field(field: impl Into<String>, rule: Rule, message: impl Into<String>) -> Self {
        DomainError::Validation(vec![FieldError::new(field, rule, message)])
    }

    pub fn not_found(what: &'static str, id: impl Into<String>) -> Self {
        DomainError::NotFound { what, id: id.into() }
    }

    pub fn corrupt(m: impl Into<String>) -> Self {
        DomainError::Corrupt(Cause::msg(m))
    }
}

impl std::fmt::Display for DomainError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DomainError::Validation(errs) => {
                let shown: Vec<&str> = errs.iter().take(10).map(|e| e.message.as_str()).collect();
                write!(f, "{}", shown.join("; "))
            }
            DomainError::Malformed(m) | DomainError::Conflict(m) => write!(f, "{m}"),
            DomainError::NotFound { what, id } => write!(f, "{what} {id} not found"),
            DomainError::Corrupt(c) => write!(f, "corrupt record: {c}"),
        }
    }
}

impl std::error::Error for DomainError {}

/// `"<field> <rule>"` for each field error of a result (tests of the validation rules).
#[cfg(test)]
pub fn rule_list<T>(r: Result<T, DomainError>) -> Vec<String> {
    match r {
        Ok(_) => vec![],
        Err(DomainError::Validation(e)) => e.into_iter().map(|e| format!("{} {}", e.field, e.rule)).collect(),
        Err(e) => vec![format!("{e:?}")],
    }
}

/// `value` when `check` finds nothing wrong with it (`errors`: what a reader found already),
/// else every error found.
pub fn checked<T>(value: T, mut errors: Vec<FieldError>, check: impl FnOnce(&T, &mut Vec<FieldError>)) -> Result<T, DomainError> {
    check(&value, &mut errors);
    if errors.is_empty() {
        Ok(value)
    } else {
        Err(DomainError::Validation(errors))
    }
}
