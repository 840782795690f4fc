//! Insertion policies (seed 000 §2.6; docs/insertion-policies.md). Every field has its
//! default, so a body with only `name` is a whole policy.

use crate::rule::Rule;
use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use super::account::Account;
use super::enums::{OffsetUnit, ShowWhen, WireEnum};
use crate::domain_error::{DomainError, FieldError};
use crate::json::Keyed;
use crate::limits::{NAME_MAX, RULE_VALUE_MAX};

pub const SHOW_WHEN: &[&str] = <ShowWhen as WireEnum>::NAMES;
pub const RESET_AFTER: &[i64] = &[3600, 7200, 10800, 21600, 43200, 86400, 129600, 172800];
pub const OFFSET_UNITS: &[&str] = <OffsetUnit as WireEnum>::NAMES;
pub const MIN_TIME_BETWEEN_ADS: &[i64] = &[0, 60, 120, 180, 240, 300, 360, 420, 480, 540, 600, 1200, 1800, 2400, 3000, 3600];
pub const MAX_ADVANCED_RULES: usize = 10;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct OneOf {
    pub one_of: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct SkipOffset {
    pub value: i64,
    pub unit: String,
}

impl SkipOffset {
    /// The unit, typed (validated on write: a stored policy holds one of the names).
    pub fn unit(&self) -> OffsetUnit {
        OffsetUnit::parse(&self.unit).unwrap_or(OffsetUnit::Seconds)
    }
}

impl Default for SkipOffset {
    fn default() -> Self {
        SkipOffset { value: 0, unit: "SECONDS".into() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct SkipButton {
    pub show_when: String,
    pub reset_after: i64,
    pub skip_offset: SkipOffset,
}

impl SkipButton {
    /// When the button shows, typed (validated on write: a stored policy holds one of the
    /// names; anything else never shows it).
    pub fn show_when(&self) -> ShowWhen {
        ShowWhen::parse(&self.show_when).unwrap_or(ShowWhen::Never)
    }
}

impl Default for SkipButton {
    fn default() -> Self {
        SkipButton { show_when: "NEVER".into(), reset_after: 86400, skip_offset: SkipOffset::default() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct GlobalSettings {
    pub skip_button: SkipButton,
    pub minimum_time_between_ads: i64,
}

impl Default for GlobalSettings {
    fn default() -> Self {
        GlobalSettings { skip_button: SkipButton::default(), minimum_time_between_ads: 180 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct TimeLimit {
    pub enabled: bool,
    pub seconds: i64,
}

impl Default for TimeLimit {
    fn default() -> Self {
        TimeLimit { enabled: false, seconds: 30 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Break {
    pub enabled: bool,
    pub time_limit: TimeLimit,
    pub ads_per_break: i64,
}

impl Default for Break {
    fn default() -> Self {
        Break { enabled: false, time_limit: TimeLimit::default(), ads_per_break: 1 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct AdvancedRule {
    pub midroll_break_number: i64,
    pub ads_per_break: i64,
    pub time_limit: TimeLimit,
}

impl Default for AdvancedRule {
    fn default() -> Self {
        // midrollBreakNumber has no default in the seed: 0 fails validation (> 1).
        AdvancedRule { midroll_break_number: 0, ads_per_break: 1, time_limit: TimeLimit::default() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct AdvancedRules {
    pub enabled: bool,
    pub rules: Vec<AdvancedRule>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Midroll {
    pub enabled: bool,
    pub time_limit: TimeLimit,
    pub ads_per_break: i64,
    pub advanced_rules: AdvancedRules,
}

impl Default for Midroll {
    fn default() -> Self {
        Midroll { enabled: false, time_limit: TimeLimit::default(), ads_per_break: 1, advanced_rules: AdvancedRules::default() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Seekroll {
    pub enabled: bool,
    pub time_limit: TimeLimit,
    pub ads_per_break: i64,
    pub min_seek_events: i64,
}

impl Default for Seekroll {
    fn default() -> Self {
        Seekroll { enabled: false, time_limit: TimeLimit::default(), ads_per_break: 1, min_seek_events: 3 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct AdBreakSettings {
    pub standard_spots_enabled: bool,
    pub interactive_spots_enabled: bool,
    pub preroll: Break,
    pub midroll: Midroll,
    pub postroll: Break,
    pub seekroll: Seekroll,
}

impl Default for AdBreakSettings {
    fn default() -> Self {
        AdBreakSettings {
            standard_spots_enabled: true,
            interactive_spots_enabled: false,
            preroll: Break::default(),
            midroll: Midroll::default(),
            postroll: Break::default(),
            seekroll: Seekroll::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Enabled {
    pub enabled: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct OverlaySettings {
    pub enabled: bool,
    pub duration: i64,
    pub first_insertion: i64,
    pub frequency: i64,
}

impl Default for OverlaySettings {
    fn default() -> Self {
        OverlaySettings { enabled: false, duration: 15, first_insertion: 20, frequency: 180 }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Policy {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    pub name: String,
    pub tag_rule: OneOf,
    pub category_rule: OneOf,
    pub global_settings: GlobalSettings,
    pub ad_break_settings: AdBreakSettings,
    pub pause_ad_settings: Enabled,
    pub overlay_settings: OverlaySettings,
}

/// Parses a body: unknown fields and wrong types answer with the field's path.
pub fn parse(bytes: &[u8]) -> Result<Policy, Vec<FieldError>> {
    let mut de = serde_json::Deserializer::from_slice(bytes);
    serde_path_to_error::deserialize::<_, Policy>(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        let msg = inner.to_string();
        let rule = if msg.starts_with("unknown field") { Rule::Unknown } else { Rule::Type };
        let field = if path == "." { "body".to_string() } else { path };
        vec![FieldError::new(field.clone(), rule, format!("{field}: {msg}"))]
    })
}

/// Parses a `PUT` body: the id it names (required, read first), then the whole policy.
pub fn parse_replace(bytes: &[u8]) -> Result<Keyed<Policy>, DomainError> {
    #[derive(Deserialize)]
    struct Named {
        id: Option<serde_json::Value>,
    }
    let id = serde_json::from_slice::<Named>(bytes).ok().and_then(|n| n.id).and_then(|v| v.as_str().map(str::to_string));
    let Some(id) = id else {
        return Err(DomainError::field(
            "id",
            Rule::Required,
            "id is required: PUT /v1/insertion-policy carries the policy's id in the body",
        ));
    };
    Ok(Keyed { id, body: parse(bytes).map_err(DomainError::Validation) })
}

struct Check<'a> {
    errors: &'a mut Vec<FieldError>,
}

impl Check<'_> {
    fn fail(&mut self, field: &str, rule: Rule, msg: String) {
        self.errors.push(FieldError::new(field, rule, format!("{field} {msg}")));
    }
    fn range(&mut self, field: &str, v: i64, lo: i64, hi: i64) {
        if !(lo..=hi).contains(&v) {
            self.fail(field, Rule::Range, format!("must be {lo} to {hi} (got {v})"));
        }
    }
    fn one_of(&mut self, field: &str, v: i64, allowed: &[i64]) {
        if !allowed.contains(&v) {
            let list: Vec<String> = allowed.iter().map(i64::to_string).collect();
            self.fail(field, Rule::Enum, format!("must be one of {} (got {v})", list.join(", ")));
        }
    }
    fn word(&mut self, field: &str, v: &str, allowed: &[&str]) {
        if !allowed.contains(&v) {
            self.fail(field, Rule::Enum, format!("must be one of {} (got {v:?})", allowed.join(", ")));
        }
    }
    fn time_limit(&mut self, field: &str, t: &TimeLimit) {
        if t.seconds <= 1 {
            self.fail(&format!("{field}.timeLimit.seconds"), Rule::Range, format!("must be greater than 1 (got {})", t.seconds));
        }
    }
    fn format(&mut self, field: &str, on: bool, format: &str, a: &Account) {
        if on && !a.ad_formats.iter().any(|f| f == format) {
            self.fail(field, Rule::FormatNotEnabled, format!("cannot be switched on: the {format} format is not enabled for the account"));
        }
    }
}

/// Every rule of §2.6 against the account's limits, formats and categories.
pub fn validate(p: &Policy, a: &Account, categories: &HashSet<String>) -> Vec<FieldError> {
    let mut errors = Vec::new();
    let mut c = Check { errors: &mut errors };
    if p.name.trim().is_empty() {
        c.fail("name", Rule::Required, "is required".into());
    } else if p.name.chars().count() > NAME_MAX {
        c.fail("name", Rule::MaxLength, format!("is longer than {NAME_MAX} characters"));
    }
    let tags = &p.tag_rule.one_of;
    if tags.len() > a.limits.tags_per_policy as usize {
        c.fail("tagRule.oneOf", Rule::MaxCount, format!("holds at most {} tags (got {})", a.limits.tags_per_policy, tags.len()));
    }
    let mut seen = HashSet::new();
    for (i, t) in tags.iter().enumerate() {
        if t.trim().is_empty() || t.chars().count() > RULE_VALUE_MAX {
            c.fail(&format!("tagRule.oneOf[{i}]"), Rule::Format, format!("must be a tag of 1 to {RULE_VALUE_MAX} characters"));
        } else if !seen.insert(t) {
            c.fail(&format!("tagRule.oneOf[{i}]"), Rule::Unique, format!("repeats {t:?}"));
        }
    }
    let cats = &p.category_rule.one_of;
    if cats.len() > a.limits.categories_per_policy as usize {
        c.fail(
            "categoryRule.oneOf",
            Rule::MaxCount,
            format!("holds at most {} categories (got {})", a.limits.categories_per_policy, cats.len()),
        );
    }
    for (i, id) in cats.iter().enumerate() {
        if !categories.contains(id) {
            c.fail(&format!("categoryRule.oneOf[{i}]"), Rule::Reference, format!("names no category of this account ({id:?})"));
        }
    }
    let sb = &p.global_settings.skip_button;
    c.word("globalSettings.skipButton.showWhen", &sb.show_when, SHOW_WHEN);
    c.one_of("globalSettings.skipButton.resetAfter", sb.reset_after, RESET_AFTER);
    c.word("globalSettings.skipButton.skipOffset.unit", &sb.skip_offset.unit, OFFSET_UNITS);
    let hi = if sb.skip_offset.unit() == OffsetUnit::Percent { 100 } else { i64::from(u32::MAX) };
    c.range("globalSettings.skipButton.skipOffset.value", sb.skip_offset.value, 0, hi);
    c.one_of("globalSettings.minimumTimeBetweenAds", p.global_settings.minimum_time_between_ads, MIN_TIME_BETWEEN_ADS);
    let b = &p.ad_break_settings;
    for (name, br) in [("preroll", &b.preroll), ("postroll", &b.postroll)] {
        let f = format!("adBreakSettings.{name}");
        c.time_limit(&f, &br.time_limit);
        c.range(&format!("{f}.adsPerBreak"), br.ads_per_break, 0, 50);
        c.format(&format!("{f}.enabled"), br.enabled, name, a);
    }
    let m = &b.midroll;
    c.time_limit("adBreakSettings.midroll", &m.time_limit);
    c.range("adBreakSettings.midroll.adsPerBreak", m.ads_per_break, 0, 50);
    c.format("adBreakSettings.midroll.enabled", m.enabled, "midroll", a);
    let rules = &m.advanced_rules.rules;
    if rules.len() > MAX_ADVANCED_RULES {
        c.fail(
            "adBreakSettings.midroll.advancedRules.rules",
            Rule::MaxCount,
            format!("holds at most {MAX_ADVANCED_RULES} rules (got {})", rules.len()),
        );
    }
    if m.advanced_rules.enabled && rules.is_empty() {
        c.fail(
            "adBreakSettings.midroll.advancedRules.rules",
            Rule::Required,
            "needs at least one rule when advancedRules.enabled is true".into(),
        );
    }
    let mut numbers = HashSet::new();
    for (i, r) in rules.iter().enumerate() {
        let f = format!("adBreakSettings.midroll.advancedRules.rules[{i}]");
        if r.midroll_break_number <= 1 {
            c.fail(
                &format!("{f}.midrollBreakNumber"),
                Rule::Range,
                format!("must be an integer greater than 1 (got {})", r.midroll_break_number),
            );
        } else if !numbers.insert(r.midroll_break_number) {
            c.fail(&format!("{f}.midrollBreakNumber"), Rule::Unique, format!("repeats break {}", r.midroll_break_number));
        }
        c.range(&format!("{f}.adsPerBreak"), r.ads_per_break, 1, 50);
        c.time_limit(&f, &r.time_limit);
    }
    let s = &b.seekroll;
    c.time_limit("adBreakSettings.seekroll", &s.time_limit);
    c.range("adBreakSettings.seekroll.adsPerBreak", s.ads_per_break, 1, 50);
    c.range("adBreakSettings.seekroll.minSeekEvents", s.min_seek_events, 1, 25);
    c.format("adBreakSettings.seekroll.enabled", s.enabled, "seekroll", a);
    c.format("pauseAdSettings.enabled", p.pause_ad_settings.enabled, "pause", a);
    let o = &p.overlay_settings;
    c.format("overlaySettings.enabled", o.enabled, "overlay", a);
    c.one_of("overlaySettings.duration", o.duration, &[5, 10, 15, 20, 25, 30]);
    c.one_of("overlaySettings.firstInsertion", o.first_insertion, &(1..=12).map(|i| i * 5).collect::<Vec<_>>());
    c.one_of("overlaySettings.frequency", o.frequency, &(1..=10).map(|i| i * 60).collect::<Vec<_>>());
    errors
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn account() -> Account {
        serde_json::from_value(json!({"id": "a", "name": "A", "adFormats": ["preroll", "midroll"], "features": {"insertionPolicy": true}}))
            .unwrap()
    }

    fn rules(v: serde_json::Value) -> Vec<String> {
        let p = match parse(v.to_string().as_bytes()) {
            Ok(p) => p,
            Err(e) => return e.into_iter().map(|e| format!("{} {}", e.field, e.rule)).collect(),
        };
        let cats: HashSet<String> = ["c1".to_string()].into();
        validate(&p, &account(), &cats).into_iter().map(|e| format!("{} {}", e.field, e.rule)).collect()
    }

    #[test]
    fn the_template_has_every_default_of_the_seed() {
        let t = serde_json::to_value(Policy::default()).unwrap();
        assert_eq!(t["name"], "");
        assert_eq!(t["tagRule"]["oneOf"], json!([]));
        assert_eq!(
            t["globalSettings"],
            json!({"skipButton": {"showWhen": "NEVER", "resetAfter": 86400, "skipOffset": {"value": 0, "unit": "SECONDS"}}, "minimumTimeBetweenAds": 180})
        );
        let b = &t["adBreakSettings"];
        assert_eq!((b["standardSpotsEnabled"].as_bool(), b["interactiveSpotsEnabled"].as_bool()), (Some(true), Some(false)));
        assert_eq!(b["preroll"], json!({"enabled": false, "timeLimit": {"enabled": false, "seconds": 30}, "adsPerBreak": 1}));
        assert_eq!(b["midroll"]["advancedRules"], json!({"enabled": false, "rules": []}));
        assert_eq!(b["seekroll"]["minSeekEvents"], 3);
        assert_eq!(t["pauseAdSettings"], json!({"enabled": false}));
        assert_eq!(t["overlaySettings"], json!({"enabled": false, "duration": 15, "firstInsertion": 20, "frequency": 180}));
    }

    #[test]
    fn only_name_is_required() {
        assert!(rules(json!({"name": "P"})).is_empty());
        assert_eq!(rules(json!({})), vec!["name required"]);
        assert_eq!(rules(json!({"name": "n".repeat(256)})), vec!["name maxLength"]);
    }

    #[test]
    fn unknown_fields_and_types_name_their_path() {
        assert_eq!(
            rules(json!({"name": "P", "adBreakSettings": {"preroll": {"adsPerBrake": 2}}})),
            vec!["adBreakSettings.preroll.adsPerBrake unknown"]
        );
        assert_eq!(rules(json!({"name": "P", "overlaySettings": {"duration": "long"}})), vec!["overlaySettings.duration type"]);
    }

    #[test]
    fn ranges_and_enumerations() {
        let cases = [
            (json!({"globalSettings": {"skipButton": {"showWhen": "SOMETIMES"}}}), "globalSettings.skipButton.showWhen enum"),
            (json!({"globalSettings": {"skipButton": {"resetAfter": 100}}}), "globalSettings.skipButton.resetAfter enum"),
            (
                json!({"globalSettings": {"skipButton": {"skipOffset": {"value": 101, "unit": "PERCENT"}}}}),
                "globalSettings.skipButton.skipOffset.value range",
            ),
            (
                json!({"globalSettings": {"skipButton": {"skipOffset": {"unit": "FRAMES"}}}}),
                "globalSettings.skipButton.skipOffset.unit enum",
            ),
            (json!({"globalSettings": {"minimumTimeBetweenAds": 90}}), "globalSettings.minimumTimeBetweenAds enum"),
            (json!({"adBreakSettings": {"preroll": {"adsPerBreak": 51}}}), "adBreakSettings.preroll.adsPerBreak range"),
            (json!({"adBreakSettings": {"postroll": {"timeLimit": {"seconds": 1}}}}), "adBreakSettings.postroll.timeLimit.seconds range"),
            (json!({"adBreakSettings": {"seekroll": {"adsPerBreak": 0}}}), "adBreakSettings.seekroll.adsPerBreak range"),
            (json!({"adBreakSettings": {"seekroll": {"minSeekEvents": 26}}}), "adBreakSettings.seekroll.minSeekEvents range"),
            (
                json!({"adBreakSettings": {"midroll": {"advancedRules": {"enabled": true}}}}),
                "adBreakSettings.midroll.advancedRules.rules required",
            ),
            (
                json!({"adBreakSettings": {"midroll": {"advancedRules": {"rules": [{"midrollBreakNumber": 1}]}}}}),
                "adBreakSettings.midroll.advancedRules.rules[0].midrollBreakNumber range",
            ),
            (
                json!({"adBreakSettings": {"midroll": {"advancedRules": {"rules": [{"midrollBreakNumber": 2, "adsPerBreak": 0}]}}}}),
                "adBreakSettings.midroll.advancedRules.rules[0].adsPerBreak range",
            ),
            (json!({"overlaySettings": {"duration": 12}}), "overlaySettings.duration enum"),
            (json!({"overlaySettings": {"firstInsertion": 65}}), "overlaySettings.firstInsertion enum"),
            (json!({"overlaySettings": {"frequency": 90}}), "overlaySettings.frequency enum"),
            (json!({"categoryRule": {"oneOf": ["nope"]}}), "categoryRule.oneOf[0] reference"),
            (json!({"tagRule": {"oneOf": ["a", "a"]}}), "tagRule.oneOf[1] unique"),
            (json!({"tagRule": {"oneOf": (0..21).map(|i| format!("t{i}")).collect::<Vec<_>>()}}), "tagRule.oneOf maxCount"),
            (json!({"adBreakSettings": {"postroll": {"enabled": true}}}), "adBreakSettings.postroll.enabled formatNotEnabled"),
            (json!({"pauseAdSettings": {"enabled": true}}), "pauseAdSettings.enabled formatNotEnabled"),
            (json!({"overlaySettings": {"enabled": true}}), "overlaySettings.enabled formatNotEnabled"),
        ];
        for (mut body, want) in cases {
            body["name"] = json!("P");
            assert_eq!(rules(body.clone()), vec![want.to_string()], "{body}");
        }
        let eleven: Vec<_> = (2..13).map(|n| json!({"midrollBreakNumber": n})).collect();
        assert_eq!(
            rules(json!({"name": "P", "adBreakSettings": {"midroll": {"advancedRules": {"rules": eleven}}}})),
            vec!["adBreakSettings.midroll.advancedRules.rules maxCount"]
        );
        let ok = json!({"name": "P", "categoryRule": {"oneOf": ["c1"]}, "adBreakSettings": {"preroll": {"enabled": true, "adsPerBreak": 0},
            "midroll": {"enabled": true, "advancedRules": {"enabled": true, "rules": [{"midrollBreakNumber": 2, "adsPerBreak": 50}]}}},
            "globalSettings": {"skipButton": {"showWhen": "AFTER_FIRST_UNIQUE", "resetAfter": 172800, "skipOffset": {"value": 50, "unit": "PERCENT"}}, "minimumTimeBetweenAds": 0}});
        assert!(rules(ok).is_empty());
    }
}

/// The account's insertion policies in rank order, highest first (one record).
#[derive(Debug, Clone, Default, Serialize, Deserialize, PartialEq, utoipa::ToSchema)]
pub struct Ranking {
    pub ids: Vec<String>,
}

impl Ranking {
    /// Whether `wanted` lists every policy of this ranking exactly once.
    pub fn is_permutation(&self, wanted: &[String]) -> bool {
        let mut a = wanted.to_vec();
        a.sort();
        let mut b = self.ids.clone();
        b.sort();
        a == b
    }
}

/// Most ids a ranking lists (above any account's policy limit).
pub const MAX_RANKED: usize = 1000;

crate::wire_schema::bounded_list!(
    /// Policy ids, highest rank first.
    RankedIds, crate::wire_schema::Id, 0, MAX_RANKED
);

/// `PUT /v1/insertion-policy/ranking`: every policy id exactly once, highest rank first.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[schema(as = RankingWrite)]
#[serde(deny_unknown_fields)]
pub struct RankingInput {
    #[schema(value_type = RankedIds, inline)]
    pub ids: Vec<String>,
}

/// Parses a ranking body: every field error at once.
pub fn parse_ranking(v: &serde_json::Value) -> Result<RankingInput, Vec<FieldError>> {
    crate::json::read(v, |_: &mut RankingInput, _| {})
}
