//! Targeting templates (seed 002 §2.1-§2.3; docs/targeting-templates.md): named rule sets
//! that can be linked to campaigns and goals or imported (copied) into them. The rules are
//! kept as a [`Rules`] record, the same model campaign and goal rules use, so an import is a
//! merge of two records.

use crate::rule::Rule;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::enums::{Access, Day, LocationType, RuleType, TimeUnit, VariableType};
use super::rules::check::{self, Fields};
use super::rules::{AcpRule, Known, Rules};
use crate::domain_error::{DomainError, FieldError};
use crate::json::ObjReader;
use crate::limits::MAX_ID_LEN;
use crate::limits::{IP_MATCHER_MAX, RULE_VALUE_MAX};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Template {
    pub id: String,
    pub name: String,
    pub site_id: String,
    pub created: DateTime<Utc>,
    #[serde(default)]
    pub rules: Rules,
}

pub const MAX_NAME: usize = crate::limits::NAME_MAX;

impl Template {
    /// `{id, name, siteId, created}`.
    pub fn view(&self, tz: &crate::model::zone::Zone) -> TemplateView<'_> {
        TemplateView {
            id: &self.id,
            name: &self.name,
            site_id: &self.site_id,
            created: self.created.with_timezone(tz).format("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string(),
        }
    }
}

/// A targeting template (seed 002 §2.1); the rules are at `.../{id}/rules`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemplateView<'a> {
    pub id: &'a str,
    pub name: &'a str,
    /// The account's id.
    pub site_id: &'a str,
    /// With milliseconds and the account's offset, e.g. 2026-01-05T10:00:00.000+01:00.
    #[schema(format = DateTime)]
    pub created: String,
}

const RULE_KEYS: &[&str] = &[
    "frequencyRules",
    "locationRules",
    "timeRules",
    "tagAndPartnerRules",
    "categoryRules",
    "ipRules",
    "userAgentRules",
    "audienceRules",
    "accountCustomParameterRules",
];

/// The objects of an array field, each with its own reader at `name[i]` (0-based).
fn objects<'a>(r: &mut ObjReader<'a>, name: &str, known: &[&str]) -> Vec<ObjReader<'a>> {
    let path = r.at(name);
    r.array_opt(name)
        .map(|a| a.iter().enumerate().map(|(i, v)| ObjReader::new(v, &format!("{path}[{i}]"), known)).collect())
        .unwrap_or_default()
}

/// Parses and validates the rules body (seed 002 §2.3) against the account's reference
/// data: the JSON reader of the rule kinds `rules::check` validates.
pub fn parse_rules(v: &Value, known: &Known, template_id: &str) -> Result<Rules, DomainError> {
    parse_rules_at(v, "", known, template_id, RulesFor::Template).map_err(DomainError::Validation)
}

/// Whose rules body is read: a template's, or the targeting of a forecast request (seed
/// 002 §2.4-§2.5), which supports fewer rule beans.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum RulesFor {
    Template,
    CampaignForecast,
    InventoryForecast,
}

impl RulesFor {
    fn unsupported(self) -> &'static [&'static str] {
        match self {
            RulesFor::Template => &[],
            RulesFor::CampaignForecast => &["ipRules", "userAgentRules", "timeRules", "accountCustomParameterRules"],
            RulesFor::InventoryForecast => &["ipRules", "userAgentRules", "timeRules", "frequencyRules", "accountCustomParameterRules"],
        }
    }

    fn what(self) -> &'static str {
        match self {
            RulesFor::Template => "targeting templates",
            RulesFor::CampaignForecast => "campaign forecasts",
            RulesFor::InventoryForecast => "inventory forecasts",
        }
    }
}

/// A rules body at `path` (e.g. `goals[0].targeting.targetingRules`); every problem listed.
pub fn parse_rules_at(v: &Value, path: &str, known: &Known, template_id: &str, kind: RulesFor) -> Result<Rules, Vec<FieldError>> {
    let mut r = ObjReader::new(v, path, RULE_KEYS);
    let mut out = Rules::empty(template_id);
    for key in kind.unsupported() {
        let given = r.get(key).is_some_and(|v| v.as_array().is_none_or(|a| !a.is_empty()) && v.as_object().is_none_or(|o| !o.is_empty()));
        if given {
            let p = r.at(key);
            r.err(key, Rule::Unsupported, format!("{p}: these rules are not supported in {}; leave them out", kind.what()));
        }
    }
    let maps_required = kind == RulesFor::Template;

    // A template may hold both lifetimes (the import checks the one that applies).
    let units = check::units(&[TimeUnit::GoalLifetime, TimeUnit::CampaignLifetime]);
    for mut b in objects(&mut r, "frequencyRules", &["impressions", "timeUnit"]) {
        let n = b.int_opt("impressions", 1, i64::from(u32::MAX));
        out.frequency_cappings.extend(check::frequency_cap(&mut b, n, &units, &out.frequency_cappings));
        r.errors.append(&mut b.errors);
    }

    for mut b in objects(&mut r, "locationRules", &["locationId", "locationType", "locationName", "access"]) {
        let id = b.str_req("locationId", MAX_ID_LEN);
        let lt = b.one_of("locationType", LocationType::ALL);
        let allowed = check::access(&mut b).map(|a| a == Access::Allow);
        out.locations.extend(check::location(&mut b, id, lt, allowed, "access", None));
        r.errors.append(&mut b.errors);
    }

    for mut b in objects(&mut r, "timeRules", &["active", "days", "fromHour", "fromMinute", "toHour", "toMinute"]) {
        let active = b.bool_opt("active");
        let days = b.list_of("days", Day::ALL);
        let int = |b: &mut ObjReader, name: &str, hi: i64| b.int_opt(name, 0, hi).and_then(|v| u32::try_from(v).ok());
        let clock = [int(&mut b, "fromHour", 23), int(&mut b, "fromMinute", 59), int(&mut b, "toHour", 23), int(&mut b, "toMinute", 59)];
        out.time_restrictions.extend(check::time_restriction(&mut b, active, days, clock));
        r.errors.append(&mut b.errors);
    }

    let mut one_of_tags = 0;
    for mut b in objects(&mut r, "tagAndPartnerRules", &["tag", "partnerId", "partnerName", "resourceType", "ruleType"]) {
        let kind = b.one_of("resourceType", &[VariableType::Tag, VariableType::ContentPartner]);
        b.required("resourceType", &kind);
        let rule_type = b.one_of("ruleType", RuleType::ALL);
        b.required("ruleType", &rule_type);
        // The id is `tag` on a TAG rule and `partnerId` on a CONTENT_PARTNER rule.
        let (field, other) = match kind {
            Some(VariableType::ContentPartner) => ("partnerId", "tag"),
            Some(VariableType::Tag | VariableType::Site) | None => ("tag", "partnerId"),
        };
        if kind.is_some() && b.present(other) {
            let p = b.at(other);
            let (this_kind, that_kind) = if field == "tag" { ("TAG", "CONTENT_PARTNER") } else { ("CONTENT_PARTNER", "TAG") };
            b.err(other, Rule::NotAllowed, format!("{p} belongs to {that_kind} rules, not {this_kind}"));
        }
        let id = if kind.is_some() { b.str_req(field, if field == "tag" { RULE_VALUE_MAX } else { MAX_ID_LEN }) } else { None };
        if kind == Some(VariableType::Tag) && rule_type == Some(RuleType::AtLeastOneOf) {
            one_of_tags += 1;
        }
        out.tags.extend(check::tag_or_partner(&mut b, field, kind, id, rule_type, known));
        r.errors.append(&mut b.errors);
    }
    if one_of_tags == 1 {
        r.err(
            "tagAndPartnerRules",
            Rule::AtLeastTwoTags,
            "AT_LEAST_ONE_OF on tags needs at least two tags, each as its own TagRuleBean (one tag: use ALL_OF)",
        );
    }

    for mut b in objects(&mut r, "categoryRules", &["categoryId", "categoryName", "ruleType"]) {
        let id = b.str_req("categoryId", MAX_ID_LEN);
        // Seed 002: a category rule is AT_LEAST_ONE_OF or NONE_OF (a request has one category).
        out.content.extend(check::category(&mut b, "categoryId", id, RuleType::SINGLE_VALUED, known));
        r.errors.append(&mut b.errors);
    }

    for mut b in objects(&mut r, "ipRules", &["ipMatcher", "access"]) {
        let m = b.str_req("ipMatcher", IP_MATCHER_MAX);
        out.ip_rules.extend(check::ip(&mut b, m));
        r.errors.append(&mut b.errors);
    }

    for mut b in objects(&mut r, "userAgentRules", &["browsers", "operatingSystems", "access"]) {
        out.user_agent_rules.extend(check::user_agent(&mut b));
        r.errors.append(&mut b.errors);
    }

    // Maps: required only when the account has providers / custom parameters.
    match r.get("audienceRules") {
        None if maps_required && !known.providers.is_empty() => r.err(
            "audienceRules",
            Rule::Required,
            "audienceRules is required when the account has an audience provider integration (an empty object is fine)",
        ),
        None => {}
        Some(Value::Object(map)) => {
            for (provider, list) in map {
                let path = format!("{}.{provider}", r.at("audienceRules"));
                if !known.providers.contains_key(provider) {
                    r.errors.push(FieldError::new(
                        &path,
                        Rule::Reference,
                        format!("{path}: no audience provider {provider} in this account"),
                    ));
                    continue;
                }
                let Some(list) = list.as_array() else {
                    r.errors.push(FieldError::new(&path, Rule::Type, format!("{path} must be an array")));
                    continue;
                };
                for (i, item) in list.iter().enumerate() {
                    let mut b = ObjReader::new(item, &format!("{path}[{i}]"), &["segmentId", "segmentName", "ruleType"]);
                    let id = b.str_req("segmentId", RULE_VALUE_MAX);
                    out.audience_rules.extend(check::audience(&mut b, id, Some(provider), known));
                    r.errors.append(&mut b.errors);
                }
            }
        }
        Some(_) => r.err("audienceRules", Rule::Type, "audienceRules must be an object of provider id to rules"),
    }

    match r.get("accountCustomParameterRules") {
        None if maps_required && !known.custom_parameters.is_empty() => r.err(
            "accountCustomParameterRules",
            Rule::Required,
            "accountCustomParameterRules is required when the account has custom parameters (an empty object is fine)",
        ),
        None => {}
        Some(Value::Object(map)) if !kind.unsupported().contains(&"accountCustomParameterRules") => {
            for (name, list) in map {
                let path = format!("{}.{name}", r.at("accountCustomParameterRules"));
                if let Err((rule, msg)) = check::acp_name(name, known, &[]) {
                    r.errors.push(FieldError::new(&path, rule, format!("{path}: {msg}")));
                    continue;
                }
                let Some(list) = list.as_array() else {
                    r.errors.push(FieldError::new(&path, Rule::Type, format!("{path} must be an array")));
                    continue;
                };
                if let Err(msg) = check::acp_count(list.len()) {
                    r.errors.push(FieldError::new(&path, Rule::MaxCount, msg));
                    continue;
                }
                let mut rules = Vec::new();
                for (i, item) in list.iter().enumerate() {
                    let mut b = ObjReader::new(item, &format!("{path}[{i}]"), &["value", "ruleType"]);
                    let value = b.str_req("value", RULE_VALUE_MAX);
                    rules.extend(check::acp_value(&mut b, value));
                    r.errors.append(&mut b.errors);
                }
                if !rules.is_empty() {
                    out.account_custom_parameters.push(AcpRule { ignore_parent: false, parameter_name: name.clone(), rules });
                }
            }
        }
        Some(Value::Object(_)) => {}
        Some(_) => r.err("accountCustomParameterRules", Rule::Type, "accountCustomParameterRules must be an object of acp.<name> to rules"),
    }

    if r.errors.is_empty() {
        Ok(out)
    } else {
        Err(r.errors)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain_error::rule_list;
    use serde_json::json;

    fn known() -> Known {
        let mut k = Known {
            categories: ["cat1".to_string()].into(),
            partners: ["cp1".to_string()].into(),
            custom_parameters: ["genre".to_string()].into(),
            ..Known::default()
        };
        k.providers.insert("p1".into(), [("sg1".to_string(), ["s1".to_string()].into())].into());
        k
    }

    fn rules(v: Value) -> Vec<String> {
        rule_list(parse_rules(&v, &known(), "t"))
    }

    fn base() -> Value {
        json!({"audienceRules": {}, "accountCustomParameterRules": {}})
    }

    fn with(k: &str, v: Value) -> Value {
        let mut b = base();
        b[k] = v;
        b
    }

    #[test]
    fn a_full_body_round_trips() {
        let body = json!({
            "frequencyRules": [{"impressions": 3, "timeUnit": "GOAL_LIFETIME"}],
            "locationRules": [{"locationId": "se", "locationType": "METRO", "locationName": "ignored", "access": "DENY"}],
            "timeRules": [{"active": true, "days": ["MONDAY"], "fromHour": 6, "fromMinute": 0, "toHour": 0, "toMinute": 0}],
            "tagAndPartnerRules": [{"tag": "a", "resourceType": "TAG", "ruleType": "AT_LEAST_ONE_OF"},
                {"tag": "b", "resourceType": "TAG", "ruleType": "AT_LEAST_ONE_OF"},
                {"partnerId": "cp1", "partnerName": "x", "resourceType": "CONTENT_PARTNER", "ruleType": "ALL_OF"}],
            "categoryRules": [{"categoryId": "cat1", "ruleType": "NONE_OF"}],
            "ipRules": [{"ipMatcher": "10.0.0.1-20", "access": "ALLOW"}],
            "userAgentRules": [{"browsers": ["CHROME"], "operatingSystems": [], "access": "DENY"}],
            "audienceRules": {"p1": [{"segmentId": "p1[sg1]=s1", "segmentName": "a:b", "ruleType": "ALL_OF"}]},
            "accountCustomParameterRules": {"acp.genre": [{"value": "drama", "ruleType": "AT_LEAST_ONE_OF"}]},
        });
        let r = parse_rules(&body, &known(), "t").unwrap();
        let back = serde_json::to_value(crate::model::rules_view::rules_view(&r, &["p1".into()], &["genre".into()])).unwrap();
        let again = parse_rules(&back, &known(), "t").unwrap();
        assert_eq!(again, r);
        assert_eq!(back["locationRules"][0], json!({"locationId": "se", "locationType": "METRO", "access": "DENY"}));
    }

    #[test]
    fn the_seed_rules() {
        // 1. AT_LEAST_ONE_OF on tags needs two tags.
        let one = json!([{"tag": "a", "resourceType": "TAG", "ruleType": "AT_LEAST_ONE_OF"}]);
        assert_eq!(rules(with("tagAndPartnerRules", one)), vec!["tagAndPartnerRules atLeastTwoTags"]);
        // Categories and custom parameters refuse ALL_OF.
        assert_eq!(
            rules(with("categoryRules", json!([{"categoryId": "cat1", "ruleType": "ALL_OF"}]))),
            vec!["categoryRules[0].ruleType enum"]
        );
        let acp = |v: Value| with("accountCustomParameterRules", json!({"acp.genre": v}));
        assert_eq!(
            rules(acp(json!([{"value": "x", "ruleType": "ALL_OF"}]))),
            vec!["accountCustomParameterRules.acp.genre[0].ruleType enum"]
        );
        // 3. ≤ 20 values, forbidden characters.
        let many: Vec<Value> = (0..21).map(|i| json!({"value": format!("v{i}"), "ruleType": "NONE_OF"})).collect();
        assert_eq!(rules(acp(json!(many))), vec!["accountCustomParameterRules.acp.genre maxCount"]);
        for bad in ["a b", "a,b", "a;b", "a\"b", "a'b", "a\\b", "a|b", "a~b", "a&b"] {
            assert_eq!(
                rules(acp(json!([{"value": bad, "ruleType": "NONE_OF"}]))),
                vec!["accountCustomParameterRules.acp.genre[0].value format"],
                "{bad}"
            );
        }
        assert_eq!(
            rules(with("accountCustomParameterRules", json!({"acp.mood": []}))),
            vec!["accountCustomParameterRules.acp.mood reference"]
        );
        // Ranges and enumerations.
        let t = json!([{"active": true, "days": ["FUNDAY"], "fromHour": 24, "fromMinute": 0, "toHour": 5, "toMinute": 60}]);
        assert_eq!(
            rules(with("timeRules", t)),
            vec!["timeRules[0].days[0] enum", "timeRules[0].fromHour range", "timeRules[0].toMinute range"]
        );
        assert_eq!(
            rules(with("frequencyRules", json!([{"impressions": 0, "timeUnit": "YEAR"}]))),
            vec!["frequencyRules[0].impressions range", "frequencyRules[0].timeUnit enum"]
        );
        assert_eq!(
            rules(with("locationRules", json!([{"locationId": "x", "locationType": "STATE", "access": "MAYBE"}]))),
            vec!["locationRules[0].locationType enum", "locationRules[0].access enum"]
        );
        assert_eq!(
            rules(with("userAgentRules", json!([{"browsers": ["NETSCAPE"], "access": "ALLOW"}]))),
            vec!["userAgentRules[0].browsers[0] enum"]
        );
        // IP matcher forms.
        for ok in ["10.1.2.3", "10.1.2.0-255", "10.1.2.*"] {
            assert!(rules(with("ipRules", json!([{"ipMatcher": ok, "access": "ALLOW"}]))).is_empty(), "{ok}");
        }
        for bad in ["10.1.2", "10.1.*.3", "10.1.2.9-3", "10.1.2.256", "::1", "10.1.2.3/24"] {
            assert_eq!(
                rules(with("ipRules", json!([{"ipMatcher": bad, "access": "ALLOW"}]))),
                vec!["ipRules[0].ipMatcher format"],
                "{bad}"
            );
        }
        // Audience segment ids: form, provider, segmentation, segment.
        let aud = |id: &str| with("audienceRules", json!({"p1": [{"segmentId": id, "ruleType": "NONE_OF"}]}));
        assert!(rules(aud("p1[sg1]=s1")).is_empty());
        assert_eq!(rules(aud("p1:sg1=s1")), vec!["audienceRules.p1[0].segmentId format"]);
        assert_eq!(rules(aud("p2[sg1]=s1")), vec!["audienceRules.p1[0].segmentId provider"]);
        assert_eq!(rules(aud("p1[sg9]=s1")), vec!["audienceRules.p1[0].segmentId reference"]);
        assert_eq!(rules(aud("p1[sg1]=s9")), vec!["audienceRules.p1[0].segmentId reference"]);
        assert_eq!(rules(with("audienceRules", json!({"zz": []}))), vec!["audienceRules.zz reference"]);
        // The maps are required when the account has providers / custom parameters.
        assert_eq!(rules(json!({})), vec!["audienceRules required", "accountCustomParameterRules required"]);
        assert!(rule_list(parse_rules(&json!({}), &Known::default(), "t")).is_empty());
        assert_eq!(rules(with("colorRules", json!([]))), vec!["colorRules unknown"]);
    }
}
