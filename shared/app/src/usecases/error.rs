//! The use cases' errors: what an operation over the ports can come to (no HTTP:
//! `api::error` maps them to statuses once; the workers map them to retry or drop).

use crate::blobs::BlobError;
use crate::cause::Cause;
use crate::domain_error::{DomainError, FieldError};
use crate::queue::QueueError;
use crate::repo::RepoError;
use crate::rule::Rule;

#[derive(Debug, Clone, thiserror::Error)]
pub enum UseCaseError {
    /// The request breaks a rule (a field, a record not in the account, a state).
    #[error(transparent)]
    Rule(#[from] DomainError),
    /// What the repositories said.
    #[error(transparent)]
    Repo(#[from] RepoError),
    /// The caller may not do this (a forged or expired tracking link).
    #[error("forbidden: {0}")]
    Forbidden(String),
    /// The caller's role is not the one this needs (403 naming it).
    #[error("this needs the {} role", .0.as_str())]
    RoleRequired(crate::model::access::Role),
    /// A field of the request is larger than the rule allows (413, naming it).
    #[error("{}", .0.message)]
    TooLarge(crate::domain_error::FieldError),
    /// The request's body is larger than its bound (bytes): 413.
    #[error("the request body is larger than {0} bytes")]
    BodyTooLarge(usize),
    /// An account quota is used up; it frees in `retry_after` seconds.
    #[error("{message}")]
    Quota { message: String, retry_after: u64 },
    /// A dependency (the bucket) is busy or did not answer: worth trying again.
    #[error("busy: {0}")]
    Busy(String),
    /// A failure of the service (the queue, the bucket, a broken invariant).
    #[error("{}", .0.chain())]
    Internal(Cause),
}

pub type UseCaseResult<T> = Result<T, UseCaseError>;

impl UseCaseError {
    pub fn not_found(what: &'static str, id: impl Into<String>) -> Self {
        UseCaseError::Rule(DomainError::not_found(what, id))
    }

    pub fn field(field: impl Into<String>, rule: Rule, message: impl Into<String>) -> Self {
        UseCaseError::Rule(DomainError::field(field, rule, message))
    }

    pub fn validation(errors: Vec<FieldError>) -> Self {
        UseCaseError::Rule(DomainError::Validation(errors))
    }

    pub fn conflict(m: impl Into<String>) -> Self {
        UseCaseError::Rule(DomainError::Conflict(m.into()))
    }

    pub fn internal(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        UseCaseError::Internal(Cause::new(e))
    }

    pub fn internal_msg(m: impl Into<String>) -> Self {
        UseCaseError::Internal(Cause::msg(m))
    }
}

impl From<BlobError> for UseCaseError {
    fn from(e: BlobError) -> Self {
        if e.transient {
            tracing::warn!(error = ?e, "bucket unavailable");
            UseCaseError::Busy("the file store is busy; retry in a moment".into())
        } else {
            UseCaseError::internal(e)
        }
    }
}

impl From<QueueError> for UseCaseError {
    fn from(e: QueueError) -> Self {
        if e.busy {
            tracing::warn!(error = %e, "queue full or busy");
            UseCaseError::Busy("the service is busy; retry in a moment".into())
        } else {
            UseCaseError::internal(e)
        }
    }
}

impl From<serde_json::Error> for UseCaseError {
    fn from(e: serde_json::Error) -> Self {
        UseCaseError::internal(e)
    }
}
