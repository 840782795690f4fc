//! Ads, `/v1/ads` (seed 000 §2.1-§2.4, §3, §4.1-§4.4; docs/goals-ads-assets.md), JSON.

use crate::api::Access;
use crate::api::Within;
use crate::rule::Rule;
use axum::extract::{Path, RawQuery};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;
use chrono::{DateTime, Utc};

use crate::api::error::AppError;
use crate::api::error::{AppResult, FieldError};
use crate::api::{if_match, query_pairs, single, with_etag, Auth, JsonBody};
use crate::model::ad::Ad;
use crate::model::ad_write::{parse_modify, parse_replace, parse_write};
use crate::usecases::ads::{self, Shown};

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(list, create, replace, modify, get_one, remove), tags((name = "ads", description = "Ads inside goals")))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new().route("/v1/ads", Access::RECORDS, get(list).post(create).put(replace).patch(modify)).route(
        "/v1/ads/{id}",
        Access::RECORDS,
        get(get_one).delete(remove),
    )
}

fn render(s: &Shown, status: StatusCode) -> Response {
    let mut res = (status, Json(s.ad.view(&s.goal, &s.containers))).into_response();
    if status == StatusCode::CREATED {
        if let Ok(v) = HeaderValue::from_str(&format!("/v1/ads/{}", s.ad.id)) {
            res.headers_mut().insert(header::LOCATION, v);
        }
    }
    with_etag(res, s.version)
}

#[utoipa::path(post, path = "/v1/ads", tag = "ads", summary = "Create an ad in a goal", request_body(content = crate::model::ad_write::AdInput, example = json!({"name": "Spring spot", "goalId": "<goal id>", "enabled": true, "weight": 50, "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": "<asset id>", "clickDestinationUri": "https://example.com/spring"}, "externalTrackers": [{"url": "https://t.example/imp", "event": "IMPRESSION"}]})),
    responses((status = 201, description = "Created (Location, ETag)", body = crate::model::ad::AdView,
        headers(("Location" = String), ("ETag" = String)))))]
async fn create(Within(st): Within, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    let input = parse_write(&v).map_err(AppError::Validation)?;
    let shown = ads::create(&st, &a.id, input).await?;
    Ok(render(&shown, StatusCode::CREATED))
}

#[utoipa::path(put, path = "/v1/ads", tag = "ads", summary = "Replace an ad", request_body(content = crate::model::ad_write::AdInput, example = json!({"id": "<ad id>", "name": "Spring spot", "goalId": "<goal id>", "enabled": true, "weight": 50, "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": "<asset id>", "clickDestinationUri": "https://example.com/spring"}, "externalTrackers": [{"url": "https://t.example/imp", "event": "IMPRESSION"}]})),
    params(("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the ad changed since")),
    responses((status = 200, description = "Replaced", body = crate::model::ad::AdView, headers(("ETag" = String)))))]
async fn replace(Within(st): Within, Auth(a): Auth, headers: HeaderMap, JsonBody(v): JsonBody) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    let shown = ads::replace(&st, &a.id, parse_replace(&v)?, expected).await?;
    Ok(render(&shown, StatusCode::OK))
}

#[utoipa::path(patch, path = "/v1/ads", tag = "ads", summary = "Change some fields of an ad", request_body(content = crate::model::ad_write::AdPatch, example = json!({"id": "<ad id>", "enabled": false, "weight": null})),
    params(("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the ad changed since")),
    responses((status = 200, description = "Modified (no body)")))]
async fn modify(Within(st): Within, Auth(a): Auth, headers: HeaderMap, JsonBody(v): JsonBody) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    ads::modify(&st, &a.id, parse_modify(&v)?, expected).await?;
    Ok(StatusCode::OK.into_response())
}

#[utoipa::path(get, path = "/v1/ads/{id}", tag = "ads", summary = "Read an ad", params(("id" = String, Path)),
    responses((status = 200, description = "The ad", body = crate::model::ad::AdView, headers(("ETag" = String)))))]
async fn get_one(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    Ok(render(&ads::get(&st, &a.id, &id).await?, StatusCode::OK))
}

/// `DELETE /v1/ads/{id}`: the ad stops serving at once (the next snapshot leaves it out).
#[utoipa::path(delete, path = "/v1/ads/{id}", tag = "ads", params(("id" = String, Path, description = "The ad's id")),
    summary = "Delete an ad",
    description = "Removes the ad and its goal's reference to it in one conditional write (If-Match: the ETag of GET /v1/ads/{id}; 412 when it \
changed). It stops serving with the next ad request. What it delivered stays in its goal's and campaign's /v3 metrics; its own \
/v3/ads/{id} is 404 from then on. Its asset is not deleted (DELETE /v1/assets/video/{id}). Events of documents served before the \
delete still count. 404: no such ad in this account.",
    responses((status = 204, description = "Deleted")))]
async fn remove(Within(st): Within, Auth(a): Auth, headers: HeaderMap, Path(id): Path<String>) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    ads::remove(&st, &a.id, &id, expected).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

fn date_param(pairs: &[(String, String)], name: &str, errors: &mut Vec<FieldError>) -> AppResult<Option<DateTime<Utc>>> {
    Ok(match single(pairs, name)? {
        None => None,
        Some(v) => match DateTime::parse_from_rfc3339(v) {
            Ok(d) => Some(d.with_timezone(&Utc)),
            Err(_) => {
                errors.push(FieldError::new(
                    name,
                    Rule::DateTime,
                    format!("query parameter {name} must be an ISO-8601 date-time (got {v:?})"),
                ));
                None
            }
        },
    })
}

/// `GET /v1/ads?created.after=&created.before=`: the newest ads first, from at most 100
/// goals of the account (ads of deleted goals or campaigns left out).
#[utoipa::path(get, path = "/v1/ads", tag = "ads", summary = "List the account's newest ads", description = "`GET /v1/ads?created.after=&created.before=`: the newest ads first, from at most 100 goals of the account (ads of deleted goals or campaigns left out).",
    params(("created.after" = Option<chrono::DateTime<chrono::Utc>>, Query), ("created.before" = Option<chrono::DateTime<chrono::Utc>>, Query)),
    responses((status = 200, description = "The newest ads first (at most 1,000)", body = Vec<crate::model::ad::AdListItem>)))]
async fn list(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let mut errors = Vec::new();
    let after = date_param(&pairs, "created.after", &mut errors)?;
    let before = date_param(&pairs, "created.before", &mut errors)?;
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    let found = ads::newest(&st, &a.id, after, before).await?;
    let items: Vec<_> = found.iter().map(Ad::list_item).collect();
    Ok(Json(items).into_response())
}
