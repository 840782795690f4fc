//! Reference data, read-only (seed 002 §2.10, §4.4): categories and content partners
//! (`/v0`), banner areas (`/v3`). Loaded by the admin command's seed file.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::*;
use crate::error::AppResult;
use crate::model::account::{BannerArea, Category, ContentPartner};
use crate::repo::reference::Kind;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v0/categories", get(categories))
        .route("/v0/categories/{id}", get(category))
        .route("/v0/content-partners", get(partners))
        .route("/v0/content-partners/{id}", get(partner))
        .route("/v3/banner-areas", get(banner_areas))
        .route("/v3/banner-areas/{id}", get(banner_area))
}

async fn one<T: DeserializeOwned + Serialize>(
    st: &AppState,
    account: &str,
    kind: Kind,
    what: &'static str,
    id: &str,
) -> AppResult<Response> {
    let v: T = repo::reference::one(st.store.as_ref(), account, kind, id, what).await?;
    Ok(Json(v).into_response())
}

/// The account's category tree: the root first, then by name.
async fn categories(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    let mut list: Vec<Category> = repo::reference::all(st.store.as_ref(), &a.id, Kind::Category).await?;
    list.sort_by(|x, y| (!x.parents.is_empty()).cmp(&!y.parents.is_empty()).then(x.name.to_lowercase().cmp(&y.name.to_lowercase())));
    Ok(Json(list).into_response())
}

async fn category(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<Category>(&st, &a.id, Kind::Category, "category", &id).await
}

async fn partners(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    let mut list: Vec<ContentPartner> = repo::reference::all(st.store.as_ref(), &a.id, Kind::ContentPartner).await?;
    list.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(Json(list).into_response())
}

async fn partner(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<ContentPartner>(&st, &a.id, Kind::ContentPartner, "content partner", &id).await
}

async fn banner_areas(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    let mut list: Vec<BannerArea> = repo::reference::all(st.store.as_ref(), &a.id, Kind::BannerArea).await?;
    list.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(Json(list).into_response())
}

async fn banner_area(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<BannerArea>(&st, &a.id, Kind::BannerArea, "banner area", &id).await
}
