//! Stitchers of server-side ad insertion (docs/traffic-quality.md, "Server-side ad
//! insertion"), JSON: `POST`/`GET` `/v1/stitchers`, `GET`/`PUT`/`DELETE`
//! `/v1/stitchers/{id}` (`If-Match` on PUT). The secret header is write-only.

use crate::api::Access;
use crate::api::Within;
use axum::extract::Path;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;

use super::collection::{self, JsonCollection};
use crate::api::error::AppResult;
use crate::api::{Auth, JsonBody};
use crate::domain_error::DomainError;
use crate::model::stitcher::{parse_write, Stitcher, StitcherInput, StitcherView};
use crate::state::AppState;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, create, get_one, replace, remove),
    tags((name = "stitchers", description = "Server-side ad insertion stitchers: from a registered stitcher's address, X-Device-IP and X-Device-User-Agent are the viewer's"))
)]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new().route("/v1/stitchers", Access::ADMIN_WRITES, get(list).post(create)).route(
        "/v1/stitchers/{id}",
        Access::ADMIN_WRITES,
        get(get_one).put(replace).delete(remove),
    )
}

/// The account's stitchers.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct StitcherList {
    /// Every stitcher of the account, in the order registered.
    pub stitchers: Vec<StitcherView>,
}

impl JsonCollection for Stitcher {
    const PATH: &'static str = "/v1/stitchers";
    type View = StitcherView;
    type List = StitcherList;

    fn view(record: Stitcher) -> StitcherView {
        record.view()
    }
    fn list(stitchers: Vec<StitcherView>) -> StitcherList {
        StitcherList { stitchers }
    }
    fn parse(_: &AppState, v: &serde_json::Value, path_id: Option<&str>) -> Result<StitcherInput, DomainError> {
        parse_write(v, path_id).map_err(DomainError::Validation)
    }
}

const EXAMPLE: &str = r#"{"name": "MediaTailor eu-west-1", "sourceCidrs": ["203.0.113.0/24"], "secretHeader": {"name": "x-stitcher-key", "value": "change-me-0123456789"}}"#;

#[utoipa::path(post, path = "/v1/stitchers", tag = "stitchers", summary = "Register a stitcher",
    description = "Its calls are recognised by their source address (and the secret header when one is set); at most 50 an account.",
    request_body(content = StitcherInput, example = json!(serde_json::from_str::<serde_json::Value>(EXAMPLE).unwrap_or_default())),
    responses((status = 201, description = "Registered (Location, ETag)", body = StitcherView, headers(("Location" = String), ("ETag" = String)))))]
async fn create(st: Within, a: Auth, body: JsonBody) -> AppResult<Response> {
    collection::create::<Stitcher>(st, a, body).await
}

#[utoipa::path(get, path = "/v1/stitchers", tag = "stitchers", summary = "List the account's stitchers",
    description = "Every stitcher, its secret header shown only as `secretHeaderSet`.",
    responses((status = 200, description = "Every stitcher, in the order registered", body = StitcherList)))]
async fn list(st: Within, a: Auth) -> AppResult<Response> {
    collection::list::<Stitcher>(st, a).await
}

#[utoipa::path(get, path = "/v1/stitchers/{id}", tag = "stitchers", summary = "Read a stitcher",
    description = "The stitcher with its ETag (for `If-Match` on PUT); another account's is 404.", params(("id" = String, Path, description = "The stitcher's id")),
    responses((status = 200, description = "The stitcher (its secret header only as secretHeaderSet)", body = StitcherView, headers(("ETag" = String)))))]
async fn get_one(st: Within, a: Auth, id: Path<String>) -> AppResult<Response> {
    collection::get_one::<Stitcher>(st, a, id).await
}

#[utoipa::path(put, path = "/v1/stitchers/{id}", tag = "stitchers", summary = "Replace a stitcher",
    description = "The record as GET shows it (read-only fields ignored); a left-out secretHeader is kept, null removes it.",
    params(("id" = String, Path, description = "The stitcher's id"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the stitcher changed since")),
    request_body(content = StitcherInput, example = json!(serde_json::from_str::<serde_json::Value>(EXAMPLE).unwrap_or_default())),
    responses((status = 200, description = "Replaced", body = StitcherView, headers(("ETag" = String)))))]
async fn replace(st: Within, a: Auth, id: Path<String>, headers: HeaderMap, body: JsonBody) -> AppResult<Response> {
    collection::replace::<Stitcher>(st, a, id, headers, body).await
}

#[utoipa::path(delete, path = "/v1/stitchers/{id}", tag = "stitchers", summary = "Remove a stitcher",
    description = "Its calls are anyone's again (within the delivery refresh).", params(("id" = String, Path, description = "The stitcher's id")),
    responses((status = 204, description = "Removed")))]
async fn remove(st: Within, a: Auth, id: Path<String>) -> AppResult<Response> {
    collection::remove::<Stitcher>(st, a, id).await
}
