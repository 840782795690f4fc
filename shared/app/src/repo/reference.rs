//! The account's reference data (categories, content partners, banner areas, device
//! containers, audience providers, custom parameters): written by the admin command, read
//! here.

use serde::de::DeserializeOwned;

use super::{RepoError, RepoResult};
use crate::ids::plausible_id;
use crate::keys;
use crate::store::{Query, Store};

/// Partitions of the reference kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Category,
    ContentPartner,
    BannerArea,
    DeviceContainer,
    AudienceProvider,
    CustomParameter,
}

impl Kind {
    fn partition(self) -> &'static str {
        match self {
            Kind::Category => keys::CATEGORY,
            Kind::ContentPartner => keys::PARTNER,
            Kind::BannerArea => keys::BANNER,
            Kind::DeviceContainer => keys::DEVICE,
            Kind::AudienceProvider => keys::PROVIDER,
            Kind::CustomParameter => keys::ACP,
        }
    }
}

/// The ids of one kind (e.g. every device container of the account).
pub async fn ids(store: &dyn Store, account: &str, kind: Kind) -> RepoResult<Vec<String>> {
    let page = store.query(Query::partition(keys::partition(account, kind.partition()))).await?;
    Ok(page.items.into_iter().map(|i| i.sk).collect())
}

/// Every record of one kind, in id order.
pub async fn all<T: DeserializeOwned>(store: &dyn Store, account: &str, kind: Kind) -> RepoResult<Vec<T>> {
    let found = super::query_all::<T>(store, Query::partition(keys::partition(account, kind.partition()))).await?;
    Ok(found.into_iter().map(|v| v.value).collect())
}

/// One record; `what` names it in the 404.
pub async fn one<T: DeserializeOwned>(store: &dyn Store, account: &str, kind: Kind, id: &str, what: &'static str) -> RepoResult<T> {
    if !plausible_id(id) {
        return Err(RepoError::not_found(what, id));
    }
    match super::get::<T>(store, &keys::record(account, kind.partition(), id)).await? {
        Some(v) => Ok(v.value),
        None => Err(RepoError::not_found(what, id)),
    }
}

/// Whether the account has this record.
pub async fn exists(store: &dyn Store, account: &str, kind: Kind, id: &str) -> RepoResult<bool> {
    Ok(plausible_id(id) && store.get(&keys::record(account, kind.partition(), id)).await?.is_some())
}
