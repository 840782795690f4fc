//! The /v3 wire shapes (seed 000 §2.5, §4.5-§4.9): typed response objects serialised
//! straight to JSON text, and the expansion of a page (goals, ads, metrics) with batch reads.

use std::collections::HashMap;

use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::{DateTime, Utc};
use serde::Serialize;

use super::metrics::MetricsOut;
use super::params::{href, CampaignOpts, GoalOpts};
use crate::delivery::counters::Counters;
use crate::model::account::Account;
use crate::model::ad::{event_v3, weights, Ad};
use crate::model::campaign::Campaign;
use crate::model::enums::{CreativeType, GoalType, GoalVariant, InsertionPoint};
use crate::model::goal::Goal;
use crate::usecases::v3::{CampaignExpand, Expansion};

pub(crate) fn goal_type_v3(t: &str) -> String {
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

pub struct Ctx<'a> {
    pub account: &'a Account,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct LinkOut<'a> {
    id: &'a str,
    href: String,
}

fn link_out<'a>(kind: &str, id: &'a str) -> LinkOut<'a> {
    LinkOut { id, href: href(kind, id) }
}

#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct IdOut<'a> {
    id: &'a str,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct OriginOut<'a> {
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

#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct InheritedOut<'a> {
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

#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct DatedOut<'a> {
    value: Option<DateTime<Utc>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    origin: Option<OriginOut<'a>>,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct CreativeOut<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    insertion_point: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    asset: Option<LinkOut<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    click_destination_uri: Option<&'a str>,
    #[serde(rename = "type")]
    kind: &'a str,
}

#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct TrackerOut<'a> {
    id: &'a str,
    url: &'a str,
    event: String,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct AdOut<'a> {
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
    /// The counters and rates named by `metrics=`.
    metrics: Option<MetricsOut>,
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
    metrics: Option<MetricsOut>,
    weight: Option<crate::model::ad::Weight>,
    devices: &'a [String],
) -> AdOut<'a> {
    // v3 calls a spot placeholder a standard placeholder.
    let kind = if ad.creative.kind == CreativeType::SpotPlaceholder { "standardPlaceholder" } else { ad.creative.kind.as_str() };
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
            insertion_point: ad.creative.insertion_point.map(InsertionPoint::as_str),
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
        external_trackers: ad.external_trackers.iter().map(|t| TrackerOut { id: &t.id, url: &t.url, event: event_v3(t.event) }).collect(),
        device_containers: ad.device_containers_or(devices).iter().map(|d| IdOut { id: d }).collect(),
        created: ad.created,
        modified: ad.modified,
    }
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(untagged)]
pub(super) enum Children<'a, T> {
    Links(Vec<LinkOut<'a>>),
    Full(Vec<T>),
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct TargetOut {
    value: Option<f64>,
    unit: &'static str,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct PricingOut {
    value: f64,
    pricing_model: String,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct CapOut<'a> {
    cap_type: &'a str,
    cap_value: f64,
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct GoalOut<'a> {
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
    /// False: the goal is disabled and does not serve.
    enabled: bool,
    priority: InheritedOut<'a>,
    frontload: InheritedOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The counters and rates named by `metrics=`.
    metrics: Option<MetricsOut>,
    ad_position: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    sponsor_placement: Option<&'static str>,
    /// `embed=projections`: the expected delivery by the goal's end (null: no end).
    #[serde(skip_serializing_if = "Option::is_none")]
    projected_delivery: Option<Option<f64>>,
    /// `embed=projections`: the projection with its basis, band and shortfall (docs/reports.md).
    #[serde(skip_serializing_if = "Option::is_none")]
    projection: Option<&'a crate::forecast::projection::Projection>,
    #[serde(skip_serializing_if = "Option::is_none")]
    cap: Option<CapOut<'a>>,
    goal_mode: &'static str,
    /// The marketplace an RTB or programmatic guaranteed goal is filled from.
    #[serde(skip_serializing_if = "Option::is_none")]
    marketplace_id: Option<&'a str>,
}

fn goal_json<'a>(
    cx: &Ctx<'a>,
    g: &'a Goal,
    c: &'a Campaign,
    ads: Option<Vec<AdOut<'a>>>,
    metrics: Option<MetricsOut>,
    projection: Option<Option<&'a crate::forecast::projection::Projection>>,
) -> GoalOut<'a> {
    let a = cx.account;
    let value = match (g.kind, g.goal_value) {
        (GoalType::ShareOfVoice, Some(v)) => Some((v * 10_000.0).round() / 100.0),
        (_, v) => v,
    };
    GoalOut {
        id: &g.id,
        name: g.name.as_deref().unwrap_or(""),
        description: g.description.as_deref(),
        custom_id: g.custom_id.as_deref(),
        campaign: link_out("campaigns", &c.id),
        target: TargetOut { value, unit: if g.kind == GoalType::ShareOfVoice { "percent" } else { "impression" } },
        start: g.start,
        end: g.end,
        pricing: PricingOut { value: g.pricing_value.unwrap_or(0.0), pricing_model: g.pricing_model.as_str().to_lowercase() },
        enabled: g.enabled,
        ads: match ads {
            Some(full) => Children::Full(full),
            None => Children::Links(g.ads.iter().map(|s| link_out("ads", &s.id)).collect()),
        },
        kind: goal_type_v3(g.kind.as_str()),
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
        sponsor_placement: (g.variant == GoalVariant::Bumper).then_some("default"),
        projected_delivery: projection.map(|p| p.map(|p| p.expected)),
        projection: projection.flatten(),
        cap: g.caps.first().map(|cap| CapOut { cap_type: cap.kind.as_str(), cap_value: cap.value }),
        goal_mode: if g.variant == GoalVariant::Bumper { "sponsor" } else { "normal" },
        marketplace_id: g.marketplace_id.as_deref(),
    }
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct CampaignOut<'a> {
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
    state: crate::model::enums::CampaignState,
    ignore_global_external_trackers: bool,
    included_in_forecast: bool,
    exclusive: bool,
    deleted: bool,
    sequence_scope: &'static str,
    goals: Children<'a, GoalOut<'a>>,
    priority: InheritedOut<'a>,
    frontload: InheritedOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    /// The counters and rates named by `metrics=`.
    metrics: Option<MetricsOut>,
}

fn campaign_json<'a>(
    cx: &Ctx<'a>,
    c: &'a Campaign,
    goals: Option<Vec<GoalOut<'a>>>,
    metrics: Option<MetricsOut>,
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

/// A goal's ads, expanded inside it (in the goal's order, with their weights).
fn nested_ads<'a>(g: &'a Goal, c: &'a Campaign, ads: &'a HashMap<String, Ad>, devices: &'a [String]) -> Vec<AdOut<'a>> {
    let w = weights(&g.ads);
    g.ads.iter().filter_map(|s| ads.get(&s.id)).map(|ad| ad_json(ad, g, c, true, None, w.get(&ad.id).copied(), devices)).collect()
}

/// One object, or `null` when there is none.
pub fn one_response<T: Serialize>(items: Vec<T>) -> Response {
    Json(items.into_iter().next()).into_response()
}

impl PageInfo {
    pub fn new(total: usize, size: usize, number: usize) -> Self {
        PageInfo { total_count: total, page_size: size, page_number: number }
    }
}

#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub(super) struct PageInfo {
    total_count: usize,
    page_size: usize,
    page_number: usize,
}

/// `GET /v3/campaigns`.
#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct CampaignPage<'a> {
    pub campaigns: Vec<CampaignOut<'a>>,
    pub pagination: PageInfo,
}

/// `GET /v3/goals`.
#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct GoalPage<'a> {
    pub goals: Vec<GoalOut<'a>>,
    pub pagination: PageInfo,
}

/// `GET /v3/ads`.
#[derive(Serialize, utoipa::ToSchema)]
pub(super) struct AdPage<'a> {
    pub ads: Vec<AdOut<'a>>,
    pub pagination: PageInfo,
}

/// Campaign objects for a page, from what `usecases::v3::for_campaigns` loaded.
pub fn render_campaigns<'a>(cx: &Ctx<'a>, list: &'a [Campaign], o: &'a CampaignOpts, x: &'a Expansion) -> Vec<CampaignOut<'a>> {
    let none = Counters::default();
    let mut out = Vec::with_capacity(list.len());
    for c in list {
        let expanded = o.expand_goals.then(|| {
            c.goals
                .iter()
                .filter(|f| o.include_deleted_goals || !f.deleted)
                .filter_map(|f| x.goals.get(&f.id))
                .map(|g| {
                    let nested = o.expand_ads.then(|| nested_ads(g, c, &x.ads, &x.devices));
                    goal_json(cx, g, c, nested, None, None)
                })
                .collect()
        });
        let m = o.metrics.as_ref().map(|names| MetricsOut::of(x.counters.get(&c.id).unwrap_or(&none), names, None));
        out.push(campaign_json(cx, c, expanded, m, o.include_deleted_goals));
    }
    out
}

/// What a campaign page's options expand.
pub fn campaign_expand(o: &CampaignOpts) -> CampaignExpand {
    CampaignExpand {
        goals: o.expand_goals,
        ads: o.expand_ads,
        include_deleted_goals: o.include_deleted_goals,
        metrics: o.metrics.is_some(),
    }
}

/// What a goal page expands, from its options.
pub fn goal_expand(o: &GoalOpts) -> crate::usecases::v3::GoalExpand {
    crate::usecases::v3::GoalExpand { ads: o.expand_ads, counters: o.metrics.is_some(), projections: o.projections }
}

/// Goal objects for a page, from what `usecases::v3::for_goals` loaded.
pub fn render_goals<'a>(cx: &Ctx<'a>, list: &'a [(Goal, Campaign)], o: &'a GoalOpts, x: &'a Expansion) -> Vec<GoalOut<'a>> {
    let none = Counters::default();
    list.iter()
        .map(|(g, c)| {
            let cn = x.counters.get(&g.id).unwrap_or(&none);
            let nested = o.expand_ads.then(|| nested_ads(g, c, &x.ads, &x.devices));
            let m = o.metrics.as_ref().map(|names| MetricsOut::of(cn, names, Some(g)));
            let proj = o.projections.then(|| x.pacing.get(&g.id).and_then(|p| p.projection.as_ref()));
            goal_json(cx, g, c, nested, m, proj)
        })
        .collect()
}

/// Ad objects for a page, from what `usecases::v3::for_ads` loaded.
pub fn render_ads<'a>(
    list: &'a [(Ad, Goal, Campaign)],
    names: &'a Option<Vec<crate::model::enums::Metric>>,
    x: &'a Expansion,
) -> Vec<AdOut<'a>> {
    let none = Counters::default();
    let mut by_goal: HashMap<&str, HashMap<String, crate::model::ad::Weight>> = HashMap::new();
    for (_, g, _) in list {
        by_goal.entry(g.id.as_str()).or_insert_with(|| weights(&g.ads));
    }
    list.iter()
        .map(|(ad, g, c)| {
            let m = names.as_ref().map(|n| MetricsOut::of(x.counters.get(&ad.id).unwrap_or(&none), n, None));
            let w = by_goal.get(g.id.as_str()).and_then(|w| w.get(&ad.id)).copied();
            ad_json(ad, g, c, false, m, w, &x.devices)
        })
        .collect()
}
