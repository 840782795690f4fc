//! What a console page answers when it cannot show what was asked: a page of its own (never
//! the API's JSON or XML), so handlers return `Result<_, ConsoleError>` and use `?`.

use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use maud::html;

use super::page;
use crate::api::error::AppError;
use crate::usecases::UseCaseError;

#[derive(Debug)]
pub enum ConsoleError {
    /// No session, or it ended: the sign-in page.
    SignIn,
    /// Refused with why (a forged or stale form, a role the person lacks): 403.
    Forbidden(String),
    /// An error of the service (a record not in the account: 404, never its data).
    Service(AppError),
    /// A body the server refused to read (too large, cut short): its own answer.
    Body(axum::extract::rejection::BytesRejection),
}

pub type ConsoleResult<T = Response> = Result<T, ConsoleError>;

impl From<AppError> for ConsoleError {
    fn from(e: AppError) -> Self {
        match e {
            AppError::Unauthorized(_) => ConsoleError::SignIn,
            AppError::RoleRequired(role) => ConsoleError::Forbidden(format!("This needs the {} role.", role.as_str())),
            AppError::Forbidden(m) => ConsoleError::Forbidden(m),
            other => ConsoleError::Service(other),
        }
    }
}

impl From<UseCaseError> for ConsoleError {
    fn from(e: UseCaseError) -> Self {
        AppError::from(e).into()
    }
}

impl IntoResponse for ConsoleError {
    fn into_response(self) -> Response {
        match self {
            ConsoleError::SignIn => super::redirect("/console/sign-in"),
            ConsoleError::Forbidden(m) => page::forbidden(&m),
            ConsoleError::Service(e) => error_page(&e),
            ConsoleError::Body(r) => r.into_response(),
        }
    }
}

/// An error of the service as a page with its status (and `Retry-After` when it has one).
pub fn error_page(e: &AppError) -> Response {
    e.log_internal();
    let status = e.status();
    let body = e.body();
    let mut res = page::page(
        "Error",
        None,
        html! { h1 { (status.canonical_reason().unwrap_or("Error")) } p role="alert" { (body.message) } p { a href="/console/campaigns" { "Back to campaigns" } } },
    )
    .into_response();
    *res.status_mut() = status;
    if let Some(secs) = e.retry_after() {
        res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
    }
    res
}
