//! Audience providers, read-only (seed 002 §2.9, §4.3; docs/audience.md): created by the
//! admin command's seed file. The `segmentations` link resolves to
//! `/v1/audience/provider/{id}/segmentations`, listing the keys a batch file must use.

use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

use super::*;
use crate::error::AppResult;
use crate::model::account::AudienceProvider;
use crate::store::Query;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/audience/provider", get(list))
        .route("/v1/audience/provider/{id}", get(get_one))
        .route("/v1/audience/provider/{id}/segmentations", get(segmentations))
}

fn provider_json(p: &AudienceProvider) -> Value {
    json!({
        "id": p.id, "name": p.name, "urlIdentifier": p.url_identifier, "enabled": p.enabled,
        "segmentations": {"href": format!("/v1/audience/provider/{}/segmentations", p.id)},
    })
}

async fn load(st: &AppState, account: &str, id: &str) -> AppResult<AudienceProvider> {
    if !crate::ids::plausible_id(id) {
        return Err(AppError::not_found("audience provider", id));
    }
    Ok(repo::get::<AudienceProvider>(st.store.as_ref(), &keys::record(account, keys::PROVIDER, id))
        .await?
        .ok_or_else(|| AppError::not_found("audience provider", id))?
        .value)
}

fn page_link(size: usize, number: usize) -> String {
    format!("/v1/audience/provider?pageSize={size}&pageNumber={number}")
}

/// `{pagination {totalCount, pageSize, pageNumber, links {first, next, previous, last}}, providers}`;
/// `next`/`previous` are null at the ends.
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let (size, number) = paging(&query_pairs(q.as_deref())?)?;
    let found: Vec<crate::repo::Versioned<AudienceProvider>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(&a.id, keys::PROVIDER))).await?;
    let mut all: Vec<AudienceProvider> = found.into_iter().map(|v| v.value).collect();
    all.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    let total = all.len();
    let last = total.div_ceil(size).max(1);
    let providers: Vec<Value> = all.iter().skip((number - 1).saturating_mul(size)).take(size).map(provider_json).collect();
    let links = json!({
        "first": page_link(size, 1),
        "next": (number < last).then(|| page_link(size, number + 1)),
        "previous": (number > 1).then(|| page_link(size, (number - 1).min(last))),
        "last": page_link(size, last),
    });
    Ok(Json(json!({"pagination": {"totalCount": total, "pageSize": size, "pageNumber": number, "links": links}, "providers": providers})).into_response())
}

#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    Ok(Json(provider_json(&load(&st, &a.id, &id).await?)).into_response())
}

/// `[{id, key, name, segments: [{id, key, name}]}]`: the keys are what a batch file's
/// `<segmentationKey>=<segmentKey>` pairs must match (case-sensitively).
#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn segmentations(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let p = load(&st, &a.id, &id).await?;
    Ok(Json(json!({"providerId": p.id, "segmentations": p.segmentations})).into_response())
}
