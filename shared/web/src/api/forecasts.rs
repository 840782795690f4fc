//! Forecast jobs (seed 002 §4.2, docs/forecasts.md): create (202 + Location), status (200,
//! or 201 + Location of the report), cancel, the two reports and their SVG charts.

use crate::api::Access;
use crate::api::Within;
use crate::rule::Rule;
use axum::extract::{Path, RawQuery};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Json;

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{query_pairs, single, Auth, JsonBody, Routes};
use crate::charts::frame as chart;
use crate::forecast::report_schema::Report;
use crate::model::enums::{ForecastKind, ForecastStatus};
use crate::usecases::forecast::{self, Submit, Submitted};

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(create_campaign, create_inventory, status, cancel, report_json, chart),
    tags((name = "forecast", description = "Forecast jobs and reports"))
)]
pub struct Doc;

pub fn router() -> Routes {
    Routes::new()
        .route("/api/2.0/forecast/campaign", Access::VIEWER, post(create_campaign))
        .route("/api/2.0/forecast/inventory", Access::VIEWER, post(create_inventory))
        .route("/api/2.0/forecast/job/{id}", Access::RECORDS, get(status))
        .route("/api/2.0/forecast/job/{id}/cancel", Access::VIEWER, post(cancel))
        .route("/api/2.0/forecast/report/{kind}/{id}", Access::RECORDS, get(report_json))
        .route("/api/2.0/forecast/report/{kind}/{id}/chart.svg", Access::RECORDS, get(chart))
}

fn accepted(s: Submitted) -> Response {
    (StatusCode::ACCEPTED, [(header::LOCATION, s.location())]).into_response()
}

#[utoipa::path(post, path = "/api/2.0/forecast/campaign", tag = "forecast", summary = "Start a campaign (delivery) forecast job", request_body(content = crate::forecast::request_body::CampaignForecastBody, example = json!({"campaign": {"name": "Spring", "advertiser": "Acme", "priority": 5, "goals": [{"name": "News pre-rolls", "startDate": "2026-12-01T00:00:00.000Z", "endDate": "2026-12-08T00:00:00.000Z", "variant": "NORMAL", "deliveryGoal": {"type": "IMPRESSION", "value": 1000000}, "targeting": {"targetingRules": {"categoryRules": [{"categoryId": "demo-alpha-cat-news", "ruleType": "AT_LEAST_ONE_OF"}]}}, "ads": [{"name": "Spot", "format": "preroll_standard", "deviceContainers": ["demo-alpha-dc-desktop"]}]}]}})),
    responses((status = 202, description = "Queued (Location: the job)", headers(("Location" = String)))))]
async fn create_campaign(Within(st): Within, Auth(a): Auth, JsonBody(body): JsonBody) -> AppResult<Response> {
    Ok(accepted(forecast::submit(&st, Submit { account: &a.id, kind: ForecastKind::Campaign, body: &body }).await?))
}

#[utoipa::path(post, path = "/api/2.0/forecast/inventory", tag = "forecast", summary = "Start an inventory forecast job", request_body(content = crate::forecast::request_body::InventoryForecastBody, example = json!({"name": "Sports inventory", "variant": "NORMAL", "startDate": "2026-12-01T00:00:00.000Z", "endDate": "2026-12-08T00:00:00.000Z", "formatTypes": ["PREROLL", "MIDROLL"], "targeting": {"targetingTemplates": null, "targetingRules": {"categoryRules": [{"categoryId": "demo-alpha-cat-sports", "ruleType": "AT_LEAST_ONE_OF"}]}}})),
    responses((status = 202, description = "Queued (Location: the job)", headers(("Location" = String)))))]
async fn create_inventory(Within(st): Within, Auth(a): Auth, JsonBody(body): JsonBody) -> AppResult<Response> {
    Ok(accepted(forecast::submit(&st, Submit { account: &a.id, kind: ForecastKind::Inventory, body: &body }).await?))
}

#[utoipa::path(get, path = "/api/2.0/forecast/job/{id}", tag = "forecast", summary = "A forecast job's status", params(("id" = String, Path)),
    responses((status = 200, description = "Queued, running, failed or cancelled", body = crate::repo::forecasts::JobStatus),
        (status = 201, description = "Finished (Location: the report)", body = crate::repo::forecasts::JobStatus, headers(("Location" = String)))))]
async fn status(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let job = forecast::status(&st, &a.id, &id).await?;
    if job.status == ForecastStatus::Finished {
        return Ok((StatusCode::CREATED, [(header::LOCATION, job.report_path())], Json(job.status())).into_response());
    }
    Ok(Json(job.status()).into_response())
}

#[utoipa::path(post, path = "/api/2.0/forecast/job/{id}/cancel", tag = "forecast", summary = "Cancel a forecast job", params(("id" = String, Path)),
    responses((status = 200, description = "Cancelled")))]
async fn cancel(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    forecast::cancel(&st, &a.id, &id).await?;
    Ok(StatusCode::OK.into_response())
}

/// The report kind in the path (another word: no such route).
fn report_kind(kind: &str, id: &str) -> AppResult<ForecastKind> {
    ForecastKind::parse(kind).ok_or_else(|| AppError::NoRoute(format!("/api/2.0/forecast/report/{kind}/{id}")))
}

#[utoipa::path(get, path = "/api/2.0/forecast/report/{kind}/{id}", tag = "forecast", summary = "A finished forecast's report",
    params(("kind" = String, Path, description = "campaign or inventory (the job's)"), ("id" = String, Path),
        ("exclude-competing-goals" = Option<bool>, Query)),
    responses((status = 200, description = "The report of a finished job", body = crate::forecast::report_schema::Report)))]
async fn report_json(
    Within(st): Within,
    Auth(a): Auth,
    Path((kind, id)): Path<(String, String)>,
    RawQuery(q): RawQuery,
) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let exclude = match single(&pairs, "exclude-competing-goals")? {
        None | Some("false") => false,
        Some("true") => true,
        Some(v) => {
            return Err(AppError::field(
                "exclude-competing-goals",
                Rule::Boolean,
                format!("exclude-competing-goals must be true or false (got {v:?})"),
            ))
        }
    };
    let r = forecast::report(&st, &a.id, report_kind(&kind, &id)?, &id).await?;
    Ok(Json(if exclude { r.without_competing() } else { r }).into_response())
}

#[utoipa::path(get, path = "/api/2.0/forecast/report/{kind}/{id}/chart.svg", tag = "forecast", summary = "A finished forecast's chart (SVG)",
    params(("kind" = String, Path), ("id" = String, Path)),
    responses((status = 200, description = "The report as a chart", content_type = "image/svg+xml", body = String)))]
async fn chart(Within(st): Within, Auth(a): Auth, Path((kind, id)): Path<(String, String)>) -> AppResult<Response> {
    let kind = report_kind(&kind, &id)?;
    let r = forecast::report(&st, &a.id, kind, &id).await?;
    let svg = match r {
        Report::Inventory(r) => chart::inventory_svg(&r),
        Report::Campaign(r) => chart::campaign_svg(&r),
    };
    Ok(crate::charts::svg_response(svg, 0))
}
