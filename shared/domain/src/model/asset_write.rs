//! The JSON request of `POST /v1/assets/video` (seed 000 §4.4a), as its parser fills it
//! (the OpenAPI document shows this type): the service downloads the file.

use serde_json::Value;

use super::asset::check_name;
use crate::address::check_url;
use crate::domain_error::FieldError;
use crate::limits::NAME_MAX;
use crate::rule::Rule;

/// `{name, downloadUri}`: an HTTPS file on a public host.
#[derive(Debug, Clone, PartialEq, serde::Deserialize, utoipa::ToSchema)]
#[schema(as = AssetFromUrl)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AssetUrlInput {
    /// A file name with a video extension (.mp4, .webm, .mov, ...).
    #[schema(value_type = crate::wire_schema::Name, inline)]
    pub name: String,
    #[schema(value_type = crate::wire_schema::Url, inline)]
    pub download_uri: String,
}

/// Parses a JSON create body: every field error at once.
pub fn parse_url_body(v: &Value) -> Result<AssetUrlInput, Vec<FieldError>> {
    crate::json::read(v, |b: &mut AssetUrlInput, errors| {
        if let Err(m) = check_name(&b.name) {
            errors.push(FieldError::new("name", Rule::Extension, m));
        }
        if let Err(e) = check_url(&b.download_uri) {
            errors.push(FieldError::new("downloadUri", Rule::Url, format!("downloadUri: {e}")));
        }
    })
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
