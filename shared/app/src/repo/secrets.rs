//! Write-only secrets kept apart from their records (docs/security.md, "Secrets"): a demand
//! partner's `authHeader` value lives in `A#<a>#SECRETS`, which only the functions that
//! write or send it may read (template.yaml); the record keeps a mark in its place (the
//! header's name and a value no client can write), so the other functions that read the
//! records (the compile, the workers, the snapshot) know a header is set, never its value.
//!
//! `repo::collection` calls [`split`] in each write of a kind that keeps its secrets here:
//! a new value is moved out in the same transaction, a removed one is dropped, and a write
//! that changes no secret (a revert, a rename) neither reads nor writes this item.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use super::RepoResult;
use crate::model::write_only_header::SecretHeader;
use crate::store::{Cond, Store, TxOp};

/// The secrets of one kind, by record id.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
struct Secrets {
    #[serde(default)]
    by_id: BTreeMap<String, SecretHeader>,
}

/// A record's mark in the secret's place: a value starting with a space, which a client
/// cannot write (values are trimmed visible ASCII), new at each change of the secret so the
/// record's history shows the change (as `writeOnly`).
fn mark(name: &str) -> SecretHeader {
    SecretHeader { name: name.to_string(), value: format!(" kept apart {}", uuid::Uuid::new_v4().simple()) }
}

/// Whether `h` is a mark rather than a value.
pub fn is_mark(h: &SecretHeader) -> bool {
    h.value.starts_with(' ')
}

/// Moves the secrets `records` carry after a change out of them (`before`: each record's
/// secret slot as read). Answers the write of the secrets item when a secret changed.
pub async fn split(
    store: &dyn Store,
    account: &str,
    sk: &str,
    before: &HashMap<String, SecretHeader>,
    records: Vec<(String, &mut Option<SecretHeader>)>,
) -> RepoResult<Option<TxOp>> {
    let mut set = Vec::new();
    let mut kept = Vec::new();
    for (id, slot) in records {
        match slot {
            Some(h) if !is_mark(h) => {
                let marked = mark(&h.name);
                set.push((id, std::mem::replace(h, marked)));
            }
            Some(_) => kept.push(id),
            None => {}
        }
    }
    let dropped = before.keys().any(|id| !kept.contains(id) && !set.iter().any(|(s, _)| s == id));
    if set.is_empty() && !dropped {
        return Ok(None);
    }
    let key = crate::keys::secrets(account, sk);
    let (mut all, prev) = match store.get(&key).await? {
        Some(item) => (super::decode::<Secrets>(item.clone())?.value, Some(item)),
        None => (Secrets::default(), None),
    };
    all.by_id.retain(|id, _| kept.contains(id));
    all.by_id.extend(set);
    Ok(Some(match &prev {
        Some(p) => TxOp::Put(super::next(p, &all)?, Cond::Version(p.version)),
        None => TxOp::Put(super::item(key, &all, 1)?, Cond::NotExists),
    }))
}

/// The secrets of kind `sk`, by record id (serving's read: `usecases::auction`).
pub async fn read(store: &dyn Store, account: &str, sk: &str) -> RepoResult<HashMap<String, SecretHeader>> {
    match store.get(&crate::keys::secrets(account, sk)).await? {
        Some(item) => Ok(super::decode::<Secrets>(item)?.value.by_id.into_iter().collect()),
        None => Ok(HashMap::new()),
    }
}
