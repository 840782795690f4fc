//! Accounts and their API keys (stored hashed; the admin command writes them).

use super::{RepoError, RepoResult};
use crate::ids::{hash_key, new_api_key};
use crate::keys;
use crate::model::access::{CreatedKey, KeyEntry, KeyView, Role};
use crate::model::account::{Account, KeyRecord};
use crate::rule::Rule;
use crate::store::Store;
use chrono::{DateTime, Utc};

/// The account a key hash belongs to, with the key's record, if the key and its account exist.
pub async fn by_key_hash(store: &dyn Store, hash: &str) -> RepoResult<Option<(Account, KeyRecord)>> {
    let Some(rec) = super::get::<KeyRecord>(store, &keys::api_key(hash)).await? else { return Ok(None) };
    let account = super::get::<Account>(store, &keys::account(&rec.value.account_id)).await?;
    Ok(account.map(|v| (v.value, rec.value)))
}

/// An account by id (workers, which start from a stored key rather than an API key).
/// Writes the delivery engine's copy of an account (after every write of the account).
pub async fn write_delivery_copy(store: &dyn Store, account: &Account) -> RepoResult<()> {
    store.put(super::item(keys::delivery_account(&account.id), account, 1)?, crate::store::Cond::None).await?;
    Ok(())
}

/// The account as the delivery engine reads it: its copy in the delivery partition,
/// written with the account (`seed::apply`).
pub async fn for_delivery(store: &dyn Store, id: &str) -> RepoResult<Option<Account>> {
    Ok(super::get::<Account>(store, &keys::delivery_account(id)).await?.map(|v| v.value))
}

pub async fn get(store: &dyn Store, id: &str) -> RepoResult<Option<Account>> {
    Ok(super::get::<Account>(store, &keys::account(id)).await?.map(|v| v.value))
}

/// Moves an account record stored before accounts had a partition of their own
/// (`A#<a>`) to `ACCOUNT#<a>`, and lists its keys in its directory; answers whether
/// anything moved. Safe to run again (`admin migrate-identity`, the local server's start).
pub async fn migrate(store: &dyn Store, id: &str) -> RepoResult<bool> {
    let mut moved = false;
    if let Some(old) = store.get(&keys::legacy_account(id)).await? {
        if get(store, id).await?.is_none() {
            let new = crate::store::Item { pk: keys::account(id).pk, ..old.clone() };
            store.put(new, crate::store::Cond::NotExists).await.or_else(|e| match e {
                crate::store::StoreError::ConditionFailed => Ok(()),
                e => Err(e),
            })?;
        }
        store.delete(&keys::legacy_account(id), crate::store::Cond::None).await?;
        moved = true;
    }
    if store.get(&keys::access(id)).await?.is_none() {
        let (dir, _) = super::access::directory(store, id).await?;
        for k in dir.keys {
            let rec = KeyRecord { account_id: id.to_string(), label: Some(k.name), created: Some(k.created), role: Some(k.role) };
            super::access::adopt_key(store, id, &k.hash, &rec).await?;
            moved = true;
        }
    }
    Ok(moved)
}

pub use super::access::{key_item, FINGERPRINT_LEN};

/// A new key for an existing account, listed in its directory; the key is answered once
/// and stored hashed.
/// `made_by`: the user who made it (`KeyEntry::made_by`).
pub async fn create_key(
    store: &dyn Store,
    account: &str,
    name: String,
    role: Role,
    made_by: Option<String>,
    now: DateTime<Utc>,
) -> RepoResult<CreatedKey> {
    if get(store, account).await?.is_none() {
        return Err(RepoError::not_found("account", account));
    }
    let key = new_api_key();
    let hash = hash_key(&key);
    let entry = KeyEntry { id: super::access::fingerprint(&hash), name: name.clone(), role, created: now, hash, made_by };
    let id = entry.id.clone();
    super::access::change(store, account, |dir| {
        dir.keys.push(entry.clone());
        Ok(((), Vec::new()))
    })
    .await?;
    Ok(CreatedKey { id, name, role, key, created: now })
}

/// The account's keys, as `GET /v1/api-keys` and the admin command list them.
pub async fn list_keys(store: &dyn Store, account: &str) -> RepoResult<Vec<KeyView>> {
    let (dir, _) = super::access::directory(store, account).await?;
    let hashes: Vec<String> = dir.keys.iter().map(|k| k.hash.clone()).collect();
    let used = super::access::keys_last_used(store, &hashes).await?;
    Ok(dir
        .keys
        .into_iter()
        .map(|k| KeyView {
            last_used: used.get(&k.hash).copied(),
            fingerprint: k.id.clone(),
            id: k.id,
            name: k.name,
            role: k.role,
            created: k.created,
        })
        .collect())
}

/// Revokes the account's key with this id (its fingerprint; at least 8 characters of it,
/// or the key itself). Every function stops taking it within its key cache's 4 s.
pub async fn revoke_key(store: &dyn Store, account: &str, fingerprint_or_key: &str) -> RepoResult<()> {
    let hash = resolve(store, account, fingerprint_or_key).await?;
    super::access::change(store, account, |dir| {
        dir.keys.retain(|k| k.hash != hash);
        Ok(((), Vec::new()))
    })
    .await
}

/// A new key in place of the old one, with its name and role (created first, so the
/// account always has one).
pub async fn rotate_key(store: &dyn Store, account: &str, fingerprint_or_key: &str, now: DateTime<Utc>) -> RepoResult<String> {
    let old = resolve(store, account, fingerprint_or_key).await?;
    let (dir, _) = super::access::directory(store, account).await?;
    let entry = dir.keys.iter().find(|k| k.hash == old).ok_or_else(|| RepoError::not_found("API key", fingerprint_or_key))?;
    let created = create_key(store, account, entry.name.clone(), entry.role, entry.made_by.clone(), now).await?;
    revoke_key(store, account, &old).await?;
    Ok(created.key)
}

/// The hash of the account's key named by a fingerprint (unique prefix of its hash), by
/// its full hash, or by the key itself.
async fn resolve(store: &dyn Store, account: &str, fingerprint_or_key: &str) -> RepoResult<String> {
    let (dir, _) = super::access::directory(store, account).await?;
    let direct = hash_key(fingerprint_or_key);
    if let Some(k) = dir.keys.iter().find(|k| k.hash == direct || k.hash == fingerprint_or_key) {
        return Ok(k.hash.clone());
    }
    let fp = fingerprint_or_key.trim().to_ascii_lowercase();
    if fp.len() < 8 {
        return Err(RepoError::field("fingerprint", Rule::MinLength, "give at least 8 characters of the key's fingerprint"));
    }
    let found: Vec<&KeyEntry> = dir.keys.iter().filter(|k| k.hash.starts_with(&fp)).collect();
    match found.as_slice() {
        [one] => Ok(one.hash.clone()),
        [] => Err(RepoError::not_found("API key", fingerprint_or_key)),
        _ => Err(RepoError::field("fingerprint", Rule::Ambiguous, "more than one key starts with that fingerprint; give more characters")),
    }
}
