//! Ads, `/v1/ads` (seed 000 §2.1-§2.4, §3, §4.1-§4.4; docs/goals-ads-assets.md), JSON.

use crate::rule::Rule;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;
use chrono::{DateTime, Utc};
use serde_json::Value;

use crate::api::error::AppError;
use crate::api::error::{AppResult, FieldError};
use crate::api::{if_match, query_pairs, single, with_etag, Auth, JsonBody};
use crate::ids::new_id;
use crate::model::ad::{parse_patch, parse_write, Ad, AdInput, Tracker};
use crate::model::enums::TrackerEvent;
use crate::model::goal::Goal;
use crate::repo;
use crate::repo::reference::Kind;
use crate::state::AppState;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(list, create, replace, modify, get_one, remove), tags((name = "ads", description = "Ads inside goals (seed 000 §2)")))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v1/ads", get(list).post(create).put(replace).patch(modify))
        .route("/v1/ads/{id}", get(get_one).delete(remove))
}

fn trackers(input: &[(String, TrackerEvent)], previous: &[Tracker]) -> Vec<Tracker> {
    input
        .iter()
        .map(|(url, event)| {
            let id = previous.iter().find(|t| &t.url == url && t.event == *event).map(|t| t.id.clone()).unwrap_or_else(new_id);
            Tracker { id, url: url.clone(), event: *event }
        })
        .collect()
}

fn build(id: String, i: &AdInput, prev: Option<&Ad>, now: DateTime<Utc>) -> Ad {
    let creative_modified = match prev {
        Some(p) if p.creative == i.creative => p.creative_modified,
        _ => now,
    };
    Ad {
        id,
        goal_id: i.goal_id.clone(),
        name: i.name.clone(),
        custom_id: i.custom_id.clone(),
        description: i.description.clone(),
        enabled: i.enabled.unwrap_or(false),
        weight: i.weight,
        creative: i.creative.clone(),
        start: i.start,
        end: i.end,
        external_trackers: trackers(&i.external_trackers, prev.map(|p| p.external_trackers.as_slice()).unwrap_or(&[])),
        device_containers: i.device_containers.clone(),
        created: prev.map_or(now, |p| p.created),
        modified: now,
        creative_modified,
    }
}

async fn render(st: &AppState, account: &str, ad: &Ad, goal: &Goal, status: StatusCode, version: u64) -> AppResult<Response> {
    // The account's containers are shown only for an ad that names none of its own.
    let all = match ad.device_containers {
        Some(_) => Vec::new(),
        None => repo::reference::ids(st.store.as_ref(), account, Kind::DeviceContainer).await?,
    };
    let mut res = (status, Json(ad.view(goal, &all))).into_response();
    if status == StatusCode::CREATED {
        if let Ok(v) = HeaderValue::from_str(&format!("/v1/ads/{}", ad.id)) {
            res.headers_mut().insert(header::LOCATION, v);
        }
    }
    Ok(with_etag(res, version))
}

#[utoipa::path(post, path = "/v1/ads", tag = "ads", summary = "Create an ad in a goal", request_body(content = super::bodies::AdWrite, example = json!({"name": "Spring spot", "goalId": "<goal id>", "enabled": true, "weight": 50, "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": "<asset id>", "clickDestinationUri": "https://example.com/spring"}, "externalTrackers": [{"url": "https://t.example/imp", "event": "IMPRESSION"}]})),
    responses((status = 201, description = "Created (Location, ETag)", body = crate::model::ad::AdView,
        headers(("Location" = String), ("ETag" = String)))))]
async fn create(State(st): State<AppState>, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    let input = parse_write(&v).map_err(AppError::Validation)?;
    if input.id.is_some() {
        return Err(AppError::field("id", Rule::NotOnCreate, "id is set only when replacing or modifying; the service assigns ids"));
    }
    let id = new_id();
    let now = st.clock.now();
    let (ad, goal) = repo::ads::create(st.store.as_ref(), &a.id, &input.goal_id, now, || build(id.clone(), &input, None, now)).await?;
    tracing::info!(ad = %id, goal = %input.goal_id, "ad created");
    crate::usecases::assets::transcode_linked(&st, &a.id, ad.creative.asset_id.as_deref()).await;
    render(&st, &a.id, &ad, &goal, StatusCode::CREATED, 1).await
}

#[utoipa::path(put, path = "/v1/ads", tag = "ads", summary = "Replace an ad", request_body(content = super::bodies::AdWrite, example = json!({"id": "<ad id>", "name": "Spring spot", "goalId": "<goal id>", "enabled": true, "weight": 50, "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": "<asset id>", "clickDestinationUri": "https://example.com/spring"}, "externalTrackers": [{"url": "https://t.example/imp", "event": "IMPRESSION"}]})),
    params(("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the ad changed since")),
    responses((status = 200, description = "Replaced", body = crate::model::ad::AdView, headers(("ETag" = String)))))]
async fn replace(State(st): State<AppState>, Auth(a): Auth, headers: HeaderMap, JsonBody(v): JsonBody) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    // Found in the caller's account (404) before the body is validated.
    let Some(id) = v.get("id").and_then(Value::as_str).map(str::to_string) else {
        return Err(AppError::field("id", Rule::Required, "id is required: PUT /v1/ads carries the ad's id in the body"));
    };
    let cur = repo::ads::load_live(st.store.as_ref(), &a.id, &id).await?;
    let input = parse_write(&v).map_err(AppError::Validation)?;
    let now = st.clock.now();
    let written = repo::ads::update(st.store.as_ref(), &a.id, cur, expected, now, |stored| {
        if input.goal_id != stored.goal_id {
            return Err(repo::RepoError::field(
                "goalId",
                Rule::Immutable,
                "goalId cannot change: an ad stays in its goal (create a new ad instead)",
            ));
        }
        Ok(Some(build(id.clone(), &input, Some(stored), now)))
    })
    .await?;
    match written {
        Some((ad, goal, version)) => {
            crate::usecases::assets::transcode_linked(&st, &a.id, ad.creative.asset_id.as_deref()).await;
            render(&st, &a.id, &ad, &goal, StatusCode::OK, version).await
        }
        None => Err(repo::conflict().into()),
    }
}

#[utoipa::path(patch, path = "/v1/ads", tag = "ads", summary = "Change some fields of an ad", request_body(content = super::bodies::AdPatch, example = json!({"id": "<ad id>", "enabled": false, "weight": null})),
    params(("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the ad changed since")),
    responses((status = 200, description = "Modified (no body)")))]
async fn modify(State(st): State<AppState>, Auth(a): Auth, headers: HeaderMap, JsonBody(v): JsonBody) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    // Found in the caller's account (404) before the body is validated.
    let Some(id) = v.get("id").and_then(Value::as_str).map(str::to_string) else {
        return Err(parse_patch(&v)
            .err()
            .map(AppError::Validation)
            .unwrap_or_else(|| AppError::field("id", Rule::Required, "id is required")));
    };
    let cur = repo::ads::load_live(st.store.as_ref(), &a.id, &id).await?;
    let p = parse_patch(&v).map_err(AppError::Validation)?;
    let now = st.clock.now();
    repo::ads::update(st.store.as_ref(), &a.id, cur, expected, now, |stored| {
        let mut ad = stored.clone();
        if let Some(n) = &p.name {
            ad.name = n.clone();
        }
        if let Some(c) = &p.custom_id {
            ad.custom_id = c.clone();
        }
        if let Some(d) = &p.description {
            ad.description = d.clone();
        }
        if let Some(e) = p.enabled {
            ad.enabled = e;
        }
        if let Some(s) = p.start {
            ad.start = s;
        }
        if let Some(e) = p.end {
            ad.end = e;
        }
        if let Some(w) = p.weight {
            ad.weight = w;
        }
        if &ad == stored {
            // A body with only the id (or no change) changes nothing.
            return Ok(None);
        }
        ad.modified = now;
        Ok(Some(ad))
    })
    .await?;
    Ok(StatusCode::OK.into_response())
}

#[utoipa::path(get, path = "/v1/ads/{id}", tag = "ads", summary = "Read an ad", params(("id" = String, Path)),
    responses((status = 200, description = "The ad", body = crate::model::ad::AdView, headers(("ETag" = String)))))]
async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let (ad, goal) = repo::ads::load_live(st.store.as_ref(), &a.id, &id).await?;
    render(&st, &a.id, &ad.value, &goal.value, StatusCode::OK, ad.version()).await
}

/// `DELETE /v1/ads/{id}`: the ad stops serving at once (the next snapshot leaves it out).
#[utoipa::path(delete, path = "/v1/ads/{id}", tag = "ads", params(("id" = String, Path, description = "The ad's id")),
    summary = "Delete an ad",
    description = "Removes the ad and its goal's reference to it in one conditional write (If-Match: the ETag of GET /v1/ads/{id}; 412 when it \
changed). It stops serving with the next ad request. What it delivered stays in its goal's and campaign's /v3 metrics; its own \
/v3/ads/{id} is 404 from then on. Its asset is not deleted (DELETE /v1/assets/video/{id}). Events of documents served before the \
delete still count. 404: no such ad in this account.",
    responses((status = 204, description = "Deleted")))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, headers: HeaderMap, Path(id): Path<String>) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    let ad = repo::ads::remove(st.store.as_ref(), &a.id, &id, expected).await?;
    tracing::info!(ad = %ad.id, goal = %ad.goal_id, "ad deleted");
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
async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let mut errors = Vec::new();
    let after = date_param(&pairs, "created.after", &mut errors)?;
    let before = date_param(&pairs, "created.before", &mut errors)?;
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    let ads = repo::ads::newest(st.store.as_ref(), &a.id, after, before).await?;
    let items: Vec<_> = ads.iter().map(Ad::list_item).collect();
    Ok(Json(items).into_response())
}
