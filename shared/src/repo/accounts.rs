//! Accounts and their API keys (stored hashed; the admin command writes them).

use crate::error::AppResult;
use crate::keys;
use crate::model::account::{Account, KeyRecord};
use crate::store::Store;

/// The account a key hash belongs to, if the key and its account exist.
pub async fn by_key_hash(store: &dyn Store, hash: &str) -> AppResult<Option<Account>> {
    let Some(rec) = super::get::<KeyRecord>(store, &keys::api_key(hash)).await? else { return Ok(None) };
    Ok(super::get::<Account>(store, &keys::account(&rec.value.account_id)).await?.map(|v| v.value))
}

/// An account by id (workers, which start from a stored key rather than an API key).
pub async fn get(store: &dyn Store, id: &str) -> AppResult<Option<Account>> {
    Ok(super::get::<Account>(store, &keys::account(id)).await?.map(|v| v.value))
}
