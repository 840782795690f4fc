//! Insertion policies (seed 000 §2.6, §4.11; docs/insertion-policies.md), JSON.

use std::collections::HashSet;

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::{Deserialize, Serialize};
use serde_json::json;

use super::*;
use crate::error::AppResult;
use crate::ids::{new_id, plausible_id};
use crate::model::account::Account;
use crate::model::policy::{parse, validate, Policy};
use crate::repo::Versioned;
use crate::store::{Cond, TxOp};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v1/insertion-policy", get(list).post(create).put(replace))
        .route("/v1/insertion-policy/template", get(template))
        .route("/v1/insertion-policy/ranking", get(get_ranking).put(put_ranking))
        .route("/v1/insertion-policy/{id}", get(get_one).delete(remove))
}

#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq)]
pub struct Ranking {
    pub ids: Vec<String>,
}

fn require_feature(a: &Account) -> AppResult<()> {
    if a.features.insertion_policy {
        Ok(())
    } else {
        Err(AppError::Forbidden("the insertion-policy feature is not enabled for this account".into()))
    }
}

async fn ranking(st: &AppState, account: &str) -> AppResult<(Ranking, Option<crate::store::Item>)> {
    match st.store.get(&keys::policy_ranking(account)).await? {
        Some(item) => {
            let r: Ranking = repo::decode::<Ranking>(item.clone())?.value;
            Ok((r, Some(item)))
        }
        None => Ok((Ranking::default(), None)),
    }
}

fn ranking_op(account: &str, r: &Ranking, prev: &Option<crate::store::Item>) -> AppResult<TxOp> {
    Ok(match prev {
        Some(p) => TxOp::Put(repo::next(p, r)?, Cond::Version(p.version)),
        None => TxOp::Put(repo::item(keys::policy_ranking(account), r, 1)?, Cond::NotExists),
    })
}

async fn checked(st: &AppState, a: &Account, body: &[u8]) -> AppResult<Policy> {
    let p = parse(body).map_err(AppError::Validation)?;
    let cats: HashSet<String> = reference_ids(st, &a.id, keys::CATEGORY).await?.into_iter().collect();
    let errors = validate(&p, a, &cats);
    if errors.is_empty() {
        Ok(p)
    } else {
        Err(AppError::Validation(errors))
    }
}

async fn load(st: &AppState, account: &str, id: &str) -> AppResult<Versioned<Policy>> {
    if !plausible_id(id) {
        return Err(AppError::not_found("insertion policy", id));
    }
    repo::get(st.store.as_ref(), &keys::record(account, keys::POLICY, id)).await?.ok_or_else(|| AppError::not_found("insertion policy", id))
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn template(Auth(a): Auth) -> AppResult<Response> {
    require_feature(&a)?;
    Ok(Json(Policy::default()).into_response())
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn create(State(st): State<AppState>, Auth(a): Auth, JsonBytes(body): JsonBytes) -> AppResult<Response> {
    require_feature(&a)?;
    let mut p = checked(&st, &a, &body).await?;
    if p.id.is_some() {
        return Err(AppError::field("id", "notOnCreate", "id is set only when replacing; the service assigns ids"));
    }
    let id = new_id();
    p.id = Some(id.clone());
    let mut tries = Attempts::new("insertion policy ranking", &a.id, None);
    loop {
        let (mut r, prev) = ranking(&st, &a.id).await?;
        tries.check(prev.as_ref().map_or(0, |i| i.version))?;
        let max = a.limits.insertion_policies as usize;
        if r.ids.len() >= max {
            return Err(AppError::Forbidden(format!(
                "the account has {} of {max} allowed insertion policies; remove obsolete ones first",
                r.ids.len()
            )));
        }
        r.ids.push(id.clone());
        let ops =
            vec![TxOp::Put(repo::item(keys::record(&a.id, keys::POLICY, &id), &p, 1)?, Cond::NotExists), ranking_op(&a.id, &r, &prev)?];
        if tries.commit(st.store.as_ref(), ops).await? {
            break;
        }
    }
    let mut res = (StatusCode::CREATED, Json(&p)).into_response();
    if let Ok(v) = HeaderValue::from_str(&format!("/v1/insertion-policy/{id}")) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    Ok(res)
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn replace(
    State(st): State<AppState>,
    Auth(a): Auth,
    headers: axum::http::HeaderMap,
    JsonBytes(body): JsonBytes,
) -> AppResult<Response> {
    require_feature(&a)?;
    let expected = if_match(&headers)?;
    let p = checked(&st, &a, &body).await?;
    let Some(id) = p.id.clone() else {
        return Err(AppError::field("id", "required", "id is required: PUT /v1/insertion-policy carries the policy's id in the body"));
    };
    let mut tries = Attempts::new("insertion policy", &id, expected);
    loop {
        let cur = load(&st, &a.id, &id).await?;
        tries.check(cur.version())?;
        let ops = vec![TxOp::Put(repo::next(&cur.item, &p)?, Cond::Version(cur.version()))];
        if tries.commit(st.store.as_ref(), ops).await? {
            return Ok(with_etag(Json(&p).into_response(), cur.version() + 1));
        }
    }
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    require_feature(&a)?;
    let (size, number) = paging(&query_pairs(q.as_deref())?)?;
    let (r, _) = ranking(&st, &a.id).await?;
    let page: Vec<String> = r.ids.iter().skip((number - 1).saturating_mul(size)).take(size).cloned().collect();
    let keys: Vec<_> = page.iter().map(|id| keys::record(&a.id, keys::POLICY, id)).collect();
    let mut found: Vec<Policy> = Vec::new();
    for item in st.store.batch_get(&keys).await? {
        found.push(repo::decode::<Policy>(item)?.value);
    }
    found.sort_by_key(|p| page.iter().position(|id| Some(id) == p.id.as_ref()));
    Ok(Json(json!({"data": found, "pagination": {"totalCount": r.ids.len(), "pageSize": size, "pageNumber": number}})).into_response())
}

#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    require_feature(&a)?;
    let p = load(&st, &a.id, &id).await?;
    Ok(with_etag(Json(&p.value).into_response(), p.version()))
}

#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    require_feature(&a)?;
    let mut tries = Attempts::new("insertion policy ranking", &a.id, None);
    loop {
        let cur = load(&st, &a.id, &id).await?;
        let (mut r, prev) = ranking(&st, &a.id).await?;
        tries.check(prev.as_ref().map_or(0, |i| i.version))?;
        r.ids.retain(|x| x != &id);
        let ops = vec![TxOp::Delete(cur.item.key(), Cond::Version(cur.version())), ranking_op(&a.id, &r, &prev)?];
        if tries.commit(st.store.as_ref(), ops).await? {
            return Ok(no_content());
        }
    }
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn get_ranking(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    require_feature(&a)?;
    Ok(Json(ranking(&st, &a.id).await?.0).into_response())
}

/// `PUT /v1/insertion-policy/ranking` with `{ids}`: every policy exactly once, highest first.
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn put_ranking(State(st): State<AppState>, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    require_feature(&a)?;
    let mut r = crate::json::ObjReader::new(&v, "", &["ids"]);
    let list = r.array_opt("ids").cloned();
    if list.is_none() && r.errors.is_empty() {
        r.err("ids", "required", "ids (every policy id, highest rank first) is required");
    }
    if !r.errors.is_empty() {
        return Err(AppError::Validation(r.errors));
    }
    let wanted: Vec<String> = list.unwrap_or_default().iter().map(|x| x.as_str().unwrap_or("").to_string()).collect();
    let mut tries = Attempts::new("insertion policy ranking", &a.id, None);
    loop {
        let (cur, prev) = ranking(&st, &a.id).await?;
        tries.check(prev.as_ref().map_or(0, |i| i.version))?;
        let mut a_sorted = wanted.clone();
        a_sorted.sort();
        let mut b_sorted = cur.ids.clone();
        b_sorted.sort();
        if a_sorted != b_sorted {
            return Err(AppError::field(
                "ids",
                "permutation",
                format!("ids must list each of the account's {} policies exactly once", cur.ids.len()),
            ));
        }
        let next = Ranking { ids: wanted.clone() };
        if tries.commit(st.store.as_ref(), vec![ranking_op(&a.id, &next, &prev)?]).await? {
            return Ok(Json(next).into_response());
        }
    }
}
