//! Change history (docs/operations-guide.md, "Change history"): the account's changes,
//! filtered and paged, and reverting an UPDATE.

use super::{UseCaseError, UseCaseResult};
use crate::model::change::{Change, Operation};
use crate::repo::changes::{self, Filter};
use crate::state::AppState;

/// A page of the account's changes, newest first, and the `after` of the next page.
pub async fn list(
    st: &AppState,
    account: &str,
    f: &Filter,
    after: Option<&str>,
    limit: usize,
) -> UseCaseResult<(Vec<Change>, Option<String>)> {
    Ok(changes::list(st.store.as_ref(), account, f, after, limit).await?)
}

/// Puts back the old values of an UPDATE, if its record is still as that change left it;
/// answers the revert's own change.
pub async fn revert(st: &AppState, account: &str, id: &str) -> UseCaseResult<Change> {
    let store = st.store.as_ref();
    let c = changes::get(store, account, id).await?.ok_or_else(|| UseCaseError::not_found("change", id))?;
    if c.operation != Operation::Update {
        return Err(UseCaseError::conflict(format!(
            "change {id} is a {}: only an UPDATE can be reverted (undo a CREATE by deleting the record)",
            c.operation.as_str()
        )));
    }
    if let Some(last) = changes::latest(store, account, &c.record_id).await? {
        if last.id != c.id {
            let by = last.key_name.as_deref().or(last.key_id.as_deref()).unwrap_or("an unnamed key");
            return Err(UseCaseError::conflict(format!(
                "{} {} was changed again after change {id}, by change {} ({}, {} by {by}); revert that one first",
                c.kind,
                c.record_id,
                last.id,
                last.operation.as_str(),
                last.at.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
            )));
        }
    }
    // The JSON collections through their own rules; the other records through the
    // repository's conditional update of the record.
    match c.kind.as_str() {
        "stitcher" => super::collection::revert::<crate::model::stitcher::Stitcher>(st, account, &c).await?,
        "demandPartner" => super::collection::revert::<crate::model::demand_partner::DemandPartner>(st, account, &c).await?,
        "marketplace" => super::collection::revert::<crate::model::marketplace::Marketplace>(st, account, &c).await?,
        _ => crate::repo::revert::put_back(store, account, &c).await?,
    }
    st.work
        .as_ref()
        .map(|w| w.written())
        .unwrap_or_default()
        .into_iter()
        .find(|w| w.record_id == c.record_id)
        .ok_or_else(|| UseCaseError::conflict(format!("change {id}'s old values are the record's values already: nothing to revert")))
}
