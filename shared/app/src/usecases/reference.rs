//! Reference data (seed 002 §2.9): the account's categories, content partners and banner
//! areas, listed in the order clients read them.

use crate::ids::AccountId;
use serde::de::DeserializeOwned;

use super::UseCaseResult;
use crate::model::account::{BannerArea, Category, ContentPartner, DeviceContainer};
use crate::repo;
use crate::repo::reference::Kind;
use crate::state::AppState;

/// One record of a kind (404 naming `what` when the account has none with this id).
pub async fn one<T: DeserializeOwned>(st: &AppState, account: &AccountId, kind: Kind, id: &str, what: &'static str) -> UseCaseResult<T> {
    Ok(repo::reference::one(st.store.as_ref(), account, kind, id, what).await?)
}

/// The category tree: the root first, then by name.
pub async fn categories(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<Category>> {
    let mut list: Vec<Category> = repo::reference::all(st.store.as_ref(), account, Kind::Category).await?;
    list.sort_by(|x, y| (!x.parents.is_empty()).cmp(&!y.parents.is_empty()).then(x.name.to_lowercase().cmp(&y.name.to_lowercase())));
    Ok(list)
}

/// Content partners by name (case-insensitive), then id.
pub async fn partners(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<ContentPartner>> {
    let mut list: Vec<ContentPartner> = repo::reference::all(st.store.as_ref(), account, Kind::ContentPartner).await?;
    list.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(list)
}

/// Device containers (what ads and forecasts name in `deviceContainers`) by name
/// (case-insensitive), then id.
pub async fn device_containers(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<DeviceContainer>> {
    let mut list: Vec<DeviceContainer> = repo::reference::all(st.store.as_ref(), account, Kind::DeviceContainer).await?;
    list.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(list)
}

/// Banner areas by name (case-insensitive), then id.
pub async fn banner_areas(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<BannerArea>> {
    let mut list: Vec<BannerArea> = repo::reference::all(st.store.as_ref(), account, Kind::BannerArea).await?;
    list.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(list)
}
