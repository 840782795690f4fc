//! One error type for the whole API, and the one mapping of the layers' errors to it
//! (`DomainError`, `RepoError`, `UseCaseError`, the ports'). It renders as JSON; on the XML
//! interfaces the `render_errors` layer of `api/routes.rs` re-renders it as XML, so every
//! group answers in its own format. Internal causes travel with the error (`Cause`, with
//! their sources) to the log line, never to the client.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::blobs::BlobError;
use crate::cause::Cause;
use crate::domain_error::DomainError;
use crate::queue::QueueError;
use crate::rate_limit::Limited;
use crate::repo::RepoError;
use crate::rule::Rule;
use crate::usecases::UseCaseError;

pub use crate::domain_error::{FieldError, MAX_FIELD_ERRORS};

#[derive(Debug, Clone, PartialEq)]
pub enum AppError {
    /// 400: the request names a field that breaks a rule (one or more).
    Validation(Vec<FieldError>),
    /// 400: the body could not be read at all (malformed XML/JSON).
    Malformed(String),
    Unauthorized(String),
    Forbidden(String),
    /// 403 `Forbidden`: the caller's role does not allow the call (docs/people-and-roles.md).
    RoleRequired(crate::model::access::Role),
    /// 404: `what` (e.g. `campaign`) with this id is not in the caller's account.
    NotFound {
        what: &'static str,
        id: String,
    },
    /// 404: no such route.
    NoRoute(String),
    MethodNotAllowed,
    Conflict(String),
    PreconditionFailed(String),
    PayloadTooLarge(usize),
    /// 413: a field over a size limit (`rule` names it), e.g. a gzip body that inflates too far.
    TooLargeField(FieldError),
    /// 413: the record the request would write exceeds the store's item limit (bytes).
    RecordTooLarge(usize),
    UnsupportedMediaType {
        expected: &'static str,
        got: String,
    },
    /// 429 with `Retry-After` (seconds): a quota or rate limit of the account.
    TooManyRequests(String, u64),
    /// 503 with `Retry-After: 1`: a dependency is busy or did not answer.
    Unavailable(String),
    /// 500: a failure of the service itself; the cause is logged with its sources.
    Internal(Cause),
}

impl AppError {
    pub fn field(field: impl Into<String>, rule: Rule, message: impl Into<String>) -> Self {
        AppError::Validation(vec![FieldError::new(field, rule, message)])
    }

    /// An internal failure caused by `e` (kept, with its sources, for the log).
    pub fn internal(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        AppError::Internal(Cause::new(e))
    }

    /// An internal failure with only a message (an invariant broken, a corrupt record).
    pub fn internal_msg(m: impl Into<String>) -> Self {
        AppError::Internal(Cause::msg(m))
    }

    pub fn not_found(what: &'static str, id: impl Into<String>) -> Self {
        AppError::NotFound { what, id: id.into() }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            AppError::Validation(_) | AppError::Malformed(_) => StatusCode::BAD_REQUEST,
            AppError::Unauthorized(_) => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) | AppError::RoleRequired(_) => StatusCode::FORBIDDEN,
            AppError::NotFound { .. } | AppError::NoRoute(_) => StatusCode::NOT_FOUND,
            AppError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::PreconditionFailed(_) => StatusCode::PRECONDITION_FAILED,
            AppError::PayloadTooLarge(_) | AppError::RecordTooLarge(_) | AppError::TooLargeField(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::UnsupportedMediaType { .. } => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::TooManyRequests(..) => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable(_) => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    /// The client-facing body: status, a short type token, a message, and field errors.
    pub fn body(&self) -> ErrorBody {
        let (kind, message, errors): (&str, String, Vec<FieldError>) = match self {
            AppError::Validation(errs) => {
                // Bounded: a hostile body with 100,000 bad fields gets the first ones and a count.
                let shown: Vec<FieldError> = errs.iter().take(MAX_FIELD_ERRORS).cloned().collect();
                let mut msg = shown.iter().take(10).map(|e| e.message.as_str()).collect::<Vec<_>>().join("; ");
                if errs.len() > 10 {
                    msg.push_str(&format!("; ... {} field errors in all", errs.len()));
                }
                if errs.len() > MAX_FIELD_ERRORS {
                    msg.push_str(&format!(" (the first {MAX_FIELD_ERRORS} are listed)"));
                }
                ("ValidationError", msg, shown)
            }
            AppError::Malformed(m) => ("MalformedRequest", m.clone(), vec![]),
            AppError::Unauthorized(m) => ("Unauthorized", m.clone(), vec![]),
            AppError::Forbidden(m) => ("ForbiddenError", m.clone(), vec![]),
            AppError::RoleRequired(r) => ("Forbidden", format!("this call needs the {} role (or one above it)", r.as_str()), vec![]),
            AppError::NotFound { what, id } => ("NotFound", format!("{what} {id} not found"), vec![]),
            AppError::NoRoute(p) => ("NotFound", format!("no resource at {p}"), vec![]),
            AppError::MethodNotAllowed => ("MethodNotAllowed", "method not allowed on this resource".into(), vec![]),
            AppError::Conflict(m) => ("Conflict", m.clone(), vec![]),
            AppError::PreconditionFailed(m) => ("PreconditionFailed", m.clone(), vec![]),
            AppError::PayloadTooLarge(max) => ("PayloadTooLarge", format!("request body larger than {max} bytes"), vec![]),
            AppError::TooLargeField(e) => ("PayloadTooLarge", e.message.clone(), vec![e.clone()]),
            AppError::RecordTooLarge(bytes) => (
                "PayloadTooLarge",
                format!(
                    "the record would be {bytes} bytes, over the {} bytes one stored record may hold (DynamoDB's 400 KB item limit); send fewer or shorter values",
                    crate::limits::MAX_ITEM_BYTES
                ),
                vec![],
            ),
            AppError::UnsupportedMediaType { expected, got } => (
                "UnsupportedMediaType",
                format!("Content-Type must be {expected} (got {})", if got.is_empty() { "none" } else { got }),
                vec![],
            ),
            AppError::TooManyRequests(m, _) => ("TooManyRequests", m.clone(), vec![]),
            AppError::Unavailable(m) => ("ServiceUnavailable", m.clone(), vec![]),
            AppError::Internal(_) => ("InternalError", "internal error; it has been logged".into(), vec![]),
        };
        ErrorBody { status: self.status().as_u16(), kind: kind.to_string(), message, errors }
    }
}

/// Every error answer of the JSON interfaces (the XML ones carry the same in `<error>`).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    pub status: u16,
    #[serde(rename = "type")]
    pub kind: String,
    pub message: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<FieldError>,
}

impl std::fmt::Display for AppError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppError::Internal(c) => write!(f, "internal: {c}"),
            other => write!(f, "{}", other.body().message),
        }
    }
}

impl std::error::Error for AppError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            AppError::Internal(c) => Some(c),
            _ => None,
        }
    }
}

impl From<DomainError> for AppError {
    fn from(e: DomainError) -> Self {
        match e {
            DomainError::Validation(errs) => AppError::Validation(errs),
            DomainError::Malformed(m) => AppError::Malformed(m),
            DomainError::NotFound { what, id } => AppError::NotFound { what, id },
            DomainError::Conflict(m) => AppError::Conflict(m),
            DomainError::Corrupt(c) => AppError::Internal(c),
        }
    }
}

impl From<serde_json::Error> for AppError {
    fn from(e: serde_json::Error) -> Self {
        AppError::internal(e)
    }
}

impl AppError {
    /// The seconds a client waits before trying again (`Retry-After`), for the errors that
    /// pass with time.
    pub fn retry_after(&self) -> Option<u64> {
        match self {
            AppError::Unavailable(_) => Some(1),
            AppError::TooManyRequests(_, secs) => Some((*secs).max(1)),
            _ => None,
        }
    }

    /// Logs an internal error with its cause chain (the client sees only that it happened).
    pub fn log_internal(&self) {
        if let AppError::Internal(cause) = self {
            tracing::error!(cause = %cause.chain(), "internal error");
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        self.log_internal();
        let body = self.body();
        let json = serde_json::to_vec(&body).unwrap_or_default();
        let mut res = (self.status(), json).into_response();
        res.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
        if let Some(secs) = self.retry_after() {
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        // XML routers re-render from this.
        res.extensions_mut().insert(body);
        res
    }
}

pub type AppResult<T> = Result<T, AppError>;

/// The repositories' errors as the client sees them (the one mapping).
impl From<RepoError> for AppError {
    fn from(e: RepoError) -> Self {
        match e {
            RepoError::Rule(d) => d.into(),
            RepoError::Stale(m) => AppError::PreconditionFailed(m),
            RepoError::Refused(m) => AppError::Forbidden(m),
            RepoError::TooLarge(bytes) => AppError::RecordTooLarge(bytes),
            RepoError::Busy(_) => AppError::Unavailable(BUSY.into()),
            RepoError::Internal(c) => AppError::Internal(c),
        }
    }
}

/// The use cases' errors as the client sees them (the one mapping).
impl From<UseCaseError> for AppError {
    fn from(e: UseCaseError) -> Self {
        match e {
            UseCaseError::Rule(d) => d.into(),
            UseCaseError::Repo(r) => r.into(),
            UseCaseError::Forbidden(m) => AppError::Forbidden(m),
            UseCaseError::RoleRequired(r) => AppError::RoleRequired(r),
            UseCaseError::TooLarge(e) => AppError::TooLargeField(e),
            UseCaseError::BodyTooLarge(max) => AppError::PayloadTooLarge(max),
            UseCaseError::Quota { message, retry_after } => AppError::TooManyRequests(message, retry_after),
            UseCaseError::Busy(m) => AppError::Unavailable(m),
            UseCaseError::Internal(c) => AppError::Internal(c),
        }
    }
}

/// A bucket failure in a handler (media served from the bucket).
impl From<BlobError> for AppError {
    fn from(e: BlobError) -> Self {
        UseCaseError::from(e).into()
    }
}

impl From<QueueError> for AppError {
    fn from(e: QueueError) -> Self {
        UseCaseError::from(e).into()
    }
}

/// An account over its request rate (`rate_limit`).
impl From<Limited> for AppError {
    fn from(l: Limited) -> Self {
        AppError::TooManyRequests(l.message, l.retry_after)
    }
}

/// What a busy or silent store tells the client.
const BUSY: &str = "the service is busy; retry in a moment (creates: with the same Idempotency-Key)";
