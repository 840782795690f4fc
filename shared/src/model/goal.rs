//! goalBean of the extended goal interface (seed 001 §2.2, §4.2).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::account::Account;
use super::campaign::{read_frontload, Campaign};
use super::common::*;
use super::enums::{AdFormat, CapKind, GoalType, GoalVariant, PricingModel};
use crate::domain_error::DomainError;
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
    "id",
    "formatType",
];

pub fn parse_bean(el: &Element) -> Result<GoalInput, DomainError> {
    let mut r = BeanReader::new(el, "goalBean", FIELDS, &[]);
    let id = r.text("id");
    let campaign_id = r.required_max("campaignId", MAX_ID_LEN);
    let kind: Option<GoalType> = r.one_of("type", GoalType::ALL);
    if kind.is_none() && !r.present("type") {
        r.err("type", "required", "goalBean/type is required");
    }
    let variant: Option<GoalVariant> = r.one_of("variant", GoalVariant::ALL);
    if variant.is_none() && !r.present("variant") {
        r.err("variant", "required", "goalBean/variant is required (NORMAL or BUMPER)");
    }
    let mut goal_value = None;
    match kind {
        Some(k) if k.value_ignored() => {}
        Some(k) => {
            if !r.present("goalValue") {
                r.err("goalValue", "required", "goalBean/goalValue is required");
            } else if k == GoalType::ShareOfVoice {
                if let Some(v) = r.number("goalValue", f64::MIN) {
                    if (0.01..=1.0).contains(&v) {
                        goal_value = Some(v);
                    } else {
                        r.err("goalValue", "range", format!("goalBean/goalValue of a SHARE_OF_VOICE goal must be 0.01 to 1.0 (got {v})"));
                    }
                }
            } else if let Some(v) = r.number("goalValue", f64::MIN) {
                if v > 0.0 {
                    goal_value = Some(v);
                } else {
                    r.err("goalValue", "range", format!("goalBean/goalValue of a {k} goal must be a positive number (got {v})"));
                }
            }
        }
        None => {}
    }
    let start = r.date_time("start");
    if start.is_none() && !r.present("start") {
        r.err("start", "required", "goalBean/start is required");
    }
    let end = r.date_time("end");
    if let (Some(s), Some(e)) = (start, end) {
        if e <= s {
            r.err("end", "afterStart", "goalBean/end must be after goalBean/start");
        }
    }
    let pricing_model: Option<PricingModel> = r.one_of("pricingModel", PricingModel::ALL);
    let pricing_value = r.value_number("pricingValue", 0.0);
    // cpm/value and formatType: accepted and ignored (§2.2).
    let custom_id = r.text_max("customId", SHORT_MAX);
    let description = r.text_max("description", TEXT_MAX);
    let name = r.text_max("name", 255);
    let front_load_factor = read_frontload(&mut r, "frontLoadFactor");
    let priority = r.int("priority", 1, 10).map(|p| p as u8);
    let caps = read_caps(&mut r, kind);
    let midroll_breaks = read_breaks(&mut r);
    let unlimited_impressions = r.bool("unlimitedImpressions").unwrap_or(false);
    match (campaign_id, kind, variant, start) {
        (Some(campaign_id), Some(kind), Some(variant), Some(start)) if r.errors.is_empty() => Ok(GoalInput {
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
        }),
        _ => Err(DomainError::Validation(r.errors)),
    }
}

fn read_caps(r: &mut BeanReader, goal_type: Option<GoalType>) -> Vec<Cap> {
    let Some(caps_el) = r.element().child("caps") else { return vec![] };
    let path = r.at("caps");
    let mut cr = BeanReader::new(caps_el, path, &["cap"], &["cap"]);
    let mut out: Vec<Cap> = Vec::new();
    for (i, cap) in caps_el.children_named("cap").enumerate() {
        let mut c = BeanReader::new(cap, format!("{}/cap[{}]", cr.at("").trim_end_matches('/'), i + 1), &["type", "value"], &[]);
        let kind = c.one_of("type", CapKind::ALL);
        if kind.is_none() && !c.present("type") {
            c.err("type", "required", format!("{} is required", c.at("type")));
        }
        let value = c.number("value", f64::MIN);
        if value.is_none() && !c.present("value") {
            c.err("value", "required", format!("{} is required", c.at("value")));
        }
        if let Some(v) = value {
            if v <= 0.0 {
                c.err("value", "range", format!("{} must be a positive number (got {v})", c.at("value")));
            }
        }
        if let (Some(k), Some(gt)) = (kind, goal_type) {
            if !k.applies_to(gt) {
                c.err("type", "capType", format!("a {k} does not apply to a {gt} goal"));
            } else if out.iter().any(|x| x.kind == k) {
                c.err("type", "single", format!("{k} is given twice"));
            }
        }
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
        br.err("midrollBreakNumber", "maxCount", format!("at most {MAX_MIDROLL_BREAKS} mid-roll break numbers (got {})", all.len()));
    }
    for b in all {
        match b.value().map(|v| v.parse::<u32>()) {
            Some(Ok(n)) if n >= 1 => {
                if out.contains(&n) {
                    br.err("midrollBreakNumber", "unique", format!("mid-roll break {n} is given twice"));
                }
                out.push(n);
            }
            _ => br.err(
                "midrollBreakNumber",
                "range",
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
            ads: vec![],
            deleted_at: None,
            created: now,
            modified: now,
        }
    }

    /// Full replace of the writable fields; ads, tombstone and creation time are kept.
    pub fn replace(&mut self, i: &GoalInput, now: DateTime<Utc>) {
        let keep = self.clone();
        *self = Goal::from_input(keep.id.clone(), i, now);
        self.ads = keep.ads;
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
        o.leaf_opt("end", self.end.map(ts));
        o.leaf_opt("formatType", self.format_type());
        o.leaf("frontLoadFactor", self.effective_frontload(c, a));
        o.leaf_opt("goalValue", self.goal_value);
        o.leaf("id", &self.id);
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
            "startRule",
            "goalBean/start of an active goal can only move to a future time or stay at its original value",
        ));
    }
    Err(DomainError::field("goalBean/start", "startRule", "goalBean/start of an upcoming goal can only be set to a future time"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::parse;
    use chrono::{Duration, TimeZone};

    fn rules(xml: &str) -> Vec<String> {
        crate::domain_error::rule_list(parse_bean(&parse(xml.as_bytes()).unwrap()))
    }

    fn bean(kind: &str, extra: &str) -> String {
        format!("<goalBean><campaignId>c</campaignId><type>{kind}</type><variant>NORMAL</variant><start>2030-01-01T00:00:00Z</start>{extra}</goalBean>")
    }

    #[test]
    fn required() {
        assert_eq!(
            rules("<goalBean/>"),
            vec!["goalBean/campaignId required", "goalBean/type required", "goalBean/variant required", "goalBean/start required"]
        );
        assert_eq!(rules(&bean("IMPRESSION", "")), vec!["goalBean/goalValue required"]);
        assert!(rules(&bean("RTB", "")).is_empty());
        assert!(rules(&bean("UNLIMITED_IMPRESSION", "<goalValue>nonsense</goalValue>")).is_empty());
    }

    #[test]
    fn goal_value_ranges() {
        assert!(rules(&bean("SHARE_OF_VOICE", "<goalValue>0.01</goalValue>")).is_empty());
        assert!(rules(&bean("SHARE_OF_VOICE", "<goalValue>1.0</goalValue>")).is_empty());
        assert_eq!(rules(&bean("SHARE_OF_VOICE", "<goalValue>1.5</goalValue>")), vec!["goalBean/goalValue range"]);
        assert_eq!(rules(&bean("SHARE_OF_VOICE", "<goalValue>0</goalValue>")), vec!["goalBean/goalValue range"]);
        for k in ["IMPRESSION", "FIRST_QUARTILE", "SECOND_QUARTILE", "THIRD_QUARTILE", "COMPLETE", "CLICK_THROUGH"] {
            assert!(rules(&bean(k, "<goalValue>5000</goalValue>")).is_empty(), "{k}");
            assert_eq!(rules(&bean(k, "<goalValue>0</goalValue>")), vec!["goalBean/goalValue range"], "{k}");
            assert_eq!(rules(&bean(k, "<goalValue>-3</goalValue>")), vec!["goalBean/goalValue range"], "{k}");
        }
    }

    #[test]
    fn enumerations_and_limits() {
        let v = "<goalValue>10</goalValue>";
        assert_eq!(rules(&bean("VIEWS", v)), vec!["goalBean/type enum"]);
        assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<pricingModel>CPV</pricingModel>"))), vec!["goalBean/pricingModel enum"]);
        assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<name>{}</name>", "n".repeat(256)))), vec!["goalBean/name maxLength"]);
        assert!(rules(&bean("IMPRESSION", &format!("{v}<name>{}</name>", "n".repeat(255)))).is_empty());
        assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<priority>0</priority>"))), vec!["goalBean/priority range"]);
        assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<frontLoadFactor>55</frontLoadFactor>"))), vec!["goalBean/frontLoadFactor step"]);
        assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<end>2029-12-31T00:00:00Z</end>"))), vec!["goalBean/end afterStart"]);
        assert!(rules(&bean("IMPRESSION", &format!("{v}<cpm><value>3</value></cpm><formatType>PREROLL</formatType>"))).is_empty());
    }

    #[test]
    fn caps_per_goal_type() {
        let cap = |t: &str| format!("<goalValue>10</goalValue><caps><cap><type>{t}</type><value>100</value></cap></caps>");
        let table = [
            ("totalCap", vec!["SHARE_OF_VOICE", "FIRST_QUARTILE", "SECOND_QUARTILE", "THIRD_QUARTILE", "COMPLETE", "CLICK_THROUGH"]),
            ("dailyCap", vec!["IMPRESSION", "SHARE_OF_VOICE", "UNLIMITED_IMPRESSION", "RTB"]),
            ("hourlyCap", vec!["IMPRESSION", "SHARE_OF_VOICE", "UNLIMITED_IMPRESSION", "RTB"]),
            ("dailyEventCap", vec!["FIRST_QUARTILE", "SECOND_QUARTILE", "THIRD_QUARTILE", "COMPLETE", "CLICK_THROUGH"]),
            ("hourlyEventCap", vec!["FIRST_QUARTILE", "SECOND_QUARTILE", "THIRD_QUARTILE", "COMPLETE", "CLICK_THROUGH"]),
        ];
        for (c, allowed) in table {
            for gt in <GoalType as crate::model::enums::WireEnum>::NAMES {
                let body = if *gt == "SHARE_OF_VOICE" { cap(c).replace(">10<", ">0.5<") } else { cap(c) };
                let got = rules(&bean(gt, &body));
                if allowed.contains(gt) {
                    assert!(got.is_empty(), "{c} on {gt}: {got:?}");
                } else {
                    assert_eq!(got, vec!["goalBean/caps/cap[1]/type capType"], "{c} on {gt}");
                }
            }
        }
        let combined = "<goalValue>10</goalValue><caps><cap><type>totalCap</type><value>9</value></cap><cap><type>dailyEventCap</type><value>2</value></cap></caps>";
        assert!(rules(&bean("COMPLETE", combined)).is_empty());
        let twice = "<goalValue>10</goalValue><caps><cap><type>dailyCap</type><value>9</value></cap><cap><type>dailyCap</type><value>2</value></cap></caps>";
        assert_eq!(rules(&bean("IMPRESSION", twice)), vec!["goalBean/caps/cap[2]/type single"]);
        let zero = "<goalValue>10</goalValue><caps><cap><type>dailyCap</type><value>0</value></cap></caps>";
        assert_eq!(rules(&bean("IMPRESSION", zero)), vec!["goalBean/caps/cap[1]/value range"]);
    }

    #[test]
    fn midroll_breaks() {
        let n = |k: usize| (1..=k).map(|i| format!("<midrollBreakNumber>{i}</midrollBreakNumber>")).collect::<String>();
        let v = "<goalValue>10</goalValue>";
        assert!(rules(&bean("IMPRESSION", &format!("{v}<midrollBreakTargeting>{}</midrollBreakTargeting>", n(10)))).is_empty());
        assert_eq!(
            rules(&bean("IMPRESSION", &format!("{v}<midrollBreakTargeting>{}</midrollBreakTargeting>", n(11)))),
            vec!["goalBean/midrollBreakTargeting/midrollBreakNumber maxCount"]
        );
        assert_eq!(
            rules(&bean(
                "IMPRESSION",
                &format!("{v}<midrollBreakTargeting><midrollBreakNumber>0</midrollBreakNumber></midrollBreakTargeting>")
            )),
            vec!["goalBean/midrollBreakTargeting/midrollBreakNumber range"]
        );
    }

    #[test]
    fn start_rules() {
        let now = Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap();
        let d = Duration::days;
        // Rule 1.
        assert_eq!(start_on_create(now - d(3), Some(now + d(3)), now), now);
        assert_eq!(start_on_create(now - d(3), None, now), now);
        assert_eq!(start_on_create(now - d(3), Some(now - d(1)), now), now - d(3));
        assert_eq!(start_on_create(now + d(1), None, now), now + d(1));
        let i = parse_bean(&parse(bean("RTB", "").as_bytes()).unwrap()).unwrap();
        let mut g = Goal::from_input("g".into(), &i, now);
        // Rule 2: active goal.
        g.start = now - d(2);
        g.end = Some(now + d(2));
        assert!(check_start_update(&g, now - d(2), now).is_ok());
        assert!(check_start_update(&g, now + d(1), now).is_ok());
        assert!(check_start_update(&g, now - d(1), now).is_err());
        // Rule 3: upcoming goal.
        g.start = now + d(2);
        assert!(check_start_update(&g, now + d(1), now).is_ok());
        assert!(check_start_update(&g, now - d(1), now).is_err());
        // Ended goals are not constrained.
        g.start = now - d(9);
        g.end = Some(now - d(1));
        assert!(check_start_update(&g, now - d(5), now).is_ok());
    }

    #[test]
    fn active_start_compared_at_the_shown_precision() {
        let now = Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap();
        let created = now - Duration::hours(1) + Duration::nanoseconds(123_456_789);
        // A goal created now stores the start it will show.
        assert_eq!(start_on_create(now - Duration::days(1), None, created), to_millis(created));
        let i = parse_bean(&parse(bean("RTB", "").as_bytes()).unwrap()).unwrap();
        let mut g = Goal::from_input("g".into(), &i, now);
        // A record stored before that (sub-millisecond start) accepts its shown value back.
        g.start = created;
        let shown =
            DateTime::parse_from_rfc3339(&created.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)).unwrap().with_timezone(&Utc);
        assert!(check_start_update(&g, shown, now).is_ok());
        assert!(check_start_update(&g, shown - Duration::milliseconds(1), now).is_err());
    }

    #[test]
    fn cpm_and_format() {
        let now = Utc::now();
        let i = parse_bean(
            &parse(
                bean(
                    "IMPRESSION",
                    "<goalValue>200000</goalValue><pricingModel>BUDGET</pricingModel><pricingValue><value>1000</value></pricingValue>",
                )
                .as_bytes(),
            )
            .unwrap(),
        )
        .unwrap();
        let mut g = Goal::from_input("g".into(), &i, now);
        assert_eq!(g.cpm(), Some(5.0));
        g.pricing_model = PricingModel::Cpmv75;
        assert_eq!(g.cpm(), Some(1000.0));
        g.pricing_model = PricingModel::Cpc;
        assert_eq!(g.cpm(), None);
        assert_eq!(g.format_type(), None);
        g.ads = vec![AdSummary { id: "a".into(), enabled: true, format: AdFormat::Midroll, weight: None }];
        assert_eq!(g.format_type().as_deref(), Some("MIDROLL"));
        g.ads.push(AdSummary { id: "b".into(), enabled: true, format: AdFormat::Preroll, weight: None });
        assert_eq!(g.format_type(), None);
    }
}
