//! A header the service sends or expects with every call, whose value is a secret: written
//! through the API, never shown back (a stitcher's `secretHeader`, a demand partner's
//! `authHeader`). Its body field reads as: left out (kept as it is), `null` (removed), or
//! `{name, value}`.

use serde::{Deserialize, Serialize};

use crate::json::ObjReader;
use crate::rule::Rule;

/// A header's name, at most (an HTTP token).
pub const HEADER_NAME_MAX: usize = 64;

/// A header with a write-only value.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct SecretHeader {
    /// An HTTP header name (letters, digits, `-`), at most 64 characters.
    pub name: String,
    /// Visible ASCII characters (and spaces inside).
    pub value: String,
}

/// Whether `n` is a header name this service takes (letters, digits and `-`).
pub fn header_name_ok(n: &str) -> bool {
    !n.is_empty() && n.len() <= HEADER_NAME_MAX && n.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
}

/// Reads field `field` of `r`: `None` when left out, `Some(None)` when `null`, else the
/// header (its name lowercased). The value is `min..=max` visible ASCII characters, with
/// inner spaces when `spaces`. Errors are added to `r`.
pub fn read(r: &mut ObjReader<'_>, field: &str, (min, max): (usize, usize), spaces: bool) -> Option<Option<SecretHeader>> {
    let h = match r.get(field) {
        None if r.is_null(field) => return Some(None),
        None => return None,
        Some(h) => h,
    };
    let mut hr = ObjReader::new(h, &r.at(field), &["name", "value"]);
    let name = hr.str_req("name", HEADER_NAME_MAX);
    let value = hr.str_req("value", max);
    if name.as_deref().is_some_and(|n| !header_name_ok(n)) {
        hr.err("name", Rule::Format, format!("{field}.name is an HTTP header name: letters, digits and '-'"));
    }
    let visible = |v: &str| v.bytes().all(|b| b.is_ascii_graphic() || (spaces && b == b' ')) && v.trim() == v;
    if value.as_deref().is_some_and(|v| v.len() < min || !visible(v)) {
        hr.err("value", Rule::Format, format!("{field}.value is {min} to {max} visible ASCII characters"));
    }
    let ok = hr.errors.is_empty();
    r.errors.append(&mut hr.errors);
    match (name, value) {
        (Some(name), Some(value)) if ok => Some(Some(SecretHeader { name: name.to_ascii_lowercase(), value })),
        _ => None,
    }
}

/// The header after a replace: left out keeps `current`, `null` removes it.
pub fn replaced(current: &Option<SecretHeader>, input: Option<Option<SecretHeader>>) -> Option<SecretHeader> {
    match input {
        None => current.clone(),
        Some(h) => h,
    }
}
