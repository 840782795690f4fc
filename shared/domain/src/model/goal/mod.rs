//! goalBean of the extended goal interface (seed 001 §2.2, §4.2).

use crate::rule::Rule;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::account::Account;
use super::campaign::{read_frontload, Campaign};
use super::common::*;
use super::enums::{AdFormat, CapKind, GoalType, GoalVariant, PricingModel};
use crate::domain_error::{DomainError, FieldError};
use crate::limits::MAX_ID_LEN;
use crate::xml::{BeanReader, Element, XmlOut};

pub const FORMAT_TYPES: &[&str] = &["PREROLL", "MIDROLL", "POSTROLL"];
pub const MAX_MIDROLL_BREAKS: usize = 10;
pub const MAX_ADS_PER_GOAL: usize = 500;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cap {
    #[serde(rename = "type")]
    pub kind: CapKind,
    pub value: f64,
}

/// What the goal keeps of each of its ads (written with the ad, in one transaction).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AdSummary {
    pub id: String,
    pub enabled: bool,
    /// The ad's format (its weight is shared with the goal's other ads of that format).
    pub format: AdFormat,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Goal {
    pub id: String,
    pub campaign_id: String,
    #[serde(rename = "type")]
    pub kind: GoalType,
    pub variant: GoalVariant,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub goal_value: Option<f64>,
    #[serde(deserialize_with = "crate::fasttime::req")]
    pub start: DateTime<Utc>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "crate::fasttime::opt")]
    pub end: Option<DateTime<Utc>>,
    pub pricing_model: PricingModel,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pricing_value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub front_load_factor: Option<u8>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub priority: Option<u8>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub caps: Vec<Cap>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub midroll_breaks: Vec<u32>,
    #[serde(default)]
    pub unlimited_impressions: bool,
    /// The marketplace an RTB or programmatic guaranteed (IMPRESSION) goal is filled from
    /// (docs/programmatic.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marketplace_id: Option<String>,
    /// A disabled goal does not serve (bulk edits and `goalBean/enabled`; shown only when false).
    #[serde(default = "enabled_default", skip_serializing_if = "is_enabled")]
    pub enabled: bool,
    #[serde(default)]
    pub ads: Vec<AdSummary>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "crate::fasttime::opt")]
    pub deleted_at: Option<DateTime<Utc>>,
    #[serde(deserialize_with = "crate::fasttime::req")]
    pub created: DateTime<Utc>,
    #[serde(deserialize_with = "crate::fasttime::req")]
    pub modified: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct GoalInput {
    pub id: Option<String>,
    pub campaign_id: String,
    pub kind: GoalType,
    pub variant: GoalVariant,
    pub goal_value: Option<f64>,
    pub start: DateTime<Utc>,
    pub end: Option<DateTime<Utc>>,
    pub pricing_model: Option<PricingModel>,
    pub pricing_value: Option<f64>,
    pub custom_id: Option<String>,
    pub description: Option<String>,
    pub name: Option<String>,
    pub front_load_factor: Option<u8>,
    pub priority: Option<u8>,
    pub caps: Vec<Cap>,
    pub midroll_breaks: Vec<u32>,
    pub unlimited_impressions: bool,
    pub marketplace_id: Option<String>,
    /// `None`: left as it is (a new goal is enabled).
    pub enabled: Option<bool>,
}

fn enabled_default() -> bool {
    true
}

fn is_enabled(b: &bool) -> bool {
    *b
}

const FIELDS: &[&str] = &[
    "campaignId",
    "type",
    "variant",
    "goalValue",
    "start",
    "end",
    "pricingModel",
    "pricingValue",
    "cpm",
    "customId",
    "description",
    "name",
    "frontLoadFactor",
    "priority",
    "caps",
    "midrollBreakTargeting",
    "unlimitedImpressions",
    "marketplaceId",
    "enabled",
    "id",
    "formatType",
];

pub fn parse_bean(el: &Element) -> Result<GoalInput, DomainError> {
    let mut r = BeanReader::new(el, "goalBean", FIELDS, &[]);
    let id = r.text("id");
    let campaign_id = r.required_max("campaignId", MAX_ID_LEN);
    let kind: Option<GoalType> = r.one_of("type", GoalType::ALL);
    if kind.is_none() && !r.present("type") {
        r.err("type", Rule::Required, "goalBean/type is required");
    }
    let variant: Option<GoalVariant> = r.one_of("variant", GoalVariant::ALL);
    if variant.is_none() && !r.present("variant") {
        r.err("variant", Rule::Required, "goalBean/variant is required (NORMAL or BUMPER)");
    }
    // Whether a value is required, and its range, are `GoalInput::check`'s.
    let goal_value = match kind {
        Some(k) if k.value_ignored() => None,
        _ => r.number("goalValue", f64::MIN),
    };
    let start = r.date_time("start");
    if start.is_none() && !r.present("start") {
        r.err("start", Rule::Required, "goalBean/start is required");
    }
    let end = r.date_time("end");
    let pricing_model: Option<PricingModel> = r.one_of("pricingModel", PricingModel::ALL);
    let pricing_value = r.value_number("pricingValue", 0.0);
    // cpm/value and formatType: accepted and ignored (§2.2).
    let custom_id = r.text_max("customId", SHORT_MAX);
    let description = r.text_max("description", TEXT_MAX);
    let name = r.text_max("name", crate::limits::NAME_MAX);
    let front_load_factor = read_frontload(&mut r, "frontLoadFactor");
    let priority = r.int("priority", i64::from(*PRIORITY.start()), i64::from(*PRIORITY.end())).map(|p| p as u8);
    let caps = read_caps(&mut r);
    let midroll_breaks = read_breaks(&mut r);
    let unlimited_impressions = r.bool("unlimitedImpressions").unwrap_or(false);
    let marketplace_id = r.text_max("marketplaceId", MAX_ID_LEN).map(|s| s.trim().to_string()).filter(|s| !s.is_empty());
    let enabled = r.bool("enabled");
    let input = match (campaign_id, kind, variant, start) {
        (Some(campaign_id), Some(kind), Some(variant), Some(start)) => Some(GoalInput {
            id,
            campaign_id,
            kind,
            variant,
            goal_value,
            start,
            end,
            pricing_model,
            pricing_value,
            custom_id,
            description,
            name,
            front_load_factor,
            priority,
            caps,
            midroll_breaks,
            unlimited_impressions,
            marketplace_id,
            enabled,
        }),
        _ => None,
    };
    let mut errors = r.errors;
    if let Some(i) = &input {
        i.check(&mut errors);
    }
    match input {
        Some(i) if errors.is_empty() => Ok(i),
        _ => Err(DomainError::Validation(errors)),
    }
}

impl GoalInput {
    /// The goal's rules over a typed input, whichever wire or form it came from: the goal
    /// value its type needs, the end after the start, the bounds of the name and the
    /// priority, caps that apply to the type once each with a positive value, and a
    /// marketplace only on IMPRESSION and RTB goals. A field that already has an error
    /// (the wire's reading of it) is not faulted again.
    pub fn check(&self, errors: &mut Vec<FieldError>) {
        let faulted = |errors: &Vec<FieldError>, f: &str| errors.iter().any(|e| e.field.starts_with(&format!("goalBean/{f}")));
        let k = self.kind;
        if !k.value_ignored() && !faulted(errors, "goalValue") {
            match self.goal_value {
                None => errors.push(FieldError::new("goalBean/goalValue", Rule::Required, "goalBean/goalValue is required")),
                Some(v) if k == GoalType::ShareOfVoice && !(0.01..=1.0).contains(&v) => errors.push(FieldError::new(
                    "goalBean/goalValue",
                    Rule::Range,
                    format!("goalBean/goalValue of a SHARE_OF_VOICE goal must be 0.01 to 1.0 (got {v})"),
                )),
                Some(v) if k != GoalType::ShareOfVoice && v <= 0.0 => errors.push(FieldError::new(
                    "goalBean/goalValue",
                    Rule::Range,
                    format!("goalBean/goalValue of a {k} goal must be a positive number (got {v})"),
                )),
                Some(_) => {}
            }
        }
        if self.end.is_some_and(|e| e <= self.start) && !faulted(errors, "end") {
            errors.push(FieldError::new("goalBean/end", Rule::AfterStart, "goalBean/end must be after goalBean/start"));
        }
        if self.name.as_ref().is_some_and(|n| n.chars().count() > crate::limits::NAME_MAX) && !faulted(errors, "name") {
            let max = crate::limits::NAME_MAX;
            errors.push(FieldError::new("goalBean/name", Rule::MaxLength, format!("goalBean/name is longer than {max} characters")));
        }
        if let Some(p) = self.priority.filter(|p| !PRIORITY.contains(p)) {
            if !faulted(errors, "priority") {
                let (lo, hi) = (PRIORITY.start(), PRIORITY.end());
                errors.push(FieldError::new(
                    "goalBean/priority",
                    Rule::Range,
                    format!("goalBean/priority must be between {lo} and {hi} (got {p})"),
                ));
            }
        }
        for (i, c) in self.caps.iter().enumerate() {
            let at = format!("goalBean/caps/cap[{}]", i + 1);
            if c.value <= 0.0 {
                errors.push(FieldError::new(
                    format!("{at}/value"),
                    Rule::Range,
                    format!("{at}/value must be a positive number (got {})", c.value),
                ));
            }
            if !c.kind.applies_to(k) {
                errors.push(FieldError::new(format!("{at}/type"), Rule::CapType, format!("a {} does not apply to a {k} goal", c.kind)));
            } else if self.caps[..i].iter().any(|x| x.kind == c.kind) {
                errors.push(FieldError::new(format!("{at}/type"), Rule::Single, format!("{} is given twice", c.kind)));
            }
        }
        if self.marketplace_id.is_some() && !k.takes_marketplace() && !faulted(errors, "marketplaceId") {
            errors.push(FieldError::new(
                "goalBean/marketplaceId",
                Rule::NotAllowed,
                format!("goalBean/marketplaceId is allowed only on IMPRESSION and RTB goals (this is {k})"),
            ));
        }
    }

    /// A typed input (a console form's) when its rules pass.
    pub fn checked(self) -> Result<GoalInput, DomainError> {
        crate::domain_error::checked(self, Vec::new(), GoalInput::check)
    }

    /// The stored goal as the input that would write it again unchanged: a form changes
    /// the fields it shows and keeps the rest exactly, to the millisecond.
    pub fn of(g: &Goal) -> GoalInput {
        GoalInput {
            id: Some(g.id.clone()),
            campaign_id: g.campaign_id.clone(),
            kind: g.kind,
            variant: g.variant,
            goal_value: g.goal_value,
            start: g.start,
            end: g.end,
            pricing_model: Some(g.pricing_model),
            pricing_value: g.pricing_value,
            custom_id: g.custom_id.clone(),
            description: g.description.clone(),
            name: g.name.clone(),
            front_load_factor: g.front_load_factor,
            priority: g.priority,
            caps: g.caps.clone(),
            midroll_breaks: g.midroll_breaks.clone(),
            unlimited_impressions: g.unlimited_impressions,
            marketplace_id: g.marketplace_id.clone(),
            enabled: Some(g.enabled),
        }
    }
}

fn read_caps(r: &mut BeanReader) -> Vec<Cap> {
    let Some(caps_el) = r.element().child("caps") else { return vec![] };
    let path = r.at("caps");
    let mut cr = BeanReader::new(caps_el, path, &["cap"], &["cap"]);
    let mut out: Vec<Cap> = Vec::new();
    for (i, cap) in caps_el.children_named("cap").enumerate() {
        let mut c = BeanReader::new(cap, format!("{}/cap[{}]", cr.at("").trim_end_matches('/'), i + 1), &["type", "value"], &[]);
        let kind = c.one_of("type", CapKind::ALL);
        if kind.is_none() && !c.present("type") {
            c.err("type", Rule::Required, format!("{} is required", c.at("type")));
        }
        let value = c.number("value", f64::MIN);
        if value.is_none() && !c.present("value") {
            c.err("value", Rule::Required, format!("{} is required", c.at("value")));
        }
        // A positive value, a type that applies, once: `GoalInput::check`.
        let ok = c.errors.is_empty();
        cr.errors.append(&mut c.errors);
        if let (Some(kind), Some(value), true) = (kind, value, ok) {
            out.push(Cap { kind, value });
        }
    }
    r.errors.append(&mut cr.errors);
    out
}

fn read_breaks(r: &mut BeanReader) -> Vec<u32> {
    let Some(el) = r.element().child("midrollBreakTargeting") else { return vec![] };
    let path = r.at("midrollBreakTargeting");
    let mut br = BeanReader::new(el, path.clone(), &["midrollBreakNumber"], &["midrollBreakNumber"]);
    let mut out = Vec::new();
    let all: Vec<&Element> = el.children_named("midrollBreakNumber").collect();
    if all.len() > MAX_MIDROLL_BREAKS {
        br.err("midrollBreakNumber", Rule::MaxCount, format!("at most {MAX_MIDROLL_BREAKS} mid-roll break numbers (got {})", all.len()));
    }
    for b in all {
        match b.value().map(|v| v.parse::<u32>()) {
            Some(Ok(n)) if n >= 1 => {
                if out.contains(&n) {
                    br.err("midrollBreakNumber", Rule::Unique, format!("mid-roll break {n} is given twice"));
                }
                out.push(n);
            }
            _ => br.err(
                "midrollBreakNumber",
                Rule::Range,
                format!("{path}/midrollBreakNumber must be a positive integer (got {:?})", b.value().unwrap_or("")),
            ),
        }
    }
    r.errors.append(&mut br.errors);
    out.sort_unstable();
    out
}

impl Goal {
    pub fn from_input(id: String, i: &GoalInput, now: DateTime<Utc>) -> Goal {
        Goal {
            id,
            campaign_id: i.campaign_id.clone(),
            kind: i.kind,
            variant: i.variant,
            goal_value: i.goal_value,
            start: i.start,
            end: i.end,
            pricing_model: i.pricing_model.unwrap_or(PricingModel::NoPricing),
            pricing_value: i.pricing_value,
            custom_id: i.custom_id.clone(),
            description: i.description.clone(),
            name: i.name.clone(),
            front_load_factor: i.front_load_factor,
            priority: i.priority,
            caps: i.caps.clone(),
            midroll_breaks: i.midroll_breaks.clone(),
            unlimited_impressions: i.unlimited_impressions,
            marketplace_id: i.marketplace_id.clone(),
            enabled: i.enabled.unwrap_or(true),
            ads: vec![],
            deleted_at: None,
            created: now,
            modified: now,
        }
    }

    /// A new goal from a bean: a start in the past moves to now (`start_on_create`).
    pub fn created(id: String, i: &GoalInput, now: DateTime<Utc>) -> Goal {
        let mut g = Goal::from_input(id, i, now);
        g.start = start_on_create(i.start, i.end, now);
        g
    }

    /// This goal replaced by a bean: it stays in its campaign, and a started goal's start
    /// cannot move (`check_start_update`).
    pub fn updated(&self, i: &GoalInput, now: DateTime<Utc>) -> Result<Goal, DomainError> {
        if i.campaign_id != self.campaign_id {
            return Err(DomainError::field(
                "goalBean/campaignId",
                Rule::Immutable,
                "goalBean/campaignId cannot change: a goal stays in its campaign",
            ));
        }
        check_start_update(self, i.start, now)?;
        let mut g = self.clone();
        g.replace(i, now);
        Ok(g)
    }

    /// Full replace of the writable fields; ads, tombstone and creation time are kept.
    pub fn replace(&mut self, i: &GoalInput, now: DateTime<Utc>) {
        let keep = self.clone();
        *self = Goal::from_input(keep.id.clone(), i, now);
        self.ads = keep.ads;
        self.enabled = i.enabled.unwrap_or(keep.enabled);
        self.deleted_at = keep.deleted_at;
        self.created = keep.created;
    }

    /// The number of impressions or events the goal is paced towards: the goal value of
    /// impression and event goals (not unlimited); share of voice, unlimited and RTB: none.
    pub fn pacing_target(&self) -> Option<f64> {
        match self.kind {
            GoalType::Impression
            | GoalType::FirstQuartile
            | GoalType::SecondQuartile
            | GoalType::ThirdQuartile
            | GoalType::Complete
            | GoalType::ClickThrough
                if !self.unlimited_impressions =>
            {
                self.goal_value.filter(|v| *v > 0.0)
            }
            _ => None,
        }
    }

    pub fn is_active(&self, now: DateTime<Utc>) -> bool {
        self.start <= now && self.end.is_none_or(|e| now < e)
    }

    pub fn effective_priority(&self, c: &Campaign, a: &Account) -> u8 {
        self.priority.unwrap_or_else(|| c.effective_priority(a))
    }

    pub fn effective_frontload(&self, c: &Campaign, a: &Account) -> u8 {
        self.front_load_factor.unwrap_or_else(|| c.effective_frontload(a))
    }

    /// The CPM the goal's pricing amounts to, where it has one (docs/goals-ads-assets.md).
    pub fn cpm(&self) -> Option<f64> {
        let v = self.pricing_value?;
        match self.pricing_model {
            PricingModel::Cpm | PricingModel::Cpmv25 | PricingModel::Cpmv50 | PricingModel::Cpmv75 | PricingModel::Cpmv100 => Some(v),
            // A budget over a booked count of impressions or events.
            PricingModel::Budget if self.kind == GoalType::Impression || self.kind.is_event() => match self.goal_value {
                Some(n) if n > 0.0 => Some((v / n * 1000.0 * 100.0).round() / 100.0),
                _ => None,
            },
            PricingModel::Budget | PricingModel::Cpc | PricingModel::NoPricing => None,
        }
    }

    /// The insertion point all the goal's ads share, upper-case.
    pub fn format_type(&self) -> Option<String> {
        let mut formats = self.ads.iter().map(|a| a.format.as_str());
        let first = formats.next()?;
        if formats.all(|f| f == first) && ["preroll", "midroll", "postroll"].contains(&first) {
            Some(first.to_uppercase())
        } else {
            None
        }
    }

    pub fn write(&self, o: &mut XmlOut, c: &Campaign, a: &Account) {
        let ts = |d: DateTime<Utc>| d.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        o.open("goalBean").leaf("campaignId", &self.campaign_id);
        if !self.caps.is_empty() {
            o.open("caps");
            for cap in &self.caps {
                o.open("cap").leaf("type", cap.kind).leaf("value", cap.value).close("cap");
            }
            o.close("caps");
        }
        o.value_opt("cpm", self.cpm());
        o.leaf_opt("customId", self.custom_id.as_ref()).leaf_opt("description", self.description.as_ref());
        o.leaf_opt("enabled", (!self.enabled).then_some(false));
        o.leaf_opt("end", self.end.map(ts));
        o.leaf_opt("formatType", self.format_type());
        o.leaf("frontLoadFactor", self.effective_frontload(c, a));
        o.leaf_opt("goalValue", self.goal_value);
        o.leaf("id", &self.id);
        o.leaf_opt("marketplaceId", self.marketplace_id.as_ref());
        if !self.midroll_breaks.is_empty() {
            o.open("midrollBreakTargeting");
            for b in &self.midroll_breaks {
                o.leaf("midrollBreakNumber", b);
            }
            o.close("midrollBreakTargeting");
        }
        o.leaf_opt("name", self.name.as_ref());
        o.leaf("pricingModel", self.pricing_model);
        o.value_opt("pricingValue", self.pricing_value);
        o.leaf("priority", self.effective_priority(c, a));
        o.leaf("start", ts(self.start));
        o.leaf("type", self.kind).leaf("unlimitedImpressions", self.unlimited_impressions).leaf("variant", self.variant);
        o.close("goalBean");
    }
}

/// An instant at the precision the service shows (RFC 3339 with milliseconds).
pub fn to_millis(t: DateTime<Utc>) -> DateTime<Utc> {
    DateTime::from_timestamp_millis(t.timestamp_millis()).unwrap_or(t)
}

/// The start a new goal gets (start rule 1).
pub fn start_on_create(start: DateTime<Utc>, end: Option<DateTime<Utc>>, now: DateTime<Utc>) -> DateTime<Utc> {
    let inactive = end.is_some_and(|e| e < now);
    if start < now && !inactive {
        // Stored at the precision it is shown with (milliseconds), so a client that echoes
        // the value it read sends back exactly what is stored.
        to_millis(now)
    } else {
        start
    }
}

/// Start rules 2 and 3 for an update.
pub fn check_start_update(stored: &Goal, new_start: DateTime<Utc>, now: DateTime<Utc>) -> Result<(), DomainError> {
    let ended = stored.end.is_some_and(|e| e <= now);
    if ended || new_start > now {
        return Ok(());
    }
    if stored.start <= now {
        // Active: unchanged or future only.
        if to_millis(new_start) == to_millis(stored.start) {
            return Ok(());
        }
        return Err(DomainError::field(
            "goalBean/start",
            Rule::StartRule,
            "goalBean/start of an active goal can only move to a future time or stay at its original value",
        ));
    }
    Err(DomainError::field("goalBean/start", Rule::StartRule, "goalBean/start of an upcoming goal can only be set to a future time"))
}

#[cfg(test)]
mod tests;
