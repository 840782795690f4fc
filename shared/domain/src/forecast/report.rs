//! The reports (seed 002 §2.7), built as the typed documents of `report_schema`. Units are
//! rounded to whole requests; a day's total is the sum of its rounded formats, so formats
//! always add up. The charts are `chart.rs`.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Map, Value};

use super::report_schema::{
    CampaignReport, CompetingGoal, DeliveryDay, EchoedTargeting, FormatTotal, GoalForecast as GoalOut, GoalReport, InventoryDay,
    InventoryReport, InventorySide,
};
use super::simulate::{GoalForecast, Inventory, Series};
use crate::delivery::snapshot::AdFormat;
use crate::model::enums::FormatType;

/// A window's days: report key and, for a partly covered edge day, its hours.
pub type Days = [(String, Option<u32>)];

fn side(series: &BTreeMap<AdFormat, Series>, days: &Days, day_samples: &[u32]) -> InventorySide {
    let mut by_date = BTreeMap::new();
    let mut total = 0.0;
    for (d, (key, hours)) in days.iter().enumerate() {
        let mut formats = BTreeMap::new();
        let mut day_total = 0.0;
        let (mut low, mut high) = (0.0, 0.0);
        for (f, s) in series {
            let Some(name) = FormatType::of(*f) else { continue };
            let v = s.value[d].round();
            let (l, h) = s.band(d, day_samples.get(d).copied().unwrap_or(0));
            formats.insert(name, FormatTotal { total: v });
            day_total += v;
            low += l;
            high += h;
        }
        total += day_total;
        by_date.insert(
            key.clone(),
            InventoryDay { total: day_total, low: low.round(), high: high.round(), hours: *hours, inventory_by_format: formats },
        );
    }
    InventorySide { total, inventory_by_date: by_date }
}

/// InventoryForecastResultBean, with a low/high band per day.
pub fn inventory(name: Option<&str>, job: &str, inv: &Inventory, days: &Days, source: &str) -> InventoryReport {
    InventoryReport {
        total_inventory: side(&inv.total, days, &inv.day_samples),
        unused_inventory: side(&inv.unused, days, &inv.day_samples),
        name: name.map(str::to_string),
        job_id: job.to_string(),
        traffic_source: source.to_string(),
        programmatic_basis: Vec::new(),
    }
}

const RULE_ARRAYS: &[&str] =
    &["locationRules", "tagAndPartnerRules", "categoryRules", "frequencyRules", "ipRules", "userAgentRules", "timeRules"];

/// A targeting object as echoed: every rule array present (empty when unset), templates
/// null when unset.
fn echo_targeting(t: Option<&Value>) -> EchoedTargeting {
    let t = t.and_then(Value::as_object);
    let rules = t.and_then(|t| t.get("targetingRules")).and_then(Value::as_object);
    let mut r = Map::new();
    for k in RULE_ARRAYS {
        r.insert(k.to_string(), rules.and_then(|r| r.get(*k)).cloned().filter(|v| !v.is_null()).unwrap_or_else(|| json!([])));
    }
    r.insert(
        "audienceRules".into(),
        rules.and_then(|r| r.get("audienceRules")).cloned().filter(|v| !v.is_null()).unwrap_or_else(|| json!({})),
    );
    EchoedTargeting {
        targeting_templates: t
            .and_then(|t| t.get("targetingTemplates"))
            .and_then(Value::as_array)
            .map(|a| a.iter().filter_map(Value::as_str).map(str::to_string).collect()),
        targeting_rules: Value::Object(r),
        parent_overrides: t.and_then(|t| t.get("parentOverrides")).cloned().unwrap_or(Value::Null),
    }
}

fn pick(o: Option<&Map<String, Value>>, keys: &[&str]) -> Map<String, Value> {
    keys.iter().map(|k| (k.to_string(), o.and_then(|o| o.get(*k)).cloned().unwrap_or(Value::Null))).collect()
}

/// A field of the submitted object as it was sent (null when unset).
fn field(o: Option<&Map<String, Value>>, k: &str) -> Value {
    o.and_then(|o| o.get(k)).cloned().unwrap_or(Value::Null)
}

fn text(o: Option<&Map<String, Value>>, k: &str) -> Option<String> {
    o.and_then(|o| o.get(k)).and_then(Value::as_str).map(str::to_string)
}

fn small(o: Option<&Map<String, Value>>, k: &str) -> Option<u8> {
    o.and_then(|o| o.get(k)).and_then(Value::as_u64).and_then(|n| u8::try_from(n).ok())
}

/// Names of the booked goals and campaigns, for competing goals.
pub struct Names {
    pub goals: HashMap<String, (Option<String>, String, u8)>,
    pub campaigns: HashMap<String, String>,
}

/// One proposed goal's results.
fn goal_result(
    g: &GoalForecast,
    target: Option<f64>,
    days: &Days,
    day_samples: &[u32],
    competing: &[(String, f64)],
    names: &Names,
) -> GoalOut {
    let delivered = g.delivered.total().round();
    let mut by_date = BTreeMap::new();
    for (d, (key, hours)) in days.iter().enumerate() {
        let (l, h) = g.delivered.band(d, day_samples.get(d).copied().unwrap_or(0));
        by_date.insert(key.clone(), DeliveryDay { units: g.delivered.value[d].round(), low: l.round(), high: h.round(), hours: *hours });
    }
    let competing = competing
        .iter()
        .map(|(id, units)| {
            let (name, campaign, priority) = names.goals.get(id).cloned().unwrap_or((None, String::new(), 0));
            CompetingGoal {
                goal_id: id.clone(),
                goal_name: name,
                campaign_name: names.campaigns.get(&campaign).cloned(),
                campaign_id: campaign,
                priority,
                units: units.round(),
            }
        })
        .collect();
    GoalOut {
        forecasted_units: delivered,
        target,
        share_of_target: target.filter(|t| *t > 0.0).map(|t| ((delivered / t) * 10_000.0).round() / 100.0),
        matched_units: g.matched.round(),
        possible_units: g.possible.round(),
        available_units: g.available.round(),
        delivery_by_date: by_date,
        competing_goals: Some(competing),
    }
}

/// What a campaign forecast's simulation gives, per proposed goal (request order).
pub struct CampaignResults<'a> {
    pub results: &'a [GoalForecast],
    pub targets: &'a [Option<f64>],
    pub days: &'a Days,
    pub day_samples: &'a [u32],
    pub competing: &'a [Vec<(String, f64)>],
    pub names: &'a Names,
}

/// FeasibilityForecastResultBean: the submitted campaign echoed (unset values null, every
/// rule array present), each goal followed by its forecast.
pub fn campaign(echo: &Value, job: &str, r: &CampaignResults<'_>, source: &str) -> CampaignReport {
    let c = echo.as_object();
    // An ad is echoed with every field its request type has.
    let ad_schema = crate::json::schema::<super::request_body::ForecastAd>();
    let ad_fields = ad_schema.properties();
    let goals = c.and_then(|c| c.get("goals")).and_then(Value::as_array).cloned().unwrap_or_default();
    let goals = goals
        .iter()
        .enumerate()
        .map(|(i, g)| {
            let go = g.as_object();
            let ads = go
                .and_then(|g| g.get("ads"))
                .and_then(Value::as_array)
                .map(|a| a.iter().map(|ad| Value::Object(pick(ad.as_object(), &ad_fields))).collect())
                .unwrap_or_default();
            let forecast = match r.results.get(i) {
                Some(res) => {
                    let comp = r.competing.get(i).map(Vec::as_slice).unwrap_or(&[]);
                    goal_result(res, r.targets.get(i).copied().flatten(), r.days, r.day_samples, comp, r.names)
                }
                None => goal_result(&GoalForecast::default(), None, &[], &[], &[], r.names),
            };
            GoalReport {
                custom_id: text(go, "customId"),
                name: text(go, "name"),
                start_date: field(go, "startDate"),
                end_date: field(go, "endDate"),
                priority: small(go, "priority"),
                frontload: small(go, "frontload"),
                targeting: echo_targeting(go.and_then(|g| g.get("targeting"))),
                variant: text(go, "variant"),
                position_restriction: text(go, "positionRestriction"),
                delivery_goal: field(go, "deliveryGoal"),
                ads,
                sequence: field(go, "sequence"),
                daily_cap: field(go, "dailyCap"),
                marketplace_id: field(go, "marketplaceId"),
                forecast,
            }
        })
        .collect();
    CampaignReport {
        advertiser: text(c, "advertiser"),
        agency: text(c, "agency"),
        brand: text(c, "brand"),
        custom_id: text(c, "customId"),
        name: text(c, "name"),
        frontload: small(c, "frontload"),
        priority: small(c, "priority"),
        targeting: echo_targeting(c.and_then(|c| c.get("targeting"))),
        goals,
        job_id: job.to_string(),
        traffic_source: source.to_string(),
        programmatic_basis: Vec::new(),
    }
}
