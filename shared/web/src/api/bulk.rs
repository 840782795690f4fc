//! Bulk edits (docs/operations-guide.md, "Bulk edits"), JSON: `POST /v1/goals/bulk` and
//! `POST /v1/ads/bulk` with `{ids, set}`, and `POST /v1/campaigns/{id}/duplicate`. All or nothing: 200 with every record's new
//! version, or 400/409 listing every failing record (`errors[].field` names it:
//! `ids[3]`, `goals[<id>].end`) and nothing changed.

use crate::api::Access;
use crate::api::Within;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Json;
use serde::Serialize;

use crate::api::error::AppResult;
use crate::api::{Auth, JsonBody};
use crate::model::bulk;
use crate::usecases;
use crate::usecases::duplicate::Duplicated;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(goals, ads, duplicate), components(schemas(Edited, Version, Duplicated)))]
pub struct Doc;

pub fn goals_router() -> super::Routes {
    super::Routes::new().route("/v1/goals/bulk", Access::RECORDS, post(goals)).route(
        "/v1/campaigns/{id}/duplicate",
        Access::RECORDS,
        post(duplicate),
    )
}

pub fn ads_router() -> super::Routes {
    super::Routes::new().route("/v1/ads/bulk", Access::RECORDS, post(ads))
}

/// One record's new version (its ETag).
#[derive(Serialize, utoipa::ToSchema)]
pub struct Version {
    /// The record's id.
    pub id: String,
    /// Its version after the edit (the ETag a later `If-Match` names).
    pub version: u64,
}

/// What a bulk edit changed, in the order of `ids`.
#[derive(Serialize, utoipa::ToSchema)]
pub struct Edited {
    /// Every record named, with its new version.
    pub records: Vec<Version>,
}

fn edited(done: Vec<(String, u64)>) -> Response {
    Json(Edited { records: done.into_iter().map(|(id, version)| Version { id, version }).collect() }).into_response()
}

#[utoipa::path(post, path = "/v1/goals/bulk", tag = "changes", summary = "Edit many goals at once",
    description = "Sets start, end (null: none), priority (null: the campaign's), caps (null or []: none) and enabled on up to 50 \
        goals in one transaction: all or nothing. Each goal and its change record are two of DynamoDB's 100 writes a transaction, \
        and each campaign whose goals' dates move one more, so an edit of dates holds at most (100 - campaigns) / 2 goals. Every \
        failing goal is listed (its field and rule), and nothing changes.",
    request_body(content = bulk::GoalsBulk, example = json!({"ids": ["7d1c2f7e-4d0b-4b36-9c8e-2f1d3a4b5c6d", "0b5e7a31-2c4f-4d8e-9a1b-3c5d7e9f1a2b"], "set": {"end": "2027-01-31T23:59:59Z", "priority": 7}})),
    responses((status = 200, description = "Every goal edited, with its new version", body = Edited),
        (status = 400, description = "The body, or one or more goals: every failing goal listed; nothing changed"),
        (status = 409, description = "The goals kept changing under the edit; nothing changed")))]
async fn goals(Within(st): Within, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    let (ids, set) = bulk::parse_goals(&v)?;
    Ok(edited(usecases::bulk::goals(&st, &a.id, &ids, &set).await?))
}

#[utoipa::path(post, path = "/v1/ads/bulk", tag = "changes", summary = "Edit many ads at once",
    description = "Sets enabled, weight (null: an even share), start and end (null: the goal's) on up to 50 ads in one \
        transaction: all or nothing. Each ad and its change record are two writes, and each of their goals one more (its ad \
        summaries): at most (100 - goals) / 2 ads. Each ad is checked within its goal as the edit leaves it (dates within the \
        goal's, explicit weights summing to at most 100).",
    request_body(content = bulk::AdsBulk, example = json!({"ids": ["5a0c9b8e-7d6f-4e3a-8b2c-1d0e9f8a7b6c"], "set": {"enabled": false}})),
    responses((status = 200, description = "Every ad edited, with its new version", body = Edited),
        (status = 400, description = "The body, or one or more ads: every failing ad listed; nothing changed"),
        (status = 409, description = "The ads kept changing under the edit; nothing changed")))]
async fn ads(Within(st): Within, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    let (ids, set) = bulk::parse_ads(&v)?;
    Ok(edited(usecases::bulk::ads(&st, &a.id, &ids, &set).await?))
}

#[utoipa::path(post, path = "/v1/campaigns/{id}/duplicate", tag = "changes", summary = "Duplicate a campaign",
    description = "A new campaign with copies of the campaign's live goals, their ads, and the campaign's and goals' rules \
        (targeting and frequency caps). Every copy is disabled, and every date is moved by `shiftDays` (-3660 to 3660, default \
        0). Ads keep their assets: nothing is transcoded again. No metrics are copied. `name` defaults to the original's \
        followed by \" (copy)\".",
    params(("id" = String, Path, description = "The campaign to copy")),
    request_body(content = bulk::DuplicateBody, example = json!({"name": "Spring 2027", "shiftDays": 365})),
    responses((status = 201, description = "The copy (Location: its XML resource)", body = Duplicated, headers(("Location" = String))),
        (status = 400, description = "name or shiftDays invalid (the field and rule named)"),
        (status = 404, description = "No such campaign in this account")))]
async fn duplicate(
    Within(st): Within,
    Auth(a): Auth,
    axum::extract::Path(id): axum::extract::Path<String>,
    JsonBody(v): JsonBody,
) -> AppResult<Response> {
    let body = bulk::parse_duplicate(&v)?;
    let d = usecases::duplicate::campaign(&st, &a.id, &id, body.name, body.shift_days).await?;
    let loc = format!("/api/1.0/campaign/by_campaign_id;id={}", d.campaign_id);
    Ok((axum::http::StatusCode::CREATED, [(axum::http::header::LOCATION, loc)], Json(d)).into_response())
}
