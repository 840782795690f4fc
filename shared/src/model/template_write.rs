//! The write side of targeting templates (seed 002 §2.1-§2.2): the request type of
//! `POST` and `PUT /api/2.0/targeting-template` as its parser fills it (the OpenAPI
//! document shows this type). A template's rules are written apart (`parse_rules`).

use serde_json::Value;

use crate::domain_error::FieldError;
use crate::json::{Ignored, ObjReader};
use crate::limits::NAME_MAX;
use crate::rule::Rule;

/// `POST` (name only) and `PUT .../{id}` (only the name changes).
#[derive(Debug, Clone, PartialEq, utoipa::ToSchema)]
#[schema(as = TemplateWrite)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TemplateInput {
    /// Only on PUT: must equal the path's id.
    #[schema(value_type = Option<crate::wire_schema::Id>, inline)]
    pub id: Option<String>,
    /// Trimmed; no control characters.
    #[schema(value_type = crate::wire_schema::Name, inline)]
    pub name: String,
    /// The account's id, or left out.
    #[schema(value_type = Option<crate::wire_schema::Id>, inline)]
    pub site_id: Option<String>,
    /// Read-only (a GET sent back): accepted and ignored.
    #[schema(value_type = Option<String>)]
    pub created: Ignored,
}

/// What a create or update body may hold.
pub const TEMPLATE_FIELDS: &[&str] = &["id", "name", "siteId", "created"];

/// A value as text for an id comparison (a non-string is shown as itself).
fn text(v: &Value) -> String {
    v.as_str().map_or_else(|| format!("{v} (not a string)"), str::to_string)
}

/// Parses a create (`path_id` None) or an update body of `account`'s template: the name,
/// and the id rules (none on create; the path's on update) and the site rule (the
/// account's), every error at once.
pub fn parse_write(v: &Value, account: &str, path_id: Option<&str>) -> Result<TemplateInput, Vec<FieldError>> {
    let mut r = ObjReader::new(v, "", TEMPLATE_FIELDS);
    let name = r.str_req("name", NAME_MAX);
    let name = match name {
        Some(n) if n.chars().any(char::is_control) => {
            r.err("name", Rule::Format, "name may not hold control characters");
            None
        }
        n => n.map(|n| n.trim().to_string()),
    };
    let id = r.record_id(path_id);
    let site_id = r.get("siteId").map(text);
    if site_id.as_deref().is_some_and(|s| s != account) {
        match path_id {
            None => r.err("siteId", Rule::MatchesAccount, format!("siteId must be this account's id ({account}) or left out")),
            Some(_) => r.err("siteId", Rule::Immutable, format!("siteId cannot be changed (it is {account})")),
        }
    }
    match name {
        Some(name) if r.errors.is_empty() => Ok(TemplateInput { id, name, site_id, created: Ignored }),
        _ => Err(r.errors),
    }
}
