//! Checks a JSON value against a request type's own OpenAPI schema (the `ToSchema` derive
//! of the type serde then fills), reporting every breach at once with its path
//! (`creative.assetId`, `externalTrackers[1].event`): wrong types, missing and unknown
//! fields, lengths, item counts, ranges, closed sets and date formats. The bounds are the
//! schema's, so the document a client reads and the check the service runs are one.

use serde_json::{Map, Value};

use crate::domain_error::{FieldError, MAX_FIELD_ERRORS};
use crate::rule::Rule;

/// The schema format of a date sent as a `yyyy-MM-ddTHH:mm:ss.sssZ` string or as epoch
/// milliseconds (a blank string is no date).
pub const DATE_OR_EPOCH_MS: &str = "date-time-or-epoch-ms";

/// A schema and the named schemas its references point to, as JSON.
pub struct Compiled {
    root: Value,
    components: Map<String, Value>,
}

impl Compiled {
    /// The schema of `T`, with every schema it references.
    pub fn of<T: utoipa::ToSchema>() -> Compiled {
        let mut named = Vec::new();
        T::schemas(&mut named);
        let components = named.into_iter().filter_map(|(name, s)| serde_json::to_value(s).ok().map(|v| (name, v))).collect();
        Compiled { root: serde_json::to_value(T::schema()).unwrap_or(Value::Null), components }
    }

    /// Every breach of the schema by `v`; none when it conforms. Unknown fields are
    /// reported and taken out of `v`, so serde can still fill the type and its rules run.
    pub fn check(&self, v: &mut Value) -> Vec<FieldError> {
        let mut errors = Vec::new();
        self.walk(v, &self.root, "", &mut errors);
        errors
    }

    /// The property names of the schema's object.
    pub fn properties(&self) -> Vec<&str> {
        self.resolve(&self.root)
            .get("properties")
            .and_then(Value::as_object)
            .map(|p| p.keys().map(String::as_str).collect())
            .unwrap_or_default()
    }

    fn resolve<'a>(&'a self, s: &'a Value) -> &'a Value {
        match s.get("$ref").and_then(Value::as_str).and_then(|r| r.strip_prefix("#/components/schemas/")) {
            Some(name) => self.components.get(name).unwrap_or(&Value::Null),
            None => s,
        }
    }

    fn walk(&self, v: &mut Value, schema: &Value, at: &str, errors: &mut Vec<FieldError>) {
        let s = self.resolve(schema);
        if let Some(all) = s.get("allOf").and_then(Value::as_array) {
            for part in all {
                self.walk(v, part, at, errors);
            }
        }
        if let Some(forms) = s.get("oneOf").or_else(|| s.get("anyOf")).and_then(Value::as_array) {
            self.one_of(v, forms, at, errors);
        }
        let Some(types) = types(s) else { return };
        let Some(kind) = types.iter().copied().find(|t| fits(v, t)) else {
            let p = shown(at);
            let rule = if v.is_null() { Rule::Required } else { Rule::Type };
            let message = if v.is_null() { format!("{p} is required") } else { format!("{p} must be {}", expected(&types)) };
            errors.push(FieldError::new(p, rule, message));
            return;
        };
        match kind {
            "object" => self.object(v, s, at, errors),
            "array" => self.array(v, s, at, errors),
            "string" => string(v, s, at, errors),
            "integer" | "number" => number(v, s, at, errors),
            _ => {}
        }
        if let Some(allowed) = s.get("enum").and_then(Value::as_array) {
            if !v.is_null() && !allowed.contains(v) {
                let names: Vec<String> =
                    allowed.iter().filter(|a| !a.is_null()).map(|a| a.as_str().map_or_else(|| a.to_string(), str::to_string)).collect();
                errors.push(FieldError::new(at, Rule::Enum, format!("{at} must be one of {} (got {v})", names.join(", "))));
            }
        }
    }

    /// A value of one of several forms: null where a form allows it, else the one form
    /// it conforms to; a single non-null form reports its own breaches.
    fn one_of(&self, v: &mut Value, forms: &[Value], at: &str, errors: &mut Vec<FieldError>) {
        let null = |f: &Value| types(self.resolve(f)).is_some_and(|t| t == ["null"]);
        if v.is_null() && forms.iter().any(null) {
            return;
        }
        let real: Vec<&Value> = forms.iter().filter(|f| !null(f)).collect();
        if let [only] = real.as_slice() {
            return self.walk(v, only, at, errors);
        }
        let mut first = None;
        for f in &real {
            let mut e = Vec::new();
            self.walk(&mut v.clone(), f, at, &mut e);
            if e.is_empty() {
                return;
            }
            first.get_or_insert(e);
        }
        let p = shown(at);
        errors.push(FieldError::new(p.clone(), Rule::Type, format!("{p} is none of the forms it may take")));
    }

    fn object(&self, v: &mut Value, s: &Value, at: &str, errors: &mut Vec<FieldError>) {
        let Some(obj) = v.as_object_mut() else { return };
        let empty = Map::new();
        let props = s.get("properties").and_then(Value::as_object).unwrap_or(&empty);
        let closed = s.get("additionalProperties") == Some(&Value::Bool(false));
        obj.retain(|k, value| {
            let p = join(at, k);
            match props.get(k) {
                Some(ps) => self.walk(value, ps, &p, errors),
                None if closed => {
                    errors.push(FieldError::new(p.clone(), Rule::Unknown, format!("unknown field {p}")));
                    return false;
                }
                None => {}
            }
            true
        });
        for name in s.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str) {
            if !obj.contains_key(name) {
                let p = join(at, name);
                errors.push(FieldError::new(p.clone(), Rule::Required, format!("{p} is required")));
            }
        }
    }

    fn array(&self, v: &mut Value, s: &Value, at: &str, errors: &mut Vec<FieldError>) {
        let Some(items) = v.as_array_mut() else { return };
        let p = shown(at);
        if let Some(max) = s.get("maxItems").and_then(Value::as_u64).filter(|m| items.len() as u64 > *m) {
            errors.push(FieldError::new(p.clone(), Rule::MaxItems, format!("{p} holds at most {max} items (got {})", items.len())));
            return;
        }
        if let Some(min) = s.get("minItems").and_then(Value::as_u64).filter(|m| (items.len() as u64) < *m) {
            let rule = if items.is_empty() { Rule::Required } else { Rule::MaxItems };
            errors.push(FieldError::new(p.clone(), rule, format!("{p} holds at least {min} items")));
        }
        if let Some(item) = s.get("items").filter(|i| i.is_object()) {
            for (i, value) in items.iter_mut().enumerate() {
                if errors.len() >= MAX_FIELD_ERRORS {
                    FieldError::push_capped(errors, || FieldError::new("", Rule::Omitted, ""));
                    break;
                }
                self.walk(value, item, &format!("{p}[{i}]"), errors);
            }
        }
    }
}

fn string(v: &Value, s: &Value, at: &str, errors: &mut Vec<FieldError>) {
    let Some(text) = v.as_str() else { return };
    let len = text.chars().count() as u64;
    if let Some(max) = s.get("maxLength").and_then(Value::as_u64).filter(|m| len > *m) {
        errors.push(FieldError::new(at, Rule::MaxLength, format!("{at} is longer than {max} characters")));
    }
    if let Some(min) = s.get("minLength").and_then(Value::as_u64).filter(|m| len < *m) {
        let (rule, message) = if text.trim().is_empty() {
            (Rule::Required, format!("{at} is required"))
        } else {
            (Rule::MinLength, format!("{at} is shorter than {min} characters"))
        };
        errors.push(FieldError::new(at, rule, message));
    }
    match s.get("format").and_then(Value::as_str) {
        Some("date-time") if chrono::DateTime::parse_from_rfc3339(text).is_err() => {
            errors.push(FieldError::new(at, Rule::DateTime, format!("{at} must be an ISO-8601 date-time (got {text:?})")))
        }
        Some("cidr") => {
            if let Err(e) = crate::cidr::Cidr::parse(text) {
                errors.push(FieldError::new(at, Rule::Format, format!("{at}: {e}")));
            }
        }
        Some(DATE_OR_EPOCH_MS) if !text.trim().is_empty() && chrono::DateTime::parse_from_rfc3339(text.trim()).is_err() => errors
            .push(FieldError::new(at, Rule::Date, format!("{at} must be yyyy-MM-ddTHH:mm:ss.sssZ or epoch milliseconds (got {text:?})"))),
        Some("date") if chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d").is_err() => {
            errors.push(FieldError::new(at, Rule::Date, format!("{at} must be a date, YYYY-MM-DD (got {text:?})")))
        }
        _ => {}
    }
}

fn number(v: &Value, s: &Value, at: &str, errors: &mut Vec<FieldError>) {
    let Some(n) = v.as_f64() else { return };
    let lo = s.get("minimum").and_then(Value::as_f64);
    let hi = s.get("maximum").and_then(Value::as_f64);
    if lo.is_some_and(|lo| n < lo) || hi.is_some_and(|hi| n > hi) {
        let bound = |b: Option<f64>| b.map_or_else(|| "any".to_string(), |b| b.to_string());
        errors.push(FieldError::new(at, Rule::Range, format!("{at} must be between {} and {} (got {v})", bound(lo), bound(hi))));
    } else if let Some(step) = s.get("multipleOf").and_then(Value::as_f64).filter(|m| *m > 0.0 && (n / m).fract() != 0.0) {
        errors.push(FieldError::new(at, Rule::Step, format!("{at} must be a multiple of {step} (got {v})")));
    }
}

/// The JSON types a schema allows; `None` when it does not say (any value).
fn types(s: &Value) -> Option<Vec<&str>> {
    match s.get("type")? {
        Value::String(t) => Some(vec![t.as_str()]),
        Value::Array(ts) => Some(ts.iter().filter_map(Value::as_str).collect()),
        _ => None,
    }
}

fn fits(v: &Value, t: &str) -> bool {
    match t {
        "object" => v.is_object(),
        "array" => v.is_array(),
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "null" => v.is_null(),
        _ => true,
    }
}

fn expected(types: &[&str]) -> String {
    let named: Vec<&str> = types
        .iter()
        .filter(|t| **t != "null")
        .map(|t| match *t {
            "object" => "a JSON object",
            "array" => "an array",
            "string" => "a string",
            "integer" => "an integer",
            "number" => "a number",
            "boolean" => "true or false",
            other => other,
        })
        .collect();
    named.join(" or ")
}

fn join(at: &str, name: &str) -> String {
    if at.is_empty() {
        name.to_string()
    } else {
        format!("{at}.{name}")
    }
}

/// The root is named `body`.
fn shown(at: &str) -> String {
    if at.is_empty() {
        "body".to_string()
    } else {
        at.to_string()
    }
}
