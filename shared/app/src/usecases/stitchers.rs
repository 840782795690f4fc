//! Stitchers (docs/traffic-quality.md, "Server-side ad insertion"): one use case per
//! operation of `/v1/stitchers`, and the recognition of a stitcher's call by the serving
//! and tracking functions (the account's stitchers read once per `DELIVERY_REFRESH_MS`, as
//! the delivery snapshot is).

use crate::ids::AccountId;
use std::net::IpAddr;
use std::sync::Arc;

use super::collection::Resource;
use super::UseCaseResult;
use crate::model::stitcher::{Stitcher, StitcherInput};
use crate::repo;
use crate::state::AppState;
use chrono::{DateTime, Utc};

impl Resource for Stitcher {
    type Input = StitcherInput;

    fn created(id: String, input: StitcherInput, now: DateTime<Utc>) -> Stitcher {
        Stitcher::created(id, input, now)
    }
    fn replaced(&self, input: StitcherInput, now: DateTime<Utc>) -> Stitcher {
        Stitcher::replaced(self, input, now)
    }
    fn check_record(&self) -> Result<(), crate::domain_error::DomainError> {
        self.check()
    }
    /// The process's copy of the account's stitchers is read again.
    fn written(st: &AppState, account: &AccountId) {
        st.stitchers.remove(&account.to_string());
    }
}

/// The account's stitchers, read at most once per `DELIVERY_REFRESH_MS` by this process.
async fn of_account(st: &AppState, account: &AccountId) -> UseCaseResult<Arc<Vec<Stitcher>>> {
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
pub async fn is_stitcher<'a>(st: &AppState, account: &AccountId, peer: Option<IpAddr>, header: impl Fn(&str) -> Option<&'a str>) -> bool {
    let Some(peer) = peer else { return false };
    match of_account(st, account).await {
        Ok(list) => list.iter().any(|s| s.admits(peer, &header)),
        Err(e) => {
            tracing::warn!(account = account.as_str(), error = %e, "the account's stitchers could not be read; the call is judged as anyone's");
            false
        }
    }
}
