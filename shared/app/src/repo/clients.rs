//! Clients (advertisers, agencies, brands) and the count of campaigns naming each.

use super::{RepoError, RepoResult};
use crate::ids::plausible_id;
use crate::keys;
use crate::model::client::Client;
use crate::model::contact::Contact;
use crate::model::enums::ClientType;
use crate::store::{Cond, Key, Query, Store, StoreError, TxOp};

use super::Versioned;

/// Counter on a client item: campaigns naming it as advertiser, agency or brand.
pub const REFS: &str = "campaigns";

fn key(account: &str, id: &str) -> Key {
    keys::record(account, keys::CLIENT, id)
}

pub async fn load(store: &dyn Store, account: &str, id: &str) -> RepoResult<Versioned<Client>> {
    if !plausible_id(id) {
        return Err(RepoError::not_found("client", id));
    }
    super::get(store, &key(account, id)).await?.ok_or_else(|| RepoError::not_found("client", id))
}

/// Clients by id (one batch get), in the order of `ids`; missing ones left out.
pub async fn by_ids(store: &dyn Store, account: &str, ids: &[String]) -> RepoResult<Vec<Client>> {
    let keys: Vec<_> = ids.iter().map(|id| key(account, id)).collect();
    let found = store.batch_get(&keys).await?;
    let mut out = Vec::new();
    for id in ids {
        if let Some(item) = found.iter().find(|i| &i.sk == id) {
            out.push(super::decode::<Client>(item.clone())?.value);
        }
    }
    Ok(out)
}

pub async fn create(store: &dyn Store, account: &str, c: &Client) -> RepoResult<()> {
    store.put(new_item(account, c)?, Cond::NotExists).await?;
    Ok(())
}

/// A new client's item (version 1), for a write of its own or a transaction's.
pub(super) fn new_item(account: &str, c: &Client) -> RepoResult<crate::store::Item> {
    Ok(super::item(key(account, &c.id), c, 1)?)
}

pub async fn list(store: &dyn Store, account: &str) -> RepoResult<Vec<Client>> {
    let all: Vec<Versioned<Client>> = super::query_all(store, Query::partition(keys::partition(account, keys::CLIENT))).await?;
    Ok(all.into_iter().map(|v| v.value).collect())
}

/// Replaces a client read as `first`. Its type cannot change while campaigns name it
/// (checked in the write's condition, so no campaign can start naming it meanwhile).
pub async fn update(
    store: &dyn Store,
    account: &str,
    first: Versioned<Client>,
    expected: Option<u64>,
    change: impl Fn(&mut Client),
) -> RepoResult<()> {
    let id = first.value.id.clone();
    let mut tries = super::Attempts::new("client", &id, expected);
    let mut cur = first;
    loop {
        tries.check(cur.version())?;
        let mut c = cur.value.clone();
        change(&mut c);
        let refs = cur.item.counter(REFS);
        let retyped = c.kind != cur.value.kind;
        if refs > 0 && retyped {
            return Err(RepoError::conflict(format!(
                "client {id} is named by {refs} campaign(s) as {}; its type cannot change while they do",
                cur.value.kind
            )));
        }
        let cond = if retyped { Cond::VersionAndCounterZero(cur.version(), REFS.into()) } else { Cond::Version(cur.version()) };
        if tries.commit(store, vec![TxOp::Put(super::next(&cur.item, &c)?, cond)]).await? {
            return Ok(());
        }
        cur = load(store, account, &id).await?;
    }
}

/// Deletes a client no campaign names (409 otherwise); its contacts are no longer
/// associated with it. Returns the deleted client.
pub async fn remove(store: &dyn Store, account: &str, id: &str) -> RepoResult<Client> {
    let cur = load(store, account, id).await?;
    match store.delete(&key(account, id), Cond::CounterZero(REFS.into())).await {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => {
            return match super::get::<Client>(store, &key(account, id)).await? {
                None => Err(RepoError::not_found("client", id)),
                Some(c) => Err(RepoError::conflict(format!(
                    "client {id} is named by {} campaign(s); delete or change them first",
                    c.item.counter(REFS)
                ))),
            };
        }
        Err(e) => return Err(e.into()),
    }
    // Best effort: a contact changed concurrently keeps a link to a client that no longer
    // exists, which no read shows.
    let linked: Vec<Versioned<Contact>> = super::query_all(store, Query::gsi1(keys::client_contacts(account, id))).await?;
    for v in linked {
        let mut c = v.value.clone();
        c.client_id = None;
        let mut item = super::next(&v.item, &c)?;
        item.gsi1 = None;
        let _ = store.put(item, Cond::Version(v.version())).await;
    }
    Ok(cur.value)
}

/// A client of the given type (`None`: the account has none with this id and type).
pub async fn find_typed(store: &dyn Store, account: &str, id: &str, kind: ClientType) -> RepoResult<Option<Versioned<Client>>> {
    if !plausible_id(id) {
        return Ok(None);
    }
    Ok(super::get::<Client>(store, &key(account, id)).await?.filter(|c| c.value.kind == kind))
}

/// Counter changes for clients a campaign starts naming (each checked at the version read).
pub fn ref_adds(account: &str, refs: &[Versioned<Client>]) -> Vec<TxOp> {
    refs.iter().map(|c| TxOp::Add(key(account, &c.value.id), vec![(REFS.to_string(), 1)], Cond::Version(c.version()))).collect()
}

/// Counter changes for clients a campaign stops naming.
pub fn ref_drops<'a>(account: &str, ids: impl IntoIterator<Item = &'a String>) -> Vec<TxOp> {
    ids.into_iter().map(|id| TxOp::Add(key(account, id), vec![(REFS.to_string(), -1)], Cond::Exists)).collect()
}
