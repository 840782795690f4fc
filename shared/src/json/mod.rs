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
use serde_json::{Map, Value};

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

pub struct ObjReader<'a> {
    obj: Option<&'a Map<String, Value>>,
    path: String,
    pub errors: Vec<FieldError>,
}

impl<'a> ObjReader<'a> {
    /// `known` lists the fields the object may carry; others are refused.
    pub fn new(v: &'a Value, path: &str, known: &[&str]) -> Self {
        let mut r = ObjReader { obj: v.as_object(), path: path.to_string(), errors: Vec::new() };
        match r.obj {
            None => {
                let p = if path.is_empty() { "body".to_string() } else { path.to_string() };
                r.errors.push(FieldError::new(p.clone(), Rule::Type, format!("{p} must be a JSON object")));
            }
            Some(o) => {
                for k in o.keys() {
                    if !known.contains(&k.as_str()) {
                        let p = r.at(k);
                        r.errors.push(FieldError::new(p.clone(), Rule::Unknown, format!("unknown field {p}")));
                    }
                }
            }
        }
        r
    }

    /// Like `new`, for objects whose unknown fields are ignored (PATCH).
    pub fn lenient(v: &'a Value, path: &str) -> Self {
        let mut r = ObjReader { obj: v.as_object(), path: path.to_string(), errors: Vec::new() };
        if r.obj.is_none() {
            r.errors.push(FieldError::new("body", Rule::Type, "the body must be a JSON object"));
        }
        r
    }

    pub fn at(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_string()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    pub fn err(&mut self, name: &str, rule: Rule, msg: impl Into<String>) {
        let p = self.at(name);
        self.errors.push(FieldError::new(p, rule, msg));
    }

    /// The raw value, `None` when absent or null.
    pub fn get(&self, name: &str) -> Option<&'a Value> {
        self.obj?.get(name).filter(|v| !v.is_null())
    }

    pub fn present(&self, name: &str) -> bool {
        self.obj.is_some_and(|o| o.contains_key(name))
    }

    /// Present and explicitly null.
    pub fn is_null(&self, name: &str) -> bool {
        self.obj.and_then(|o| o.get(name)).is_some_and(Value::is_null)
    }

    pub fn str_opt(&mut self, name: &str, max: usize) -> Option<String> {
        let v = self.get(name)?;
        match v.as_str() {
            Some(s) if s.chars().count() > max => {
                let p = self.at(name);
                self.err(name, Rule::MaxLength, format!("{p} is longer than {max} characters"));
                None
            }
            Some(s) => Some(s.to_string()),
            None => {
                let p = self.at(name);
                self.err(name, Rule::Type, format!("{p} must be a string"));
                None
            }
        }
    }

    pub fn str_req(&mut self, name: &str, max: usize) -> Option<String> {
        let v = self.str_opt(name, max);
        if !self.present(name) || self.is_null(name) || v.as_deref().is_some_and(|s| s.trim().is_empty()) {
            let p = self.at(name);
            if !self.errors.iter().any(|e| e.field == p) {
                self.err(name, Rule::Required, format!("{p} is required"));
            }
            return None;
        }
        v
    }

    pub fn bool_opt(&mut self, name: &str) -> Option<bool> {
        let v = self.get(name)?;
        match v.as_bool() {
            Some(b) => Some(b),
            None => {
                let p = self.at(name);
                self.err(name, Rule::Type, format!("{p} must be true or false"));
                None
            }
        }
    }

    pub fn f64_opt(&mut self, name: &str) -> Option<f64> {
        let v = self.get(name)?;
        match v.as_f64() {
            Some(n) => Some(n),
            None => {
                let p = self.at(name);
                self.err(name, Rule::Type, format!("{p} must be a number"));
                None
            }
        }
    }

    pub fn int_opt(&mut self, name: &str, lo: i64, hi: i64) -> Option<i64> {
        let v = self.get(name)?;
        match v.as_i64() {
            Some(n) if (lo..=hi).contains(&n) => Some(n),
            Some(n) => {
                let p = self.at(name);
                self.err(name, Rule::Range, format!("{p} must be between {lo} and {hi} (got {n})"));
                None
            }
            None => {
                let p = self.at(name);
                self.err(name, Rule::Type, format!("{p} must be an integer"));
                None
            }
        }
    }

    /// A value of the closed set `allowed` (typed); another value is an `enum` error.
    pub fn one_of<E: crate::wire_enum::WireEnum>(&mut self, name: &str, allowed: &[E]) -> Option<E> {
        let s = self.str_opt(name, crate::limits::ENUM_NAME_MAX)?;
        match E::parse(&s).filter(|e| allowed.iter().any(|a| a.as_str() == e.as_str())) {
            Some(e) => Some(e),
            None => {
                let p = self.at(name);
                let names: Vec<&str> = allowed.iter().map(|e| e.as_str()).collect();
                self.err(name, Rule::Enum, format!("{p} must be one of {} (got {s:?})", names.join(", ")));
                None
            }
        }
    }

    pub fn enum_opt(&mut self, name: &str, allowed: &[&str]) -> Option<String> {
        let s = self.str_opt(name, crate::limits::ENUM_NAME_MAX)?;
        if allowed.contains(&s.as_str()) {
            Some(s)
        } else {
            let p = self.at(name);
            self.err(name, Rule::Enum, format!("{p} must be one of {} (got {s:?})", allowed.join(", ")));
            None
        }
    }

    pub fn date_time_opt(&mut self, name: &str) -> Option<chrono::DateTime<chrono::Utc>> {
        let s = self.str_opt(name, crate::limits::ENUM_NAME_MAX)?;
        match chrono::DateTime::parse_from_rfc3339(&s) {
            Ok(d) => Some(d.with_timezone(&chrono::Utc)),
            Err(_) => {
                let p = self.at(name);
                self.err(name, Rule::DateTime, format!("{p} must be an ISO-8601 date-time (got {s:?})"));
                None
            }
        }
    }

    /// The body's `name` under the name rule of a JSON record: required, at most
    /// `RECORD_NAME_MAX` characters, trimmed, a visible character and no control characters.
    pub fn record_name(&mut self) -> Option<String> {
        let name = self.str_req("name", crate::limits::RECORD_NAME_MAX).map(|n| n.trim().to_string());
        if name.as_deref().is_some_and(|n| n.is_empty() || n.chars().any(char::is_control)) {
            self.err("name", Rule::Format, "name must hold a visible character and no control characters");
            return None;
        }
        name
    }

    /// The body's `id` under the id rules of a JSON record: none on create (`path_id`
    /// None: the service sets it), the path's on update (the body may leave it out).
    pub fn record_id(&mut self, path_id: Option<&str>) -> Option<String> {
        let Some(path_id) = path_id else {
            if self.present("id") {
                self.err("id", Rule::NotOnCreate, "id is set by the service");
            }
            return None;
        };
        let id = self.get("id").map(|v| v.as_str().map_or_else(|| format!("{v} (not a string)"), str::to_string));
        if let Some(e) = id.as_deref().and_then(|b| crate::domain_error::matches_path("id", b, path_id)) {
            self.errors.push(e);
        }
        id
    }

    pub fn array_opt(&mut self, name: &str) -> Option<&'a Vec<Value>> {
        let v = self.get(name)?;
        match v.as_array() {
            Some(a) => Some(a),
            None => {
                let p = self.at(name);
                self.err(name, Rule::Type, format!("{p} must be an array"));
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collects_errors_with_paths() {
        let v = json!({"name": 5, "n": 200, "e": "x", "when": "yesterday", "extra": 1, "b": "yes"});
        let mut r = ObjReader::new(&v, "creative", &["name", "n", "e", "when", "b", "missing"]);
        r.str_opt("name", 10);
        r.int_opt("n", 1, 100);
        r.enum_opt("e", &["A"]);
        r.date_time_opt("when");
        r.bool_opt("b");
        r.str_req("missing", 5);
        let got: Vec<String> = r.errors.iter().map(|e| format!("{} {}", e.field, e.rule)).collect();
        assert_eq!(
            got,
            vec![
                "creative.extra unknown",
                "creative.name type",
                "creative.n range",
                "creative.e enum",
                "creative.when dateTime",
                "creative.b type",
                "creative.missing required"
            ]
        );
    }
}
