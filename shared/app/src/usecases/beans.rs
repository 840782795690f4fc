//! What the XML records' updates share (clients, contacts, campaigns, goals): the record is
//! read first, so an id not in the account is 404 whatever the body holds; only then the
//! parsed bean counts, and its id, when sent, must be the path's.

use std::future::Future;

use super::UseCaseResult;
use crate::domain_error::{same_id, DomainError};
use crate::repo::RepoResult;

/// The stored record (`load`) and the bean to replace it with, checked in that order.
pub async fn for_update<T, I>(
    load: impl Future<Output = RepoResult<T>>,
    root: &str,
    path_id: &str,
    input: Result<I, DomainError>,
    body_id: impl Fn(&I) -> Option<&str>,
) -> UseCaseResult<(T, I)> {
    let cur = load.await?;
    let input = input?;
    same_id(root, body_id(&input), path_id)?;
    Ok((cur, input))
}
