//! The repositories' errors: what a read or a write of an aggregate can come to, in terms
//! of records and the store (no HTTP: `api::error` maps them to statuses once).

use crate::cause::Cause;
use crate::domain_error::{DomainError, FieldError};
use crate::rule::Rule;
use crate::store::StoreError;

#[derive(Debug, Clone, thiserror::Error)]
pub enum RepoError {
    /// The request breaks a rule of the records: a field, a record that is not in the
    /// account, a state (`DomainError`: validation, not found, conflict).
    #[error(transparent)]
    Rule(#[from] DomainError),
    /// The record changed since the caller read it (its `If-Match` is stale).
    #[error("the record changed since it was read: {0}")]
    Stale(String),
    /// Refused by what the account may do (a feature it does not have, a limit of its own).
    #[error("refused: {0}")]
    Refused(String),
    /// The record would be larger than one stored item may be (bytes).
    #[error("the record would be {0} bytes, over one stored item's limit")]
    TooLarge(usize),
    /// The store is busy or did not answer, after its own retries: worth trying again.
    #[error("the store is busy: {0}")]
    Busy(String),
    /// A failure of the service: the store, a corrupt record, a broken invariant.
    #[error("{}", .0.chain())]
    Internal(Cause),
}

pub type RepoResult<T> = Result<T, RepoError>;

impl RepoError {
    pub fn not_found(what: &'static str, id: impl Into<String>) -> Self {
        RepoError::Rule(DomainError::not_found(what, id))
    }

    pub fn field(field: impl Into<String>, rule: Rule, message: impl Into<String>) -> Self {
        RepoError::Rule(DomainError::field(field, rule, message))
    }

    pub fn validation(errors: Vec<FieldError>) -> Self {
        RepoError::Rule(DomainError::Validation(errors))
    }

    /// The request contradicts the record's state, or lost every race for it.
    pub fn conflict(m: impl Into<String>) -> Self {
        RepoError::Rule(DomainError::Conflict(m.into()))
    }

    pub fn internal(e: impl std::error::Error + Send + Sync + 'static) -> Self {
        RepoError::Internal(Cause::new(e))
    }

    pub fn internal_msg(m: impl Into<String>) -> Self {
        RepoError::Internal(Cause::msg(m))
    }

    /// Whether this is "no such record" (and not an outage that hides it).
    pub fn is_not_found(&self) -> bool {
        matches!(self, RepoError::Rule(DomainError::NotFound { .. }))
    }
}

/// Where storage errors become the repositories' (the store knows nothing of records).
impl From<StoreError> for RepoError {
    fn from(e: StoreError) -> Self {
        match e {
            // The client sent more than one record can hold: its request, not the service.
            StoreError::ItemTooLarge { bytes, .. } => RepoError::TooLarge(bytes),
            // Busy (after the store's own retries) or no answer: the client may try again.
            StoreError::Throttled(m) | StoreError::Unavailable(m) => {
                tracing::warn!(cause = %m, "store busy or unavailable");
                RepoError::Busy(m)
            }
            e => RepoError::internal(e),
        }
    }
}

impl From<serde_json::Error> for RepoError {
    fn from(e: serde_json::Error) -> Self {
        RepoError::internal(e)
    }
}
