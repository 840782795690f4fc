//! An account's stitchers: one record holding all of them (at most `MAX_STITCHERS`, a few
//! KB), so the count bound is exact, every change is one conditional write of that record,
//! and the serving and tracking functions read them with one GetItem. Each stitcher keeps a
//! version of its own for `If-Match`.

use serde::{Deserialize, Serialize};

use super::{Attempts, RepoError, RepoResult};
use crate::keys;
use crate::model::stitcher::{Stitcher, MAX_STITCHERS};
use crate::store::{Cond, Item, Store, TxOp};

/// One stitcher with its own version (its ETag).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    pub version: u64,
    pub stitcher: Stitcher,
}

#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct All {
    #[serde(default)]
    stitchers: Vec<Entry>,
}

async fn read(store: &dyn Store, account: &str) -> RepoResult<(All, Option<Item>)> {
    match store.get(&keys::stitchers(account)).await? {
        Some(item) => Ok((super::decode::<All>(item.clone())?.value, Some(item))),
        None => Ok((All::default(), None)),
    }
}

/// Every stitcher of the account, in the order they were registered.
pub async fn all(store: &dyn Store, account: &str) -> RepoResult<Vec<Entry>> {
    Ok(read(store, account).await?.0.stitchers)
}

/// One stitcher (404 when the account has none of that id).
pub async fn load(store: &dyn Store, account: &str, id: &str) -> RepoResult<Entry> {
    all(store, account).await?.into_iter().find(|e| e.stitcher.id == id).ok_or_else(|| RepoError::not_found("stitcher", id))
}

/// Applies `change` to the account's list and writes it at the version read (tried again on
/// a lost race); `change` answers what the caller gets, or refuses.
async fn change<R>(
    store: &dyn Store,
    account: &str,
    what: &str,
    mut change: impl FnMut(&mut Vec<Entry>) -> RepoResult<R>,
) -> RepoResult<R> {
    let mut tries = Attempts::worker("stitchers", what);
    loop {
        tries.next_try()?;
        let (mut list, prev) = read(store, account).await?;
        let out = change(&mut list.stitchers)?;
        let op = match &prev {
            Some(p) => TxOp::Put(super::next(p, &list)?, Cond::Version(p.version)),
            None => TxOp::Put(super::item(keys::stitchers(account), &list, 1)?, Cond::NotExists),
        };
        if tries.commit(store, vec![op]).await? {
            return Ok(out);
        }
    }
}

/// Registers a stitcher while the account has fewer than `MAX_STITCHERS` (403 otherwise).
pub async fn create(store: &dyn Store, account: &str, s: &Stitcher) -> RepoResult<Entry> {
    change(store, account, &s.id, |list| {
        if list.len() >= MAX_STITCHERS {
            return Err(RepoError::Refused(format!("the account has {MAX_STITCHERS} stitchers, the most it may have; remove one first")));
        }
        let e = Entry { version: 1, stitcher: s.clone() };
        list.push(e.clone());
        Ok(e)
    })
    .await
}

/// Replaces stitcher `id` with `next(current)`, when its version is `expected` (412
/// otherwise); 404 when it is gone.
pub async fn replace(
    store: &dyn Store,
    account: &str,
    id: &str,
    expected: Option<u64>,
    next: impl Fn(&Stitcher) -> Stitcher,
) -> RepoResult<Entry> {
    change(store, account, id, |list| {
        let e = list.iter_mut().find(|e| e.stitcher.id == id).ok_or_else(|| RepoError::not_found("stitcher", id))?;
        if expected.is_some_and(|v| v != e.version) {
            return Err(RepoError::Stale(format!("stitcher {id} has changed since the ETag was read")));
        }
        *e = Entry { version: e.version + 1, stitcher: next(&e.stitcher) };
        Ok(e.clone())
    })
    .await
}

/// Removes stitcher `id` (404 when it is not there).
pub async fn remove(store: &dyn Store, account: &str, id: &str) -> RepoResult<()> {
    change(store, account, id, |list| {
        let before = list.len();
        list.retain(|e| e.stitcher.id != id);
        if list.len() == before {
            return Err(RepoError::not_found("stitcher", id));
        }
        Ok(())
    })
    .await
}
