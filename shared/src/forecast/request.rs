//! Forecast requests (seed 002 §2.4-§2.6): the campaign and inventory bodies read into
//! typed values, every rule checked and every problem listed with its path.

use crate::rule::Rule;
use chrono::{DateTime, Duration, TimeZone, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::request_body::{
    CampaignForecastBody, DeliveryGoal, ForecastAd, ForecastCampaign, ForecastGoal, ForecastTargeting, InventoryForecastBody,
    ParentOverrides,
};
use crate::domain_error::FieldError;
use crate::json::ObjReader;
use crate::limits::MAX_ID_LEN;
use crate::model::enums::{ForecastAdFormat, FormatType, GoalType, GoalVariant, ParentOverride, PositionRestriction, WireEnum};
use crate::model::rules::{Known, Rules};
use crate::model::template::{parse_rules_at, RulesFor};

pub use super::request_body::{MAX_ADS, MAX_GOALS};
pub const MAX_NAME: usize = crate::limits::NAME_MAX;
pub const MAX_DAYS_AHEAD: i64 = 100;

/// The fields of a forecast goal, an ad and the campaign (§2.4), in the order reports echo them.
pub const GOAL_FIELDS: &[&str] = &[
    "customId",
    "name",
    "startDate",
    "endDate",
    "priority",
    "frontload",
    "targeting",
    "variant",
    "positionRestriction",
    "deliveryGoal",
    "ads",
    "sequence",
    "dailyCap",
    "marketplaceId",
];
pub const TARGETING_FIELDS: &[&str] = &["targetingTemplates", "targetingRules", "parentOverrides"];
pub const INVENTORY_FIELDS: &[&str] =
    &["name", "variant", "startDate", "endDate", "trafficEstimate", "formatTypes", "deviceContainers", "targeting"];
pub const AD_FIELDS: &[&str] = &["name", "customId", "format", "deviceContainers", "startDate", "endDate"];
pub const CAMPAIGN_FIELDS: &[&str] = &["advertiser", "agency", "brand", "customId", "name", "frontload", "priority", "targeting", "goals"];

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

/// §2.6: a `yyyy-MM-ddTHH:mm:ss.sssZ` string or epoch milliseconds, UTC.
fn date(r: &mut ObjReader, name: &str) -> Option<DateTime<Utc>> {
    let v = r.get(name)?;
    let p = r.at(name);
    let parsed = match v {
        Value::Number(n) => n.as_i64().and_then(|ms| Utc.timestamp_millis_opt(ms).single()),
        Value::String(s) => DateTime::parse_from_rfc3339(s).ok().map(|d| d.with_timezone(&Utc)),
        _ => None,
    };
    if parsed.is_none() {
        r.err(name, Rule::Date, format!("{p} must be yyyy-MM-ddTHH:mm:ss.sssZ or epoch milliseconds (got {v})"));
    }
    parsed
}

fn blank(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => true,
        Some(Value::String(s)) => s.trim().is_empty(),
        _ => false,
    }
}

/// start ≥ 24 h from now, end > start, end ≤ 100 days from now.
fn window(r: &mut ObjReader, start: Option<DateTime<Utc>>, end: Option<DateTime<Utc>>, now: DateTime<Utc>, end_name: &str) {
    if let Some(s) = start {
        if s < now + Duration::days(1) {
            let p = r.at("startDate");
            r.err("startDate", Rule::AtLeastOneDayAhead, format!("{p} must be at least one day in the future"));
        }
    }
    if let (Some(s), Some(e)) = (start, end) {
        if e <= s {
            let p = r.at(end_name);
            r.err(end_name, Rule::AfterStart, format!("{p} must be after startDate"));
        }
    }
    if let Some(e) = end {
        if e > now + Duration::days(MAX_DAYS_AHEAD) {
            let p = r.at(end_name);
            r.err(end_name, Rule::MaxDaysAhead, format!("{p} must be at most {MAX_DAYS_AHEAD} days from today"));
        }
    }
}

fn frontload(r: &mut ObjReader, name: &str) -> Option<u8> {
    let v = r.int_opt(name, 0, 100)?;
    if v % 10 != 0 {
        let p = r.at(name);
        r.err(name, Rule::Step, format!("{p} must be 0, 10, ..., 100 (got {v})"));
        return None;
    }
    Some(v as u8)
}

fn strings(r: &mut ObjReader, name: &str, max: usize) -> Vec<String> {
    let path = r.at(name);
    let Some(list) = r.array_opt(name) else { return Vec::new() };
    let mut out = Vec::new();
    for (i, v) in list.iter().enumerate() {
        match v.as_str() {
            Some(s) if !s.is_empty() && s.len() <= max => out.push(s.to_string()),
            _ => r.errors.push(FieldError::new(
                format!("{path}[{i}]"),
                Rule::Type,
                format!("{path}[{i}] must be a non-empty string of at most {max} characters"),
            )),
        }
    }
    out
}

fn targeting(r: &mut ObjReader, name: &str, refs: &Refs, kind: RulesFor, required: bool) -> Option<ForecastTargeting> {
    let path = r.at(name);
    let Some(v) = r.get(name) else {
        if required {
            r.err(name, Rule::Required, format!("{path} is required (it cannot be omitted; targetingTemplates may be null)"));
        }
        return None;
    };
    let mut t = ObjReader::new(v, &path, TARGETING_FIELDS);
    let templates = t.present("targetingTemplates").then(|| strings(&mut t, "targetingTemplates", MAX_ID_LEN));
    for (i, id) in templates.iter().flatten().enumerate() {
        if !refs.templates.contains(id) {
            t.errors.push(FieldError::new(
                format!("{path}.targetingTemplates[{i}]"),
                Rule::Reference,
                format!("no targeting template {id} in this account"),
            ));
        }
    }
    let rules = match t.get("targetingRules") {
        Some(rv) => match parse_rules_at(rv, &t.at("targetingRules"), refs.known, "", kind) {
            Ok(rules) => Some(rules),
            Err(mut e) => {
                t.errors.append(&mut e);
                None
            }
        },
        None => None,
    };
    let mut overrides = None;
    if let Some(o) = t.get("parentOverrides") {
        let allowed: Vec<ParentOverride> = ParentOverride::ALL
            .iter()
            .copied()
            .filter(|k| kind != RulesFor::InventoryForecast || *k != ParentOverride::FrequencyRules)
            .collect();
        let names: Vec<&str> = allowed.iter().map(|k| k.as_str()).collect();
        let mut ob = ObjReader::new(o, &t.at("parentOverrides"), &names);
        let mut set = ParentOverrides::default();
        for k in &allowed {
            set.set(*k, ob.bool_opt(k.as_str()));
        }
        overrides = Some(set);
        t.errors.append(&mut ob.errors);
    }
    r.errors.append(&mut t.errors);
    Some(ForecastTargeting { targeting_templates: templates, targeting_rules: rules, parent_overrides: overrides })
}

fn ad(v: &Value, path: &str, refs: &Refs) -> (Option<ForecastAd>, Vec<FieldError>) {
    let mut r = ObjReader::new(v, path, AD_FIELDS);
    let name = r.str_req("name", MAX_NAME);
    let custom_id = r.str_opt("customId", MAX_NAME);
    let format = r.one_of("format", ForecastAdFormat::ALL);
    if !r.present("format") {
        let p = r.at("format");
        r.err("format", Rule::Required, format!("{p} is required"));
    }
    let dcs = strings(&mut r, "deviceContainers", MAX_ID_LEN);
    if !r.present("deviceContainers") {
        let p = r.at("deviceContainers");
        r.err("deviceContainers", Rule::Required, format!("{p} is required (device container ids)"));
    }
    for (i, d) in dcs.iter().enumerate() {
        if !refs.device_containers.contains(d) {
            r.errors.push(FieldError::new(
                format!("{path}.deviceContainers[{i}]"),
                Rule::Reference,
                format!("no device container {d} in this account"),
            ));
        }
    }
    let start = date(&mut r, "startDate");
    let end = date(&mut r, "endDate");
    if let (Some(s), Some(e)) = (start, end) {
        if e <= s {
            let p = r.at("endDate");
            r.err("endDate", Rule::AfterStart, format!("{p} must be after startDate"));
        }
    }
    let out = match (name, format) {
        (Some(name), Some(format)) => {
            Some(ForecastAd { name, custom_id, format, device_containers: dcs, start_date: start, end_date: end })
        }
        _ => None,
    };
    (out, r.errors)
}

fn goal(v: &Value, path: &str, refs: &Refs, now: DateTime<Utc>) -> (Option<ForecastGoal>, Vec<FieldError>) {
    let mut r = ObjReader::new(v, path, GOAL_FIELDS);
    let name = r.str_req("name", MAX_NAME);
    let custom_id = r.str_opt("customId", MAX_NAME);
    let start = date(&mut r, "startDate");
    if !r.present("startDate") {
        let p = r.at("startDate");
        r.err("startDate", Rule::Required, format!("{p} is required"));
    }
    let priority = r.int_opt("priority", 1, 10).map(|p| p as u8);
    let frontload = frontload(&mut r, "frontload");
    let targeting = targeting(&mut r, "targeting", refs, RulesFor::CampaignForecast, false);
    let variant = r.one_of("variant", GoalVariant::ALL);
    if !r.present("variant") {
        let p = r.at("variant");
        r.err("variant", Rule::Required, format!("{p} is required: NORMAL or BUMPER"));
    }
    let position_restriction = r.one_of("positionRestriction", PositionRestriction::ALL);
    let sequence = r.int_opt("sequence", 0, i64::from(u32::MAX)).map(|s| s as u32);
    let daily_cap = r.int_opt("dailyCap", 0, i64::MAX).map(|c| c as u64);
    let (goal_type, value) = match r.get("deliveryGoal") {
        None => {
            let p = r.at("deliveryGoal");
            r.err("deliveryGoal", Rule::Required, format!("{p} is required: {{value, type}}"));
            (None, None)
        }
        Some(d) => {
            let mut dr = ObjReader::new(d, &r.at("deliveryGoal"), &["value", "type"]);
            let t = dr.one_of("type", GoalType::FORECASTABLE);
            if !dr.present("type") {
                let p = dr.at("type");
                dr.err("type", Rule::Required, format!("{p} is required"));
            }
            let value = dr.f64_opt("value");
            match (t, value) {
                (Some(GoalType::Rtb), _) => {}
                (Some(_), None) if !dr.present("value") => {
                    let p = dr.at("value");
                    dr.err("value", Rule::Required, format!("{p} is required"));
                }
                (Some(_), Some(v)) if v <= 0.0 => {
                    let p = dr.at("value");
                    dr.err("value", Rule::Positive, format!("{p} must be a positive number"));
                }
                _ => {}
            }
            r.errors.append(&mut dr.errors);
            (t, value)
        }
    };
    // endDate: required, except blank for RTB (then 100 days from today); the field must be present.
    let rtb = goal_type == Some(GoalType::Rtb);
    let end_value = v.as_object().and_then(|o| o.get("endDate"));
    let end = if !has_key(v, "endDate") {
        let p = r.at("endDate");
        r.err("endDate", Rule::Required, format!("{p} must be present (an RTB goal may leave it blank)"));
        None
    } else if blank(end_value) {
        if rtb {
            Some(now + Duration::days(MAX_DAYS_AHEAD))
        } else {
            let p = r.at("endDate");
            r.err("endDate", Rule::Required, format!("{p} is required (only an RTB goal may leave it blank)"));
            None
        }
    } else {
        date(&mut r, "endDate")
    };
    window(&mut r, start, end, now, "endDate");
    let rtb_open_end = rtb && blank(end_value);
    let mut marketplace_id = None;
    if r.present("marketplaceId") {
        marketplace_id = r.str_opt("marketplaceId", MAX_NAME);
        if !matches!(goal_type, Some(GoalType::Impression | GoalType::Rtb)) {
            let p = r.at("marketplaceId");
            r.err("marketplaceId", Rule::NotAllowed, format!("{p} is allowed only when deliveryGoal.type is IMPRESSION or RTB"));
        }
    }
    let mut ads = Vec::new();
    match r.array_opt("ads") {
        Some(list) if !list.is_empty() => {
            if list.len() > MAX_ADS {
                let p = r.at("ads");
                r.err("ads", Rule::MaxItems, format!("{p} holds at most {MAX_ADS} ads"));
            }
            for (i, a) in list.iter().take(MAX_ADS).enumerate() {
                let (a, mut e) = ad(a, &format!("{}[{i}]", r.at("ads")), refs);
                ads.extend(a);
                r.errors.append(&mut e);
            }
        }
        _ => {
            let p = r.at("ads");
            r.err("ads", Rule::Required, format!("{p} must hold at least one ad"));
        }
    }
    let errors = std::mem::take(&mut r.errors);
    let out = match (name, start, end, variant, goal_type) {
        (Some(name), Some(start), Some(end), Some(variant), Some(kind)) if errors.is_empty() => Some(ForecastGoal {
            custom_id,
            name,
            start_date: start,
            end_date: (!rtb_open_end).then_some(end),
            priority,
            frontload,
            targeting,
            variant,
            position_restriction,
            delivery_goal: DeliveryGoal { value, kind },
            ads,
            sequence,
            daily_cap,
            marketplace_id,
        }),
        _ => None,
    };
    (out, errors)
}

fn has_key(v: &Value, k: &str) -> bool {
    v.as_object().is_some_and(|o| o.contains_key(k))
}

/// Reads a campaign forecast request (§2.4).
pub fn campaign(body: &Value, refs: &Refs, now: DateTime<Utc>) -> Result<CampaignForecast, Vec<FieldError>> {
    let mut top = ObjReader::new(body, "", &["campaign"]);
    let Some(c) = top.get("campaign") else {
        top.err("campaign", Rule::Required, "the body is {\"campaign\": {...}}");
        return Err(top.errors);
    };
    let mut r = ObjReader::new(c, "campaign", CAMPAIGN_FIELDS);
    let advertiser = r.str_opt("advertiser", MAX_ID_LEN);
    let agency = r.str_opt("agency", MAX_ID_LEN);
    let brand = r.str_opt("brand", MAX_ID_LEN);
    let custom_id = r.str_opt("customId", MAX_ID_LEN);
    let name = r.str_opt("name", MAX_NAME);
    let frontload = frontload(&mut r, "frontload");
    let priority = r.int_opt("priority", 1, 10).map(|p| p as u8);
    let targeting = targeting(&mut r, "targeting", refs, RulesFor::CampaignForecast, false);
    let mut goals = Vec::new();
    match r.array_opt("goals") {
        Some(list) if !list.is_empty() => {
            if list.len() > MAX_GOALS {
                r.err("goals", Rule::MaxItems, format!("campaign.goals holds at most {MAX_GOALS} goals"));
            }
            for (i, g) in list.iter().take(MAX_GOALS).enumerate() {
                let (g, mut e) = goal(g, &format!("campaign.goals[{i}]"), refs, now);
                goals.extend(g);
                r.errors.append(&mut e);
            }
        }
        _ => r.err("goals", Rule::Required, "campaign.goals must hold at least one goal"),
    }
    top.errors.append(&mut r.errors);
    if !top.errors.is_empty() {
        return Err(top.errors);
    }
    let body = CampaignForecastBody {
        campaign: ForecastCampaign { advertiser, agency, brand, custom_id, name, frontload, priority, targeting, goals },
    };
    Ok(CampaignForecast::from_body(body.campaign, c.clone(), now))
}

/// Reads an inventory forecast request (§2.5).
pub fn inventory(body: &Value, refs: &Refs, now: DateTime<Utc>) -> Result<InventoryForecast, Vec<FieldError>> {
    let mut r = ObjReader::new(body, "", INVENTORY_FIELDS);
    let name = r.str_opt("name", MAX_NAME);
    let variant = r.one_of("variant", GoalVariant::ALL);
    if !r.present("variant") {
        r.err("variant", Rule::Required, "variant is required: NORMAL or BUMPER");
    }
    let start = date(&mut r, "startDate");
    let end = date(&mut r, "endDate");
    for f in ["startDate", "endDate"] {
        if !r.present(f) {
            r.err(f, Rule::Required, format!("{f} is required"));
        }
    }
    window(&mut r, start, end, now, "endDate");
    let traffic_estimate = r.int_opt("trafficEstimate", 0, 10_000_000_000).map(|t| t as u64);
    let mut format_types = r.present("formatTypes").then(Vec::new);
    for (i, f) in strings(&mut r, "formatTypes", 32).iter().enumerate() {
        match FormatType::parse(f) {
            Some(t) => format_types.get_or_insert_with(Vec::new).push(t),
            None => r.errors.push(FieldError::new(
                format!("formatTypes[{i}]"),
                Rule::Enum,
                format!("formatTypes[{i}] must be one of {} (got {f:?})", FormatType::NAMES.join(", ")),
            )),
        }
    }
    let device_containers = r.present("deviceContainers").then(|| strings(&mut r, "deviceContainers", MAX_ID_LEN));
    for (i, d) in device_containers.iter().flatten().enumerate() {
        if !refs.device_containers.contains(d) {
            r.errors.push(FieldError::new(
                format!("deviceContainers[{i}]"),
                Rule::Reference,
                format!("no device container {d} in this account"),
            ));
        }
    }
    let targeting = targeting(&mut r, "targeting", refs, RulesFor::InventoryForecast, true);
    if !r.errors.is_empty() {
        return Err(r.errors);
    }
    match (variant, start, end, targeting) {
        (Some(variant), Some(start_date), Some(end_date), Some(targeting)) => {
            Ok(InventoryForecastBody { name, variant, start_date, end_date, traffic_estimate, format_types, device_containers, targeting }
                .into())
        }
        _ => Err(vec![FieldError::new("body", Rule::Required, "variant, startDate and endDate are required")]),
    }
}

impl From<ForecastTargeting> for Targeting {
    fn from(t: ForecastTargeting) -> Targeting {
        Targeting {
            templates: t.targeting_templates.unwrap_or_default(),
            rules: t.targeting_rules.unwrap_or_default(),
            overrides: t.parent_overrides.map(|o| o.set_true()).unwrap_or_default(),
        }
    }
}

impl From<ForecastAd> for AdIn {
    fn from(a: ForecastAd) -> AdIn {
        AdIn { name: a.name, format: a.format, device_containers: a.device_containers, start: a.start_date, end: a.end_date }
    }
}

impl GoalIn {
    /// The goal a forecast runs: an RTB goal without an end ends 100 days from `now`.
    pub fn from_body(g: ForecastGoal, now: DateTime<Utc>) -> GoalIn {
        GoalIn {
            name: g.name,
            start: g.start_date,
            end: g.end_date.unwrap_or(now + Duration::days(MAX_DAYS_AHEAD)),
            priority: g.priority,
            frontload: g.frontload,
            targeting: g.targeting.map(Targeting::from).unwrap_or_default(),
            variant: g.variant,
            goal_type: g.delivery_goal.kind,
            value: g.delivery_goal.value.unwrap_or(0.0),
            daily_cap: g.daily_cap,
            ads: g.ads.into_iter().map(AdIn::from).collect(),
            marketplace_id: g.marketplace_id,
        }
    }
}

impl CampaignForecast {
    /// The campaign a forecast runs; `echo` is the body's campaign as sent (the report
    /// shows it).
    pub fn from_body(c: ForecastCampaign, echo: serde_json::Value, now: DateTime<Utc>) -> CampaignForecast {
        CampaignForecast {
            name: c.name,
            priority: c.priority,
            frontload: c.frontload,
            targeting: c.targeting.map(Targeting::from).unwrap_or_default(),
            goals: c.goals.into_iter().map(|g| GoalIn::from_body(g, now)).collect(),
            echo,
        }
    }
}

impl From<InventoryForecastBody> for InventoryForecast {
    fn from(b: InventoryForecastBody) -> InventoryForecast {
        InventoryForecast {
            name: b.name,
            variant: b.variant,
            start: b.start_date,
            end: b.end_date,
            traffic_estimate: b.traffic_estimate,
            format_types: b.format_types.unwrap_or_default(),
            device_containers: b.device_containers.unwrap_or_default(),
            targeting: b.targeting.into(),
        }
    }
}
