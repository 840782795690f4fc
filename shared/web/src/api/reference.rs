//! Reference data, read-only (seed 002 §2.10, §4.4): categories and content partners
//! (`/v0`), banner areas (`/v3`). Loaded by the admin command's seed file.

use crate::api::Access;
use crate::api::Within;
use axum::extract::Path;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::api::error::AppResult;
use crate::api::Auth;
use crate::model::account::{BannerArea, Category, ContentPartner, DeviceContainer};
use crate::repo::reference::Kind;
use crate::state::AppState;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(categories, category, partners, partner, device_containers, device_container, banner_areas, banner_area),
    tags((name = "reference", description = "Reference data, loaded by the admin command"))
)]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v0/categories", Access::RECORDS, get(categories))
        .route("/v0/categories/{id}", Access::RECORDS, get(category))
        .route("/v0/content-partners", Access::RECORDS, get(partners))
        .route("/v0/content-partners/{id}", Access::RECORDS, get(partner))
        .route("/v0/device-containers", Access::RECORDS, get(device_containers))
        .route("/v0/device-containers/{id}", Access::RECORDS, get(device_container))
        .route("/v3/banner-areas", Access::RECORDS, get(banner_areas))
        .route("/v3/banner-areas/{id}", Access::RECORDS, get(banner_area))
}

async fn one<T: DeserializeOwned + Serialize>(
    st: &AppState,
    account: &crate::ids::AccountId,
    kind: Kind,
    what: &'static str,
    id: &str,
) -> AppResult<Response> {
    let v: T = crate::usecases::reference::one(st, account, kind, id, what).await?;
    Ok(Json(v).into_response())
}

/// The account's category tree: the root first, then by name.
#[utoipa::path(get, path = "/v0/categories", tag = "reference",
    responses((status = 200, description = "The category tree: the root first, then by name", body = Vec<Category>)))]
async fn categories(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    Ok(Json(crate::usecases::reference::categories(&st, &a.id).await?).into_response())
}

#[utoipa::path(get, path = "/v0/categories/{id}", tag = "reference", summary = "Read a content category", params(("id" = String, Path)),
    responses((status = 200, description = "A category", body = Category)))]
async fn category(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<Category>(&st, &a.id, Kind::Category, "category", &id).await
}

#[utoipa::path(get, path = "/v0/content-partners", tag = "reference", summary = "List the account's content partners",
    responses((status = 200, description = "Content partners by name", body = Vec<ContentPartner>)))]
async fn partners(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    Ok(Json(crate::usecases::reference::partners(&st, &a.id).await?).into_response())
}

#[utoipa::path(get, path = "/v0/content-partners/{id}", tag = "reference", summary = "Read a content partner", params(("id" = String, Path)),
    responses((status = 200, description = "A content partner", body = ContentPartner)))]
async fn partner(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<ContentPartner>(&st, &a.id, Kind::ContentPartner, "content partner", &id).await
}

#[utoipa::path(get, path = "/v0/device-containers", tag = "reference", summary = "List the account's device containers",
    description = "The ids ads (`deviceContainers`) and inventory forecasts name: groups of devices (desktop, mobile, TV...).",
    responses((status = 200, description = "Device containers by name", body = Vec<DeviceContainer>)))]
async fn device_containers(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    Ok(Json(crate::usecases::reference::device_containers(&st, &a.id).await?).into_response())
}

#[utoipa::path(get, path = "/v0/device-containers/{id}", tag = "reference", summary = "Read a device container", params(("id" = String, Path)),
    responses((status = 200, description = "A device container", body = DeviceContainer)))]
async fn device_container(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<DeviceContainer>(&st, &a.id, Kind::DeviceContainer, "device container", &id).await
}

#[utoipa::path(get, path = "/v3/banner-areas", tag = "reference", summary = "List the account's banner areas",
    responses((status = 200, description = "Banner areas by name", body = Vec<BannerArea>)))]
async fn banner_areas(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    Ok(Json(crate::usecases::reference::banner_areas(&st, &a.id).await?).into_response())
}

#[utoipa::path(get, path = "/v3/banner-areas/{id}", tag = "reference", summary = "Read a banner area", params(("id" = String, Path)),
    responses((status = 200, description = "A banner area", body = BannerArea)))]
async fn banner_area(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    one::<BannerArea>(&st, &a.id, Kind::BannerArea, "banner area", &id).await
}
