//! Response helpers shared by the handlers: XML and text bodies, ETags, 204, and the id
//! rules of XML bodies (the path's id on update, none on create).

use crate::rule::Rule;
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::api::error::AppError;

pub fn xml_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/xml")], body).into_response()
}

pub fn text_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

pub fn with_etag(mut res: Response, version: u64) -> Response {
    if let Ok(v) = HeaderValue::from_str(&format!("\"{version}\"")) {
        res.headers_mut().insert(header::ETAG, v);
    }
    res
}

pub fn no_content() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

/// Requires the update's body id (when sent) to be the path's id.
pub fn check_body_id(root: &str, body_id: &Option<String>, path_id: &str) -> Result<(), AppError> {
    match body_id.as_deref().and_then(|b| crate::domain_error::matches_path(&format!("{root}/id"), b, path_id)) {
        Some(e) => Err(AppError::Validation(vec![e])),
        None => Ok(()),
    }
}

pub fn reject_id_on_create(root: &str, body_id: &Option<String>) -> Result<(), AppError> {
    if body_id.is_some() {
        return Err(AppError::field(
            format!("{root}/id"),
            Rule::NotOnCreate,
            format!("{root}/id is set only when updating; the service assigns ids"),
        ));
    }
    Ok(())
}
