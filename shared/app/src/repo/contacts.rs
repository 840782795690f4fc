//! Contacts and their association with one client (GSI1: the client's contacts).

use chrono::{DateTime, Utc};

use super::{RepoError, RepoResult};
use crate::ids::plausible_id;
use crate::keys;
use crate::model::contact::Contact;
use crate::store::{Cond, Key, Query, Store, StoreError, TxOp};

use super::Versioned;

fn key(account: &str, id: &str) -> Key {
    keys::record(account, keys::CONTACT, id)
}

pub async fn load(store: &dyn Store, account: &str, id: &str) -> RepoResult<Versioned<Contact>> {
    if !plausible_id(id) {
        return Err(RepoError::not_found("contact", id));
    }
    super::get(store, &key(account, id)).await?.ok_or_else(|| RepoError::not_found("contact", id))
}

pub async fn create(store: &dyn Store, account: &str, c: &Contact) -> RepoResult<()> {
    store.put(super::item(key(account, &c.id), c, 1)?, Cond::NotExists).await?;
    Ok(())
}

/// The contacts associated with a client.
pub async fn of_client(store: &dyn Store, account: &str, client: &str) -> RepoResult<Vec<Contact>> {
    let linked: Vec<Versioned<Contact>> = super::query_all(store, Query::gsi1(keys::client_contacts(account, client))).await?;
    Ok(linked.into_iter().map(|v| v.value).filter(|c| c.client_id.as_deref() == Some(client)).collect())
}

pub async fn update(
    store: &dyn Store,
    account: &str,
    first: Versioned<Contact>,
    expected: Option<u64>,
    change: impl Fn(&mut Contact),
) -> RepoResult<()> {
    let id = first.value.id.clone();
    super::rewrite(
        store,
        "contact",
        first,
        expected,
        || load(store, account, &id),
        |c| {
            change(c);
            Ok(())
        },
    )
    .await?;
    Ok(())
}

/// Associates a contact with a client (moving it from any other). Either record may change
/// or vanish meanwhile: the write checks both, and a retry reads them again (a vanished one
/// answers 404).
pub async fn associate(store: &dyn Store, account: &str, contact_id: &str, client_id: &str, now: DateTime<Utc>) -> RepoResult<()> {
    let client_key = keys::record(account, keys::CLIENT, client_id);
    let mut tries = super::Attempts::new("contact", contact_id, None);
    loop {
        let contact = load(store, account, contact_id).await?;
        tries.check(contact.version())?;
        super::clients::load(store, account, client_id).await?;
        let mut c = contact.value.clone();
        c.client_id = Some(client_id.to_string());
        c.modified = now;
        let mut item = super::next(&contact.item, &c)?;
        item.gsi1 = Some((keys::client_contacts(account, client_id), c.id.clone()));
        let ops = vec![TxOp::Put(item, Cond::Version(contact.version())), TxOp::Check(client_key.clone(), Cond::Exists)];
        if tries.commit(store, ops).await? {
            return Ok(());
        }
    }
}

/// Writes `next` over the contact read as `cur` (a revert), conditional on its version, with
/// its client index following its `clientId` (and that client checked to exist).
pub async fn put_back(store: &dyn Store, account: &str, cur: &Versioned<Contact>, next: &Contact) -> RepoResult<bool> {
    let mut item = super::next(&cur.item, next)?;
    item.gsi1 = next.client_id.as_ref().map(|client| (keys::client_contacts(account, client), next.id.clone()));
    let mut ops = vec![TxOp::Put(item, Cond::Version(cur.version()))];
    if let Some(client) = &next.client_id {
        ops.push(TxOp::Check(keys::record(account, keys::CLIENT, client), Cond::Exists));
    }
    super::Attempts::new("contact", &next.id, None).commit(store, ops).await
}

pub async fn remove(store: &dyn Store, account: &str, id: &str) -> RepoResult<()> {
    load(store, account, id).await?;
    match store.delete(&key(account, id), Cond::Exists).await {
        Ok(()) => Ok(()),
        Err(StoreError::ConditionFailed) => Err(RepoError::not_found("contact", id)),
        Err(e) => Err(e.into()),
    }
}
