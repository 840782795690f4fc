//! An account's small collection of records kept in one item (stitchers, demand partners,
//! marketplaces): at most `Member::MAX` of them, a few hundred KB at worst, so the count
//! bound is exact, every change is one conditional write of that item, and serving reads
//! them with one GetItem. Each record keeps a version of its own for `If-Match`.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::{Attempts, RepoError, RepoResult};
use crate::model::write_only_header::SecretHeader;
use crate::store::{Cond, Item, Key, Store, TxOp};

/// A record kind kept as a collection.
pub trait Member: Clone + Serialize + DeserializeOwned + Send + Sync {
    /// Its name in messages (`stitcher`, `demand partner`).
    const KIND: &'static str;
    /// Its plural, for the count bound's message.
    const PLURAL: &'static str;
    /// How many an account may have.
    const MAX: usize;
    fn id(&self) -> &str;
    /// The item holding the account's records.
    fn key(account: &str) -> Key;
    /// Whether serving reads them (a change bumps the delivery version).
    const SERVED: bool;
    /// The sort key of the item keeping the kind's write-only secret apart from its records
    /// (`repo::secrets`); `None`: the kind keeps none apart.
    const SECRETS: Option<&'static str> = None;
    /// The record's secret slot, when the kind keeps its secret apart.
    fn secret_slot(&mut self) -> Option<&mut Option<SecretHeader>> {
        None
    }
}

/// One record with its own version (its ETag).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Entry<T> {
    pub version: u64,
    #[serde(alias = "stitcher")]
    pub record: T,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct All<T> {
    #[serde(default = "Vec::new", alias = "stitchers")]
    entries: Vec<Entry<T>>,
}

async fn read<T: Member>(store: &dyn Store, account: &str) -> RepoResult<(Vec<Entry<T>>, Option<Item>)> {
    match store.get(&T::key(account)).await? {
        Some(item) => Ok((super::decode::<All<T>>(item.clone())?.value.entries, Some(item))),
        None => Ok((Vec::new(), None)),
    }
}

/// Every record of the account, in the order they were made.
pub async fn all<T: Member>(store: &dyn Store, account: &str) -> RepoResult<Vec<Entry<T>>> {
    Ok(read(store, account).await?.0)
}

/// One record (404 when the account has none of that id).
pub async fn load<T: Member>(store: &dyn Store, account: &str, id: &str) -> RepoResult<Entry<T>> {
    all::<T>(store, account).await?.into_iter().find(|e| e.record.id() == id).ok_or_else(|| RepoError::not_found(T::KIND, id))
}

/// Applies `change` to the account's list and writes it at the version read (tried again on
/// a lost race); `change` answers what the caller gets, or refuses.
async fn change<T: Member, R>(
    store: &dyn Store,
    account: &str,
    id: &str,
    mut change: impl FnMut(&mut Vec<Entry<T>>) -> RepoResult<R>,
) -> RepoResult<R> {
    let mut tries = Attempts::worker(T::PLURAL, id);
    loop {
        tries.next_try()?;
        let (mut entries, prev) = read::<T>(store, account).await?;
        let before: std::collections::HashMap<String, SecretHeader> =
            entries.iter_mut().filter_map(|e| Some((e.record.id().to_string(), e.record.secret_slot()?.clone()?))).collect();
        let out = change(&mut entries)?;
        let mut ops = Vec::new();
        if let Some(sk) = T::SECRETS {
            let slots = entries.iter_mut().filter_map(|e| {
                let id = e.record.id().to_string();
                e.record.secret_slot().map(|slot| (id, slot))
            });
            let slots: Vec<(String, &mut Option<SecretHeader>)> = slots.collect();
            ops.extend(super::secrets::split(store, account, sk, &before, slots).await?);
        }
        let all = All { entries };
        ops.push(match &prev {
            Some(p) => TxOp::Put(super::next(p, &all)?, Cond::Version(p.version)),
            None => TxOp::Put(super::item(T::key(account), &all, 1)?, Cond::NotExists),
        });
        if tries.commit(store, ops).await? {
            if T::SERVED {
                super::delivery::changed(store, account).await;
            }
            return Ok(out);
        }
    }
}

/// Adds a record; `check` sees the others first and may refuse (the caller's rules: the
/// account's quota, references).
pub async fn create<T: Member>(
    store: &dyn Store,
    account: &str,
    r: &T,
    check: impl Fn(&[Entry<T>]) -> RepoResult<()>,
) -> RepoResult<Entry<T>> {
    change(store, account, r.id(), |list| {
        check(list)?;
        let e = Entry { version: 1, record: r.clone() };
        list.push(e.clone());
        Ok(e)
    })
    .await
}

/// Replaces record `id` with `next(current)`, when its version is `expected` (412
/// otherwise); 404 when it is gone.
pub async fn replace<T: Member>(
    store: &dyn Store,
    account: &str,
    id: &str,
    expected: Option<u64>,
    next: impl Fn(&T) -> T,
) -> RepoResult<Entry<T>> {
    change(store, account, id, |list: &mut Vec<Entry<T>>| {
        let e = list.iter_mut().find(|e| e.record.id() == id).ok_or_else(|| RepoError::not_found(T::KIND, id))?;
        if expected.is_some_and(|v| v != e.version) {
            return Err(RepoError::Stale(format!("{} {id} has changed since the ETag was read", T::KIND)));
        }
        *e = Entry { version: e.version + 1, record: next(&e.record) };
        Ok(e.clone())
    })
    .await
}

/// Removes record `id` (404 when it is not there).
pub async fn remove<T: Member>(store: &dyn Store, account: &str, id: &str) -> RepoResult<()> {
    change(store, account, id, |list: &mut Vec<Entry<T>>| {
        let before = list.len();
        list.retain(|e| e.record.id() != id);
        if list.len() == before {
            return Err(RepoError::not_found(T::KIND, id));
        }
        Ok(())
    })
    .await
}
