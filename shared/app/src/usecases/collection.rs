//! The account's JSON collections (stitchers, demand partners, marketplaces): one use case
//! per operation, generic over the record. Each record brings its own rules
//! ([`Resource`]): how a body makes a record or replaces one, what the body is checked
//! against in the account, what refuses a removal, and what a write makes the process
//! forget. The records are stored together, one item per collection (`repo::collection`).

use crate::ids::AccountId;
use std::future::Future;

use chrono::{DateTime, Utc};

use super::UseCaseResult;
use crate::domain_error::DomainError;
use crate::ids::new_id;
use crate::repo::collection::{self, Entry, Member};
use crate::state::AppState;

/// A record of a JSON collection, with its rules.
pub trait Resource: Member {
    /// What a create or replace body is read into.
    type Input: Clone + Send + Sync;

    fn created(id: String, input: Self::Input, now: DateTime<Utc>) -> Self;
    fn replaced(&self, input: Self::Input, now: DateTime<Utc>) -> Self;

    /// The rules of the record a body makes (none by default).
    fn check_record(&self) -> Result<(), DomainError> {
        Ok(())
    }

    /// The rules of replacing this record by a body (none by default).
    fn check_replacement(&self, input: &Self::Input) -> Result<(), DomainError> {
        let _ = input;
        Ok(())
    }

    /// What a body is checked against in the account before it is written (none by default).
    fn check(st: &AppState, account: &AccountId, input: &Self::Input) -> impl Future<Output = UseCaseResult<()>> + Send {
        let _ = (st, account, input);
        async { Ok(()) }
    }

    /// The rules of putting a record back to `reverted` (a revert of its change): by default
    /// the record's own rules; a record with rules against the account adds them.
    fn check_revert(&self, st: &AppState, account: &AccountId, reverted: &Self) -> impl Future<Output = UseCaseResult<()>> + Send {
        let _ = (st, account);
        async move { Ok(reverted.check_record()?) }
    }

    /// What refuses a removal (none by default).
    fn removable(st: &AppState, account: &AccountId, id: &str) -> impl Future<Output = UseCaseResult<()>> + Send {
        let _ = (st, account, id);
        async { Ok(()) }
    }

    /// After a write: what the process holds of the collection (none by default).
    fn written(st: &AppState, account: &AccountId) {
        let _ = (st, account);
    }
}

/// The account's quota of a collection: at most `T::MAX` records (403 past it).
pub(crate) fn within_quota<T: Member>(list: &[Entry<T>]) -> crate::repo::RepoResult<()> {
    if list.len() >= T::MAX {
        return Err(crate::repo::RepoError::Refused(format!(
            "the account has {} {}, the most it may have; remove one first",
            T::MAX,
            T::PLURAL
        )));
    }
    Ok(())
}

pub async fn create<R: Resource>(st: &AppState, account: &AccountId, input: Result<R::Input, DomainError>) -> UseCaseResult<Entry<R>> {
    let input = input?;
    R::check(st, account, &input).await?;
    let r = R::created(new_id(), input, st.clock.now());
    r.check_record()?;
    let e = collection::create(st.store.as_ref(), account, &r, within_quota).await?;
    R::written(st, account);
    Ok(e)
}

pub async fn list<R: Resource>(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<Entry<R>>> {
    Ok(collection::all(st.store.as_ref(), account).await?)
}

pub async fn get<R: Resource>(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Entry<R>> {
    Ok(collection::load(st.store.as_ref(), account, id).await?)
}

/// `PUT`: the record read first (404), then the body; `expected` is the `If-Match`.
pub async fn replace<R: Resource>(
    st: &AppState,
    account: &AccountId,
    id: &str,
    input: Result<R::Input, DomainError>,
    expected: Option<u64>,
) -> UseCaseResult<Entry<R>> {
    let cur = collection::load::<R>(st.store.as_ref(), account, id).await?;
    let input = input?;
    cur.record.check_replacement(&input)?;
    R::check(st, account, &input).await?;
    let now = st.clock.now();
    cur.record.replaced(input.clone(), now).check_record()?;
    let e = collection::replace(st.store.as_ref(), account, id, expected, |cur: &R| cur.replaced(input.clone(), now)).await?;
    R::written(st, account);
    Ok(e)
}

pub async fn remove<R: Resource>(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    collection::load::<R>(st.store.as_ref(), account, id).await?;
    R::removable(st, account, id).await?;
    collection::remove::<R>(st.store.as_ref(), account, id).await?;
    R::written(st, account);
    Ok(())
}

/// Reverts change `c` of record `c.record_id`: the record with the change's old values put
/// back, checked by the record's rules (`Resource::check_revert`), and written only if the
/// record is still at the version read (412 otherwise).
pub async fn revert<R: Resource>(st: &AppState, account: &AccountId, c: &crate::model::change::Change) -> UseCaseResult<()> {
    let cur = collection::load::<R>(st.store.as_ref(), account, &c.record_id).await?;
    let mut body = serde_json::to_value(&cur.record).map_err(super::UseCaseError::internal)?;
    crate::model::change::put_back(&mut body, "", &c.fields).map_err(super::UseCaseError::conflict)?;
    let reverted: R = serde_json::from_value(body)
        .map_err(|e| super::UseCaseError::conflict(format!("the old values no longer make a valid {}: {e}", c.kind)))?;
    cur.record.check_revert(st, account, &reverted).await?;
    collection::replace(st.store.as_ref(), account, &c.record_id, Some(cur.version), |_: &R| reverted.clone()).await?;
    R::written(st, account);
    Ok(())
}
