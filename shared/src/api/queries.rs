//! The `/v3` read interfaces (seed 000 §4.5-§4.10): VAST URL export so far.

use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::json;

use super::*;
use crate::error::AppResult;
use crate::model::ad::Ad;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/v3/campaigns", get(campaigns))
        .route("/v3/campaigns/{id}", get(campaign_one))
        .route("/v3/goals", get(goals))
        .route("/v3/goals/{id}", get(goal_one))
        .route("/v3/ads", get(ads))
        .route("/v3/ads/{ad_id}", get(ad_one))
        .route("/v3/ads/{ad_id}/vasturl/{kind}/{id}", get(vast_url))
}

pub const RESPONSE_TYPES: &[&str] = &["VAST_2_0", "VAST_2_0_1", "VAST_3_0", "VMAP_1_0"];
/// The token the caller replaces with a random number (cache busting).
pub const RANDOM_TOKEN: &str = "[RANDOM_NUMBER]";

/// Everything but RFC 3986's unreserved characters is encoded.
const QUERY_VALUE: &percent_encoding::AsciiSet = &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

fn encode(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, QUERY_VALUE).to_string()
}

/// The ad request URL a player or a third-party ad server calls for this ad
/// (docs/queries.md): account, ad, the targeted category or content partner, format, the
/// response type, and the random-number token.
pub fn build_vast_url(base: &str, account: &str, ad: &Ad, target: (&str, &str), rt: &str) -> String {
    format!(
        "{base}/v1/adrequest?account={}&ad={}&{}={}&format={}&rt={}&rnd={RANDOM_TOKEN}",
        encode(account),
        encode(&ad.id),
        target.0,
        encode(target.1),
        encode(&ad.creative.format()),
        rt.to_ascii_lowercase()
    )
}

/// `GET /v3/ads/{adId}/vasturl/category/{id}` and `.../content-partner/{id}`, `rt`.
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn vast_url(
    State(st): State<AppState>,
    Auth(a): Auth,
    Path((ad_id, kind, id)): Path<(String, String, String)>,
    RawQuery(q): RawQuery,
) -> AppResult<Response> {
    let (ref_kind, param, what) = match kind.as_str() {
        "category" => (keys::CATEGORY, "category", "category"),
        "content-partner" => (keys::PARTNER, "contentPartner", "content partner"),
        _ => return Err(AppError::NoRoute(format!("/v3/ads/{ad_id}/vasturl/{kind}/{id}"))),
    };
    let pairs = query_pairs(q.as_deref())?;
    let rt = single(&pairs, "rt")?.unwrap_or("VAST_3_0");
    if !RESPONSE_TYPES.contains(&rt) {
        return Err(AppError::field("rt", "enum", format!("rt must be one of {} (got {rt:?})", RESPONSE_TYPES.join(", "))));
    }
    if !crate::ids::plausible_id(&ad_id) {
        return Err(AppError::not_found("ad", &ad_id));
    }
    let ad: Ad =
        repo::get(st.store.as_ref(), &keys::record(&a.id, keys::AD, &ad_id)).await?.ok_or_else(|| AppError::not_found("ad", &ad_id))?.value;
    super::goals::load(&st, &a.id, &ad.goal_id).await.map_err(|_| AppError::not_found("ad", &ad_id))?;
    if !crate::ids::plausible_id(&id) || st.store.get(&keys::record(&a.id, ref_kind, &id)).await?.is_none() {
        return Err(AppError::not_found(what, &id));
    }
    let url = build_vast_url(&st.settings.ad_request_base_url, &a.id, &ad, (param, &id), rt);
    Ok(Json(json!({"formatType": ad.creative.format(), "vastUrl": url})).into_response())
}

// ---------------------------------------------------------------------------------------
// /v3/campaigns, /v3/goals, /v3/ads (seed 000 §2.5, §4.5-§4.9)
// ---------------------------------------------------------------------------------------

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::FieldError;
use crate::metrics::{self, Counters, Level};
use crate::model::account::Account;
use crate::model::ad::{event_v3, weights};
use crate::model::campaign::Campaign;
use crate::model::goal::Goal;
use crate::store::{Key, Query};

const CAMPAIGN_METRICS: &[&str] = &["impression", "clickThrough", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"];
const AD_METRICS: &[&str] = &["impression", "clickThrough", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "delivered"];
const GOAL_METRICS: &[&str] = &[
    "impression",
    "clickThrough",
    "start",
    "firstQuartile",
    "midpoint",
    "thirdQuartile",
    "complete",
    "delivered",
    "ctr",
    "completionRate",
    "ecpm",
];
const SORTINGS: &[&str] = &["priority", "type", "booked", "start", "end", "goalName", "campaignName"];

fn href(kind: &str, id: &str) -> String {
    format!("/v3/{kind}/{id}")
}

/// The query string, checked: every parameter known, every value valid.
struct Params {
    pairs: Vec<(String, String)>,
    errors: Vec<FieldError>,
}

impl Params {
    fn new(raw: Option<&str>, known: &[&str]) -> AppResult<Params> {
        let pairs = query_pairs(raw)?;
        let mut errors = Vec::new();
        for (k, _) in &pairs {
            if !known.contains(&k.as_str()) {
                errors.push(FieldError::new(k.clone(), "unknown", format!("unknown query parameter {k} (known: {})", known.join(", "))));
            }
        }
        Ok(Params { pairs, errors })
    }
    fn all(&self, name: &str) -> Vec<String> {
        self.pairs
            .iter()
            .filter(|(k, _)| k == name)
            .flat_map(|(_, v)| v.split(',').map(|s| s.trim().to_string()))
            .filter(|s| !s.is_empty())
            .collect()
    }
    fn one(&mut self, name: &str) -> Option<String> {
        match single(&self.pairs, name) {
            Ok(v) => v.map(str::to_string),
            Err(AppError::Validation(mut e)) => {
                self.errors.append(&mut e);
                None
            }
            Err(_) => None,
        }
    }
    fn values_in(&mut self, name: &str, allowed: &[&str]) -> Vec<String> {
        let vals = self.all(name);
        for v in &vals {
            if !allowed.contains(&v.as_str()) {
                self.errors.push(FieldError::new(name, "enum", format!("{name} must be one of {} (got {v:?})", allowed.join(", "))));
            }
        }
        vals
    }
    fn date(&mut self, name: &str) -> Option<DateTime<Utc>> {
        let v = self.one(name)?;
        match DateTime::parse_from_rfc3339(&v) {
            Ok(d) => Some(d.with_timezone(&Utc)),
            Err(_) => {
                self.errors.push(FieldError::new(name, "dateTime", format!("{name} must be an ISO-8601 date-time (got {v:?})")));
                None
            }
        }
    }
    fn flag(&mut self, name: &str) -> bool {
        match self.one(name).as_deref() {
            None => false,
            Some("" | "true") => true,
            Some("false") => false,
            Some(v) => {
                self.errors.push(FieldError::new(name, "boolean", format!("{name} is a flag: true, false or no value (got {v:?})")));
                false
            }
        }
    }
    fn paging(&mut self) -> (usize, usize) {
        match paging(&self.pairs) {
            Ok(p) => p,
            Err(AppError::Validation(mut e)) => {
                self.errors.append(&mut e);
                (10, 1)
            }
            Err(_) => (10, 1),
        }
    }
    fn finish(self) -> AppResult<()> {
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(AppError::Validation(self.errors))
        }
    }
}

/// Which counters to show: the requested ones, or all of the level's.
fn pick(all: &[&str], requested: &[String]) -> Vec<String> {
    if requested.is_empty() {
        all.iter().map(|s| s.to_string()).collect()
    } else {
        requested.to_vec()
    }
}

fn metrics_json(c: &Counters, names: &[String], goal: Option<&Goal>) -> Value {
    let mut m = Map::new();
    for n in names {
        let v = match n.as_str() {
            "ctr" => json!(ratio(c.get("clickThrough"), c.get("impression"))),
            "completionRate" => json!(ratio(c.get("complete"), c.get("start"))),
            "ecpm" => json!(goal.map(|g| ecpm(g, c)).unwrap_or(0.0)),
            other => json!(c.get(other)),
        };
        m.insert(n.clone(), v);
    }
    Value::Object(m)
}

fn ratio(a: i64, b: i64) -> f64 {
    if b == 0 {
        0.0
    } else {
        ((a as f64 / b as f64) * 10_000.0).round() / 10_000.0
    }
}

/// Revenue per thousand impressions from the goal's pricing (docs/queries.md).
pub fn ecpm(g: &Goal, c: &Counters) -> f64 {
    let price = g.pricing_value.unwrap_or(0.0);
    let per_thousand = |events: i64| events as f64 * price / 1000.0;
    let revenue = match g.pricing_model.as_str() {
        "CPM" => per_thousand(c.get("impression")),
        "CPMV_25" => per_thousand(c.get("firstQuartile")),
        "CPMV_50" => per_thousand(c.get("midpoint")),
        "CPMV_75" => per_thousand(c.get("thirdQuartile")),
        "CPMV_100" => per_thousand(c.get("complete")),
        "CPC" => c.get("clickThrough") as f64 * price,
        "BUDGET" => g.goal_value.map_or(0.0, |v| if v > 0.0 { price * (c.get("delivered") as f64 / v).min(1.0) } else { 0.0 }),
        _ => 0.0,
    };
    let imps = c.get("impression");
    if imps == 0 {
        0.0
    } else {
        ((revenue / imps as f64 * 1000.0) * 100.0).round() / 100.0
    }
}

/// Linear projection of delivery over the whole flight: delivered so far, scaled by
/// flight ÷ elapsed; before the start 0, after the end what was delivered; no end: none.
pub fn projected_delivery(g: &Goal, delivered: i64, now: DateTime<Utc>) -> Option<f64> {
    let end = g.end?;
    if now <= g.start {
        return Some(0.0);
    }
    if now >= end {
        return Some(delivered as f64);
    }
    let elapsed = (now - g.start).num_seconds().max(1) as f64;
    let flight = (end - g.start).num_seconds().max(1) as f64;
    Some((delivered as f64 * flight / elapsed).round())
}

fn goal_type_v3(t: &str) -> String {
    let lower = t.to_lowercase();
    let mut out = String::new();
    for (i, part) in lower.split('_').enumerate() {
        if i == 0 {
            out.push_str(part);
        } else {
            let mut c = part.chars();
            if let Some(f) = c.next() {
                out.extend(f.to_uppercase());
                out.push_str(c.as_str());
            }
        }
    }
    out
}

struct Ctx<'a> {
    account: &'a Account,
    now: DateTime<Utc>,
}

#[derive(Serialize)]
struct LinkOut<'a> {
    id: &'a str,
    href: String,
}

fn link_out<'a>(kind: &str, id: &'a str) -> LinkOut<'a> {
    LinkOut { id, href: href(kind, id) }
}

#[derive(Serialize)]
struct IdOut<'a> {
    id: &'a str,
}

#[derive(Serialize)]
struct OriginOut<'a> {
    id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    href: Option<String>,
    entity: &'static str,
}

fn origin_out<'a>(entity: &'static str, id: &'a str) -> OriginOut<'a> {
    let href = match entity {
        "site" => None,
        "campaign" => Some(href("campaigns", id)),
        _ => Some(href("goals", id)),
    };
    OriginOut { id, href, entity }
}

#[derive(Serialize)]
struct InheritedOut<'a> {
    value: u8,
    origin: OriginOut<'a>,
}

fn inherited_out<'a>(
    value: u8,
    own: Option<(&'static str, &'a str)>,
    parent: Option<(&'static str, &'a str)>,
    site: &'a str,
) -> InheritedOut<'a> {
    let origin = match (own, parent) {
        (Some((e, id)), _) | (None, Some((e, id))) => origin_out(e, id),
        (None, None) => origin_out("site", site),
    };
    InheritedOut { value, origin }
}

#[derive(Serialize)]
struct DatedOut<'a> {
    value: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<OriginOut<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CreativeOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    insertion_point: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    asset: Option<LinkOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    click_destination_uri: Option<&'a str>,
    #[serde(rename = "type")]
    kind: &'a str,
}

#[derive(Serialize)]
struct TrackerOut<'a> {
    id: &'a str,
    url: &'a str,
    event: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AdOut<'a> {
    id: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    custom_id: Option<&'a str>,
    creative: CreativeOut<'a>,
    enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    campaign: Option<LinkOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    goal: Option<LinkOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metrics: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    weight: Option<crate::model::ad::Weight>,
    start: DatedOut<'a>,
    end: DatedOut<'a>,
    external_trackers: Vec<TrackerOut<'a>>,
    device_containers: Vec<IdOut<'a>>,
    created: DateTime<Utc>,
    modified: DateTime<Utc>,
}

/// An ad's v3 object; `weight` comes from its goal's weights, which callers compute once
/// per goal (`model::ad::weights`).
fn ad_json<'a>(
    ad: &'a Ad,
    g: &'a Goal,
    c: &'a Campaign,
    nested: bool,
    metrics: Option<Value>,
    weight: Option<crate::model::ad::Weight>,
    devices: &'a [String],
) -> AdOut<'a> {
    let kind = if ad.creative.kind == "spotPlaceholder" { "standardPlaceholder" } else { ad.creative.kind.as_str() };
    let dated = |own: Option<DateTime<Utc>>, inherited: Option<DateTime<Utc>>| match own {
        Some(v) => DatedOut { value: Some(v), origin: None },
        None => DatedOut { value: inherited, origin: Some(origin_out("goal", &g.id)) },
    };
    AdOut {
        id: &ad.id,
        name: &ad.name,
        description: ad.description.as_deref(),
        custom_id: ad.custom_id.as_deref(),
        creative: CreativeOut {
            insertion_point: ad.creative.insertion_point.as_deref(),
            asset: ad.creative.asset_id.as_deref().map(|a| LinkOut { id: a, href: format!("/v1/assets/video/{a}") }),
            click_destination_uri: ad.creative.click_destination_uri.as_deref(),
            kind,
        },
        enabled: ad.enabled,
        campaign: (!nested).then(|| link_out("campaigns", &c.id)),
        goal: (!nested).then(|| link_out("goals", &g.id)),
        metrics,
        weight,
        start: dated(ad.start, Some(g.start)),
        end: dated(ad.end, g.end),
        external_trackers: ad.external_trackers.iter().map(|t| TrackerOut { id: &t.id, url: &t.url, event: event_v3(&t.event) }).collect(),
        device_containers: ad.device_containers_or(devices).iter().map(|d| IdOut { id: d }).collect(),
        created: ad.created,
        modified: ad.modified,
    }
}

#[derive(Serialize)]
#[serde(untagged)]
enum Children<'a, T> {
    Links(Vec<LinkOut<'a>>),
    Full(Vec<T>),
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct TargetOut {
    value: Option<f64>,
    unit: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PricingOut {
    value: f64,
    pricing_model: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CapOut<'a> {
    cap_type: &'a str,
    cap_value: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct GoalOut<'a> {
    id: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    custom_id: Option<&'a str>,
    campaign: LinkOut<'a>,
    target: TargetOut,
    start: DateTime<Utc>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<DateTime<Utc>>,
    pricing: PricingOut,
    ads: Children<'a, AdOut<'a>>,
    #[serde(rename = "type")]
    kind: String,
    deleted: bool,
    priority: InheritedOut<'a>,
    frontload: InheritedOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metrics: Option<Value>,
    ad_position: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sponsor_placement: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    projected_delivery: Option<Option<f64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cap: Option<CapOut<'a>>,
    goal_mode: &'static str,
}

fn goal_json<'a>(
    cx: &Ctx<'a>,
    g: &'a Goal,
    c: &'a Campaign,
    ads: Option<Vec<AdOut<'a>>>,
    metrics: Option<Value>,
    projection: Option<Option<f64>>,
) -> GoalOut<'a> {
    let a = cx.account;
    let value = match (g.kind.as_str(), g.goal_value) {
        ("SHARE_OF_VOICE", Some(v)) => Some((v * 10_000.0).round() / 100.0),
        (_, v) => v,
    };
    GoalOut {
        id: &g.id,
        name: g.name.as_deref().unwrap_or(""),
        description: g.description.as_deref(),
        custom_id: g.custom_id.as_deref(),
        campaign: link_out("campaigns", &c.id),
        target: TargetOut { value, unit: if g.kind == "SHARE_OF_VOICE" { "percent" } else { "impression" } },
        start: g.start,
        end: g.end,
        pricing: PricingOut { value: g.pricing_value.unwrap_or(0.0), pricing_model: g.pricing_model.to_lowercase() },
        ads: match ads {
            Some(full) => Children::Full(full),
            None => Children::Links(g.ads.iter().map(|s| link_out("ads", &s.id)).collect()),
        },
        kind: goal_type_v3(&g.kind),
        deleted: g.deleted_at.is_some() || c.deleted_at.is_some(),
        priority: inherited_out(
            g.effective_priority(c, a),
            g.priority.map(|_| ("goal", g.id.as_str())),
            c.priority.map(|_| ("campaign", c.id.as_str())),
            &a.id,
        ),
        frontload: inherited_out(
            g.effective_frontload(c, a),
            g.front_load_factor.map(|_| ("goal", g.id.as_str())),
            c.front_load_factor.map(|_| ("campaign", c.id.as_str())),
            &a.id,
        ),
        metrics,
        ad_position: "any",
        sponsor_placement: (g.variant == "BUMPER").then_some("default"),
        projected_delivery: projection,
        cap: g.caps.first().map(|cap| CapOut { cap_type: &cap.kind, cap_value: cap.value }),
        goal_mode: if g.variant == "BUMPER" { "sponsor" } else { "normal" },
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct CampaignOut<'a> {
    id: &'a str,
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    custom_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end: Option<DateTime<Utc>>,
    advertiser: IdOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    agency: Option<IdOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    brand: Option<IdOut<'a>>,
    state: &'static str,
    ignore_global_external_trackers: bool,
    included_in_forecast: bool,
    exclusive: bool,
    deleted: bool,
    sequence_scope: &'static str,
    goals: Children<'a, GoalOut<'a>>,
    priority: InheritedOut<'a>,
    frontload: InheritedOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    metrics: Option<Value>,
}

fn campaign_json<'a>(
    cx: &Ctx<'a>,
    c: &'a Campaign,
    goals: Option<Vec<GoalOut<'a>>>,
    metrics: Option<Value>,
    include_deleted_goals: bool,
) -> CampaignOut<'a> {
    let a = cx.account;
    CampaignOut {
        id: &c.id,
        name: &c.name,
        description: c.description.as_deref(),
        custom_id: c.custom_id.as_deref(),
        start: c.start,
        end: c.end,
        advertiser: IdOut { id: &c.advertiser_id },
        agency: c.agency_id.as_deref().map(|id| IdOut { id }),
        brand: c.brand_id.as_deref().map(|id| IdOut { id }),
        state: c.state(),
        ignore_global_external_trackers: false,
        included_in_forecast: c.include_in_forecast,
        exclusive: c.exclusive,
        deleted: c.deleted_at.is_some(),
        sequence_scope: "session",
        goals: match goals {
            Some(full) => Children::Full(full),
            None => {
                Children::Links(c.goals.iter().filter(|g| include_deleted_goals || !g.deleted).map(|g| link_out("goals", &g.id)).collect())
            }
        },
        priority: inherited_out(c.effective_priority(a), c.priority.map(|_| ("campaign", c.id.as_str())), None, &a.id),
        frontload: inherited_out(c.effective_frontload(a), c.front_load_factor.map(|_| ("campaign", c.id.as_str())), None, &a.id),
        metrics,
    }
}

/// Serialises typed response items straight to JSON text.
fn to_json<T: Serialize>(items: &[T]) -> AppResult<Vec<String>> {
    items.iter().map(|i| serde_json::to_string(i).map_err(AppError::from)).collect()
}

/// `{"<key>": [items], "pagination": {...}}` from already serialised items.
fn page_response(key: &str, items: &[String], total: usize, size: usize, number: usize) -> Response {
    let body = format!("{{\"{key}\":[{}],\"pagination\":{}}}", items.join(","), pagination(total, size, number));
    ([(axum::http::header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn one_response(items: Vec<String>) -> Response {
    ([(axum::http::header::CONTENT_TYPE, "application/json")], items.into_iter().next().unwrap_or_else(|| "null".into())).into_response()
}

fn pagination(total: usize, size: usize, number: usize) -> Value {
    json!({"totalCount": total, "pageSize": size, "pageNumber": number})
}

fn page<T: Clone>(all: &[T], size: usize, number: usize) -> Vec<T> {
    all.iter().skip((number - 1).saturating_mul(size)).take(size).cloned().collect()
}

/// What filtering and sorting read of a campaign: decoded without its goal list, so a
/// query over thousands of campaigns pays for the page it shows, not for every record.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct CampaignRow<'a> {
    #[serde(borrow)]
    id: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    name: std::borrow::Cow<'a, str>,
    enabled: bool,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    archived_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    deleted_at: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    start: Option<DateTime<Utc>>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    end: Option<DateTime<Utc>>,
    #[serde(default)]
    priority: Option<u8>,
}

impl CampaignRow<'_> {
    fn state(&self) -> &'static str {
        if self.archived_at.is_some() {
            "archived"
        } else if self.enabled {
            "enabled"
        } else {
            "disabled"
        }
    }
}

/// What filtering and sorting read of a goal (its ad summaries are skipped).
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct GoalRow<'a> {
    #[serde(borrow)]
    id: std::borrow::Cow<'a, str>,
    #[serde(borrow)]
    campaign_id: std::borrow::Cow<'a, str>,
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
    #[serde(default)]
    goal_value: Option<f64>,
    #[serde(deserialize_with = "crate::fasttime::req")]
    start: DateTime<Utc>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    end: Option<DateTime<Utc>>,
    #[serde(default, borrow)]
    name: Option<std::borrow::Cow<'a, str>>,
    #[serde(default)]
    priority: Option<u8>,
    #[serde(default, deserialize_with = "crate::fasttime::opt")]
    deleted_at: Option<DateTime<Utc>>,
}

/// Rows borrowing from the items' bodies (no copies of the strings).
fn rows<'a, T: serde::Deserialize<'a>>(items: &'a [crate::store::Item]) -> AppResult<Vec<T>> {
    items
        .iter()
        .map(|i| serde_json::from_str(&i.body).map_err(|e| AppError::Internal(format!("corrupt record {}/{}: {e}", i.pk, i.sk))))
        .collect()
}

fn full<T: serde::de::DeserializeOwned>(item: &crate::store::Item) -> AppResult<T> {
    Ok(repo::decode::<T>(item.clone())?.value)
}

/// A precomputed sort key (no allocation in the comparator).
#[derive(PartialEq, PartialOrd)]
enum SortKey {
    Num(f64),
    Text(String),
}

async fn all_campaigns(st: &AppState, account: &str) -> AppResult<Vec<Campaign>> {
    let found: Vec<crate::repo::Versioned<Campaign>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(account, keys::CAMPAIGN))).await?;
    Ok(found.into_iter().map(|v| v.value).collect())
}

async fn batch<T: serde::de::DeserializeOwned>(st: &AppState, keys: Vec<Key>) -> AppResult<Vec<T>> {
    let mut out = Vec::with_capacity(keys.len());
    for item in st.store.batch_get(&keys).await? {
        out.push(repo::decode::<T>(item)?.value);
    }
    Ok(out)
}

async fn goals_by_id(st: &AppState, account: &str, ids: &[String]) -> AppResult<HashMap<String, Goal>> {
    let keys = ids.iter().map(|id| keys::record(account, keys::GOAL, id)).collect();
    Ok(batch::<Goal>(st, keys).await?.into_iter().map(|g| (g.id.clone(), g)).collect())
}

async fn ads_by_id(st: &AppState, account: &str, ids: &[String]) -> AppResult<HashMap<String, Ad>> {
    let keys = ids.iter().map(|id| keys::record(account, keys::AD, id)).collect();
    Ok(batch::<Ad>(st, keys).await?.into_iter().map(|a| (a.id.clone(), a)).collect())
}

struct CampaignOpts {
    expand_goals: bool,
    expand_ads: bool,
    metrics: Option<Vec<String>>,
    include_deleted_goals: bool,
}

fn campaign_opts(p: &mut Params) -> CampaignOpts {
    let expand = p.values_in("expand", &["goals", "ads"]);
    let expand_goals = expand.iter().any(|e| e == "goals");
    let expand_ads = expand.iter().any(|e| e == "ads");
    if expand_ads && !expand_goals {
        p.errors.push(FieldError::new("expand", "expand", "expand=ads needs expand=goals on campaigns"));
    }
    let embed = p.values_in("embed", &["metrics"]);
    let names = p.values_in("metrics", CAMPAIGN_METRICS);
    let metrics = embed.iter().any(|e| e == "metrics").then(|| pick(CAMPAIGN_METRICS, &names));
    CampaignOpts { expand_goals, expand_ads, metrics, include_deleted_goals: p.flag("includeDeletedGoals") }
}

/// Campaign objects for a page: goals (and their ads) expanded with batch gets, metrics
/// from the campaigns' own counters.
async fn render_campaigns(st: &AppState, cx: &Ctx<'_>, list: &[Campaign], o: &CampaignOpts) -> AppResult<Vec<String>> {
    let a = cx.account;
    let mut goals: HashMap<String, Goal> = HashMap::new();
    let mut ads: HashMap<String, Ad> = HashMap::new();
    if o.expand_goals {
        let ids: Vec<String> =
            list.iter().flat_map(|c| c.goals.iter().filter(|g| o.include_deleted_goals || !g.deleted).map(|g| g.id.clone())).collect();
        goals = goals_by_id(st, &a.id, &ids).await?;
        if o.expand_ads {
            let ad_ids: Vec<String> = goals.values().flat_map(|g| g.ads.iter().map(|s| s.id.clone())).collect();
            ads = ads_by_id(st, &a.id, &ad_ids).await?;
        }
    }
    let devices = account_devices(st, &a.id, ads.values()).await?;
    let counters = match &o.metrics {
        Some(_) => metrics::read(st.store.as_ref(), &a.id, Level::Campaign, &list.iter().map(|c| c.id.clone()).collect::<Vec<_>>()).await?,
        None => HashMap::new(),
    };
    let mut out = Vec::with_capacity(list.len());
    for c in list {
        let expanded = o.expand_goals.then(|| {
            c.goals
                .iter()
                .filter(|f| o.include_deleted_goals || !f.deleted)
                .filter_map(|f| goals.get(&f.id))
                .map(|g| {
                    let nested = o.expand_ads.then(|| {
                        let w = weights(&g.ads);
                        g.ads
                            .iter()
                            .filter_map(|s| ads.get(&s.id))
                            .map(|ad| ad_json(ad, g, c, true, None, w.get(&ad.id).copied(), &devices))
                            .collect()
                    });
                    goal_json(cx, g, c, nested, None, None)
                })
                .collect()
        });
        let m = o.metrics.as_ref().map(|names| metrics_json(counters.get(&c.id).unwrap_or(&Counters::default()), names, None));
        out.push(serde_json::to_string(&campaign_json(cx, c, expanded, m, o.include_deleted_goals))?);
    }
    Ok(out)
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn campaigns(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(
        q.as_deref(),
        &[
            "expand",
            "embed",
            "metrics",
            "includeDeletedGoals",
            "includeDeletedCampaigns",
            "campaigns.started.before",
            "campaigns.started.after",
            "campaigns.ended.before",
            "campaigns.ended.after",
            "campaign.state",
            "campaign.name",
            "ids",
            "pageSize",
            "pageNumber",
        ],
    )?;
    let o = campaign_opts(&mut p);
    let include_deleted = p.flag("includeDeletedCampaigns");
    let (sb, sa, eb, ea) = (
        p.date("campaigns.started.before"),
        p.date("campaigns.started.after"),
        p.date("campaigns.ended.before"),
        p.date("campaigns.ended.after"),
    );
    let states = p.values_in("campaign.state", &["enabled", "disabled", "archived"]);
    let name = p.one("campaign.name").map(|n| n.to_lowercase());
    let ids = p.all("ids");
    let (size, number) = p.paging();
    p.finish()?;
    let items = st.store.query(Query::partition(keys::partition(&a.id, keys::CAMPAIGN))).await?.items;
    let all: Vec<CampaignRow> = rows(&items)?;
    let mut picked: Vec<(usize, String)> = all
        .iter()
        .enumerate()
        .filter(|(_, c)| include_deleted || c.deleted_at.is_none())
        .filter(|(_, c)| states.is_empty() || states.iter().any(|s| s == c.state()))
        .filter(|(_, c)| name.as_ref().is_none_or(|n| c.name.to_lowercase().contains(n)))
        .filter(|(_, c)| ids.is_empty() || ids.iter().any(|i| i == &c.id))
        .filter(|(_, c)| sb.is_none_or(|d| c.start.is_some_and(|s| s < d)) && sa.is_none_or(|d| c.start.is_some_and(|s| s > d)))
        .filter(|(_, c)| eb.is_none_or(|d| c.end.is_some_and(|e| e < d)) && ea.is_none_or(|d| c.end.is_some_and(|e| e > d)))
        .map(|(i, c)| (i, c.name.to_lowercase()))
        .collect();
    picked.sort_by(|(i, x), (j, y)| x.cmp(y).then(all[*i].id.cmp(&all[*j].id)));
    let total = picked.len();
    let shown: Vec<Campaign> = page(&picked, size, number).iter().map(|(i, _)| full(&items[*i])).collect::<AppResult<_>>()?;
    let cx = Ctx { account: &a, now: st.clock.now() };
    let list = render_campaigns(&st, &cx, &shown, &o).await?;
    Ok(page_response("campaigns", &list, total, size, number))
}

/// `GET /v3/campaigns/{id}`: one campaign object, the list's expand/embed parameters.
#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn campaign_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(q.as_deref(), &["expand", "embed", "metrics", "includeDeletedGoals"])?;
    let o = campaign_opts(&mut p);
    p.finish()?;
    if !crate::ids::plausible_id(&id) {
        return Err(AppError::not_found("campaign", &id));
    }
    let c: Campaign = repo::get(st.store.as_ref(), &keys::record(&a.id, keys::CAMPAIGN, &id))
        .await?
        .ok_or_else(|| AppError::not_found("campaign", &id))?
        .value;
    let cx = Ctx { account: &a, now: st.clock.now() };
    Ok(one_response(render_campaigns(&st, &cx, std::slice::from_ref(&c), &o).await?))
}

struct GoalOpts {
    expand_ads: bool,
    metrics: Option<Vec<String>>,
    projections: bool,
}

fn goal_opts(p: &mut Params) -> GoalOpts {
    let expand = p.values_in("expand", &["ads"]);
    let embed = p.values_in("embed", &["metrics", "projections"]);
    let names = p.values_in("metrics", GOAL_METRICS);
    GoalOpts {
        expand_ads: !expand.is_empty(),
        metrics: embed.iter().any(|e| e == "metrics").then(|| pick(GOAL_METRICS, &names)),
        projections: embed.iter().any(|e| e == "projections"),
    }
}

async fn render_goals(st: &AppState, cx: &Ctx<'_>, list: &[(Goal, Campaign)], o: &GoalOpts) -> AppResult<Vec<String>> {
    let a = cx.account;
    let ads = if o.expand_ads {
        ads_by_id(st, &a.id, &list.iter().flat_map(|(g, _)| g.ads.iter().map(|s| s.id.clone())).collect::<Vec<_>>()).await?
    } else {
        HashMap::new()
    };
    let counters = if o.metrics.is_some() || o.projections {
        metrics::read(st.store.as_ref(), &a.id, Level::Goal, &list.iter().map(|(g, _)| g.id.clone()).collect::<Vec<_>>()).await?
    } else {
        HashMap::new()
    };
    let devices = account_devices(st, &a.id, ads.values()).await?;
    let none = Counters::default();
    let outs: Vec<GoalOut> = list
        .iter()
        .map(|(g, c)| {
            let cn = counters.get(&g.id).unwrap_or(&none);
            let nested = o.expand_ads.then(|| {
                let w = weights(&g.ads);
                g.ads
                    .iter()
                    .filter_map(|s| ads.get(&s.id))
                    .map(|ad| ad_json(ad, g, c, true, None, w.get(&ad.id).copied(), &devices))
                    .collect()
            });
            let m = o.metrics.as_ref().map(|names| metrics_json(cn, names, Some(g)));
            let proj = o.projections.then(|| projected_delivery(g, cn.get("delivered"), cx.now));
            goal_json(cx, g, c, nested, m, proj)
        })
        .collect();
    to_json(&outs)
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn goals(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(
        q.as_deref(),
        &[
            "expand",
            "embed",
            "metrics",
            "goals.started.before",
            "goals.started.after",
            "goals.ended.before",
            "goals.ended.after",
            "goal.name",
            "campaign.name",
            "campaign.id",
            "campaign.state",
            "includeDeletedGoals",
            "includeDeletedCampaigns",
            "pageSize",
            "pageNumber",
            "sorting",
            "sortingOrder",
        ],
    )?;
    let o = goal_opts(&mut p);
    let (sb, sa, eb, ea) =
        (p.date("goals.started.before"), p.date("goals.started.after"), p.date("goals.ended.before"), p.date("goals.ended.after"));
    let goal_name = p.one("goal.name").map(|n| n.to_lowercase());
    let campaign_name = p.one("campaign.name").map(|n| n.to_lowercase());
    let campaign_id = p.one("campaign.id");
    let states = p.values_in("campaign.state", &["enabled", "disabled", "archived"]);
    let include_deleted_goals = p.flag("includeDeletedGoals");
    let include_deleted_campaigns = p.flag("includeDeletedCampaigns");
    let sorting = p.one("sorting").unwrap_or_else(|| "goalName".into());
    if !SORTINGS.contains(&sorting.as_str()) {
        p.errors.push(FieldError::new("sorting", "enum", format!("sorting must be one of {} (got {sorting:?})", SORTINGS.join(", "))));
    }
    let order = p.one("sortingOrder").unwrap_or_else(|| "ascending".into());
    if order != "ascending" && order != "descending" {
        p.errors.push(FieldError::new("sortingOrder", "enum", format!("sortingOrder must be ascending or descending (got {order:?})")));
    }
    let (size, number) = p.paging();
    p.finish()?;
    // One campaign: its goals; otherwise every goal and campaign of the account.
    let (goal_items, campaign_items): (Vec<crate::store::Item>, Vec<crate::store::Item>) = match &campaign_id {
        Some(cid) if crate::ids::plausible_id(cid) => match st.store.get(&keys::record(&a.id, keys::CAMPAIGN, cid)).await? {
            Some(citem) => {
                let c: Campaign = full(&citem)?;
                let keys: Vec<Key> = c.goals.iter().map(|g| keys::record(&a.id, keys::GOAL, &g.id)).collect();
                (st.store.batch_get(&keys).await?, vec![citem])
            }
            None => (vec![], vec![]),
        },
        Some(_) => (vec![], vec![]),
        None => (
            st.store.query(Query::partition(keys::partition(&a.id, keys::GOAL))).await?.items,
            st.store.query(Query::partition(keys::partition(&a.id, keys::CAMPAIGN))).await?.items,
        ),
    };
    let goal_rows: Vec<GoalRow> = rows(&goal_items)?;
    let campaign_rows: Vec<CampaignRow> = rows(&campaign_items)?;
    let by_id: HashMap<&str, usize> = campaign_rows.iter().enumerate().map(|(i, c)| (c.id.as_ref(), i)).collect();
    // Campaign names sort once; a goal sorts by its campaign's rank.
    let mut by_name: Vec<usize> = (0..campaign_rows.len()).collect();
    if sorting == "campaignName" {
        let lower: Vec<String> = campaign_rows.iter().map(|c| c.name.to_lowercase()).collect();
        by_name.sort_by(|x, y| lower[*x].cmp(&lower[*y]));
    }
    let mut rank = vec![0usize; campaign_rows.len()];
    for (r, ci) in by_name.iter().enumerate() {
        rank[*ci] = r;
    }
    let global = a.global_priority;
    let mut picked: Vec<(usize, usize, SortKey)> = goal_rows
        .iter()
        .enumerate()
        .filter_map(|(gi, g)| by_id.get(g.campaign_id.as_ref()).map(|ci| (gi, *ci)))
        .filter(|(gi, ci)| {
            let (g, c) = (&goal_rows[*gi], &campaign_rows[*ci]);
            (include_deleted_goals || g.deleted_at.is_none())
                && (include_deleted_campaigns || c.deleted_at.is_none())
                && (states.is_empty() || states.iter().any(|s| s == c.state()))
                && goal_name.as_ref().is_none_or(|n| g.name.as_deref().unwrap_or("").to_lowercase().contains(n))
                && campaign_name.as_ref().is_none_or(|n| c.name.to_lowercase().contains(n))
                && sb.is_none_or(|d| g.start < d)
                && sa.is_none_or(|d| g.start > d)
                && eb.is_none_or(|d| g.end.is_some_and(|e| e < d))
                && ea.is_none_or(|d| g.end.is_some_and(|e| e > d))
        })
        .map(|(gi, ci)| {
            let (g, c) = (&goal_rows[gi], &campaign_rows[ci]);
            let key = match sorting.as_str() {
                "priority" => SortKey::Num(f64::from(g.priority.or(c.priority).unwrap_or(global))),
                "type" => SortKey::Text(g.kind.to_string()),
                "booked" => SortKey::Num(g.goal_value.unwrap_or(0.0)),
                "start" => SortKey::Num(g.start.timestamp_millis() as f64),
                "end" => SortKey::Num(g.end.map_or(f64::MAX, |e| e.timestamp_millis() as f64)),
                "campaignName" => SortKey::Num(rank[ci] as f64),
                _ => SortKey::Text(g.name.as_deref().unwrap_or("").to_lowercase()),
            };
            (gi, ci, key)
        })
        .collect();
    let descending = order == "descending";
    picked.sort_by(|(gx, _, kx), (gy, _, ky)| {
        let ord = kx.partial_cmp(ky).unwrap_or(std::cmp::Ordering::Equal);
        let ord = if descending { ord.reverse() } else { ord };
        ord.then(goal_rows[*gx].id.cmp(&goal_rows[*gy].id))
    });
    let total = picked.len();
    let shown: Vec<(Goal, Campaign)> = picked
        .iter()
        .skip((number - 1).saturating_mul(size))
        .take(size)
        .map(|(gi, ci, _)| Ok((full::<Goal>(&goal_items[*gi])?, full::<Campaign>(&campaign_items[*ci])?)))
        .collect::<AppResult<_>>()?;
    let cx = Ctx { account: &a, now: st.clock.now() };
    let list = render_goals(&st, &cx, &shown, &o).await?;
    Ok(page_response("goals", &list, total, size, number))
}

#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn goal_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(q.as_deref(), &["expand", "embed", "metrics"])?;
    let o = goal_opts(&mut p);
    p.finish()?;
    if !crate::ids::plausible_id(&id) {
        return Err(AppError::not_found("goal", &id));
    }
    let g: Goal =
        repo::get(st.store.as_ref(), &keys::record(&a.id, keys::GOAL, &id)).await?.ok_or_else(|| AppError::not_found("goal", &id))?.value;
    let c: Campaign = repo::get(st.store.as_ref(), &keys::record(&a.id, keys::CAMPAIGN, &g.campaign_id))
        .await?
        .ok_or_else(|| AppError::not_found("goal", &id))?
        .value;
    let cx = Ctx { account: &a, now: st.clock.now() };
    Ok(one_response(render_goals(&st, &cx, &[(g, c)], &o).await?))
}

fn ad_metrics_names(p: &mut Params) -> Option<Vec<String>> {
    let embed = p.values_in("embed", &["metrics"]);
    let names = p.values_in("metrics", AD_METRICS);
    embed.iter().any(|e| e == "metrics").then(|| pick(AD_METRICS, &names))
}

/// The account's device containers, read only when one of `ads` names none of its own
/// (those run on all of them).
async fn account_devices<'a>(st: &AppState, account: &str, mut ads: impl Iterator<Item = &'a Ad>) -> AppResult<Vec<String>> {
    if ads.any(|ad| ad.device_containers.is_none()) {
        reference_ids(st, account, keys::DEVICE).await
    } else {
        Ok(Vec::new())
    }
}

async fn render_ads(st: &AppState, cx: &Ctx<'_>, list: &[(Ad, Goal, Campaign)], names: &Option<Vec<String>>) -> AppResult<Vec<String>> {
    let counters = match names {
        Some(_) => {
            metrics::read(st.store.as_ref(), &cx.account.id, Level::Ad, &list.iter().map(|(ad, _, _)| ad.id.clone()).collect::<Vec<_>>())
                .await?
        }
        None => HashMap::new(),
    };
    let devices = account_devices(st, &cx.account.id, list.iter().map(|(ad, _, _)| ad)).await?;
    let none = Counters::default();
    let mut by_goal: HashMap<&str, HashMap<String, crate::model::ad::Weight>> = HashMap::new();
    for (_, g, _) in list {
        by_goal.entry(g.id.as_str()).or_insert_with(|| weights(&g.ads));
    }
    let outs: Vec<AdOut> = list
        .iter()
        .map(|(ad, g, c)| {
            let m = names.as_ref().map(|n| metrics_json(counters.get(&ad.id).unwrap_or(&none), n, None));
            let w = by_goal.get(g.id.as_str()).and_then(|w| w.get(&ad.id)).copied();
            ad_json(ad, g, c, false, m, w, &devices)
        })
        .collect();
    to_json(&outs)
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn ads(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p =
        Params::new(q.as_deref(), &["embed", "metrics", "ads.created.before", "ads.created.after", "goal.id", "pageSize", "pageNumber"])?;
    let names = ad_metrics_names(&mut p);
    let (before, after) = (p.date("ads.created.before"), p.date("ads.created.after"));
    let goal_id = p.one("goal.id");
    let (size, number) = p.paging();
    p.finish()?;
    let (ads, goals, campaigns): (Vec<Ad>, HashMap<String, Goal>, HashMap<String, Campaign>) = match &goal_id {
        Some(gid) => match super::goals::load(&st, &a.id, gid).await {
            Ok((g, c)) => {
                let ids: Vec<String> = g.value.ads.iter().map(|s| s.id.clone()).collect();
                let ads = ads_by_id(&st, &a.id, &ids).await?;
                let ordered = ids.iter().filter_map(|id| ads.get(id).cloned()).collect();
                (ordered, HashMap::from([(g.value.id.clone(), g.value)]), HashMap::from([(c.value.id.clone(), c.value)]))
            }
            Err(AppError::NotFound { .. }) => (vec![], HashMap::new(), HashMap::new()),
            Err(e) => return Err(e),
        },
        None => {
            let found = st.store.query(Query::gsi2(keys::ads_by_created(&a.id)).backward()).await?;
            let ads: Vec<Ad> = found.items.into_iter().map(|i| repo::decode::<Ad>(i).map(|v| v.value)).collect::<AppResult<_>>()?;
            let g: Vec<crate::repo::Versioned<Goal>> =
                repo::query_all(st.store.as_ref(), Query::partition(keys::partition(&a.id, keys::GOAL))).await?;
            let c = all_campaigns(&st, &a.id).await?;
            (ads, g.into_iter().map(|v| (v.value.id.clone(), v.value)).collect(), c.into_iter().map(|c| (c.id.clone(), c)).collect())
        }
    };
    let all: Vec<(Ad, Goal, Campaign)> = ads
        .into_iter()
        .filter(|ad| before.is_none_or(|d| ad.created < d) && after.is_none_or(|d| ad.created > d))
        .filter_map(|ad| {
            let g = goals.get(&ad.goal_id).filter(|g| g.deleted_at.is_none())?.clone();
            let c = campaigns.get(&g.campaign_id).filter(|c| c.deleted_at.is_none())?.clone();
            Some((ad, g, c))
        })
        .collect();
    let cx = Ctx { account: &a, now: st.clock.now() };
    let list = render_ads(&st, &cx, &page(&all, size, number), &names).await?;
    Ok(page_response("ads", &list, all.len(), size, number))
}

#[tracing::instrument(skip_all, fields(account = %a.id, id = %ad_id))]
async fn ad_one(State(st): State<AppState>, Auth(a): Auth, Path(ad_id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(q.as_deref(), &["embed", "metrics"])?;
    let names = ad_metrics_names(&mut p);
    p.finish()?;
    if !crate::ids::plausible_id(&ad_id) {
        return Err(AppError::not_found("ad", &ad_id));
    }
    let ad: Ad =
        repo::get(st.store.as_ref(), &keys::record(&a.id, keys::AD, &ad_id)).await?.ok_or_else(|| AppError::not_found("ad", &ad_id))?.value;
    let (g, c) = super::goals::load(&st, &a.id, &ad.goal_id).await.map_err(|_| AppError::not_found("ad", &ad_id))?;
    let cx = Ctx { account: &a, now: st.clock.now() };
    Ok(one_response(render_ads(&st, &cx, &[(ad, g.value, c.value)], &names).await?))
}
