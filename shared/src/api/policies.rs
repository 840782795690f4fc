//! Insertion policies (seed 000 §2.6, §4.11; docs/insertion-policies.md), JSON.

use crate::rule::Rule;
use std::collections::HashSet;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{if_match, no_content, paging, query_pairs, with_etag, Auth, JsonBody, JsonBytes};
use crate::ids::new_id;
use crate::model::account::Account;
use crate::model::policy::{parse, validate, Policy};
use crate::repo;
use crate::repo::reference::Kind;
use crate::state::AppState;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, create, replace, template, get_ranking, put_ranking, get_one, remove),
    tags((name = "insertion-policy", description = "Insertion policies (seed 000 §2.6); 403 unless the account has the feature"))
)]
pub struct Doc;

/// A page of policies in rank order.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct PolicyPage {
    pub data: Vec<Policy>,
    pub pagination: PolicyPagination,
}

#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PolicyPagination {
    pub total_count: usize,
    pub page_size: usize,
    pub page_number: usize,
}

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

#[utoipa::path(get, path = "/v1/insertion-policy/template", tag = "insertion-policy", summary = "An insertion policy with every default, to start from",
    responses((status = 200, description = "A policy with every default", body = Policy)))]
async fn template(Auth(a): Auth) -> AppResult<Response> {
    require_feature(&a)?;
    Ok(Json(Policy::default()).into_response())
}

#[utoipa::path(post, path = "/v1/insertion-policy", tag = "insertion-policy", summary = "Create an insertion policy", request_body(content = Policy, example = json!({"name": "Sports breaks", "tagRule": {"oneOf": []}, "categoryRule": {"oneOf": ["demo-alpha-cat-sports"]}, "globalSettings": {"minimumTimeBetweenAds": 120, "skipButton": {"showWhen": "ALWAYS", "skipOffset": {"value": 5, "unit": "SECONDS"}}}, "adBreakSettings": {"preroll": {"enabled": true, "adsPerBreak": 2, "timeLimit": {"enabled": true, "seconds": 30}}}})),
    responses((status = 201, description = "Created (Location)", body = Policy, headers(("Location" = String)))))]
async fn create(State(st): State<AppState>, Auth(a): Auth, JsonBytes(body): JsonBytes) -> AppResult<Response> {
    require_feature(&a)?;
    let mut p = checked(&st, &a, &body).await?;
    if p.id.is_some() {
        return Err(AppError::field("id", Rule::NotOnCreate, "id is set only when replacing; the service assigns ids"));
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

#[utoipa::path(put, path = "/v1/insertion-policy", tag = "insertion-policy", summary = "Replace an insertion policy", request_body(content = Policy, example = json!({"id": "<policy id>", "name": "Sports breaks", "tagRule": {"oneOf": []}, "categoryRule": {"oneOf": ["demo-alpha-cat-sports"]}, "globalSettings": {"minimumTimeBetweenAds": 120, "skipButton": {"showWhen": "ALWAYS", "skipOffset": {"value": 5, "unit": "SECONDS"}}}, "adBreakSettings": {"preroll": {"enabled": true, "adsPerBreak": 2, "timeLimit": {"enabled": true, "seconds": 30}}}})),
    params(("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the policy changed since")),
    responses((status = 200, description = "Replaced", body = Policy, headers(("ETag" = String)))))]
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
        return Err(AppError::field("id", Rule::Required, "id is required: PUT /v1/insertion-policy carries the policy's id in the body"));
    };
    let cur = repo::policies::load(st.store.as_ref(), &a.id, &id).await?;
    let p = checked(&st, &a, &body).await?;
    let version = repo::policies::replace(st.store.as_ref(), &a.id, cur, expected, &p).await?;
    Ok(with_etag(Json(&p).into_response(), version))
}

#[utoipa::path(get, path = "/v1/insertion-policy", tag = "insertion-policy", summary = "List the account's insertion policies",
    params(("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000), ("pageNumber" = Option<u32>, Query, minimum = 1)),
    responses((status = 200, description = "A page of policies, highest rank first", body = PolicyPage)))]
async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    require_feature(&a)?;
    let (size, number) = paging(&query_pairs(q.as_deref())?)?;
    let (found, total) = repo::policies::page(st.store.as_ref(), &a.id, size, number).await?;
    Ok(Json(PolicyPage { data: found, pagination: PolicyPagination { total_count: total, page_size: size, page_number: number } })
        .into_response())
}

#[utoipa::path(get, path = "/v1/insertion-policy/{id}", tag = "insertion-policy", summary = "Read an insertion policy", params(("id" = String, Path)),
    responses((status = 200, description = "The policy", body = Policy, headers(("ETag" = String)))))]
async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    require_feature(&a)?;
    let p = repo::policies::load(st.store.as_ref(), &a.id, &id).await?;
    Ok(with_etag(Json(&p.value).into_response(), p.version()))
}

#[utoipa::path(delete, path = "/v1/insertion-policy/{id}", tag = "insertion-policy", summary = "Delete an insertion policy", params(("id" = String, Path)),
    responses((status = 204, description = "Deleted")))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    require_feature(&a)?;
    repo::policies::remove(st.store.as_ref(), &a.id, &id).await?;
    Ok(no_content())
}

#[utoipa::path(get, path = "/v1/insertion-policy/ranking", tag = "insertion-policy", summary = "The insertion policies' rank order",
    responses((status = 200, description = "Every policy id, highest rank first", body = crate::model::policy::Ranking)))]
async fn get_ranking(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    require_feature(&a)?;
    Ok(Json(repo::policies::ranking(st.store.as_ref(), &a.id).await?).into_response())
}

/// What a ranking body holds.
pub const RANKING_FIELDS: &[&str] = &["ids"];

/// `PUT /v1/insertion-policy/ranking` with `{ids}`: every policy exactly once, highest first.
#[utoipa::path(put, path = "/v1/insertion-policy/ranking", tag = "insertion-policy", summary = "Set the insertion policies' rank order", description = "`PUT /v1/insertion-policy/ranking` with `{ids}`: every policy exactly once, highest first.", request_body(content = super::bodies::RankingWrite, example = json!({"ids": ["<highest policy id>", "<next policy id>"]})),
    responses((status = 200, description = "The new ranking", body = crate::model::policy::Ranking)))]
async fn put_ranking(State(st): State<AppState>, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    require_feature(&a)?;
    let mut r = crate::json::ObjReader::new(&v, "", RANKING_FIELDS);
    let list = r.array_opt("ids").cloned();
    if list.is_none() && r.errors.is_empty() {
        r.err("ids", Rule::Required, "ids (every policy id, highest rank first) is required");
    }
    if !r.errors.is_empty() {
        return Err(AppError::Validation(r.errors));
    }
    let wanted: Vec<String> = list.unwrap_or_default().iter().map(|x| x.as_str().unwrap_or("").to_string()).collect();
    Ok(Json(repo::policies::set_ranking(st.store.as_ref(), &a.id, wanted).await?).into_response())
}
