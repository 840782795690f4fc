//! Programmatic demand (docs/programmatic.md), JSON: `/v1/demand-partners` and
//! `/v1/marketplaces` (`POST`/`GET`, and `GET`/`PUT`/`DELETE` on `/{id}`, `If-Match` on
//! PUT). A partner's auth header is write-only.

use crate::api::Access;
use crate::api::Within;
use axum::extract::Path;
use axum::http::HeaderMap;
use axum::response::Response;
use axum::routing::get;
use serde::Serialize;

use super::collection::{self, JsonCollection};
use crate::api::error::AppResult;
use crate::api::{Auth, JsonBody};
use crate::domain_error::DomainError;
use crate::model::demand_partner::{self, DemandPartner, DemandPartnerInput, DemandPartnerView};
use crate::model::marketplace::{self, Marketplace, MarketplaceInput};
use crate::state::AppState;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list_partners, create_partner, get_partner, replace_partner, remove_partner,
          list_marketplaces, create_marketplace, get_marketplace, replace_marketplace, remove_marketplace),
    tags((name = "demand", description = "Programmatic demand: OpenRTB 2.6 bidders (demand partners) and the marketplaces RTB and programmatic guaranteed goals are filled from"))
)]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v1/demand-partners", Access::ADMIN_WRITES, get(list_partners).post(create_partner))
        .route("/v1/demand-partners/{id}", Access::ADMIN_WRITES, get(get_partner).put(replace_partner).delete(remove_partner))
        .route("/v1/marketplaces", Access::ADMIN_WRITES, get(list_marketplaces).post(create_marketplace))
        .route("/v1/marketplaces/{id}", Access::ADMIN_WRITES, get(get_marketplace).put(replace_marketplace).delete(remove_marketplace))
}

/// The account's demand partners.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DemandPartnerList {
    /// Every partner, in the order created.
    pub demand_partners: Vec<DemandPartnerView>,
}

/// The account's marketplaces.
#[derive(Serialize, utoipa::ToSchema)]
pub struct MarketplaceList {
    /// Every marketplace, in the order created.
    pub marketplaces: Vec<Marketplace>,
}

impl JsonCollection for DemandPartner {
    const PATH: &'static str = "/v1/demand-partners";
    type View = DemandPartnerView;
    type List = DemandPartnerList;

    fn view(record: DemandPartner) -> DemandPartnerView {
        record.view()
    }
    fn list(demand_partners: Vec<DemandPartnerView>) -> DemandPartnerList {
        DemandPartnerList { demand_partners }
    }
    fn parse(st: &AppState, v: &serde_json::Value, path_id: Option<&str>) -> Result<DemandPartnerInput, DomainError> {
        demand_partner::parse_write(v, path_id, st.settings.demand_allow_private_urls).map_err(DomainError::Validation)
    }
}

impl JsonCollection for Marketplace {
    const PATH: &'static str = "/v1/marketplaces";
    type View = Marketplace;
    type List = MarketplaceList;

    fn view(record: Marketplace) -> Marketplace {
        record
    }
    fn list(marketplaces: Vec<Marketplace>) -> MarketplaceList {
        MarketplaceList { marketplaces }
    }
    fn parse(_: &AppState, v: &serde_json::Value, path_id: Option<&str>) -> Result<MarketplaceInput, DomainError> {
        marketplace::parse_write(v, path_id).map_err(DomainError::Validation)
    }
}

const PARTNER_EXAMPLE: &str = r#"{"name": "Acme DSP", "endpoint": "https://bid.acme-dsp.example/openrtb2", "timeoutMs": 150, "currency": "USD", "authHeader": {"name": "Authorization", "value": "Bearer change-me"}}"#;
const MARKETPLACE_EXAMPLE: &str = r#"{"name": "Premium video", "demandPartnerIds": ["9b2f0d7e-1c1a-4e53-9a51-3f0c5b6f7a10"], "auctionType": "SECOND_PRICE", "floorCpm": 4.5, "currency": "USD", "deals": [{"id": "acme-q4", "floorCpm": 12, "seats": ["seat-7"]}], "privateAuction": false, "blockedDomains": ["competitor.example"], "blockedCategories": ["IAB25"]}"#;

fn example(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_default()
}

#[utoipa::path(post, path = "/v1/demand-partners", tag = "demand", summary = "Add a demand partner",
    description = "An OpenRTB 2.6 bidder. Its endpoint is https and must resolve to public addresses only; at most 50 an account.",
    request_body(content = DemandPartnerInput, example = json!(example(PARTNER_EXAMPLE))),
    responses((status = 201, description = "Created (Location, ETag)", body = DemandPartnerView, headers(("Location" = String), ("ETag" = String)))))]
async fn create_partner(st: Within, a: Auth, body: JsonBody) -> AppResult<Response> {
    collection::create::<DemandPartner>(st, a, body).await
}

#[utoipa::path(get, path = "/v1/demand-partners", tag = "demand", summary = "List the account's demand partners",
    description = "Every partner, its auth header shown only as `authHeaderSet`.",
    responses((status = 200, description = "Every partner, in the order created", body = DemandPartnerList)))]
async fn list_partners(st: Within, a: Auth) -> AppResult<Response> {
    collection::list::<DemandPartner>(st, a).await
}

#[utoipa::path(get, path = "/v1/demand-partners/{id}", tag = "demand", summary = "Read a demand partner",
    description = "The partner with its ETag; another account's is 404.", params(("id" = String, Path, description = "The partner's id")),
    responses((status = 200, description = "The partner", body = DemandPartnerView, headers(("ETag" = String)))))]
async fn get_partner(st: Within, a: Auth, id: Path<String>) -> AppResult<Response> {
    collection::get_one::<DemandPartner>(st, a, id).await
}

#[utoipa::path(put, path = "/v1/demand-partners/{id}", tag = "demand", summary = "Replace a demand partner",
    description = "The record as GET shows it (read-only fields ignored); a left-out authHeader is kept, null removes it.",
    params(("id" = String, Path, description = "The partner's id"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the partner changed since")),
    request_body(content = DemandPartnerInput, example = json!(example(PARTNER_EXAMPLE))),
    responses((status = 200, description = "Replaced", body = DemandPartnerView, headers(("ETag" = String)))))]
async fn replace_partner(st: Within, a: Auth, id: Path<String>, headers: HeaderMap, body: JsonBody) -> AppResult<Response> {
    collection::replace::<DemandPartner>(st, a, id, headers, body).await
}

#[utoipa::path(delete, path = "/v1/demand-partners/{id}", tag = "demand", summary = "Remove a demand partner",
    description = "409 while a marketplace asks it.", params(("id" = String, Path, description = "The partner's id")),
    responses((status = 204, description = "Removed")))]
async fn remove_partner(st: Within, a: Auth, id: Path<String>) -> AppResult<Response> {
    collection::remove::<DemandPartner>(st, a, id).await
}

#[utoipa::path(post, path = "/v1/marketplaces", tag = "demand", summary = "Add a marketplace",
    description = "The partners a programmatic goal asks, the auction type, floors, deals and blocks; at most 20 an account.",
    request_body(content = MarketplaceInput, example = json!(example(MARKETPLACE_EXAMPLE))),
    responses((status = 201, description = "Created (Location, ETag)", body = Marketplace, headers(("Location" = String), ("ETag" = String)))))]
async fn create_marketplace(st: Within, a: Auth, body: JsonBody) -> AppResult<Response> {
    collection::create::<Marketplace>(st, a, body).await
}

#[utoipa::path(get, path = "/v1/marketplaces", tag = "demand", summary = "List the account's marketplaces",
    description = "Every marketplace with its partners, auction type, floors, deals and blocks.",
    responses((status = 200, description = "Every marketplace, in the order created", body = MarketplaceList)))]
async fn list_marketplaces(st: Within, a: Auth) -> AppResult<Response> {
    collection::list::<Marketplace>(st, a).await
}

#[utoipa::path(get, path = "/v1/marketplaces/{id}", tag = "demand", summary = "Read a marketplace",
    description = "The marketplace with its ETag; another account's is 404.", params(("id" = String, Path, description = "The marketplace's id")),
    responses((status = 200, description = "The marketplace", body = Marketplace, headers(("ETag" = String)))))]
async fn get_marketplace(st: Within, a: Auth, id: Path<String>) -> AppResult<Response> {
    collection::get_one::<Marketplace>(st, a, id).await
}

#[utoipa::path(put, path = "/v1/marketplaces/{id}", tag = "demand", summary = "Replace a marketplace",
    description = "The record as GET shows it (read-only fields ignored).",
    params(("id" = String, Path, description = "The marketplace's id"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the marketplace changed since")),
    request_body(content = MarketplaceInput, example = json!(example(MARKETPLACE_EXAMPLE))),
    responses((status = 200, description = "Replaced", body = Marketplace, headers(("ETag" = String)))))]
async fn replace_marketplace(st: Within, a: Auth, id: Path<String>, headers: HeaderMap, body: JsonBody) -> AppResult<Response> {
    collection::replace::<Marketplace>(st, a, id, headers, body).await
}

#[utoipa::path(delete, path = "/v1/marketplaces/{id}", tag = "demand", summary = "Remove a marketplace",
    description = "Goals that name it then serve nothing, and their campaign's notifications say so.", params(("id" = String, Path, description = "The marketplace's id")),
    responses((status = 204, description = "Removed")))]
async fn remove_marketplace(st: Within, a: Auth, id: Path<String>) -> AppResult<Response> {
    collection::remove::<Marketplace>(st, a, id).await
}
