//! Stitchers (docs/traffic-quality.md, "Server-side ad insertion"): one use case per
//! operation of `/v1/stitchers`, and the recognition of a stitcher's call by the serving
//! and tracking functions (the account's stitchers read once per `DELIVERY_REFRESH_MS`, as
//! the delivery snapshot is).

use std::net::IpAddr;
use std::sync::Arc;

use super::UseCaseResult;
use crate::domain_error::DomainError;
use crate::ids::new_id;
use crate::model::stitcher::{Stitcher, StitcherInput};
use crate::repo;
use crate::repo::stitchers::Entry;
use crate::state::AppState;

pub async fn create(st: &AppState, account: &str, input: Result<StitcherInput, DomainError>) -> UseCaseResult<Entry> {
    let s = Stitcher::created(new_id(), input?, st.clock.now());
    let e = repo::collection::create(st.store.as_ref(), account, &s, super::within_collection_quota).await?;
    st.stitchers.remove(&account.to_string());
    Ok(e)
}

pub async fn list(st: &AppState, account: &str) -> UseCaseResult<Vec<Entry>> {
    Ok(repo::stitchers::all::<Stitcher>(st.store.as_ref(), account).await?)
}

pub async fn get(st: &AppState, account: &str, id: &str) -> UseCaseResult<Entry> {
    Ok(repo::stitchers::load::<Stitcher>(st.store.as_ref(), account, id).await?)
}

/// `PUT`: the stitcher read first (404), then the body; `expected` is the `If-Match`.
pub async fn replace(
    st: &AppState,
    account: &str,
    id: &str,
    input: Result<StitcherInput, DomainError>,
    expected: Option<u64>,
) -> UseCaseResult<Entry> {
    repo::stitchers::load::<Stitcher>(st.store.as_ref(), account, id).await?;
    let input = input?;
    let now = st.clock.now();
    let e = repo::stitchers::replace(st.store.as_ref(), account, id, expected, |cur: &Stitcher| cur.replaced(input.clone(), now)).await?;
    st.stitchers.remove(&account.to_string());
    Ok(e)
}

pub async fn remove(st: &AppState, account: &str, id: &str) -> UseCaseResult<()> {
    repo::stitchers::remove::<Stitcher>(st.store.as_ref(), account, id).await?;
    st.stitchers.remove(&account.to_string());
    Ok(())
}

/// The account's stitchers, read at most once per `DELIVERY_REFRESH_MS` by this process.
async fn of_account(st: &AppState, account: &str) -> UseCaseResult<Arc<Vec<Stitcher>>> {
    if let Some(list) = st.stitchers.get(&account.to_string(), st.clock.instant()) {
        return Ok(list);
    }
    let list: Arc<Vec<Stitcher>> =
        Arc::new(repo::stitchers::all::<Stitcher>(st.store.as_ref(), account).await?.into_iter().map(|e| e.record).collect());
    st.stitchers.put(account.to_string(), list.clone(), st.clock.instant());
    Ok(list)
}

/// Whether a call from `peer` with these headers comes from one of the account's
/// registered stitchers. A store that cannot be read makes it nobody's (the call is then
/// judged as anyone's): serving and tracking never fail on it.
pub async fn is_stitcher<'a>(st: &AppState, account: &str, peer: Option<IpAddr>, header: impl Fn(&str) -> Option<&'a str>) -> bool {
    let Some(peer) = peer else { return false };
    match of_account(st, account).await {
        Ok(list) => list.iter().any(|s| s.admits(peer, &header)),
        Err(e) => {
            tracing::warn!(account, error = %e, "the account's stitchers could not be read; the call is judged as anyone's");
            false
        }
    }
}

impl From<repo::stitchers::Entry> for crate::model::stitcher::StitcherView {
    fn from(e: repo::stitchers::Entry) -> Self {
        e.record.view()
    }
}
