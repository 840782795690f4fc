//! `GET /v3/goals/{id}/pacing` and `/pacing.svg` (docs/reports.md "Pacing"): a goal's plan
//! curve, delivered by day, and its projection to its end with basis, band and shortfall.

use crate::api::Within;
use axum::extract::{Path, RawQuery};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::params::Params;
use crate::api::error::{AppError, AppResult};
use crate::api::Auth;
use crate::forecast::projection::{PacingDay, Projection};
use crate::state::AppState;
use crate::usecases::pacing::{self as uc, Pacing};

/// A goal's pacing.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GoalPacing {
    pub goal_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goal_name: Option<String>,
    pub campaign_id: String,
    /// The campaign's name.
    pub campaign_name: String,
    /// The account's time zone, in which days are cut.
    pub time_zone: String,
    pub start: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<DateTime<Utc>>,
    /// The goal value it paces towards (impression and event goals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<f64>,
    /// The front-load factor of the plan curve (0: linear).
    pub frontload: u8,
    /// Delivered to date (the goal's `delivered` counter).
    pub delivered: f64,
    /// The projection to the goal's end (null: an open-ended goal).
    pub projection: Option<Projection>,
    /// The flight's local days (at most 400): `plan` (cumulative, at the day's end),
    /// `delivered` (by the day's end; past days and today), `expected`, `low`, `high` (the
    /// projection and its band, cumulative; today on).
    pub days: Vec<PacingDay>,
}

async fn load(st: &AppState, a: &crate::model::account::Account, id: &str, q: Option<&str>) -> AppResult<(GoalPacing, Pacing)> {
    Params::new(q, &[])?.finish()?;
    let (g, c, delivered, p) = uc::goal_pacing(st, a, id).await?.ok_or_else(|| AppError::not_found("goal", id))?;
    let out = GoalPacing {
        goal_id: g.id.clone(),
        goal_name: g.name.clone(),
        campaign_id: c.id.clone(),
        campaign_name: c.name.clone(),
        time_zone: a.time_zone.clone(),
        start: g.start,
        end: g.end,
        target: p.flight.target,
        frontload: p.flight.frontload,
        delivered,
        projection: p.projection.clone(),
        days: p.days.clone(),
    };
    Ok((out, p))
}

#[utoipa::path(get, path = "/v3/goals/{id}/pacing", tag = "queries", summary = "A goal's plan, delivery by day and projection",
    description = "The plan curve (the front-load curve of the goal's target over its flight), what it delivered by each local \
        day's end (the report cells), and the projection to its end: the account's traffic model (recorded requests of the last \
        14 days, or its traffic profile) replayed through the delivery engine from now on, scaled down to the goal's delivery \
        of the last 24 hours when that was lower; with the basis, a band and the shortfall or overage (docs/reports.md).",
    params(("id" = String, Path, description = "The goal's id")),
    responses((status = 200, description = "The goal's pacing", body = GoalPacing), (status = 404, description = "No such goal in the account")))]
pub async fn goal_pacing(Within(st): Within, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    Ok(Json(load(&st, &a, &id, q.as_deref()).await?.0).into_response())
}

#[utoipa::path(get, path = "/v3/goals/{id}/pacing.svg", tag = "queries", summary = "A goal's pacing as an SVG chart",
    description = "Plan (dashed), delivered (solid), projection (dotted) with its band, the target labelled and the shortfall or \
        overage at the end; dates of the account's zone on the x axis.",
    params(("id" = String, Path, description = "The goal's id")),
    responses((status = 200, description = "The chart", content_type = "image/svg+xml", body = String), (status = 404, description = "No such goal in the account")))]
pub async fn goal_pacing_svg(Within(st): Within, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let (out, p) = load(&st, &a, &id, q.as_deref()).await?;
    let svg = crate::charts::pacing::pacing_svg(
        &crate::charts::pacing::goal_title(out.goal_name.as_deref(), &id, &out.campaign_name),
        &p.days,
        p.projection.as_ref(),
        p.flight.target,
    );
    Ok(crate::charts::svg_response(svg, 0))
}
