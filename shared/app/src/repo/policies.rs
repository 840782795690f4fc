//! Insertion policies and the account's ranking of them (one record, changed in the same
//! transaction as every create and delete, so the ranking always lists exactly the policies).

use super::{RepoError, RepoResult};
use crate::ids::plausible_id;
use crate::keys;
use crate::model::policy::{Policy, Ranking};
use crate::rule::Rule;
use crate::store::{Cond, Item, Key, Store, TxOp};

use super::Versioned;

fn key(account: &str, id: &str) -> Key {
    keys::record(account, keys::POLICY, id)
}

pub async fn load(store: &dyn Store, account: &str, id: &str) -> RepoResult<Versioned<Policy>> {
    if !plausible_id(id) {
        return Err(RepoError::not_found("insertion policy", id));
    }
    super::get(store, &key(account, id)).await?.ok_or_else(|| RepoError::not_found("insertion policy", id))
}

async fn read_ranking(store: &dyn Store, account: &str) -> RepoResult<(Ranking, Option<Item>)> {
    match store.get(&keys::policy_ranking(account)).await? {
        Some(item) => Ok((super::decode::<Ranking>(item.clone())?.value, Some(item))),
        None => Ok((Ranking::default(), None)),
    }
}

pub async fn ranking(store: &dyn Store, account: &str) -> RepoResult<Ranking> {
    Ok(read_ranking(store, account).await?.0)
}

fn ranking_op(account: &str, r: &Ranking, prev: &Option<Item>) -> RepoResult<TxOp> {
    Ok(match prev {
        Some(p) => TxOp::Put(super::next(p, r)?, Cond::Version(p.version)),
        None => TxOp::Put(super::item(keys::policy_ranking(account), r, 1)?, Cond::NotExists),
    })
}

/// Creates a policy (ranked last); `check` sees how many the account has first and may
/// refuse (the caller's quota).
pub async fn create(store: &dyn Store, account: &str, id: &str, p: &Policy, check: impl Fn(usize) -> RepoResult<()>) -> RepoResult<()> {
    let mut tries = super::Attempts::new("insertion policy ranking", account, None);
    loop {
        let (mut r, prev) = read_ranking(store, account).await?;
        tries.check(prev.as_ref().map_or(0, |i| i.version))?;
        check(r.ids.len())?;
        r.ids.push(id.to_string());
        let ops = vec![TxOp::Put(super::item(key(account, id), p, 1)?, Cond::NotExists), ranking_op(account, &r, &prev)?];
        if tries.commit(store, ops).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(());
            }
        }
    }
}

/// Replaces a policy read as `first`; returns the new version.
pub async fn replace(store: &dyn Store, account: &str, first: Versioned<Policy>, expected: Option<u64>, p: &Policy) -> RepoResult<u64> {
    let id = first.item.sk.clone();
    let mut tries = super::Attempts::new("insertion policy", &id, expected);
    let mut cur = first;
    loop {
        tries.check(cur.version())?;
        if tries.commit(store, vec![TxOp::Put(super::next(&cur.item, p)?, Cond::Version(cur.version()))]).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(cur.version() + 1);
            }
        }
        cur = load(store, account, &id).await?;
    }
}

/// One page of the policies in rank order, and how many there are.
pub async fn page(store: &dyn Store, account: &str, size: usize, number: usize) -> RepoResult<(Vec<Policy>, usize)> {
    let r = ranking(store, account).await?;
    let page: Vec<String> = r.ids.iter().skip((number - 1).saturating_mul(size)).take(size).cloned().collect();
    let keys: Vec<_> = page.iter().map(|id| key(account, id)).collect();
    let mut found: Vec<Policy> = Vec::new();
    for item in store.batch_get(&keys).await? {
        found.push(super::decode::<Policy>(item)?.value);
    }
    found.sort_by_key(|p| page.iter().position(|id| Some(id) == p.id.as_ref()));
    Ok((found, r.ids.len()))
}

/// Deletes a policy and takes it out of the ranking.
pub async fn remove(store: &dyn Store, account: &str, id: &str) -> RepoResult<()> {
    let mut tries = super::Attempts::new("insertion policy ranking", account, None);
    loop {
        let cur = load(store, account, id).await?;
        let (mut r, prev) = read_ranking(store, account).await?;
        tries.check(prev.as_ref().map_or(0, |i| i.version))?;
        r.ids.retain(|x| x != id);
        let ops = vec![TxOp::Delete(cur.item.key(), Cond::Version(cur.version())), ranking_op(account, &r, &prev)?];
        if tries.commit(store, ops).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(());
            }
        }
    }
}

/// Sets the ranking: `wanted` lists every policy exactly once, highest first.
pub async fn set_ranking(store: &dyn Store, account: &str, wanted: Vec<String>) -> RepoResult<Ranking> {
    let mut tries = super::Attempts::new("insertion policy ranking", account, None);
    loop {
        let (cur, prev) = read_ranking(store, account).await?;
        tries.check(prev.as_ref().map_or(0, |i| i.version))?;
        if !cur.is_permutation(&wanted) {
            return Err(RepoError::field(
                "ids",
                Rule::Permutation,
                format!("ids must list each of the account's {} policies exactly once", cur.ids.len()),
            ));
        }
        let next = Ranking { ids: wanted.clone() };
        if tries.commit(store, vec![ranking_op(account, &next, &prev)?]).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(next);
            }
        }
    }
}
