//! Contacts (seed 001 §4.4): one use case per operation. A contact belongs to one client
//! at a time; associating it again moves it.

use super::UseCaseResult;
use crate::domain_error::{no_id_on_create, DomainError};
use crate::ids::new_id;
use crate::ids::AccountId;
use crate::model::contact::{Association, Contact, ContactInput};
use crate::repo;
use crate::repo::Versioned;
use crate::state::AppState;

const ROOT: &str = "contactBean";

pub async fn create(st: &AppState, account: &AccountId, input: ContactInput) -> UseCaseResult<Contact> {
    no_id_on_create(ROOT, input.id.as_deref())?;
    let c = Contact::from_input(new_id(), input, st.clock.now());
    repo::contacts::create(st.store.as_ref(), account, &c).await?;
    tracing::info!(contact = %c.id, "contact created");
    Ok(c)
}

pub async fn get(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Versioned<Contact>> {
    Ok(repo::contacts::load(st.store.as_ref(), account, id).await?)
}

/// A client's contacts by first name (case-insensitive), then id; the client must be the
/// account's (404).
pub async fn of_client(st: &AppState, account: &AccountId, client_id: &str) -> UseCaseResult<Vec<Contact>> {
    let client = repo::clients::load(st.store.as_ref(), account, client_id).await?.value;
    let mut list = repo::contacts::of_client(st.store.as_ref(), account, &client.id).await?;
    list.sort_by(|x, y| x.first_name.to_lowercase().cmp(&y.first_name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(list)
}

/// Replaces contact `id` with the parsed body: 404 first, then the body's errors.
pub async fn update(
    st: &AppState,
    account: &AccountId,
    id: &str,
    expected: Option<u64>,
    input: Result<ContactInput, DomainError>,
) -> UseCaseResult<()> {
    let load = repo::contacts::load(st.store.as_ref(), account, id);
    let (cur, input) = super::beans::for_update(load, ROOT, id, input, |i| i.id.as_deref()).await?;
    let now = st.clock.now();
    repo::contacts::update(st.store.as_ref(), account, cur, expected, |c| c.replace(input.clone(), now)).await?;
    Ok(())
}

pub async fn associate(st: &AppState, account: &AccountId, a: &Association) -> UseCaseResult<()> {
    repo::contacts::associate(st.store.as_ref(), account, &a.contact_id, &a.client_id, st.clock.now()).await?;
    tracing::info!(contact = %a.contact_id, client = %a.client_id, "contact associated");
    Ok(())
}

pub async fn remove(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    Ok(repo::contacts::remove(st.store.as_ref(), account, id).await?)
}
