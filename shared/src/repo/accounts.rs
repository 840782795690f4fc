//! Accounts and their API keys (stored hashed; the admin command writes them).

use super::{RepoError, RepoResult};
use crate::ids::{hash_key, new_api_key};
use crate::keys;
use crate::model::account::{Account, KeyRecord};
use crate::rule::Rule;
use crate::store::{Cond, Item, Query, Store, StoreError};

/// The account a key hash belongs to, with the key's label, if the key and its account exist.
pub async fn by_key_hash(store: &dyn Store, hash: &str) -> RepoResult<Option<(Account, Option<String>)>> {
    let Some(rec) = super::get::<KeyRecord>(store, &keys::api_key(hash)).await? else { return Ok(None) };
    let account = super::get::<Account>(store, &keys::account(&rec.value.account_id)).await?;
    Ok(account.map(|v| (v.value, rec.value.label)))
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

/// A key as the admin command lists it: never the key itself (only its hash is stored),
/// its fingerprint (the hash's first 12 characters), label and creation time.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyInfo {
    pub fingerprint: String,
    pub label: Option<String>,
    pub created: Option<chrono::DateTime<chrono::Utc>>,
}

pub const FINGERPRINT_LEN: usize = 12;

/// The stored item of a key: under its hash, listed by account (GSI1 `A#<a>#KEYS`).
pub fn key_item(hash: &str, rec: &KeyRecord) -> RepoResult<Item> {
    let mut item = super::item(keys::api_key(hash), rec, 1)?;
    item.gsi1 = Some((keys::account_keys(&rec.account_id), hash.to_string()));
    Ok(item)
}

/// A new key for an existing account; the key is returned once and stored hashed.
pub async fn create_key(store: &dyn Store, account: &str, label: Option<String>, now: chrono::DateTime<chrono::Utc>) -> RepoResult<String> {
    if get(store, account).await?.is_none() {
        return Err(RepoError::not_found("account", account));
    }
    let key = new_api_key();
    let rec = KeyRecord { account_id: account.to_string(), label, created: Some(now) };
    store.put(key_item(&hash_key(&key), &rec)?, Cond::NotExists).await?;
    Ok(key)
}

/// The account's keys.
pub async fn list_keys(store: &dyn Store, account: &str) -> RepoResult<Vec<KeyInfo>> {
    let page = store.query(Query::gsi1(keys::account_keys(account))).await?;
    let mut out = Vec::new();
    for i in page.items {
        let fingerprint = hash_of(&i).chars().take(FINGERPRINT_LEN).collect();
        let rec: KeyRecord = super::decode(i)?.value;
        out.push(KeyInfo { fingerprint, label: rec.label, created: rec.created });
    }
    Ok(out)
}

/// Revokes the account's key with this fingerprint (or the key itself). Warm functions may
/// accept it until their key cache (30 s) expires.
pub async fn revoke_key(store: &dyn Store, account: &str, fingerprint_or_key: &str) -> RepoResult<()> {
    let hash = resolve(store, account, fingerprint_or_key).await?;
    match store.delete(&keys::api_key(&hash), Cond::None).await {
        Ok(()) | Err(StoreError::ConditionFailed) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// A new key in place of the old one (created first, so the account always has one).
pub async fn rotate_key(
    store: &dyn Store,
    account: &str,
    fingerprint_or_key: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> RepoResult<String> {
    let old = resolve(store, account, fingerprint_or_key).await?;
    let label = super::get::<KeyRecord>(store, &keys::api_key(&old)).await?.and_then(|k| k.value.label);
    let key = create_key(store, account, label, now).await?;
    store.delete(&keys::api_key(&old), Cond::None).await?;
    Ok(key)
}

/// A key item's hash (its partition is `KEY#<hash>`).
fn hash_of(i: &Item) -> &str {
    i.pk.strip_prefix("KEY#").unwrap_or(&i.pk)
}

/// The hash of the account's key named by a fingerprint (unique prefix of its hash) or by
/// the key itself.
async fn resolve(store: &dyn Store, account: &str, fingerprint_or_key: &str) -> RepoResult<String> {
    let direct = hash_key(fingerprint_or_key);
    if let Some(k) = super::get::<KeyRecord>(store, &keys::api_key(&direct)).await? {
        if k.value.account_id == account {
            return Ok(direct);
        }
    }
    let fp = fingerprint_or_key.trim().to_ascii_lowercase();
    if fp.len() < 8 {
        return Err(RepoError::field("fingerprint", Rule::MinLength, "give at least 8 characters of the key's fingerprint"));
    }
    let page = store.query(Query::gsi1(keys::account_keys(account))).await?;
    let found: Vec<String> = page.items.iter().map(hash_of).filter(|h| h.starts_with(&fp)).map(str::to_string).collect();
    match found.as_slice() {
        [one] => Ok(one.clone()),
        [] => Err(RepoError::not_found("API key", fingerprint_or_key)),
        _ => Err(RepoError::field("fingerprint", Rule::Ambiguous, "more than one key starts with that fingerprint; give more characters")),
    }
}
