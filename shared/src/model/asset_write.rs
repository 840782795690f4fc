//! The JSON request of `POST /v1/assets/video` (seed 000 §4.4a), as its parser fills it
//! (the OpenAPI document shows this type): the service downloads the file.

use serde_json::Value;

use super::asset::check_name;
use crate::domain_error::FieldError;
use crate::download::check_url;
use crate::json::ObjReader;
use crate::limits::{NAME_MAX, URL_MAX};
use crate::rule::Rule;

/// `{name, downloadUri}`: an HTTPS file on a public host.
#[derive(Debug, Clone, PartialEq, utoipa::ToSchema)]
#[schema(as = AssetFromUrl)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssetUrlInput {
    /// A file name with a video extension (.mp4, .webm, .mov, ...).
    #[schema(value_type = crate::wire_schema::Name, inline)]
    pub name: String,
    #[schema(value_type = crate::wire_schema::Url, inline)]
    pub download_uri: String,
}

/// What a JSON create body holds.
pub const URL_FIELDS: &[&str] = &["name", "downloadUri"];

/// Parses a JSON create body: every field error at once.
pub fn parse_url_body(v: &Value) -> Result<AssetUrlInput, Vec<FieldError>> {
    let mut r = ObjReader::new(v, "", URL_FIELDS);
    let name = r.str_req("name", NAME_MAX);
    let uri = r.str_req("downloadUri", URL_MAX);
    if let Some(Err(m)) = name.as_deref().map(check_name) {
        r.err("name", Rule::Extension, m);
    }
    if let Some(Err(e)) = uri.as_deref().map(check_url) {
        r.err("downloadUri", Rule::Url, format!("downloadUri: {e}"));
    }
    match (name, uri) {
        (Some(name), Some(download_uri)) if r.errors.is_empty() => Ok(AssetUrlInput { name, download_uri }),
        _ => Err(r.errors),
    }
}

/// The `?name=` of an octet-stream upload: required, bounded, a video file name.
pub fn check_upload_name(name: Option<&str>) -> Result<String, FieldError> {
    let Some(name) = name.filter(|n| !n.trim().is_empty()) else {
        return Err(FieldError::new(
            "name",
            Rule::Required,
            "query parameter name (the file name, e.g. spot.mp4) is required for an octet-stream upload",
        ));
    };
    if name.chars().count() > NAME_MAX {
        return Err(FieldError::new("name", Rule::MaxLength, format!("name is longer than {NAME_MAX} characters")));
    }
    check_name(name).map_err(|m| FieldError::new("name", Rule::Extension, m))?;
    Ok(name.to_string())
}
