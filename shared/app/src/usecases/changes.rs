//! Change history (docs/operations-guide.md, "Change history"): the account's changes,
//! filtered and paged, and reverting an UPDATE.

use super::{UseCaseError, UseCaseResult};
use crate::ids::AccountId;
use crate::model::access::Role;
use crate::model::change::{Change, Operation};
use crate::repo::changes;
/// Which changes a listing reads: by record, by person (the repository's query).
pub use crate::repo::changes::Filter;
use crate::state::AppState;

/// A page of the account's changes, newest first, and the `after` of the next page, as the
/// role `by` reads them: the changes of users and keys are an ADMIN's, as users and keys are.
pub async fn list(
    st: &AppState,
    account: &AccountId,
    f: &Filter,
    after: Option<&str>,
    limit: usize,
    by: Role,
) -> UseCaseResult<(Vec<Change>, Option<String>)> {
    let f = Filter { people: by.allows(Role::Admin), ..f.clone() };
    Ok(changes::list(st.store.as_ref(), account, &f, after, limit).await?)
}

/// Puts back the old values of an UPDATE, if its record is still as that change left it;
/// answers the revert's own change.
pub async fn revert(st: &AppState, account: &AccountId, id: &str, by: Role) -> UseCaseResult<Change> {
    let store = st.store.as_ref();
    let c = changes::get(store, account, id).await?.ok_or_else(|| UseCaseError::not_found("change", id))?;
    // Undoing a write is that write again: it needs the role the write needed.
    if !by.allows(c.revert_role()) {
        return Err(UseCaseError::RoleRequired(c.revert_role()));
    }
    // The revert's own change needs what the reverted one did (undoing an ADMIN's revert is
    // an ADMIN's decision too).
    if let Some(w) = &st.work {
        w.set_role(c.revert_role());
    }
    if crate::model::change::PEOPLE_KINDS.contains(&c.kind.as_str()) {
        return Err(UseCaseError::conflict(format!(
            "change {id} is of a {}: changes of users and keys are not reverted; change the {} instead",
            c.kind, c.kind
        )));
    }
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
        "contact" if !crate::model::change::of_rules(&c) => revert_contact(st, account, &c).await?,
        "ad" => revert_ad(st, account, &c).await?,
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

/// The record `value` with the change's old values put back.
fn reverted<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T, c: &Change) -> UseCaseResult<T> {
    let mut body = serde_json::to_value(value).map_err(UseCaseError::internal)?;
    crate::model::change::put_back(&mut body, "", &c.fields).map_err(UseCaseError::conflict)?;
    serde_json::from_value(body).map_err(|e| UseCaseError::conflict(format!("the old values no longer make a valid {}: {e}", c.kind)))
}

fn changed_since(c: &Change) -> UseCaseError {
    UseCaseError::conflict(format!(
        "{} {} was changed after change {} by a write not in the history; read it again",
        c.kind, c.record_id, c.id
    ))
}

/// A contact's revert: its client index follows the `clientId` put back, and that client
/// must still exist.
async fn revert_contact(st: &AppState, account: &AccountId, c: &Change) -> UseCaseResult<()> {
    let cur = crate::repo::contacts::load(st.store.as_ref(), account, &c.record_id).await?;
    if Some(cur.version()) != c.version {
        return Err(changed_since(c));
    }
    let mut next = reverted(&cur.value, c)?;
    next.modified = st.clock.now();
    if !crate::repo::contacts::put_back(st.store.as_ref(), account, &cur, &next).await? {
        return Err(match &next.client_id {
            Some(client) => {
                UseCaseError::field("clientId", crate::rule::Rule::Reference, format!("clientId: no client {client} in this account"))
            }
            None => changed_since(c),
        });
    }
    Ok(())
}

/// An ad's revert: the ad's rules in its goal (flight, weights, its asset) and the goal's
/// summary of it, as an update of the ad writes them.
async fn revert_ad(st: &AppState, account: &AccountId, c: &Change) -> UseCaseResult<()> {
    let (cur, goal) = crate::repo::ads::load_live(st.store.as_ref(), account, &c.record_id).await?;
    if Some(cur.version()) != c.version {
        return Err(changed_since(c));
    }
    let mut next = reverted(&cur.value, c)?;
    let now = st.clock.now();
    next.modified = now;
    let rules = super::ads::rules(super::ads::containers_for(st, account, next.device_containers.is_some()).await?);
    crate::repo::ads::update(st.store.as_ref(), account, (cur, goal), c.version, now, |_| Ok(Some(next.clone())), &rules).await?;
    Ok(())
}
