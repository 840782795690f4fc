//! Ads, `/v1/ads` (seed 000 §2.1-§2.4, §3, §4.1-§4.4; docs/goals-ads-assets.md), JSON.

use std::collections::{BTreeSet, HashMap};

use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use serde_json::Value;

use super::*;
use crate::error::{AppResult, FieldError};
use crate::ids::{new_id, plausible_id};
use crate::model::ad::{explicit_sum, parse_patch, parse_write, Ad, AdInput, Tracker};
use crate::model::asset::Asset;
use crate::model::goal::{Goal, MAX_ADS_PER_GOAL};
use crate::repo::Versioned;
use crate::store::{Cond, Item, Key, Query, SkCond, TxOp};

pub fn router() -> Router<AppState> {
    Router::new().route("/v1/ads", get(list).post(create).put(replace).patch(modify)).route("/v1/ads/{id}", get(get_one))
}

fn ad_key(account: &str, id: &str) -> Key {
    keys::record(account, keys::AD, id)
}

/// An ad of the account whose goal (and campaign) are live; else 404.
async fn load(st: &AppState, account: &str, id: &str) -> AppResult<Versioned<Ad>> {
    if !plausible_id(id) {
        return Err(AppError::not_found("ad", id));
    }
    repo::get::<Ad>(st.store.as_ref(), &ad_key(account, id)).await?.ok_or_else(|| AppError::not_found("ad", id))
}

/// The ad's goal, for a write: a missing goal is the body's fault (400 naming goalId).
async fn goal_for(st: &AppState, account: &str, goal_id: &str) -> AppResult<Versioned<Goal>> {
    match super::goals::load(st, account, goal_id).await {
        Ok((g, _)) => Ok(g),
        Err(AppError::NotFound { .. }) => Err(AppError::field("goalId", "reference", format!("goalId: no goal {goal_id} in this account"))),
        Err(e) => Err(e),
    }
}

fn sort_key(ad: &Ad) -> String {
    format!("{}#{}", ad.created.to_rfc3339_opts(chrono::SecondsFormat::Micros, true), ad.id)
}

/// Checks the ad against its goal and the account, then builds the conditional writes:
/// the ad, the goal's ad summary, and the asset it links.
async fn plan(st: &AppState, account: &str, cur: Option<&Versioned<Ad>>, ad: &Ad, goal: &Versioned<Goal>) -> AppResult<Vec<TxOp>> {
    let g = &goal.value;
    let mut errors: Vec<FieldError> = Vec::new();
    // Flight: within the goal's.
    if let Some(s) = ad.start {
        if s < g.start {
            errors.push(FieldError::new(
                "start",
                "withinGoal",
                format!("start must not be before the goal's start ({})", g.start.to_rfc3339()),
            ));
        }
    }
    if let (Some(e), Some(ge)) = (ad.end, g.end) {
        if e > ge {
            errors.push(FieldError::new("end", "withinGoal", format!("end must not be after the goal's end ({})", ge.to_rfc3339())));
        }
    }
    if let Some(e) = ad.effective_end(g) {
        if e <= ad.effective_start(g) && errors.is_empty() {
            errors.push(FieldError::new("end", "afterStart", "end must be after start (with the goal's dates where the ad has none)"));
        }
    }
    // Weights of one format in one goal sum to at most 100.
    if let Some(w) = ad.weight {
        let fmt = ad.creative.format();
        let others = explicit_sum(&g.ads, &fmt, &ad.id);
        if others + w > 100.0 + 1e-9 {
            errors.push(FieldError::new(
                "weight",
                "weightSum",
                format!("the explicit weights of the goal's {fmt} ads would sum to {} (at most 100; the others hold {others})", others + w),
            ));
        }
    }
    if cur.is_none() && g.ads.len() >= MAX_ADS_PER_GOAL {
        errors.push(FieldError::new("goalId", "maxAds", format!("a goal holds at most {MAX_ADS_PER_GOAL} ads")));
    }
    if let Some(dcs) = &ad.device_containers {
        let known = reference_ids(st, account, keys::DEVICE).await?;
        for d in dcs {
            if !known.contains(d) {
                errors.push(FieldError::new(
                    "deviceContainers",
                    "reference",
                    format!("deviceContainers: no device container {d} in this account"),
                ));
            }
        }
    }
    let mut ops = Vec::new();
    if let Some(asset_id) = &ad.creative.asset_id {
        match super::assets::load(st, account, asset_id).await {
            Ok(asset) if asset.value.linked => ops.push(TxOp::Check(asset.item.key(), Cond::Version(asset.version()))),
            Ok(asset) => {
                // Linking: the asset stops expiring.
                let mut linked: Asset = asset.value.clone();
                linked.linked = true;
                linked.expires = None;
                let mut item = repo::next(&asset.item, &linked)?;
                item.expires_at = None;
                ops.push(TxOp::Put(item, Cond::Version(asset.version())));
            }
            Err(AppError::NotFound { .. }) => errors.push(FieldError::new(
                "creative.assetId",
                "reference",
                format!("creative.assetId: no asset {asset_id} in this account (or it expired)"),
            )),
            Err(e) => return Err(e),
        }
    }
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    let item = Item {
        pk: keys::partition(account, keys::AD),
        sk: ad.id.clone(),
        gsi2: Some((keys::ads_by_created(account), sort_key(ad))),
        version: cur.map_or(1, |c| c.version() + 1),
        body: serde_json::to_string(ad)?,
        ..Item::default()
    };
    ops.push(TxOp::Put(item, cur.map_or(Cond::NotExists, |c| Cond::Version(c.version()))));
    let mut next_goal = g.clone();
    match next_goal.ads.iter_mut().find(|s| s.id == ad.id) {
        Some(s) => *s = ad.summary(),
        None => next_goal.ads.push(ad.summary()),
    }
    ops.push(TxOp::Put(repo::next(&goal.item, &next_goal)?, Cond::Version(goal.version())));
    Ok(ops)
}

fn trackers(input: &[(String, String)], previous: &[Tracker]) -> Vec<Tracker> {
    input
        .iter()
        .map(|(url, event)| {
            let id = previous.iter().find(|t| &t.url == url && &t.event == event).map(|t| t.id.clone()).unwrap_or_else(new_id);
            Tracker { id, url: url.clone(), event: event.clone() }
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
        None => reference_ids(st, account, keys::DEVICE).await?,
    };
    let mut res = (status, Json(ad.to_json(goal, &all))).into_response();
    if status == StatusCode::CREATED {
        if let Ok(v) = HeaderValue::from_str(&format!("/v1/ads/{}", ad.id)) {
            res.headers_mut().insert(header::LOCATION, v);
        }
    }
    Ok(with_etag(res, version))
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn create(State(st): State<AppState>, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    let input = parse_write(&v).map_err(AppError::Validation)?;
    if input.id.is_some() {
        return Err(AppError::field("id", "notOnCreate", "id is set only when replacing or modifying; the service assigns ids"));
    }
    let id = new_id();
    let mut tries = Attempts::new("goal", &input.goal_id, None);
    loop {
        let goal = goal_for(&st, &a.id, &input.goal_id).await?;
        tries.check(goal.version())?;
        let ad = build(id.clone(), &input, None, st.clock.now());
        let ops = plan(&st, &a.id, None, &ad, &goal).await?;
        if tries.commit(st.store.as_ref(), ops).await? {
            tracing::info!(ad = %id, goal = %input.goal_id, "ad created");
            return render(&st, &a.id, &ad, &goal.value, StatusCode::CREATED, 1).await;
        }
    }
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn replace(State(st): State<AppState>, Auth(a): Auth, headers: HeaderMap, JsonBody(v): JsonBody) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    let input = parse_write(&v).map_err(AppError::Validation)?;
    let Some(id) = input.id.clone() else {
        return Err(AppError::field("id", "required", "id is required: PUT /v1/ads carries the ad's id in the body"));
    };
    let mut tries = Attempts::new("ad", &id, expected);
    loop {
        let cur = load(&st, &a.id, &id).await?;
        tries.check(cur.version())?;
        if input.goal_id != cur.value.goal_id {
            return Err(AppError::field("goalId", "immutable", "goalId cannot change: an ad stays in its goal (create a new ad instead)"));
        }
        let goal = goal_for(&st, &a.id, &input.goal_id).await.map_err(|_| AppError::not_found("ad", &id))?;
        let ad = build(id.clone(), &input, Some(&cur.value), st.clock.now());
        let ops = plan(&st, &a.id, Some(&cur), &ad, &goal).await?;
        if tries.commit(st.store.as_ref(), ops).await? {
            return render(&st, &a.id, &ad, &goal.value, StatusCode::OK, cur.version() + 1).await;
        }
    }
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn modify(State(st): State<AppState>, Auth(a): Auth, headers: HeaderMap, JsonBody(v): JsonBody) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    let p = parse_patch(&v).map_err(AppError::Validation)?;
    let mut tries = Attempts::new("ad", &p.id, expected);
    loop {
        let cur = load(&st, &a.id, &p.id).await?;
        tries.check(cur.version())?;
        let goal = goal_for(&st, &a.id, &cur.value.goal_id).await.map_err(|_| AppError::not_found("ad", &p.id))?;
        let mut ad = cur.value.clone();
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
        if ad == cur.value {
            // A body with only the id (or no change) changes nothing.
            return Ok(StatusCode::OK.into_response());
        }
        ad.modified = st.clock.now();
        let ops = plan(&st, &a.id, Some(&cur), &ad, &goal).await?;
        if tries.commit(st.store.as_ref(), ops).await? {
            return Ok(StatusCode::OK.into_response());
        }
    }
}

#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let ad = load(&st, &a.id, &id).await?;
    let goal = super::goals::load(&st, &a.id, &ad.value.goal_id).await.map_err(|_| AppError::not_found("ad", &id))?.0;
    render(&st, &a.id, &ad.value, &goal.value, StatusCode::OK, ad.version()).await
}

fn date_param(pairs: &[(String, String)], name: &str, errors: &mut Vec<FieldError>) -> AppResult<Option<DateTime<Utc>>> {
    Ok(match single(pairs, name)? {
        None => None,
        Some(v) => match DateTime::parse_from_rfc3339(v) {
            Ok(d) => Some(d.with_timezone(&Utc)),
            Err(_) => {
                errors.push(FieldError::new(name, "dateTime", format!("query parameter {name} must be an ISO-8601 date-time (got {v:?})")));
                None
            }
        },
    })
}

/// `GET /v1/ads?created.after=&created.before=`: the newest ads first, from at most 100
/// goals of the account (ads of deleted goals or campaigns left out).
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let mut errors = Vec::new();
    let after = date_param(&pairs, "created.after", &mut errors)?;
    let before = date_param(&pairs, "created.before", &mut errors)?;
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    let fmt = |d: DateTime<Utc>| d.to_rfc3339_opts(chrono::SecondsFormat::Micros, true);
    let lo = after.map(|d| fmt(d + chrono::Duration::microseconds(1))).unwrap_or_else(|| "0".into());
    let hi = before.map(fmt).unwrap_or_else(|| "9".into());
    let page = st.store.query(Query::gsi2(keys::ads_by_created(&a.id)).sk(SkCond::Between(lo, hi)).backward()).await?;
    let ads: Vec<Ad> = page.items.into_iter().map(|i| repo::decode::<Ad>(i).map(|v| v.value)).collect::<AppResult<_>>()?;
    // At most 100 goals, in the order their newest ads come.
    let mut goal_ids: Vec<String> = Vec::new();
    for ad in &ads {
        if !goal_ids.contains(&ad.goal_id) && goal_ids.len() < 100 {
            goal_ids.push(ad.goal_id.clone());
        }
    }
    let goals = super::goals::load_many(&st, &a.id, &goal_ids).await?;
    let campaign_ids: BTreeSet<String> = goals.iter().map(|g| g.campaign_id.clone()).collect();
    let ckeys: Vec<Key> = campaign_ids.iter().map(|c| keys::record(&a.id, keys::CAMPAIGN, c)).collect();
    let mut live_campaign: HashMap<String, bool> = HashMap::new();
    for item in st.store.batch_get(&ckeys).await? {
        let c: crate::model::campaign::Campaign = repo::decode(item)?.value;
        live_campaign.insert(c.id.clone(), c.deleted_at.is_none());
    }
    let live: BTreeSet<&str> =
        goals.iter().filter(|g| live_campaign.get(&g.campaign_id).copied().unwrap_or(false)).map(|g| g.id.as_str()).collect();
    let items: Vec<Value> = ads.iter().filter(|ad| live.contains(ad.goal_id.as_str())).map(Ad::list_item).collect();
    Ok(Json(Value::Array(items)).into_response())
}
