//! Clients (advertisers, agencies, brands; seed 001 §4.3): one use case per operation.
//! The handlers parse the bean and render; the id rules and the order of checks (an id not
//! in the account is 404 whatever the body) live here.

use super::UseCaseResult;
use crate::domain_error::{no_id_on_create, DomainError};
use crate::ids::new_id;
use crate::ids::AccountId;
use crate::model::client::{Client, ClientInput};
use crate::repo;
use crate::repo::Versioned;
use crate::state::AppState;

const ROOT: &str = "clientBean";

/// A new client; the service assigns its id.
pub async fn create(st: &AppState, account: &AccountId, input: ClientInput) -> UseCaseResult<Client> {
    no_id_on_create(ROOT, input.id.as_deref())?;
    let c = Client::from_input(new_id(), input, st.clock.now());
    repo::clients::create(st.store.as_ref(), account, &c).await?;
    tracing::info!(client = %c.id, "client created");
    Ok(c)
}

/// The account's clients by name (case-insensitive), then id.
pub async fn list(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<Client>> {
    let mut clients = repo::clients::list(st.store.as_ref(), account).await?;
    clients.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(clients)
}

pub async fn get(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Versioned<Client>> {
    Ok(repo::clients::load(st.store.as_ref(), account, id).await?)
}

/// The clients a campaign names (advertiser, agency, brand).
pub async fn of_campaign(st: &AppState, account: &AccountId, campaign_id: &str) -> UseCaseResult<Vec<Client>> {
    let campaign = repo::campaigns::load(st.store.as_ref(), account, campaign_id).await?.value;
    Ok(repo::clients::by_ids(st.store.as_ref(), account, &campaign.client_ids()).await?)
}

/// Replaces client `id` with the parsed body: 404 first, then the body's errors.
pub async fn update(
    st: &AppState,
    account: &AccountId,
    id: &str,
    expected: Option<u64>,
    input: Result<ClientInput, DomainError>,
) -> UseCaseResult<()> {
    let load = repo::clients::load(st.store.as_ref(), account, id);
    let (cur, input) = super::beans::for_update(load, ROOT, id, input, |i| i.id.as_deref()).await?;
    let now = st.clock.now();
    repo::clients::update(st.store.as_ref(), account, cur, expected, |c| c.replace(input.clone(), now)).await?;
    Ok(())
}

pub async fn remove(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    let gone = repo::clients::remove(st.store.as_ref(), account, id).await?;
    tracing::info!(client = %id, name = %gone.name, "client deleted");
    Ok(())
}
