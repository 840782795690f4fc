//! Stitchers of server-side ad insertion (docs/traffic-quality.md, "Server-side ad
//! insertion"), JSON: `POST`/`GET` `/v1/stitchers`, `GET`/`PUT`/`DELETE`
//! `/v1/stitchers/{id}` (`If-Match` on PUT). The secret header is write-only.

use crate::api::Within;
use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;

use crate::api::error::AppResult;
use crate::api::{if_match, no_content, with_etag, Auth, JsonBody};
use crate::domain_error::DomainError;
use crate::model::stitcher::{parse_write, StitcherInput, StitcherView};
use crate::usecases::stitchers;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, create, get_one, replace, remove),
    tags((name = "stitchers", description = "Server-side ad insertion stitchers: from a registered stitcher's address, X-Device-IP and X-Device-User-Agent are the viewer's"))
)]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v1/stitchers", get(list).post(create))
        .route("/v1/stitchers/{id}", get(get_one).put(replace).delete(remove))
}

/// The account's stitchers.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct StitcherList {
    /// Every stitcher of the account, in the order registered.
    pub stitchers: Vec<StitcherView>,
}

fn body(v: &serde_json::Value, path_id: Option<&str>) -> Result<StitcherInput, DomainError> {
    parse_write(v, path_id).map_err(DomainError::Validation)
}

const EXAMPLE: &str = r#"{"name": "MediaTailor eu-west-1", "sourceCidrs": ["203.0.113.0/24"], "secretHeader": {"name": "x-stitcher-key", "value": "change-me-0123456789"}}"#;

#[utoipa::path(post, path = "/v1/stitchers", tag = "stitchers", summary = "Register a stitcher",
    description = "Its calls are recognised by their source address (and the secret header when one is set); at most 50 an account.",
    request_body(content = StitcherInput, example = json!(serde_json::from_str::<serde_json::Value>(EXAMPLE).unwrap_or_default())),
    responses((status = 201, description = "Registered (Location, ETag)", body = StitcherView, headers(("Location" = String), ("ETag" = String)))))]
async fn create(Within(st): Within, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    let e = stitchers::create(&st, &a.id, body(&v, None)).await?;
    let (id, version) = (e.record.id.clone(), e.version);
    let mut res = (StatusCode::CREATED, Json(StitcherView::from(e))).into_response();
    if let Ok(loc) = HeaderValue::from_str(&format!("/v1/stitchers/{id}")) {
        res.headers_mut().insert(header::LOCATION, loc);
    }
    Ok(with_etag(res, version))
}

#[utoipa::path(get, path = "/v1/stitchers", tag = "stitchers", summary = "List the account's stitchers",
    description = "Every stitcher, its secret header shown only as `secretHeaderSet`.",
    responses((status = 200, description = "Every stitcher, in the order registered", body = StitcherList)))]
async fn list(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    let all = stitchers::list(&st, &a.id).await?;
    Ok(Json(StitcherList { stitchers: all.into_iter().map(StitcherView::from).collect() }).into_response())
}

#[utoipa::path(get, path = "/v1/stitchers/{id}", tag = "stitchers", summary = "Read a stitcher",
    description = "The stitcher with its ETag (for `If-Match` on PUT); another account's is 404.", params(("id" = String, Path, description = "The stitcher's id")),
    responses((status = 200, description = "The stitcher (its secret header only as secretHeaderSet)", body = StitcherView, headers(("ETag" = String)))))]
async fn get_one(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let e = stitchers::get(&st, &a.id, &id).await?;
    let version = e.version;
    Ok(with_etag(Json(StitcherView::from(e)).into_response(), version))
}

#[utoipa::path(put, path = "/v1/stitchers/{id}", tag = "stitchers", summary = "Replace a stitcher",
    description = "The record as GET shows it (read-only fields ignored); a left-out secretHeader is kept, null removes it.",
    params(("id" = String, Path, description = "The stitcher's id"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the stitcher changed since")),
    request_body(content = StitcherInput, example = json!(serde_json::from_str::<serde_json::Value>(EXAMPLE).unwrap_or_default())),
    responses((status = 200, description = "Replaced", body = StitcherView, headers(("ETag" = String)))))]
async fn replace(
    Within(st): Within,
    Auth(a): Auth,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(v): JsonBody,
) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    let e = stitchers::replace(&st, &a.id, &id, body(&v, Some(&id)), expected).await?;
    let version = e.version;
    Ok(with_etag(Json(StitcherView::from(e)).into_response(), version))
}

#[utoipa::path(delete, path = "/v1/stitchers/{id}", tag = "stitchers", summary = "Remove a stitcher",
    description = "Its calls are anyone's again (within the delivery refresh).", params(("id" = String, Path, description = "The stitcher's id")),
    responses((status = 204, description = "Removed")))]
async fn remove(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    stitchers::remove(&st, &a.id, &id).await?;
    Ok(no_content())
}
