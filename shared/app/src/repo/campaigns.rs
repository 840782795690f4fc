//! Campaigns: the record (with its goals' flights), the archived-month index (GSI1), and
//! the reference counts on the clients it names, written in one transaction.

use std::collections::BTreeSet;

use super::{RepoError, RepoResult};
use crate::ids::plausible_id;
use crate::keys;
use crate::model::campaign::{unknown_clients, Campaign};
use crate::model::client::Client;
use crate::store::{Cond, Item, Key, Query, Store, StoreError, TxOp};

use super::{name_index, Versioned};

fn key(account: &str, id: &str) -> Key {
    keys::record(account, keys::CAMPAIGN, id)
}

/// A live (not deleted) campaign of the account, else 404.
pub async fn load(store: &dyn Store, account: &str, id: &str) -> RepoResult<Versioned<Campaign>> {
    if !plausible_id(id) {
        return Err(RepoError::not_found("campaign", id));
    }
    match super::get::<Campaign>(store, &key(account, id)).await? {
        Some(c) if c.value.deleted_at.is_none() => Ok(c),
        _ => Err(RepoError::not_found("campaign", id)),
    }
}

/// Every campaign of the account, deleted ones (tombstones) included.
pub async fn all(store: &dyn Store, account: &str) -> RepoResult<Vec<Campaign>> {
    let all: Vec<Versioned<Campaign>> = super::query_all(store, Query::partition(keys::partition(account, keys::CAMPAIGN))).await?;
    Ok(all.into_iter().map(|v| v.value).collect())
}

/// The campaigns that can serve: neither archived nor deleted (the open index).
pub async fn open(store: &dyn Store, account: &str) -> RepoResult<Vec<Campaign>> {
    let found: Vec<Versioned<Campaign>> = super::query_all(store, Query::gsi1(keys::open_campaigns(account))).await?;
    Ok(found.into_iter().map(|v| v.value).filter(|c| c.deleted_at.is_none() && c.archived_at.is_none()).collect())
}

/// Live campaigns archived in a month (`yyyy-mm`, the account's zone).
pub async fn archived_in(store: &dyn Store, account: &str, month: &str) -> RepoResult<Vec<Campaign>> {
    let found: Vec<Versioned<Campaign>> = super::query_all(store, Query::gsi1(keys::archived_month(account, month))).await?;
    Ok(found.into_iter().map(|v| v.value).filter(|c| c.deleted_at.is_none() && c.archive_month.as_deref() == Some(month)).collect())
}

/// Campaigns by id (batch gets), in no particular order; missing ones left out.
pub async fn by_ids(store: &dyn Store, account: &str, ids: &[String]) -> RepoResult<Vec<Campaign>> {
    let keys: Vec<Key> = ids.iter().map(|id| key(account, id)).collect();
    store.batch_get(&keys).await?.into_iter().map(|i| super::decode(i).map(|v| v.value)).collect()
}

/// A campaign's stored item: its body and index keys (the open campaigns while neither
/// archived nor deleted, the archived month, or the goal name index's hiding list once
/// deleted with live goals; the name index).
pub(super) fn item(account: &str, c: &Campaign, base: Item) -> RepoResult<Item> {
    let mut item = Item { body: serde_json::to_string(c)?, ..base };
    item.gsi1 = match (&c.archive_month, c.deleted_at) {
        (None, None) => Some((keys::open_campaigns(account), c.id.clone())),
        (Some(m), None) => Some((keys::archived_month(account, m), c.id.clone())),
        (_, Some(_)) if name_index::live_goals(c) > 0 => Some((keys::campaigns_hiding(account), c.id.clone())),
        _ => None,
    };
    item.gsi2 = name_index::campaign_entry(account, c);
    Ok(item)
}

/// The named clients among `only`, each checked for its type; every bad reference refused
/// at once (`campaign::unknown_clients`).
async fn resolve_refs(store: &dyn Store, account: &str, c: &Campaign, only: &BTreeSet<String>) -> RepoResult<Vec<Versioned<Client>>> {
    let mut out = Vec::new();
    let mut missing = Vec::new();
    for (field, kind, id) in c.client_roles() {
        if !only.contains(id) {
            continue;
        }
        match super::clients::find_typed(store, account, id, kind).await? {
            Some(c) => out.push(c),
            None => missing.push((field, kind, id)),
        }
    }
    if missing.is_empty() {
        Ok(out)
    } else {
        Err(unknown_clients(&missing).into())
    }
}

/// Creates a campaign; the clients it names must exist with their types and gain a
/// reference in the same transaction (a client changed meanwhile: checked again).
pub async fn create(store: &dyn Store, account: &str, c: &Campaign) -> RepoResult<()> {
    create_naming(store, account, c, None).await
}

/// Creates a campaign and its new advertiser in one transaction: both or neither. The
/// advertiser starts named once (by this campaign); the other clients the campaign names
/// must exist with their types and gain a reference, as in `create`.
pub async fn create_with_advertiser(store: &dyn Store, account: &str, advertiser: &Client, c: &Campaign) -> RepoResult<()> {
    create_naming(store, account, c, Some(advertiser)).await
}

async fn create_naming(store: &dyn Store, account: &str, c: &Campaign, new_client: Option<&Client>) -> RepoResult<()> {
    let named: BTreeSet<String> = c.client_ids().into_iter().filter(|id| new_client.is_none_or(|n| *id != n.id)).collect();
    for _ in 0..super::WRITE_ATTEMPTS {
        let refs = resolve_refs(store, account, c, &named).await?;
        let base = Item { pk: keys::partition(account, keys::CAMPAIGN), sk: c.id.clone(), version: 1, ..Item::default() };
        let mut tx = vec![TxOp::Put(item(account, c, base)?, Cond::NotExists)];
        if let Some(n) = new_client {
            let mut client = super::clients::new_item(account, n)?;
            client.counters.insert(super::clients::REFS.to_string(), 1);
            tx.push(TxOp::Put(client, Cond::NotExists));
        }
        tx.extend(super::clients::ref_adds(account, &refs));
        tx.extend(name_index::delta(account, &[(name_index::CAMPAIGNS, 1)]));
        match store.transact(tx).await {
            Ok(()) => {
                super::delivery::changed(store, account).await;
                return Ok(());
            }
            Err(StoreError::TransactionCanceled { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(super::conflict())
}

/// Replaces a campaign read as `first` with what `change` makes of it; the clients it names
/// are checked in their roles, those it starts naming counted, those it stops naming
/// released, all in one transaction.
pub async fn update(
    store: &dyn Store,
    account: &str,
    first: Versioned<Campaign>,
    expected: Option<u64>,
    change: impl Fn(&Campaign) -> RepoResult<Campaign>,
) -> RepoResult<()> {
    let id = first.value.id.clone();
    let mut tries = super::Attempts::new("campaign", &id, expected);
    let mut cur = first;
    loop {
        tries.check(cur.version())?;
        let c = change(&cur.value)?;
        let old: BTreeSet<String> = cur.value.client_ids().into_iter().collect();
        let new: BTreeSet<String> = c.client_ids().into_iter().collect();
        // Every client is checked in the role it is named in now (swapping two clients'
        // roles must not store an agency as the advertiser); only new ones gain a reference.
        // A kept client cannot change type meanwhile: it is referenced, and a type change
        // requires no references (clients::update).
        let named = resolve_refs(store, account, &c, &new).await?;
        let added: Vec<Versioned<Client>> = named.into_iter().filter(|v| !old.contains(&v.value.id)).collect();
        let base = Item { version: cur.version() + 1, ..cur.item.clone() };
        let mut tx = vec![TxOp::Put(item(account, &c, base)?, Cond::Version(cur.version()))];
        tx.extend(super::clients::ref_adds(account, &added));
        tx.extend(super::clients::ref_drops(account, old.difference(&new)));
        if tries.commit(store, tx).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(());
            }
        }
        cur = load(store, account, &id).await?;
    }
}

/// Deleting keeps a tombstone (the /v3 queries can show deleted campaigns) and releases the
/// campaign's clients.
pub async fn remove(store: &dyn Store, account: &str, id: &str, now: chrono::DateTime<chrono::Utc>) -> RepoResult<()> {
    let mut tries = super::Attempts::new("campaign", id, None);
    loop {
        let cur = load(store, account, id).await?;
        tries.check(cur.version())?;
        let mut c = cur.value.clone();
        c.deleted_at = Some(now);
        let base = Item { version: cur.version() + 1, ..cur.item.clone() };
        let mut tx = vec![TxOp::Put(item(account, &c, base)?, Cond::Version(cur.version()))];
        tx.extend(super::clients::ref_drops(account, &cur.value.client_ids()));
        // Its goals keep their name index entries; the goal pages skip them (name_index).
        tx.extend(name_index::delta(account, &[(name_index::CAMPAIGNS, -1), (name_index::HIDDEN, name_index::live_goals(&c))]));
        if tries.commit(store, tx).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(());
            }
        }
    }
}

/// Every campaign of the account as stored (the /v3 lists).
pub async fn stored(store: &dyn Store, account: &str) -> RepoResult<super::Stored> {
    Ok(super::Stored(store.query(Query::partition(keys::partition(account, keys::CAMPAIGN))).await?.items))
}

/// A campaign, deleted or not (the /v3 reads show tombstones).
pub async fn get_any(store: &dyn Store, account: &str, id: &str) -> RepoResult<Option<Campaign>> {
    if !plausible_id(id) {
        return Ok(None);
    }
    Ok(super::get::<Campaign>(store, &key(account, id)).await?.map(|v| v.value))
}
