//! Typed helpers over the store port: records are JSON bodies with a version.

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{AppError, AppResult};
use crate::store::{Item, Key, Store};

/// A record read from the store with what a conditional write needs.
#[derive(Debug, Clone)]
pub struct Versioned<T> {
    pub value: T,
    pub item: Item,
}

impl<T> Versioned<T> {
    pub fn version(&self) -> u64 {
        self.item.version
    }
}

pub fn item<T: Serialize>(key: Key, value: &T, version: u64) -> Result<Item, serde_json::Error> {
    Ok(Item { pk: key.pk, sk: key.sk, version, body: serde_json::to_string(value)?, ..Item::default() })
}

/// The next version of a stored item with a new body (GSI keys and counters carried over).
pub fn next<T: Serialize>(prev: &Item, value: &T) -> AppResult<Item> {
    Ok(Item { version: prev.version + 1, body: serde_json::to_string(value)?, ..prev.clone() })
}

pub fn decode<T: DeserializeOwned>(item: Item) -> AppResult<Versioned<T>> {
    let value = serde_json::from_str(&item.body).map_err(|e| AppError::Internal(format!("corrupt record {}/{}: {e}", item.pk, item.sk)))?;
    Ok(Versioned { value, item })
}

pub async fn get<T: DeserializeOwned>(store: &dyn Store, key: &Key) -> AppResult<Option<Versioned<T>>> {
    match store.get(key).await? {
        Some(item) => Ok(Some(decode(item)?)),
        None => Ok(None),
    }
}

pub async fn query_all<T: DeserializeOwned>(store: &dyn Store, q: crate::store::Query) -> AppResult<Vec<Versioned<T>>> {
    let page = store.query(q).await?;
    page.items.into_iter().map(decode).collect()
}
