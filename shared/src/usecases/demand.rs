//! Demand partners and marketplaces (docs/programmatic.md, "Records"): one use case per
//! operation of `/v1/demand-partners` and `/v1/marketplaces`. An endpoint is resolved when
//! it is written, and refused unless every address is allowed; a marketplace names only
//! the account's partners; a partner a marketplace names cannot be removed.

use super::{UseCaseError, UseCaseResult};
use crate::domain_error::{DomainError, FieldError};
use crate::ids::new_id;
use crate::model::demand_partner::{DemandPartner, DemandPartnerInput};
use crate::model::marketplace::{Marketplace, MarketplaceInput};
use crate::repo::collection::{self, Entry};
use crate::rule::Rule;
use crate::state::AppState;

/// Refuses an endpoint whose host does not resolve, or resolves to an address that is not
/// allowed (public only, unless `DEMAND_ALLOW_PRIVATE_URLS`).
async fn check_reachable(st: &AppState, endpoint: &str) -> UseCaseResult<()> {
    match crate::download::resolve_checked(endpoint, st.settings.demand_allow_private_urls).await {
        Ok(_) => Ok(()),
        Err(e) => Err(UseCaseError::field(
            "endpoint",
            Rule::Url,
            format!("endpoint must resolve to public addresses only: {e} (DEMAND_ALLOW_PRIVATE_URLS=1 allows loopback for local testing)"),
        )),
    }
}

pub async fn create_partner(
    st: &AppState,
    account: &str,
    input: Result<DemandPartnerInput, DomainError>,
) -> UseCaseResult<Entry<DemandPartner>> {
    let input = input?;
    check_reachable(st, &input.endpoint).await?;
    let p = DemandPartner::created(new_id(), input, st.clock.now());
    Ok(collection::create(st.store.as_ref(), account, &p, super::within_collection_quota).await?)
}

pub async fn partners(st: &AppState, account: &str) -> UseCaseResult<Vec<Entry<DemandPartner>>> {
    Ok(collection::all(st.store.as_ref(), account).await?)
}

pub async fn partner(st: &AppState, account: &str, id: &str) -> UseCaseResult<Entry<DemandPartner>> {
    Ok(collection::load(st.store.as_ref(), account, id).await?)
}

/// `PUT`: the partner read first (404), then the body; `expected` is the `If-Match`.
pub async fn replace_partner(
    st: &AppState,
    account: &str,
    id: &str,
    input: Result<DemandPartnerInput, DomainError>,
    expected: Option<u64>,
) -> UseCaseResult<Entry<DemandPartner>> {
    collection::load::<DemandPartner>(st.store.as_ref(), account, id).await?;
    let input = input?;
    check_reachable(st, &input.endpoint).await?;
    let now = st.clock.now();
    let e = collection::replace(st.store.as_ref(), account, id, expected, |cur: &DemandPartner| cur.replaced(input.clone(), now));
    Ok(e.await?)
}

/// Removes a partner no marketplace names (409 naming them otherwise).
pub async fn remove_partner(st: &AppState, account: &str, id: &str) -> UseCaseResult<()> {
    collection::load::<DemandPartner>(st.store.as_ref(), account, id).await?;
    let naming: Vec<String> = collection::all::<Marketplace>(st.store.as_ref(), account)
        .await?
        .into_iter()
        .filter(|m| m.record.demand_partner_ids.iter().any(|p| p == id))
        .map(|m| m.record.id)
        .collect();
    if !naming.is_empty() {
        return Err(UseCaseError::conflict(format!(
            "demand partner {id} is asked by marketplaces {}; take it out of them first",
            naming.join(", ")
        )));
    }
    Ok(collection::remove::<DemandPartner>(st.store.as_ref(), account, id).await?)
}

/// Refuses partner ids that are not the account's (400 `unknown` at each).
async fn check_partners(st: &AppState, account: &str, ids: &[String]) -> UseCaseResult<()> {
    let known = collection::all::<DemandPartner>(st.store.as_ref(), account).await?;
    let errors: Vec<FieldError> = ids
        .iter()
        .enumerate()
        .filter(|(_, id)| !known.iter().any(|p| &p.record.id == *id))
        .map(|(i, id)| {
            FieldError::new(
                format!("demandPartnerIds[{i}]"),
                Rule::Unknown,
                format!("demandPartnerIds[{i}] {id:?} is not a demand partner of the account"),
            )
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(UseCaseError::validation(errors))
    }
}

pub async fn create_marketplace(
    st: &AppState,
    account: &str,
    input: Result<MarketplaceInput, DomainError>,
) -> UseCaseResult<Entry<Marketplace>> {
    let input = input?;
    check_partners(st, account, &input.demand_partner_ids).await?;
    let now = st.clock.now();
    let m = Marketplace::from_input(new_id(), input, now, now);
    Ok(collection::create(st.store.as_ref(), account, &m, super::within_collection_quota).await?)
}

pub async fn marketplaces(st: &AppState, account: &str) -> UseCaseResult<Vec<Entry<Marketplace>>> {
    Ok(collection::all(st.store.as_ref(), account).await?)
}

pub async fn marketplace(st: &AppState, account: &str, id: &str) -> UseCaseResult<Entry<Marketplace>> {
    Ok(collection::load(st.store.as_ref(), account, id).await?)
}

/// `PUT`: the marketplace read first (404), then the body; `expected` is the `If-Match`.
pub async fn replace_marketplace(
    st: &AppState,
    account: &str,
    id: &str,
    input: Result<MarketplaceInput, DomainError>,
    expected: Option<u64>,
) -> UseCaseResult<Entry<Marketplace>> {
    collection::load::<Marketplace>(st.store.as_ref(), account, id).await?;
    let input = input?;
    check_partners(st, account, &input.demand_partner_ids).await?;
    let now = st.clock.now();
    let e = collection::replace(st.store.as_ref(), account, id, expected, |cur: &Marketplace| {
        Marketplace::from_input(cur.id.clone(), input.clone(), cur.created, now)
    });
    Ok(e.await?)
}

/// Removes a marketplace. Goals that name it then serve nothing (their notification says
/// so): docs/programmatic.md, "Records".
pub async fn remove_marketplace(st: &AppState, account: &str, id: &str) -> UseCaseResult<()> {
    Ok(collection::remove::<Marketplace>(st.store.as_ref(), account, id).await?)
}

/// Whether `id` names one of the account's marketplaces (a goal's `marketplaceId`).
pub async fn marketplace_exists(st: &AppState, account: &str, id: &str) -> UseCaseResult<bool> {
    Ok(collection::all::<Marketplace>(st.store.as_ref(), account).await?.iter().any(|m| m.record.id == id))
}
