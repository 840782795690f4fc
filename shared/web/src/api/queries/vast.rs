//! VAST URL export (seed 000 §4.10): the ad-request URL a player or a third-party ad
//! server calls for one ad, targeted at a category or a content partner.

use crate::api::Within;
use crate::rule::Rule;
use axum::extract::{Path, RawQuery};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{query_pairs, single, Auth};
use crate::model::enums::{ResponseTypeName, WireEnum};
use crate::usecases::vast_export::{self, VastTarget};

/// The answer of the VAST URL export.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VastUrl {
    /// The ad's format (preroll, midroll, overlay, ...).
    pub format_type: String,
    /// The ad request URL; the caller replaces [RANDOM_NUMBER].
    pub vast_url: String,
}

/// `GET /v3/ads/{adId}/vasturl/category/{id}` and `.../content-partner/{id}`, `rt`.
#[utoipa::path(get, path = "/v3/ads/{ad_id}/vasturl/{kind}/{id}", tag = "queries",
    params(("ad_id" = String, Path), ("kind" = String, Path, description = "category or content-partner"), ("id" = String, Path),
        ("rt" = Option<ResponseTypeName>, Query, description = "The document the URL asks for: VAST_2_0, VAST_2_0_1, VAST_3_0 (default), VAST_4_2, VMAP_1_0")),
    responses((status = 200, description = "The ad request URL", body = VastUrl)))]
pub(super) async fn vast_url(
    Within(st): Within,
    Auth(a): Auth,
    Path((ad_id, kind, id)): Path<(String, String, String)>,
    RawQuery(q): RawQuery,
) -> AppResult<Response> {
    let Some(target) = VastTarget::parse(&kind) else { return Err(AppError::NoRoute(format!("/v3/ads/{ad_id}/vasturl/{kind}/{id}"))) };
    let pairs = query_pairs(q.as_deref())?;
    let rt = match single(&pairs, "rt")? {
        None => ResponseTypeName::Vast30,
        Some(v) => ResponseTypeName::parse(v).ok_or_else(|| {
            AppError::field("rt", Rule::Enum, format!("rt must be one of {} (got {v:?})", ResponseTypeName::NAMES.join(", ")))
        })?,
    };
    let e = vast_export::export(&st, &a.id, &ad_id, target, &id, rt).await?;
    Ok(Json(VastUrl { format_type: e.format.to_string(), vast_url: e.url }).into_response())
}
