//! Insertion policies (seed 000 §2.6, §4.11; docs/insertion-policies.md), JSON.

use std::collections::HashSet;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;
use serde_json::json;

use super::*;
use crate::error::AppResult;
use crate::ids::new_id;
use crate::model::account::Account;
use crate::model::policy::{parse, validate, Policy};
use crate::repo::reference::Kind;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v1/insertion-policy", get(list).post(create).put(replace))
        .route("/v1/insertion-policy/template", get(template))
        .route("/v1/insertion-policy/ranking", get(get_ranking).put(put_ranking))
        .route("/v1/insertion-policy/{id}", get(get_one).delete(remove))
}

fn require_feature(a: &Account) -> AppResult<()> {
    if a.features.insertion_policy {
        Ok(())
    } else {
        Err(AppError::Forbidden("the insertion-policy feature is not enabled for this account".into()))
    }
}

async fn checked(st: &AppState, a: &Account, body: &[u8]) -> AppResult<Policy> {
    let p = parse(body).map_err(AppError::Validation)?;
    let cats: HashSet<String> = repo::reference::ids(st.store.as_ref(), &a.id, Kind::Category).await?.into_iter().collect();
    let errors = validate(&p, a, &cats);
    if errors.is_empty() {
        Ok(p)
    } else {
        Err(AppError::Validation(errors))
    }
}

async fn template(Auth(a): Auth) -> AppResult<Response> {
    require_feature(&a)?;
    Ok(Json(Policy::default()).into_response())
}

async fn create(State(st): State<AppState>, Auth(a): Auth, JsonBytes(body): JsonBytes) -> AppResult<Response> {
    require_feature(&a)?;
    let mut p = checked(&st, &a, &body).await?;
    if p.id.is_some() {
        return Err(AppError::field("id", "notOnCreate", "id is set only when replacing; the service assigns ids"));
    }
    let id = new_id();
    p.id = Some(id.clone());
    repo::policies::create(st.store.as_ref(), &a.id, &id, &p, a.limits.insertion_policies as usize).await?;
    let mut res = (StatusCode::CREATED, Json(&p)).into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("/v1/insertion-policy/{id}")) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    Ok(res)
}

async fn replace(
    State(st): State<AppState>,
    Auth(a): Auth,
    headers: axum::http::HeaderMap,
    JsonBytes(body): JsonBytes,
) -> AppResult<Response> {
    require_feature(&a)?;
    let expected = if_match(&headers)?;
    // Found in the caller's account (404) before the body is validated.
    let id = serde_json::from_slice::<serde_json::Value>(&body).ok().and_then(|v| v.get("id").and_then(|i| i.as_str()).map(str::to_string));
    let Some(id) = id else {
        return Err(AppError::field("id", "required", "id is required: PUT /v1/insertion-policy carries the policy's id in the body"));
    };
    let cur = repo::policies::load(st.store.as_ref(), &a.id, &id).await?;
    let p = checked(&st, &a, &body).await?;
    let version = repo::policies::replace(st.store.as_ref(), &a.id, cur, expected, &p).await?;
    Ok(with_etag(Json(&p).into_response(), version))
}

async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    require_feature(&a)?;
    let (size, number) = paging(&query_pairs(q.as_deref())?)?;
    let (found, total) = repo::policies::page(st.store.as_ref(), &a.id, size, number).await?;
    Ok(Json(json!({"data": found, "pagination": {"totalCount": total, "pageSize": size, "pageNumber": number}})).into_response())
}

async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    require_feature(&a)?;
    let p = repo::policies::load(st.store.as_ref(), &a.id, &id).await?;
    Ok(with_etag(Json(&p.value).into_response(), p.version()))
}

async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    require_feature(&a)?;
    repo::policies::remove(st.store.as_ref(), &a.id, &id).await?;
    Ok(no_content())
}

async fn get_ranking(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    require_feature(&a)?;
    Ok(Json(repo::policies::ranking(st.store.as_ref(), &a.id).await?).into_response())
}

/// What a ranking body holds.
pub const RANKING_FIELDS: &[&str] = &["ids"];

/// `PUT /v1/insertion-policy/ranking` with `{ids}`: every policy exactly once, highest first.
async fn put_ranking(State(st): State<AppState>, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    require_feature(&a)?;
    let mut r = crate::json::ObjReader::new(&v, "", RANKING_FIELDS);
    let list = r.array_opt("ids").cloned();
    if list.is_none() && r.errors.is_empty() {
        r.err("ids", "required", "ids (every policy id, highest rank first) is required");
    }
    if !r.errors.is_empty() {
        return Err(AppError::Validation(r.errors));
    }
    let wanted: Vec<String> = list.unwrap_or_default().iter().map(|x| x.as_str().unwrap_or("").to_string()).collect();
    Ok(Json(repo::policies::set_ranking(st.store.as_ref(), &a.id, wanted).await?).into_response())
}
