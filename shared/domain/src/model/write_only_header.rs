//! A header the service sends or expects with every call, whose value is a secret: written
//! through the API, never shown back (a stitcher's `secretHeader`, a demand partner's
//! `authHeader`). Its body field reads as: left out (kept as it is), `null` (removed), or
//! `{name, value}`.

use serde::{Deserialize, Serialize};

use crate::domain_error::FieldError;
use crate::rule::Rule;

pub use crate::limits::HEADER_NAME_MAX;

/// A header with a write-only value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct SecretHeader {
    /// An HTTP header name (letters, digits, `-`), at most 64 characters.
    #[schema(value_type = crate::wire_schema::HeaderName, inline)]
    pub name: String,
    /// Visible ASCII characters (and spaces inside).
    pub value: String,
}

/// Whether `n` is a header name this service takes (letters, digits and `-`).
pub fn header_name_ok(n: &str) -> bool {
    !n.is_empty() && n.len() <= HEADER_NAME_MAX && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// The rules of a header sent as field `field`: its name an HTTP token (lowercased here),
/// its value `min..=max` visible ASCII characters, with inner spaces when `spaces`.
pub fn check(h: &mut SecretHeader, field: &str, (min, max): (usize, usize), spaces: bool, errors: &mut Vec<FieldError>) {
    if !header_name_ok(&h.name) {
        errors.push(FieldError::new(
            format!("{field}.name"),
            Rule::Format,
            format!("{field}.name is an HTTP header name: letters, digits and '-'"),
        ));
    }
    h.name.make_ascii_lowercase();
    let visible = h.value.bytes().all(|b| b.is_ascii_graphic() || (spaces && b == b' ')) && h.value.trim() == h.value;
    if h.value.len() < min || h.value.len() > max || !visible {
        errors.push(FieldError::new(
            format!("{field}.value"),
            Rule::Format,
            format!("{field}.value is {min} to {max} visible ASCII characters"),
        ));
    }
}

/// The header after a replace: left out keeps `current`, `null` removes it.
pub fn replaced(current: &Option<SecretHeader>, input: Option<Option<SecretHeader>>) -> Option<SecretHeader> {
    match input {
        None => current.clone(),
        Some(h) => h,
    }
}
