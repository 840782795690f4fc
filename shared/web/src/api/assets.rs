//! Video assets (seed 000 §4.4a, §3; docs/goals-ads-assets.md), JSON.

use crate::api::Access;
use crate::api::Within;
use crate::rule::Rule;
use axum::extract::{Path, RawQuery, Request};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Json;

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{query_pairs, single, with_etag, Auth, MAX_BODY};
use crate::limits::MAX_ID_LEN;
use crate::model::asset::{self, Asset};
use crate::model::asset_write::{check_upload_name, parse_url_body};
use crate::state::AppState;
use crate::usecases::assets::{self, CreateAsset};

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(create, get_one, list, remove), tags((name = "assets", description = "Video assets")))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new().route("/v1/assets/video", Access::RECORDS, post(create).get(list)).route(
        "/v1/assets/video/{id}",
        Access::RECORDS,
        get(get_one).delete(remove),
    )
}

fn created(id: &str) -> Response {
    let mut res = StatusCode::CREATED.into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("/v1/assets/video/{id}")) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    res
}

/// `POST /v1/assets/video`: JSON `{name, downloadUri}` (download queued), or the bytes as
/// `application/octet-stream` with `?name=`.
#[utoipa::path(post, path = "/v1/assets/video", tag = "assets", summary = "Upload a video asset (by URL or as bytes)", description = "`POST /v1/assets/video`: JSON `{name, downloadUri}` (download queued), or the bytes as `application/octet-stream` with `?name=`.",
    params(("name" = inline(Option<crate::wire_schema::Name>), Query, description = "The file name (octet-stream uploads)")),
    request_body(content(
        (crate::model::asset_write::AssetUrlInput = "application/json", example = json!({"name": "spring.mp4", "downloadUri": "https://media.example/masters/spring.mp4"})),
        (Vec<u8> = "application/octet-stream", example = json!("<the video file's bytes>")),
    )),
    responses((status = 201, description = "Created (Location); a URL asset downloads in the background", headers(("Location" = String)))))]
async fn create(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery, req: Request) -> AppResult<Response> {
    let mt = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    match mt.as_str() {
        "application/json" => {
            let bytes = axum::body::to_bytes(req.into_body(), MAX_BODY).await.map_err(|_| AppError::PayloadTooLarge(MAX_BODY))?;
            let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| AppError::Malformed(format!("malformed JSON: {e}")))?;
            let input = parse_url_body(&v).map_err(AppError::Validation)?;
            let asset = assets::create(&st, &a.id, CreateAsset::FromUrl { name: input.name, uri: input.download_uri }).await?;
            Ok(created(&asset.id))
        }
        "application/octet-stream" => {
            let pairs = query_pairs(q.as_deref())?;
            let name = check_upload_name(single(&pairs, "name")?).map_err(|e| AppError::Validation(vec![e]))?;
            let max = st.settings.upload_max_bytes;
            let bytes = axum::body::to_bytes(req.into_body(), max).await.map_err(|_| AppError::PayloadTooLarge(max))?;
            if bytes.is_empty() {
                return Err(AppError::field("body", Rule::Required, "the upload is empty"));
            }
            let asset = assets::create(&st, &a.id, CreateAsset::Upload { name, bytes: bytes.to_vec() }).await?;
            Ok(created(&asset.id))
        }
        _ => Err(AppError::UnsupportedMediaType { expected: "application/json or application/octet-stream", got: mt }),
    }
}

#[utoipa::path(get, path = "/v1/assets/video/{id}", tag = "assets", summary = "A video asset's state, probe and renditions", params(("id" = String, Path)),
    responses((status = 200, description = "The asset", body = AssetView, headers(("ETag" = String)))))]
async fn get_one(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let v = assets::get(&st, &a.id, &id).await?;
    Ok(with_etag(Json(view(&st, &v.value)).into_response(), v.version()))
}

fn view<'a>(st: &AppState, x: &'a Asset) -> AssetView<'a> {
    AssetView {
        id: &x.id,
        name: &x.name,
        status: x.status,
        source: x.source,
        linked: x.linked,
        download_uri: x.download_uri.as_deref(),
        failure_reason: x.failure_reason.as_deref(),
        size: x.size,
        content_type: x.content_type.as_deref(),
        expires: if x.linked { None } else { x.expires },
        probe: x.probe.as_ref(),
        renditions: x.renditions.iter().map(|r| RenditionView { url: media_url(st, &r.key), rendition: r }).collect(),
        still: x.still.as_ref().map(|s| StillView { url: media_url(st, &s.key), width: s.width, height: s.height }),
        created: x.created,
        modified: x.modified,
    }
}

/// A page of assets.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetPage<'a> {
    /// The account's assets in id order (expired ones are gone), those of `status` when given.
    pub assets: Vec<AssetView<'a>>,
    /// Pass as `after` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_after: Option<String>,
}

#[utoipa::path(get, path = "/v1/assets/video", tag = "assets",
    summary = "List the account's video assets",
    description = "The account's assets in id order, a page at a time: `limit` records (1-200, default 100) after the id `after`; \
`nextAfter` continues. Unlinked assets past their expiry are not listed. `status` keeps those in the given states.",
    params(("after" = inline(Option<crate::wire_schema::Id>), Query, description = "List the assets whose id sorts after this one (the previous page's nextAfter); empty: the first page"),
        ("limit" = Option<u32>, Query, minimum = 1, maximum = 200, description = "Records per page (default 100)"),
        ("status" = Option<String>, Query, description = "PENDING, DOWNLOADING, READY, TRANSCODING, TRANSCODED, FAILED (comma-separated)")),
    responses((status = 200, description = "A page of assets", body = AssetPage)))]
async fn list(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let limit = match single(&pairs, "limit")? {
        None => 100,
        Some(v) => v
            .parse::<usize>()
            .ok()
            .filter(|n| (1..=assets::MAX_PAGE).contains(n))
            .ok_or_else(|| AppError::field("limit", Rule::Range, format!("limit is 1 to {} (got {v:?})", assets::MAX_PAGE)))?,
    };
    let mut states = Vec::new();
    for s in single(&pairs, "status")?.unwrap_or("").split(',').filter(|s| !s.is_empty()) {
        let parsed = <asset::AssetStatus as crate::wire_enum::WireEnum>::parse(s).ok_or_else(|| {
            AppError::field(
                "status",
                Rule::Enum,
                format!("status values are {} (got {s:?})", <asset::AssetStatus as crate::wire_enum::WireEnum>::NAMES.join(", ")),
            )
        })?;
        states.push(parsed);
    }
    // An empty `after` is the first page (DynamoDB refuses an empty key value); an id is
    // at most 64 characters, so a longer `after` is a mistake, not a position.
    let after = single(&pairs, "after")?.filter(|a| !a.is_empty());
    if after.is_some_and(|a| a.len() > MAX_ID_LEN) {
        return Err(AppError::field(
            "after",
            Rule::MaxLength,
            format!("after is an asset id (the previous page's nextAfter), at most {MAX_ID_LEN} characters"),
        ));
    }
    let (found, next_after) = assets::page(&st, &a.id, after, limit).await?;
    let shown: Vec<AssetView<'_>> =
        found.iter().filter(|x| states.is_empty() || states.contains(&x.status)).map(|x| view(&st, x)).collect();
    Ok(Json(AssetPage { assets: shown, next_after }).into_response())
}

#[utoipa::path(delete, path = "/v1/assets/video/{id}", tag = "assets", params(("id" = String, Path, description = "The asset's id")),
    summary = "Delete a video asset",
    description = "An asset no ad names is deleted: 404 from now on, and its master, renditions and still leave the bucket with its \
record. 409 names the ads whose creative uses it (delete them or link them to another asset first). Already served documents \
keep their media URLs until the objects are gone.",
    responses((status = 204, description = "Deleted")))]
async fn remove(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    assets::delete(&st, &a.id, &id).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

fn media_url(st: &AppState, key: &str) -> String {
    format!("{}/{key}", st.settings.media_base_url)
}

/// A rendition with where it is served.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct RenditionView<'a> {
    /// `MEDIA_BASE_URL/<key>`.
    pub url: String,
    #[serde(flatten)]
    pub rendition: &'a asset::Rendition,
}

/// The still (a pause ad's image) with where it is served.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct StillView {
    pub url: String,
    pub width: u32,
    pub height: u32,
}

/// An asset as `GET /v1/assets/video/{id}` shows it.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AssetView<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub status: asset::AssetStatus,
    /// `url` (downloaded by the service) or `upload`.
    pub source: crate::model::enums::AssetSource,
    /// An ad links it (then it never expires).
    pub linked: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub download_uri: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_type: Option<&'a str>,
    /// An unlinked asset is gone after this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expires: Option<chrono::DateTime<chrono::Utc>>,
    /// What the probe read of the master (from READY on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<&'a asset::Probe>,
    /// The web-playable files (once TRANSCODED), best first.
    pub renditions: Vec<RenditionView<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub still: Option<StillView>,
    pub created: chrono::DateTime<chrono::Utc>,
    pub modified: chrono::DateTime<chrono::Utc>,
}
