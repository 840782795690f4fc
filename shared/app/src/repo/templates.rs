//! Targeting templates: the record, the account's count of them (checked against the limit
//! in the create's transaction), and their links to campaigns and goals (a link partition
//! per template; GSI1: the templates linked to one target).

use super::{RepoError, RepoResult};
use crate::ids::plausible_id;
use crate::keys;
use crate::model::rules::Parent;
use crate::model::template::Template;
use crate::store::{Cond, Item, Key, Query, Store, StoreError, TxOp};

use super::Versioned;

const COUNT: &str = "n";

fn key(account: &str, id: &str) -> Key {
    keys::record(account, keys::TEMPLATE, id)
}

fn kind(p: Parent) -> &'static str {
    match p {
        Parent::Campaign => "CAMPAIGN",
        Parent::Goal => "GOAL",
    }
}

pub async fn load(store: &dyn Store, account: &str, id: &str) -> RepoResult<Versioned<Template>> {
    if !plausible_id(id) {
        return Err(RepoError::not_found("targeting template", id));
    }
    super::get(store, &key(account, id)).await?.ok_or_else(|| RepoError::not_found("targeting template", id))
}

/// How many templates the account has.
pub async fn count(store: &dyn Store, account: &str) -> RepoResult<i64> {
    Ok(store.get(&keys::template_count(account)).await?.map_or(0, |i| i.counter(COUNT)).max(0))
}

pub async fn all(store: &dyn Store, account: &str) -> RepoResult<Vec<Template>> {
    let found: Vec<Versioned<Template>> = super::query_all(store, Query::partition(keys::partition(account, keys::TEMPLATE))).await?;
    Ok(found.into_iter().map(|v| v.value).collect())
}

/// The templates linked to a campaign or a goal (one query, batch gets).
pub async fn linked_to(store: &dyn Store, account: &str, parent: Parent, target: &str) -> RepoResult<Vec<Template>> {
    let links = store.query(Query::gsi1(keys::linked_templates(account, kind(parent), target))).await?;
    let ids: Vec<Key> = links.items.iter().filter_map(|i| i.gsi1.as_ref().map(|(_, t)| key(account, t))).collect();
    let mut out = Vec::new();
    for item in store.batch_get(&ids).await? {
        out.push(super::decode::<Template>(item)?.value);
    }
    Ok(out)
}

/// The outcome of a create.
pub enum Created {
    Done,
    /// The account holds `max` templates already (this many).
    AtLimit(i64),
}

/// Creates a template if the account has room for one more (`max`): the count and the
/// record are written in one transaction, so concurrent creates cannot pass the limit.
pub async fn create(store: &dyn Store, account: &str, t: &Template, max: u32) -> RepoResult<Created> {
    for _ in 0..super::WRITE_ATTEMPTS {
        let ops = vec![
            TxOp::Add(keys::template_count(account), vec![(COUNT.into(), 1)], Cond::CounterBelow(COUNT.into(), i64::from(max))),
            TxOp::Put(super::item(key(account, &t.id), t, 1)?, Cond::NotExists),
        ];
        match store.transact(ops).await {
            Ok(()) => return Ok(Created::Done),
            Err(StoreError::TransactionCanceled { .. }) => {
                let active = count(store, account).await?;
                if active >= i64::from(max) {
                    return Ok(Created::AtLimit(active));
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(super::conflict())
}

/// A conditional read-modify-write of a template read as `first`.
pub async fn update(
    store: &dyn Store,
    account: &str,
    first: Versioned<Template>,
    expected: Option<u64>,
    change: impl Fn(&mut Template) -> RepoResult<()>,
) -> RepoResult<Template> {
    let id = first.value.id.clone();
    let t = super::rewrite(store, "targeting template", first, expected, || load(store, account, &id), change).await?;
    super::delivery::changed(store, account).await;
    Ok(t)
}

/// Deletes a template and its links. Links are written only while the template exists (a
/// transaction checks it), so after the delete no new one can appear: the sweep leaves none.
pub async fn remove(store: &dyn Store, account: &str, id: &str) -> RepoResult<()> {
    load(store, account, id).await?;
    let ops =
        vec![TxOp::Delete(key(account, id), Cond::Exists), TxOp::Add(keys::template_count(account), vec![(COUNT.into(), -1)], Cond::None)];
    match store.transact(ops).await {
        Ok(()) => {}
        Err(StoreError::TransactionCanceled { .. }) => return Err(RepoError::not_found("targeting template", id)),
        Err(e) => return Err(e.into()),
    }
    let mut cursor = None;
    loop {
        let page = store.query(Query::partition(keys::template_links(account, id)).limit(500).after(cursor)).await?;
        let dead: Vec<Key> = page.items.iter().map(Item::key).collect();
        if !dead.is_empty() {
            store.batch_write(Vec::new(), dead).await?;
        }
        match page.next {
            Some(c) => cursor = Some(c),
            None => {
                super::delivery::changed(store, account).await;
                return Ok(());
            }
        }
    }
}

/// Links a template to a campaign or goal (idempotent), in a transaction that checks the
/// template still exists.
pub async fn link(store: &dyn Store, account: &str, id: &str, parent: Parent, target: &str) -> RepoResult<()> {
    let k = kind(parent);
    let mut item =
        Item { pk: keys::template_links(account, id), sk: format!("{k}#{target}"), version: 1, body: "{}".into(), ..Item::default() };
    item.gsi1 = Some((keys::linked_templates(account, k, target), id.to_string()));
    let ops = vec![TxOp::Check(key(account, id), Cond::Exists), TxOp::Put(item, Cond::None)];
    match store.transact(ops).await {
        Ok(()) => {
            super::delivery::changed(store, account).await;
            Ok(())
        }
        Err(StoreError::TransactionCanceled { .. }) => Err(RepoError::not_found("targeting template", id)),
        Err(e) => Err(e.into()),
    }
}

/// Removes a link (nothing to do when there is none).
pub async fn unlink(store: &dyn Store, account: &str, id: &str, parent: Parent, target: &str) -> RepoResult<()> {
    store.delete(&Key::new(keys::template_links(account, id), format!("{}#{target}", kind(parent))), Cond::None).await?;
    super::delivery::changed(store, account).await;
    Ok(())
}
