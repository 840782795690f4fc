//! The account's directory of API keys and users (docs/people-and-roles.md, "Keys"): one
//! versioned record, `A#<a>#ACCESS`. Every change of a key, a user or a user's sessions is
//! one conditional transaction: the directory at the version read, plus what the change
//! implies elsewhere, derived from the directory before and after (a key added or removed
//! puts or deletes its `KEY#<hash>` record; an email added or removed updates its
//! `EMAIL#<email>` index; a session dropped deletes its `SESSION#<hash>` record). So the
//! at-least-one-ADMIN rule, the bounds and the indexes cannot drift apart.

use std::collections::BTreeSet;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::{Attempts, RepoError, RepoResult};
use crate::keys;
use crate::model::access::{Directory, KeyEntry, Role, MAX_ACCOUNTS_PER_EMAIL, MAX_KEYS, MAX_USERS};
use crate::model::account::KeyRecord;
use crate::store::{Cond, Item, Query, Store, TxOp};

/// The accounts with a user of one email.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct EmailIndex {
    #[serde(default)]
    pub accounts: Vec<String>,
}

/// The account's directory and the item it was read from (`None`: none stored yet; its
/// keys are then the ones stored before the directory existed, read from their index).
pub async fn directory(store: &dyn Store, account: &str) -> RepoResult<(Directory, Option<Item>)> {
    if let Some(item) = store.get(&keys::access(account)).await? {
        return Ok((super::decode::<Directory>(item.clone())?.value, Some(item)));
    }
    let page = store.query(Query::gsi1(keys::account_keys(account))).await?;
    let mut keys = Vec::new();
    for i in page.items {
        let hash = i.pk.strip_prefix("KEY#").unwrap_or(&i.pk).to_string();
        let rec: KeyRecord = super::decode(i)?.value;
        keys.push(KeyEntry {
            id: fingerprint(&hash),
            name: rec.label.unwrap_or_else(|| "API key".into()),
            role: rec.role.unwrap_or(Role::Admin),
            created: rec.created.unwrap_or(DateTime::UNIX_EPOCH),
            hash,
            made_by: None,
        });
    }
    Ok((Directory { keys, ..Directory::default() }, None))
}

/// A key's id and fingerprint: the first 12 hex characters of its hash.
pub fn fingerprint(hash: &str) -> String {
    hash.chars().take(FINGERPRINT_LEN).collect()
}

/// The length of a key's fingerprint (its id).
pub const FINGERPRINT_LEN: usize = 12;

/// The stored item of a key: under its hash, listed by account (GSI1 `A#<a>#KEYS`).
pub fn key_item(hash: &str, rec: &KeyRecord) -> RepoResult<Item> {
    let mut item = super::item(keys::api_key(hash), rec, 1)?;
    item.gsi1 = Some((keys::account_keys(&rec.account_id), hash.to_string()));
    Ok(item)
}

/// Changes the directory with `f` and writes it with what the change implies, at the
/// version read (a lost race reads again). `f` may refuse; `extra` adds writes of its own
/// (a new session's record). A change that would leave no ADMIN is 409.
pub async fn change<R>(store: &dyn Store, account: &str, mut f: impl FnMut(&mut Directory) -> RepoResult<(R, Vec<TxOp>)>) -> RepoResult<R> {
    let mut tries = Attempts::new("access directory", account, None);
    loop {
        tries.next_try()?;
        let (before, prev) = directory(store, account).await?;
        let mut after = before.clone();
        let (out, mut ops) = f(&mut after)?;
        after.keeps_an_admin(&before)?;
        if after.keys.len() > MAX_KEYS.max(before.keys.len()) {
            return Err(RepoError::Refused(format!("an account has at most {MAX_KEYS} API keys; revoke one first")));
        }
        if after.users.len() > MAX_USERS.max(before.users.len()) {
            return Err(RepoError::Refused(format!("an account has at most {MAX_USERS} users; delete one first")));
        }
        ops.extend(implied(store, account, &before, &after).await?);
        ops.push(match &prev {
            Some(p) => TxOp::Put(super::next(p, &after)?, Cond::Version(p.version)),
            None => TxOp::Put(super::item(keys::access(account), &after, 1)?, Cond::NotExists),
        });
        if tries.commit(store, ops).await? {
            return Ok(out);
        }
    }
}

/// The writes a directory change implies: key records, email indexes, ended sessions.
async fn implied(store: &dyn Store, account: &str, before: &Directory, after: &Directory) -> RepoResult<Vec<TxOp>> {
    let mut ops = Vec::new();
    for k in &after.keys {
        if !before.keys.iter().any(|b| b.hash == k.hash) {
            let rec =
                KeyRecord { account_id: account.to_string(), label: Some(k.name.clone()), created: Some(k.created), role: Some(k.role) };
            ops.push(TxOp::Put(key_item(&k.hash, &rec)?, Cond::NotExists));
        }
    }
    for k in &before.keys {
        if !after.keys.iter().any(|a| a.hash == k.hash) {
            ops.push(TxOp::Delete(keys::api_key(&k.hash), Cond::None));
        }
    }
    let emails = |d: &Directory| d.users.iter().map(|u| u.email.clone()).collect::<BTreeSet<String>>();
    let (was, now) = (emails(before), emails(after));
    for email in was.symmetric_difference(&now) {
        let key = keys::email(email);
        let prev = store.get(&key).await?;
        let mut index = match &prev {
            Some(i) => super::decode::<EmailIndex>(i.clone())?.value,
            None => EmailIndex::default(),
        };
        index.accounts.retain(|a| a != account);
        if now.contains(email) {
            if index.accounts.len() >= MAX_ACCOUNTS_PER_EMAIL {
                return Err(RepoError::Refused(format!(
                    "{email} already has users in {MAX_ACCOUNTS_PER_EMAIL} accounts, the most one email may have"
                )));
            }
            index.accounts.push(account.to_string());
        }
        ops.push(match (&prev, index.accounts.is_empty()) {
            (Some(p), true) => TxOp::Delete(key, Cond::Version(p.version)),
            (Some(p), false) => TxOp::Put(super::next(p, &index)?, Cond::Version(p.version)),
            (None, _) => TxOp::Put(super::item(key, &index, 1)?, Cond::NotExists),
        });
    }
    let sessions = |d: &Directory| d.users.iter().flat_map(|u| u.sessions.iter().cloned()).collect::<BTreeSet<String>>();
    for ended in sessions(before).difference(&sessions(after)) {
        ops.push(TxOp::Delete(keys::session(ended), Cond::None));
    }
    Ok(ops)
}

/// The accounts with a user of `email` (lowercased).
pub async fn accounts_of_email(store: &dyn Store, email: &str) -> RepoResult<Vec<String>> {
    Ok(super::get::<EmailIndex>(store, &keys::email(email)).await?.map(|v| v.value.accounts).unwrap_or_default())
}

/// Adds a key stored by the seed or the admin command to the directory (once).
pub async fn adopt_key(store: &dyn Store, account: &str, hash: &str, rec: &KeyRecord) -> RepoResult<()> {
    let entry = KeyEntry {
        id: fingerprint(hash),
        name: rec.label.clone().unwrap_or_else(|| "API key".into()),
        role: rec.role.unwrap_or(Role::Admin),
        created: rec.created.unwrap_or(DateTime::UNIX_EPOCH),
        hash: hash.to_string(),
        made_by: None,
    };
    // A key stored before keys had roles is ADMIN: its record says so from now on (a key
    // without a role is refused, `usecases::callers::by_key`).
    if let Some(existing) = store.get(&keys::api_key(hash)).await? {
        let version = existing.version;
        let stored = super::decode::<KeyRecord>(existing)?.value;
        if stored.role.is_none() {
            let mut item = key_item(hash, &KeyRecord { role: Some(entry.role), ..stored })?;
            item.version = version + 1;
            match store.put(item, Cond::Version(version)).await {
                Ok(()) | Err(crate::store::StoreError::ConditionFailed) => {}
                Err(e) => return Err(e.into()),
            }
        }
    }
    // The key's record is written already: the directory only lists it (no implied put).
    let mut tries = Attempts::new("access directory", account, None);
    loop {
        tries.next_try()?;
        let (mut dir, prev) = directory(store, account).await?;
        if dir.keys.iter().any(|k| k.hash == hash) {
            if prev.is_some() {
                return Ok(());
            }
        } else {
            dir.keys.push(entry.clone());
        }
        let op = match &prev {
            Some(p) => TxOp::Put(super::next(p, &dir)?, Cond::Version(p.version)),
            None => TxOp::Put(super::item(keys::access(account), &dir, 1)?, Cond::NotExists),
        };
        if tries.commit(store, vec![op]).await? {
            return Ok(());
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct KeyUse {
    last_used: DateTime<Utc>,
}

/// The hour `now` falls in.
pub fn hour_of(now: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp(now.timestamp() - now.timestamp().rem_euclid(3600), 0).unwrap_or(now)
}

/// Notes that a key was used in `now`'s hour (the caller writes this at most once an hour
/// a key: `api::auth`).
pub async fn note_key_used(store: &dyn Store, hash: &str, now: DateTime<Utc>) -> RepoResult<()> {
    let mut item = super::item(keys::key_use(hash), &KeyUse { last_used: hour_of(now) }, 1)?;
    item.expires_at = Some((now + chrono::Duration::days(400)).timestamp());
    store.put(item, Cond::None).await?;
    Ok(())
}

/// When each key was last used (the hour), by hash.
pub async fn keys_last_used(store: &dyn Store, hashes: &[String]) -> RepoResult<std::collections::HashMap<String, DateTime<Utc>>> {
    let items = store.batch_get(&hashes.iter().map(|h| keys::key_use(h)).collect::<Vec<_>>()).await?;
    items
        .into_iter()
        .map(|i| {
            let hash = i.pk.strip_prefix("KEYUSE#").unwrap_or(&i.pk).to_string();
            Ok((hash, super::decode::<KeyUse>(i)?.value.last_used))
        })
        .collect()
}
