//! VAST URL export (seed 000 §4.10): the ad-request URL a player or a third-party ad
//! server calls for one ad, targeted at a category or a content partner.

use crate::rule::Rule;
use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{query_pairs, single, Auth};
use crate::model::ad::Ad;
use crate::model::enums::{ResponseTypeName, WireEnum};
use crate::repo;
use crate::repo::reference::Kind;
use crate::state::AppState;

/// The token the caller replaces with a random number (cache busting).
pub const RANDOM_TOKEN: &str = "[RANDOM_NUMBER]";

/// Everything but RFC 3986's unreserved characters is encoded.
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, QUERY_VALUE).to_string()
}

/// The ad request URL a player or a third-party ad server calls for this ad
/// (docs/queries.md): account, ad, the targeted category or content partner, format, the
/// response type, and the random-number token.
pub fn build_vast_url(base: &str, account: &str, ad: &Ad, target: (&str, &str), rt: ResponseTypeName) -> String {
    format!(
        "{base}/v1/adrequest?account={}&ad={}&{}={}&format={}&rt={}&rnd={RANDOM_TOKEN}",
        encode(account),
        encode(&ad.id),
        target.0,
        encode(target.1),
        encode(ad.creative.format().as_str()),
        rt.as_str().to_ascii_lowercase()
    )
}

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
    State(st): State<AppState>,
    Auth(a): Auth,
    Path((ad_id, kind, id)): Path<(String, String, String)>,
    RawQuery(q): RawQuery,
) -> AppResult<Response> {
    let (ref_kind, param, what) = match kind.as_str() {
        "category" => (Kind::Category, "category", "category"),
        "content-partner" => (Kind::ContentPartner, "contentPartner", "content partner"),
        _ => return Err(AppError::NoRoute(format!("/v3/ads/{ad_id}/vasturl/{kind}/{id}"))),
    };
    let pairs = query_pairs(q.as_deref())?;
    let rt = match single(&pairs, "rt")? {
        None => ResponseTypeName::Vast30,
        Some(v) => ResponseTypeName::parse(v).ok_or_else(|| {
            AppError::field("rt", Rule::Enum, format!("rt must be one of {} (got {v:?})", ResponseTypeName::NAMES.join(", ")))
        })?,
    };
    let ad = repo::ads::load_live(st.store.as_ref(), &a.id, &ad_id).await?.0.value;
    if !repo::reference::exists(st.store.as_ref(), &a.id, ref_kind, &id).await? {
        return Err(AppError::not_found(what, &id));
    }
    let url = build_vast_url(&st.settings.ad_request_base_url, &a.id, &ad, (param, &id), rt);
    Ok(Json(VastUrl { format_type: ad.creative.format().as_str().to_string(), vast_url: url }).into_response())
}
