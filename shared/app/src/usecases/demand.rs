//! Demand partners and marketplaces (docs/programmatic.md, "Records"): one use case per
//! operation of `/v1/demand-partners` and `/v1/marketplaces`. An endpoint is resolved when
//! it is written, and refused unless every address is allowed; a marketplace names only
//! the account's partners; a partner a marketplace names cannot be removed.

use super::collection::Resource;
use super::{UseCaseError, UseCaseResult};
use crate::domain_error::FieldError;
use crate::ids::AccountId;
use crate::model::demand_partner::{DemandPartner, DemandPartnerInput};
use crate::model::marketplace::{Marketplace, MarketplaceInput};
use crate::repo::collection;
use crate::rule::Rule;
use crate::state::AppState;
use chrono::{DateTime, Utc};

/// Refuses an endpoint whose host does not resolve, or resolves to an address that is not
/// allowed (public only, unless `DEMAND_ALLOW_PRIVATE_URLS`).
async fn check_reachable(st: &AppState, endpoint: &str) -> UseCaseResult<()> {
    match crate::download::resolve_checked(st.resolver.as_ref(), endpoint, st.settings.demand_allow_private_urls).await {
        Ok(_) => Ok(()),
        Err(e) => Err(UseCaseError::field(
            "endpoint",
            Rule::Url,
            format!("endpoint must resolve to public addresses only: {e} (DEMAND_ALLOW_PRIVATE_URLS=1 allows loopback for local testing)"),
        )),
    }
}

impl Resource for DemandPartner {
    type Input = DemandPartnerInput;

    fn created(id: String, input: DemandPartnerInput, now: DateTime<Utc>) -> DemandPartner {
        DemandPartner::created(id, input, now)
    }
    fn replaced(&self, input: DemandPartnerInput, now: DateTime<Utc>) -> DemandPartner {
        DemandPartner::replaced(self, input, now)
    }
    fn check_replacement(&self, input: &DemandPartnerInput) -> Result<(), crate::domain_error::DomainError> {
        DemandPartner::check_replacement(self, input)
    }
    /// The endpoint is resolved when it is written, and refused unless every address is
    /// allowed.
    async fn check(st: &AppState, _: &AccountId, input: &DemandPartnerInput) -> UseCaseResult<()> {
        check_reachable(st, &input.endpoint).await
    }
    /// A revert never pairs the write-only authHeader with another server, and its endpoint
    /// must still resolve to allowed addresses.
    async fn check_revert(&self, st: &AppState, _: &AccountId, reverted: &DemandPartner) -> UseCaseResult<()> {
        if self.auth_header.is_some() && !crate::model::demand_partner::same_server(&self.endpoint, &reverted.endpoint) {
            return Err(UseCaseError::field(
                "authHeader",
                Rule::Required,
                "this revert moves endpoint to another server, which would receive the authHeader set since: \
                 PUT the partner with its authHeader instead",
            ));
        }
        check_reachable(st, &reverted.endpoint).await
    }
    /// A partner a marketplace names cannot be removed (409 naming them).
    async fn removable(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
        let naming: Vec<String> = collection::all::<Marketplace>(st.store.as_ref(), account)
            .await?
            .into_iter()
            .filter(|m| m.record.demand_partner_ids.iter().any(|p| p == id))
            .map(|m| m.record.id)
            .collect();
        if naming.is_empty() {
            return Ok(());
        }
        Err(UseCaseError::conflict(format!(
            "demand partner {id} is asked by marketplaces {}; take it out of them first",
            naming.join(", ")
        )))
    }
}

impl Resource for Marketplace {
    type Input = MarketplaceInput;

    fn created(id: String, input: MarketplaceInput, now: DateTime<Utc>) -> Marketplace {
        Marketplace::from_input(id, input, now, now)
    }
    fn replaced(&self, input: MarketplaceInput, now: DateTime<Utc>) -> Marketplace {
        Marketplace::from_input(self.id.clone(), input, self.created, now)
    }
    /// A marketplace names only the account's partners.
    async fn check(st: &AppState, account: &AccountId, input: &MarketplaceInput) -> UseCaseResult<()> {
        check_partners(st, account, &input.demand_partner_ids).await
    }
    /// A revert names only the account's partners too (not one removed since).
    async fn check_revert(&self, st: &AppState, account: &AccountId, reverted: &Marketplace) -> UseCaseResult<()> {
        check_partners(st, account, &reverted.demand_partner_ids).await
    }
}

/// Refuses partner ids that are not the account's (400 `unknown` at each).
async fn check_partners(st: &AppState, account: &AccountId, ids: &[String]) -> UseCaseResult<()> {
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

/// Whether `id` names one of the account's marketplaces (a goal's `marketplaceId`).
pub async fn marketplace_exists(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<bool> {
    Ok(collection::all::<Marketplace>(st.store.as_ref(), account).await?.iter().any(|m| m.record.id == id))
}
