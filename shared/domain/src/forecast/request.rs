//! Forecast requests (seed 002 §2.4-§2.6): the campaign and inventory bodies read into
//! typed values, every rule checked and every problem listed with its path.

use crate::rule::Rule;
use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::request_body::{CampaignForecastBody, ForecastGoal, ForecastTargeting, InventoryForecastBody};
use crate::domain_error::FieldError;
use crate::model::enums::{ForecastAdFormat, FormatType, GoalType, GoalVariant, ParentOverride};
use crate::model::rules::{Known, Rules};
use crate::model::template::{check_rules, RulesFor};

pub use super::request_body::{MAX_ADS, MAX_GOALS};
pub const MAX_NAME: usize = crate::limits::NAME_MAX;
pub const MAX_DAYS_AHEAD: i64 = 100;

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Targeting {
    pub templates: Vec<String>,
    pub rules: Rules,
    /// parentOverrides set to true.
    pub overrides: Vec<ParentOverride>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdIn {
    pub name: String,
    pub format: ForecastAdFormat,
    pub device_containers: Vec<String>,
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GoalIn {
    pub name: String,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub priority: Option<u8>,
    pub frontload: Option<u8>,
    pub targeting: Targeting,
    pub variant: GoalVariant,
    pub goal_type: GoalType,
    pub value: f64,
    pub daily_cap: Option<u64>,
    pub ads: Vec<AdIn>,
    /// The marketplace an RTB or IMPRESSION goal is filled from (its recorded fill rate,
    /// never a bidder: docs/programmatic.md, "Forecasts").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marketplace_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CampaignForecast {
    /// The account's campaign this proposal stands in for (its goals leave the competition).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replaces: Option<String>,
    pub name: Option<String>,
    pub priority: Option<u8>,
    pub frontload: Option<u8>,
    pub targeting: Targeting,
    pub goals: Vec<GoalIn>,
    /// The body as submitted (the report echoes it).
    pub echo: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InventoryForecast {
    pub name: Option<String>,
    pub variant: GoalVariant,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub traffic_estimate: Option<u64>,
    pub format_types: Vec<FormatType>,
    pub device_containers: Vec<String>,
    pub targeting: Targeting,
}

/// What the account holds that a request may name.
pub struct Refs<'a> {
    pub known: &'a Known,
    pub templates: &'a [String],
    pub device_containers: &'a [String],
}

fn join(path: &str, name: &str) -> String {
    if path.is_empty() {
        name.to_string()
    } else {
        format!("{path}.{name}")
    }
}

/// start ≥ 24 h from now, end > start, end ≤ 100 days from now (`path` the object's).
fn window(path: &str, start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>, now: DateTime<Utc>, errors: &mut Vec<FieldError>) {
    if start.is_some_and(|s| s < now + Duration::days(1)) {
        let p = join(path, "startDate");
        errors.push(FieldError::new(p.clone(), Rule::AtLeastOneDayAhead, format!("{p} must be at least one day in the future")));
    }
    after_start(path, start, end, errors);
    if end.is_some_and(|e| e > now + Duration::days(MAX_DAYS_AHEAD)) {
        let p = join(path, "endDate");
        errors.push(FieldError::new(p.clone(), Rule::MaxDaysAhead, format!("{p} must be at most {MAX_DAYS_AHEAD} days from today")));
    }
}

fn after_start(path: &str, start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>, errors: &mut Vec<FieldError>) {
    if let (Some(s), Some(e)) = (start, end) {
        if e <= s {
            let p = join(path, "endDate");
            errors.push(FieldError::new(p.clone(), Rule::AfterStart, format!("{p} must be after startDate")));
        }
    }
}

fn containers(path: &str, ids: &[String], refs: &Refs, errors: &mut Vec<FieldError>) {
    for (i, d) in ids.iter().enumerate().filter(|(_, d)| !refs.device_containers.contains(d)) {
        errors.push(FieldError::new(format!("{path}[{i}]"), Rule::Reference, format!("no device container {d} in this account")));
    }
}

/// The rules of a forecast's targeting at `path`: its templates the account's, its rules
/// those `kind` supports; the targeting as read.
fn targeting(t: Option<&ForecastTargeting>, path: &str, refs: &Refs, kind: RulesFor, errors: &mut Vec<FieldError>) -> Targeting {
    let Some(t) = t else { return Targeting::default() };
    for (i, id) in t.targeting_templates.iter().flatten().enumerate().filter(|(_, id)| !refs.templates.contains(id)) {
        errors.push(FieldError::new(
            format!("{path}.targetingTemplates[{i}]"),
            Rule::Reference,
            format!("no targeting template {id} in this account"),
        ));
    }
    let rules = t.targeting_rules.as_ref().map(|r| check_rules(r, &format!("{path}.targetingRules"), refs.known, "", kind, errors));
    if kind == RulesFor::InventoryForecast && t.parent_overrides.as_ref().is_some_and(|o| o.frequency_rules.is_some()) {
        let p = format!("{path}.parentOverrides.frequencyRules");
        errors.push(FieldError::new(p.clone(), Rule::Unknown, format!("unknown field {p}: an inventory forecast has no frequency rules")));
    }
    Targeting {
        templates: t.targeting_templates.clone().unwrap_or_default(),
        rules: rules.unwrap_or_default(),
        overrides: t.parent_overrides.as_ref().map(|o| o.set_true()).unwrap_or_default(),
    }
}

/// The rules of a forecast goal at `path` (its shape is the schema's); the goal as run.
fn goal(g: &ForecastGoal, path: &str, refs: &Refs, now: DateTime<Utc>, errors: &mut Vec<FieldError>) -> GoalIn {
    let kind = g.delivery_goal.kind;
    let dg = format!("{path}.deliveryGoal");
    if !GoalType::FORECASTABLE.contains(&kind) {
        let names: Vec<&str> = GoalType::FORECASTABLE.iter().map(|t| t.as_str()).collect();
        errors.push(FieldError::new(
            format!("{dg}.type"),
            Rule::Enum,
            format!("{dg}.type must be one of {} (got {kind})", names.join(", ")),
        ));
    }
    let rtb = kind == GoalType::Rtb;
    match g.delivery_goal.value {
        _ if rtb => {}
        None => errors.push(FieldError::new(format!("{dg}.value"), Rule::Required, format!("{dg}.value is required"))),
        Some(v) if v <= 0.0 => {
            errors.push(FieldError::new(format!("{dg}.value"), Rule::Positive, format!("{dg}.value must be a positive number")))
        }
        Some(_) => {}
    }
    // endDate: present (the schema), and blank only for an RTB goal (then 100 days from today).
    if g.end_date.is_none() && !rtb {
        let p = join(path, "endDate");
        errors.push(FieldError::new(p.clone(), Rule::Required, format!("{p} is required (only an RTB goal may leave it blank)")));
    }
    let end = g.end_date.unwrap_or(now + Duration::days(MAX_DAYS_AHEAD));
    window(path, g.start_date, Some(end), now, errors);
    if g.marketplace_id.is_some() && !matches!(kind, GoalType::Impression | GoalType::Rtb) {
        let p = join(path, "marketplaceId");
        errors.push(FieldError::new(
            p.clone(),
            Rule::NotAllowed,
            format!("{p} is allowed only when deliveryGoal.type is IMPRESSION or RTB"),
        ));
    }
    let mut ads = Vec::new();
    for (i, a) in g.ads.iter().enumerate() {
        let at = format!("{path}.ads[{i}]");
        containers(&format!("{at}.deviceContainers"), &a.device_containers, refs, errors);
        after_start(&at, a.start_date, a.end_date, errors);
        ads.push(AdIn {
            name: a.name.clone(),
            format: a.format,
            device_containers: a.device_containers.clone(),
            start: a.start_date,
            end: a.end_date,
        });
    }
    GoalIn {
        name: g.name.clone(),
        start: g.start_date.unwrap_or(now),
        end,
        priority: g.priority,
        frontload: g.frontload,
        targeting: targeting(g.targeting.as_ref(), &join(path, "targeting"), refs, RulesFor::CampaignForecast, errors),
        variant: g.variant,
        goal_type: kind,
        value: g.delivery_goal.value.unwrap_or(0.0),
        daily_cap: g.daily_cap,
        ads,
        marketplace_id: g.marketplace_id.clone(),
    }
}

/// Reads a campaign forecast request (§2.4).
pub fn campaign(body: &Value, refs: &Refs, now: DateTime<Utc>) -> Result<CampaignForecast, Vec<FieldError>> {
    let mut out = None;
    crate::json::read(body, |b: &mut CampaignForecastBody, errors| {
        let c = &b.campaign;
        let goals = c.goals.iter().enumerate().map(|(i, g)| goal(g, &format!("campaign.goals[{i}]"), refs, now, errors)).collect();
        if let Some(id) = c.replaces_campaign_id.as_deref().filter(|id| !crate::ids::plausible_id(id)) {
            errors.push(FieldError::new(
                "campaign.replacesCampaignId",
                Rule::Id,
                format!("campaign.replacesCampaignId must be a campaign id (got {id:?})"),
            ));
        }
        out = Some(CampaignForecast {
            replaces: c.replaces_campaign_id.clone(),
            name: c.name.clone(),
            priority: c.priority,
            frontload: c.frontload,
            targeting: targeting(c.targeting.as_ref(), "campaign.targeting", refs, RulesFor::CampaignForecast, errors),
            goals,
            echo: body.get("campaign").cloned().unwrap_or_default(),
        });
    })?;
    out.ok_or_else(|| vec![FieldError::new("campaign", Rule::Required, "the body is {\"campaign\": {...}}")])
}

/// Reads an inventory forecast request (§2.5).
pub fn inventory(body: &Value, refs: &Refs, now: DateTime<Utc>) -> Result<InventoryForecast, Vec<FieldError>> {
    let mut out = None;
    crate::json::read(body, |b: &mut InventoryForecastBody, errors| {
        for (f, d) in [("startDate", b.start_date), ("endDate", b.end_date)] {
            if d.is_none() {
                errors.push(FieldError::new(f, Rule::Required, format!("{f} is required")));
            }
        }
        window("", b.start_date, b.end_date, now, errors);
        containers("deviceContainers", b.device_containers.as_deref().unwrap_or_default(), refs, errors);
        out = Some(InventoryForecast {
            name: b.name.clone(),
            variant: b.variant,
            start: b.start_date.unwrap_or(now),
            end: b.end_date.unwrap_or(now),
            traffic_estimate: b.traffic_estimate,
            format_types: b.format_types.clone().unwrap_or_default(),
            device_containers: b.device_containers.clone().unwrap_or_default(),
            targeting: targeting(Some(&b.targeting), "targeting", refs, RulesFor::InventoryForecast, errors),
        });
    })?;
    out.ok_or_else(|| vec![FieldError::new("body", Rule::Required, "variant, startDate and endDate are required")])
}
