//! Building the /v3 name indexes of an account written before them (`repo::name_index`):
//! every campaign and goal gets its index keys, and the counts are set from what is stored.

use std::collections::HashSet;

use super::name_index::{Counts, CAMPAIGNS, GOALS, HIDDEN, INDEXED, OPEN_INDEXED};
use super::RepoResult;
use crate::keys;
use crate::model::campaign::Campaign;
use crate::model::goal::Goal;
use crate::store::{Cond, Item, Query, Store};

/// [`rebuild`] unless the account's indexes are complete (`seed::apply`).
pub async fn ensure(store: &dyn Store, account: &str) -> RepoResult<Counts> {
    match super::name_index::counts(store, account).await? {
        Some(c) if super::name_index::open_indexed(store, account).await? => Ok(c),
        _ => rebuild(store, account).await,
    }
}

/// Gives every campaign and goal of the account its index keys and sets the counts from
/// what is stored. For an account nobody writes meanwhile (seeding, `admin reindex`,
/// `admin seed-synthetic`): a write during the rebuild can leave a count off.
pub async fn rebuild(store: &dyn Store, account: &str) -> RepoResult<Counts> {
    // Every page of both partitions (an account's history can be far larger than one page).
    let campaigns: Vec<Item> = super::all_items(store, Query::partition(keys::partition(account, keys::CAMPAIGN))).await?;
    let goals: Vec<Item> = super::all_items(store, Query::partition(keys::partition(account, keys::GOAL))).await?;
    let mut n = Counts { campaigns: 0, goals: 0, hidden: 0 };
    let mut deleted = HashSet::new();
    for item in campaigns {
        let c: Campaign = super::decode(item.clone())?.value;
        if c.deleted_at.is_some() {
            deleted.insert(c.id.clone());
        } else {
            n.campaigns += 1;
        }
        reindex(store, &item, super::campaigns::item(account, &c, item.clone())?).await?;
    }
    for item in goals {
        let g: Goal = super::decode(item.clone())?.value;
        if g.deleted_at.is_none() {
            n.goals += 1;
            n.hidden += i64::from(deleted.contains(&g.campaign_id));
        }
        reindex(store, &item, super::goals::stored_item(account, &g, item.clone())?).await?;
    }
    let key = keys::name_counts(account);
    let cur = store.get(&key).await?.unwrap_or_default();
    let d = [(CAMPAIGNS, n.campaigns), (GOALS, n.goals), (HIDDEN, n.hidden), (INDEXED, 1)];
    let adds: Vec<(String, i64)> = d.iter().map(|(k, v)| (k.to_string(), v - cur.counter(k))).collect();
    store.add(&key, &adds, Cond::None).await?;
    let open = keys::delivery_indexes(account);
    let cur = store.get(&open).await?.unwrap_or_default();
    store.add(&open, &[(OPEN_INDEXED.to_string(), 1 - cur.counter(OPEN_INDEXED))], Cond::None).await?;
    Ok(n)
}

/// Writes a record's index keys when they changed (its version and body as they were).
async fn reindex(store: &dyn Store, old: &Item, new: Item) -> RepoResult<()> {
    if old.gsi1 == new.gsi1 && old.gsi2 == new.gsi2 {
        return Ok(());
    }
    let v = old.version;
    store.put(Item { version: v, body: old.body.clone(), ..new }, Cond::Version(v)).await.map_err(|e| match e {
        crate::store::StoreError::ConditionFailed => super::conflict(),
        e => e.into(),
    })
}
