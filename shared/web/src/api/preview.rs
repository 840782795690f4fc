//! Creative preview (docs/operations-guide.md, "Show me the ad"): `GET /v3/ads/{id}/preview`
//! (API key) makes the links; `/v1/preview/{token}/vast.xml` and `/v1/preview/{token}/player`
//! (no key: the token is signed and expires) serve the document and the player page.

use crate::api::Access;
use crate::api::Within;
use axum::extract::{Path, RawQuery};
use axum::http::{header, HeaderValue};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;

use crate::api::error::{AppError, AppResult};
use crate::api::queries::params::Params;
use crate::api::Auth;
use crate::delivery::preview;
use crate::usecases::preview::{self as uc, PreviewLinks};

/// The link-making operation (the queries group).
#[derive(utoipa::OpenApi)]
#[openapi(paths(links), components(schemas(PreviewLinks)))]
pub struct Doc;

/// The preview's document and page (the serving group), in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(document, page, script, style), tags((name = "preview", description = "Signed, expiring previews of one ad: nothing they do is counted")))]
pub struct PublicDoc;

pub fn links_router() -> super::Routes {
    super::Routes::new().route("/v3/ads/{ad_id}/preview", Access::RECORDS, get(links))
}

pub fn public_router() -> super::Routes {
    super::Routes::new()
        .route("/v1/preview/{token}/vast.xml", Access::Public, get(document))
        .route("/v1/preview/{token}/player", Access::Public, get(page))
        .route("/v1/preview/player.js", Access::Public, get(script))
        .route("/v1/preview/player.css", Access::Public, get(style))
}

#[utoipa::path(get, path = "/v3/ads/{ad_id}/preview", tag = "queries", summary = "Preview links of an ad",
    description = "A signed VAST URL with exactly this ad (whatever its enabled flag, flight, targeting, caps or pacing) and a \
        player page that plays it, both working for 7 days without a key. Nothing they do is counted: not in metrics, pacing, \
        reports, frequency or revenue. 409 when the ad has nothing to play yet (its media is not transcoded, or a placeholder).",
    params(("ad_id" = String, Path, description = "The ad's id")),
    responses((status = 200, description = "The links", body = PreviewLinks),
        (status = 404, description = "No such ad in this account"),
        (status = 409, description = "The ad cannot play yet (the reason named)")))]
async fn links(Within(st): Within, Auth(a): Auth, Path(ad): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let p = Params::new(q.as_deref(), &[])?;
    if !p.errors.is_empty() {
        return Err(AppError::Validation(p.errors));
    }
    Ok(Json(uc::link(&st, &a.id, &ad).await?).into_response())
}

fn no_store(mut res: Response, content_type: &'static str) -> Response {
    let h = res.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    h.insert("x-robots-tag", HeaderValue::from_static("noindex"));
    h.insert("x-content-type-options", HeaderValue::from_static("nosniff"));
    h.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    res
}

#[utoipa::path(get, path = "/v1/preview/{token}/vast.xml", tag = "preview", summary = "A preview's VAST document",
    description = "VAST 3.0 with the one ad; its tracking links are a preview's (answered, never counted). 403 once expired.",
    params(("token" = String, Path, description = "The signed token of `GET /v3/ads/{ad_id}/preview`")), security(()),
    responses((status = 200, description = "The document", content_type = "application/xml", body = String),
        (status = 403, description = "Not a preview link of this service, or expired")))]
async fn document(Within(st): Within, Path(token): Path<String>) -> AppResult<Response> {
    let doc = uc::document(&st, &token).await?;
    let mut res = no_store(doc.into_response(), "application/xml");
    res.headers_mut().insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, HeaderValue::from_static("*"));
    Ok(res)
}

#[utoipa::path(get, path = "/v1/preview/{token}/player", tag = "preview", summary = "A preview's player page",
    description = "A static page (nothing from the request in it) under a strict Content-Security-Policy that plays the \
        preview's document. 403 once expired.",
    params(("token" = String, Path, description = "The signed token of `GET /v3/ads/{ad_id}/preview`")), security(()),
    responses((status = 200, description = "The page", content_type = "text/html", body = String),
        (status = 403, description = "Not a preview link of this service, or expired")))]
async fn page(Within(st): Within, Path(token): Path<String>) -> AppResult<Response> {
    uc::grant(&st, &token)?;
    let mut res = no_store(preview::PAGE.into_response(), "text/html; charset=utf-8");
    let csp = preview::csp(&st.settings.ad_request_base_url, &st.settings.media_base_url);
    if let Ok(v) = HeaderValue::from_str(&csp) {
        res.headers_mut().insert(header::CONTENT_SECURITY_POLICY, v);
    }
    res.headers_mut().insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    Ok(res)
}

#[utoipa::path(get, path = "/v1/preview/player.js", tag = "preview", summary = "The preview player's script", description = "Static: fetches the page's vast.xml, plays its first playable MediaFile and fires its tracking.", security(()),
    responses((status = 200, description = "The script (static)", content_type = "text/javascript", body = String)))]
async fn script() -> Response {
    no_store(preview::SCRIPT.into_response(), "text/javascript; charset=utf-8")
}

#[utoipa::path(get, path = "/v1/preview/player.css", tag = "preview", summary = "The preview player's style sheet", description = "Static.", security(()),
    responses((status = 200, description = "The style sheet (static)", content_type = "text/css", body = String)))]
async fn style() -> Response {
    no_store(preview::STYLE.into_response(), "text/css; charset=utf-8")
}
