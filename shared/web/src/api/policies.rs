//! Insertion policies (seed 000 §2.6, §4.11; docs/insertion-policies.md), JSON.

use crate::api::Access;
use crate::api::Within;
use axum::extract::{Path, RawQuery};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{if_match, no_content, paging, query_pairs, with_etag, Auth, JsonBody, JsonBytes};
use crate::model::policy::{parse, parse_ranking, parse_replace, Policy};
use crate::usecases::policies;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, create, replace, template, get_ranking, put_ranking, get_one, remove),
    tags((name = "insertion-policy", description = "Insertion policies; 403 unless the account has the feature"))
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
        .route("/v1/insertion-policy", Access::RECORDS, get(list).post(create).put(replace))
        .route("/v1/insertion-policy/template", Access::RECORDS, get(template))
        .route("/v1/insertion-policy/ranking", Access::RECORDS, get(get_ranking).put(put_ranking))
        .route("/v1/insertion-policy/{id}", Access::RECORDS, get(get_one).delete(remove))
}

#[utoipa::path(get, path = "/v1/insertion-policy/template", tag = "insertion-policy", summary = "An insertion policy with every default, to start from",
    responses((status = 200, description = "A policy with every default", body = Policy)))]
async fn template(Auth(a): Auth) -> AppResult<Response> {
    policies::require_feature(&a)?;
    Ok(Json(Policy::default()).into_response())
}

#[utoipa::path(post, path = "/v1/insertion-policy", tag = "insertion-policy", summary = "Create an insertion policy", request_body(content = Policy, example = json!({"name": "Sports breaks", "tagRule": {"oneOf": []}, "categoryRule": {"oneOf": ["demo-alpha-cat-sports"]}, "globalSettings": {"minimumTimeBetweenAds": 120, "skipButton": {"showWhen": "ALWAYS", "skipOffset": {"value": 5, "unit": "SECONDS"}}}, "adBreakSettings": {"preroll": {"enabled": true, "adsPerBreak": 2, "timeLimit": {"enabled": true, "seconds": 30}}}})),
    responses((status = 201, description = "Created (Location)", body = Policy, headers(("Location" = String)))))]
async fn create(Within(st): Within, Auth(a): Auth, JsonBytes(body): JsonBytes) -> AppResult<Response> {
    policies::require_feature(&a)?;
    let p = policies::create(&st, &a, parse(&body).map_err(AppError::Validation)?).await?;
    let mut res = (StatusCode::CREATED, Json(&p)).into_response();
    if let Some(v) = p.id.as_ref().and_then(|id| HeaderValue::from_str(&format!("/v1/insertion-policy/{id}")).ok()) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    Ok(res)
}

#[utoipa::path(put, path = "/v1/insertion-policy", tag = "insertion-policy", summary = "Replace an insertion policy", request_body(content = Policy, example = json!({"id": "<policy id>", "name": "Sports breaks", "tagRule": {"oneOf": []}, "categoryRule": {"oneOf": ["demo-alpha-cat-sports"]}, "globalSettings": {"minimumTimeBetweenAds": 120, "skipButton": {"showWhen": "ALWAYS", "skipOffset": {"value": 5, "unit": "SECONDS"}}}, "adBreakSettings": {"preroll": {"enabled": true, "adsPerBreak": 2, "timeLimit": {"enabled": true, "seconds": 30}}}})),
    params(("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the policy changed since")),
    responses((status = 200, description = "Replaced", body = Policy, headers(("ETag" = String)))))]
async fn replace(Within(st): Within, Auth(a): Auth, headers: axum::http::HeaderMap, JsonBytes(body): JsonBytes) -> AppResult<Response> {
    policies::require_feature(&a)?;
    let expected = if_match(&headers)?;
    let (p, version) = policies::replace(&st, &a, parse_replace(&body)?, expected).await?;
    Ok(with_etag(Json(&p).into_response(), version))
}

#[utoipa::path(get, path = "/v1/insertion-policy", tag = "insertion-policy", summary = "List the account's insertion policies",
    params(("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000), ("pageNumber" = Option<u32>, Query, minimum = 1)),
    responses((status = 200, description = "A page of policies, highest rank first", body = PolicyPage)))]
async fn list(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    policies::require_feature(&a)?;
    let (size, number) = paging(&query_pairs(q.as_deref())?)?;
    let (found, total) = policies::page(&st, &a, size, number).await?;
    Ok(Json(PolicyPage { data: found, pagination: PolicyPagination { total_count: total, page_size: size, page_number: number } })
        .into_response())
}

#[utoipa::path(get, path = "/v1/insertion-policy/{id}", tag = "insertion-policy", summary = "Read an insertion policy", params(("id" = String, Path)),
    responses((status = 200, description = "The policy", body = Policy, headers(("ETag" = String)))))]
async fn get_one(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let p = policies::get(&st, &a, &id).await?;
    Ok(with_etag(Json(&p.value).into_response(), p.version()))
}

#[utoipa::path(delete, path = "/v1/insertion-policy/{id}", tag = "insertion-policy", summary = "Delete an insertion policy", params(("id" = String, Path)),
    responses((status = 204, description = "Deleted")))]
async fn remove(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    policies::remove(&st, &a, &id).await?;
    Ok(no_content())
}

#[utoipa::path(get, path = "/v1/insertion-policy/ranking", tag = "insertion-policy", summary = "The insertion policies' rank order",
    responses((status = 200, description = "Every policy id, highest rank first", body = crate::model::policy::Ranking)))]
async fn get_ranking(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    Ok(Json(policies::ranking(&st, &a).await?).into_response())
}

/// `PUT /v1/insertion-policy/ranking` with `{ids}`: every policy exactly once, highest first.
#[utoipa::path(put, path = "/v1/insertion-policy/ranking", tag = "insertion-policy", summary = "Set the insertion policies' rank order", description = "`PUT /v1/insertion-policy/ranking` with `{ids}`: every policy exactly once, highest first.", request_body(content = crate::model::policy::RankingInput, example = json!({"ids": ["<highest policy id>", "<next policy id>"]})),
    responses((status = 200, description = "The new ranking", body = crate::model::policy::Ranking)))]
async fn put_ranking(Within(st): Within, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    policies::require_feature(&a)?;
    let input = parse_ranking(&v).map_err(AppError::Validation)?;
    Ok(Json(policies::set_ranking(&st, &a, input.ids).await?).into_response())
}
