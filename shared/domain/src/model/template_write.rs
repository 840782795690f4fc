//! The write side of targeting templates (seed 002 §2.1-§2.2): the request type of
//! `POST` and `PUT /api/2.0/targeting-template` as its parser fills it (the OpenAPI
//! document shows this type). A template's rules are written apart (`parse_rules`).

use serde::Deserialize;
use serde_json::Value;

use crate::domain_error::FieldError;
use crate::json::Ignored;
use crate::rule::Rule;

/// `POST` (name only) and `PUT .../{id}` (only the name changes).
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
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
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub created: Ignored,
}

/// Parses a create (`path_id` None) or an update body of `account`'s template: the name,
/// and the id rules (none on create; the path's on update) and the site rule (the
/// account's), every error at once.
pub fn parse_write(v: &Value, account: &str, path_id: Option<&str>) -> Result<TemplateInput, Vec<FieldError>> {
    crate::json::read(v, |b: &mut TemplateInput, errors| {
        if b.name.chars().any(char::is_control) {
            errors.push(FieldError::new("name", Rule::Format, "name may not hold control characters"));
        }
        b.name = b.name.trim().to_string();
        crate::json::record_id(b.id.as_deref(), path_id, errors);
        if b.site_id.as_deref().is_some_and(|s| s != account) {
            errors.push(match path_id {
                None => {
                    FieldError::new("siteId", Rule::MatchesAccount, format!("siteId must be this account's id ({account}) or left out"))
                }
                Some(_) => FieldError::new("siteId", Rule::Immutable, format!("siteId cannot be changed (it is {account})")),
            });
        }
    })
}
