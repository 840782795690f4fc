//! Forecast jobs (seed 002 §4.2, docs/forecasts.md): create (202 + Location), status (200,
//! or 201 + Location of the report), cancel, the two reports and their SVG charts.

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Json;

use crate::api::*;
use crate::error::AppResult;
use crate::forecast::report;
use crate::forecast::request::{self, Refs};
use crate::jobs::ForecastMessage;
use crate::queue::QueueName;
use crate::repo::forecasts::{self as jobs, Job};
use crate::repo::reference::Kind;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(create_campaign, create_inventory, status, cancel, report_json, chart),
    tags((name = "forecast", description = "Forecast jobs and reports (seed 002 §2.4-§2.7, §4.2)"))
)]
pub struct Doc;

pub fn router() -> Routes {
    Routes::new()
        .route("/api/2.0/forecast/campaign", post(create_campaign))
        .route("/api/2.0/forecast/inventory", post(create_inventory))
        .route("/api/2.0/forecast/job/{id}", get(status))
        .route("/api/2.0/forecast/job/{id}/cancel", post(cancel))
        .route("/api/2.0/forecast/report/{kind}/{id}", get(report_json))
        .route("/api/2.0/forecast/report/{kind}/{id}/chart.svg", get(chart))
}

struct Owned {
    known: crate::model::rules::Known,
    templates: Vec<String>,
    device_containers: Vec<String>,
}

async fn refs(st: &AppState, account: &str) -> AppResult<Owned> {
    let store = st.store.as_ref();
    Ok(Owned {
        known: repo::rules::known(store, account).await?,
        templates: repo::templates::all(store, account).await?.into_iter().map(|t| t.id).collect(),
        device_containers: repo::reference::ids(store, account, Kind::DeviceContainer).await?,
    })
}

async fn enqueue(st: &AppState, account: &str, kind: &str, request: serde_json::Value) -> AppResult<Response> {
    let job = Job {
        id: crate::ids::new_id(),
        account: account.to_string(),
        kind: kind.to_string(),
        status: jobs::QUEUED.into(),
        progress: 0,
        message: None,
        request,
        created: st.clock.now(),
        finished: None,
    };
    jobs::create(st.store.as_ref(), &job).await?;
    let msg = serde_json::to_string(&ForecastMessage { account: account.to_string(), job: job.id.clone() }).map_err(AppError::internal)?;
    st.queue.send(QueueName::Forecast, msg).await?;
    tracing::info!(job = %job.id, kind, "forecast job queued");
    Ok((StatusCode::ACCEPTED, [(header::LOCATION, format!("/api/2.0/forecast/job/{}", job.id))]).into_response())
}

#[utoipa::path(post, path = "/api/2.0/forecast/campaign", tag = "forecast", request_body = crate::api::bodies::CampaignForecastBody,
    responses((status = 202, description = "Queued (Location: the job)", headers(("Location" = String)))))]
async fn create_campaign(State(st): State<AppState>, Auth(a): Auth, JsonBody(body): JsonBody) -> AppResult<Response> {
    let o = refs(&st, &a.id).await?;
    let r = Refs { known: &o.known, templates: &o.templates, device_containers: &o.device_containers };
    let f = request::campaign(&body, &r, st.clock.now()).map_err(AppError::Validation)?;
    enqueue(&st, &a.id, "campaign", serde_json::to_value(&f).map_err(AppError::internal)?).await
}

#[utoipa::path(post, path = "/api/2.0/forecast/inventory", tag = "forecast", request_body = crate::api::bodies::InventoryForecastBody,
    responses((status = 202, description = "Queued (Location: the job)", headers(("Location" = String)))))]
async fn create_inventory(State(st): State<AppState>, Auth(a): Auth, JsonBody(body): JsonBody) -> AppResult<Response> {
    let o = refs(&st, &a.id).await?;
    let r = Refs { known: &o.known, templates: &o.templates, device_containers: &o.device_containers };
    let f = request::inventory(&body, &r, st.clock.now()).map_err(AppError::Validation)?;
    enqueue(&st, &a.id, "inventory", serde_json::to_value(&f).map_err(AppError::internal)?).await
}

#[utoipa::path(get, path = "/api/2.0/forecast/job/{id}", tag = "forecast", params(("id" = String, Path)),
    responses((status = 200, description = "Queued, running, failed or cancelled", body = crate::repo::forecasts::JobStatus),
        (status = 201, description = "Finished (Location: the report)", body = crate::repo::forecasts::JobStatus, headers(("Location" = String)))))]
async fn status(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let job = jobs::load(st.store.as_ref(), &a.id, &id).await?.value;
    if job.status == jobs::FINISHED {
        return Ok((StatusCode::CREATED, [(header::LOCATION, job.report_path())], Json(job.status())).into_response());
    }
    Ok(Json(job.status()).into_response())
}

#[utoipa::path(post, path = "/api/2.0/forecast/job/{id}/cancel", tag = "forecast", params(("id" = String, Path)),
    responses((status = 200, description = "Cancelled")))]
async fn cancel(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let store = st.store.as_ref();
    let job = jobs::load(store, &a.id, &id).await?.value;
    if job.status == jobs::FINISHED {
        return Err(AppError::Conflict(format!("forecast job {id} has finished; its report is at {}", job.report_path())));
    }
    jobs::update(store, &a.id, &id, |j| {
        j.status = jobs::CANCELLED.into();
        j.message = Some("cancelled".into());
        j.finished = Some(chrono::Utc::now());
    })
    .await?;
    Ok(StatusCode::OK.into_response())
}

/// The job's report, if the job is of `kind` and finished (404 otherwise).
async fn finished_report(st: &AppState, account: &str, kind: &str, id: &str) -> AppResult<serde_json::Value> {
    if kind != "campaign" && kind != "inventory" {
        return Err(AppError::NoRoute(format!("/api/2.0/forecast/report/{kind}/{id}")));
    }
    let job = jobs::load(st.store.as_ref(), account, id).await?.value;
    if job.kind != kind {
        return Err(AppError::not_found("forecast report", id));
    }
    if job.status != jobs::FINISHED {
        return Err(AppError::NotFound { what: "forecast report", id: format!("{id} (the job is {})", job.status) });
    }
    jobs::report(st.store.as_ref(), account, id).await?.ok_or_else(|| AppError::not_found("forecast report", id))
}

#[utoipa::path(get, path = "/api/2.0/forecast/report/{kind}/{id}", tag = "forecast",
    params(("kind" = String, Path, description = "campaign or inventory (the job's)"), ("id" = String, Path),
        ("exclude-competing-goals" = Option<bool>, Query)),
    responses((status = 200, description = "The report of a finished job", body = crate::forecast::report_schema::Report)))]
async fn report_json(
    State(st): State<AppState>,
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
                "boolean",
                format!("exclude-competing-goals must be true or false (got {v:?})"),
            ))
        }
    };
    let r = finished_report(&st, &a.id, &kind, &id).await?;
    Ok(Json(if exclude { report::without_competing(r) } else { r }).into_response())
}

#[utoipa::path(get, path = "/api/2.0/forecast/report/{kind}/{id}/chart.svg", tag = "forecast",
    params(("kind" = String, Path), ("id" = String, Path)),
    responses((status = 200, description = "The report as a chart", content_type = "image/svg+xml", body = String)))]
async fn chart(State(st): State<AppState>, Auth(a): Auth, Path((kind, id)): Path<(String, String)>) -> AppResult<Response> {
    let r = finished_report(&st, &a.id, &kind, &id).await?;
    let svg = if kind == "inventory" { report::inventory_svg(&r) } else { report::campaign_svg(&r) };
    Ok(([(header::CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}
