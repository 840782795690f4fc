//! JSON request bodies. Each body is one type: serde fills it, its `ToSchema` derive is
//! its OpenAPI schema, and [`read`] checks a body against that schema before filling it,
//! so every breach is reported at once with its path (`creative.assetId`,
//! `externalTrackers[1].event`) and each bound is spelled once (docs/architecture.md,
//! "Request bodies").

mod schema_check;

use std::any::TypeId;
use std::collections::HashMap;
use std::sync::{Arc, OnceLock, RwLock};

use serde::de::{DeserializeOwned, IgnoredAny};
use serde::{Deserialize, Deserializer};
use serde_json::Value;

use crate::domain_error::FieldError;
use crate::rule::Rule;
pub use schema_check::{Compiled, DATE_OR_EPOCH_MS};

/// Reads body `v` into `T`: the breaches of `T`'s schema, then, once serde has filled `T`,
/// what `rules` finds (it may also normalise the value: trim a name, lowercase a header).
/// `rules` receives the list with the schema's breaches already in it, so it can leave
/// alone a part the schema faulted; a field the schema faulted is not faulted again.
pub fn read<T>(v: &Value, rules: impl FnOnce(&mut T, &mut Vec<FieldError>)) -> Result<T, Vec<FieldError>>
where
    T: DeserializeOwned + utoipa::ToSchema + 'static,
{
    let mut known = v.clone();
    let mut errors = schema::<T>().check(&mut known);
    match serde_path_to_error::deserialize::<_, T>(&known) {
        Ok(mut body) => {
            let faulted = errors.len();
            rules(&mut body, &mut errors);
            let found = errors.split_off(faulted);
            let fields: Vec<String> = errors.iter().map(|e| e.field.clone()).collect();
            errors.extend(found.into_iter().filter(|e| !fields.contains(&e.field)));
            if errors.is_empty() {
                return Ok(body);
            }
        }
        Err(e) if errors.is_empty() => {
            let path = e.path().to_string();
            let field = if path == "." { "body".to_string() } else { path };
            let message = format!("{field}: {}", e.into_inner());
            errors.push(FieldError::new(field, Rule::Format, message));
        }
        Err(_) => {}
    }
    Err(errors)
}

/// Whether `errors` holds a fault of `path` or of a field inside it.
pub fn faulted(errors: &[FieldError], path: &str) -> bool {
    errors.iter().any(|e| e.field.strip_prefix(path).is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '['])))
}

/// `T`'s schema, built once a process.
pub fn schema<T: utoipa::ToSchema + 'static>() -> Arc<Compiled> {
    static BUILT: OnceLock<RwLock<HashMap<TypeId, Arc<Compiled>>>> = OnceLock::new();
    let built = BUILT.get_or_init(Default::default);
    if let Some(c) = built.read().ok().and_then(|m| m.get(&TypeId::of::<T>()).cloned()) {
        return c;
    }
    let c = Arc::new(Compiled::of::<T>());
    if let Ok(mut m) = built.write() {
        m.insert(TypeId::of::<T>(), c.clone());
    }
    c
}

/// The name rule of a JSON record (its bounds are the schema's `RecordName`): trimmed, a
/// visible character and no control characters.
pub fn record_name(name: &mut String, errors: &mut Vec<FieldError>) {
    let trimmed = name.trim();
    if trimmed.len() != name.len() {
        *name = trimmed.to_string();
    }
    if name.is_empty() || name.chars().any(char::is_control) {
        errors.push(FieldError::new("name", Rule::Format, "name must hold a visible character and no control characters"));
    }
}

/// The id rules of a JSON record: none on create (`path_id` None: the service sets it),
/// the path's on update (the body may leave it out).
pub fn record_id(body_id: Option<&str>, path_id: Option<&str>, errors: &mut Vec<FieldError>) {
    match (body_id, path_id) {
        (Some(_), None) => errors.push(FieldError::new("id", Rule::NotOnCreate, "id is set by the service")),
        (Some(b), Some(p)) => errors.extend(crate::domain_error::matches_path("id", b, p)),
        (None, _) => {}
    }
}

/// The faults of a read as `field rule`, sorted: what unit tests compare.
#[cfg(test)]
pub fn faults<T>(read: Result<T, Vec<FieldError>>) -> Vec<String> {
    let mut v: Vec<String> = read.err().unwrap_or_default().iter().map(|e| format!("{} {}", e.field, e.rule)).collect();
    v.sort();
    v
}

/// `true`, for `#[serde(default = "json::yes")]`.
pub fn yes() -> bool {
    true
}

/// For an `Option<Option<T>>` field (`#[serde(default, deserialize_with = "json::present")]`):
/// left out is `None`, `null` is `Some(None)`, a value is `Some(Some(v))`.
pub fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

/// A field a body may carry and the service ignores (read-only fields of a GET sent back):
/// accepted by the parser, never read, so a request type can list it for the OpenAPI
/// document without holding a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Ignored;

impl Ignored {
    /// For `#[serde(skip_serializing_if = "Ignored::always")]`: never shown.
    pub fn always(_: &Ignored) -> bool {
        true
    }
}

impl serde::Serialize for Ignored {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_none()
    }
}

impl<'de> Deserialize<'de> for Ignored {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        IgnoredAny::deserialize(d).map(|_| Ignored)
    }
}

/// A `PUT` or `PATCH` body that names its record: the id, read first (a record not in the
/// account is 404 whatever else the body holds), and the rest as parsed.
#[derive(Debug, Clone, PartialEq)]
pub struct Keyed<T> {
    pub id: String,
    pub body: Result<T, crate::domain_error::DomainError>,
}

#[cfg(test)]
mod tests;
