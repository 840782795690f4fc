//! Reference data, read-only (seed 002 §2.10, §4.4): categories and content partners
//! (`/v0`), banner areas (`/v3`). Loaded by the admin command's seed file.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::de::DeserializeOwned;
use serde::Serialize;

use super::*;
use crate::error::AppResult;
use crate::model::account::{BannerArea, Category, ContentPartner};
use crate::store::Query;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v0/categories", get(categories))
        .route("/v0/categories/{id}", get(category))
        .route("/v0/content-partners", get(partners))
        .route("/v0/content-partners/{id}", get(partner))
        .route("/v3/banner-areas", get(banner_areas))
        .route("/v3/banner-areas/{id}", get(banner_area))
}

async fn all<T: DeserializeOwned>(st: &AppState, account: &str, kind: &str) -> AppResult<Vec<T>> {
    let found: Vec<crate::repo::Versioned<T>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(account, kind))).await?;
    Ok(found.into_iter().map(|v| v.value).collect())
}

async fn one<T: DeserializeOwned + Serialize>(
    st: &AppState,
    account: &str,
    kind: &str,
    what: &'static str,
    id: &str,
) -> AppResult<Response> {
    if !crate::ids::plausible_id(id) {
        return Err(AppError::not_found(what, id));
    }
    let v: T = repo::get(st.store.as_ref(), &keys::record(account, kind, id)).await?.ok_or_else(|| AppError::not_found(what, id))?.value;
    Ok(Json(v).into_response())
}

/// The account's category tree: the root first, then by name.
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn categories(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    let mut list: Vec<Category> = all(&st, &a.id, keys::CATEGORY).await?;
    list.sort_by(|x, y| (!x.parents.is_empty()).cmp(&!y.parents.is_empty()).then(x.name.to_lowercase().cmp(&y.name.to_lowercase())));
    Ok(Json(list).into_response())
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn category(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<Category>(&st, &a.id, keys::CATEGORY, "category", &id).await
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn partners(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    let mut list: Vec<ContentPartner> = all(&st, &a.id, keys::PARTNER).await?;
    list.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(Json(list).into_response())
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn partner(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<ContentPartner>(&st, &a.id, keys::PARTNER, "content partner", &id).await
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn banner_areas(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    let mut list: Vec<BannerArea> = all(&st, &a.id, keys::BANNER).await?;
    list.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(Json(list).into_response())
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn banner_area(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<BannerArea>(&st, &a.id, keys::BANNER, "banner area", &id).await
}
