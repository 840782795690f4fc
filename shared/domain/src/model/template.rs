//! Targeting templates (seed 002 §2.1-§2.3; docs/targeting-templates.md): named rule sets
//! that can be linked to campaigns and goals or imported (copied) into them. The rules are
//! kept as a [`Rules`] record, the same model campaign and goal rules use, so an import is a
//! merge of two records.

use crate::rule::Rule;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::enums::{Access, RuleType, VariableType};
use super::rules::check;
use super::rules::{
    check_segment_id, ip_matcher_message, time_rule, valid_ip_matcher, AcpRule, AcpValueRule, AudienceRule, FrequencyCap, IpRule, Known,
    LocationRule, ResourceRule, Rules, UserAgentRule,
};
use super::rules_view::RulesView;
use crate::domain_error::{DomainError, FieldError};

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

/// Parses and validates the rules body (seed 002 §2.3) against the account's reference
/// data: the JSON reader of the rule kinds `rules::check` validates.
pub fn parse_rules(v: &Value, known: &Known, template_id: &str) -> Result<Rules, DomainError> {
    let mut rules = None;
    crate::json::read(v, |b: &mut RulesView, errors| rules = Some(check_rules(b, "", known, template_id, RulesFor::Template, errors)))
        .map_err(DomainError::Validation)?;
    Ok(rules.unwrap_or_else(|| Rules::empty(template_id)))
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

/// The rules of a rules body at `path` (e.g. `goals[0].targeting.targetingRules`; its
/// shape is the schema's), every problem listed in `errors`; the rules as read.
pub fn check_rules(b: &RulesView, path: &str, known: &Known, template_id: &str, kind: RulesFor, errors: &mut Vec<FieldError>) -> Rules {
    let at = |k: &str| if path.is_empty() { k.to_string() } else { format!("{path}.{k}") };
    let mut out = Rules::empty(template_id);
    let given = [
        ("ipRules", !b.ip_rules.is_empty()),
        ("userAgentRules", !b.user_agent_rules.is_empty()),
        ("timeRules", !b.time_rules.is_empty()),
        ("frequencyRules", !b.frequency_rules.is_empty()),
        ("accountCustomParameterRules", b.account_custom_parameter_rules.as_ref().is_some_and(|m| !m.is_empty())),
    ];
    for (key, _) in given.iter().filter(|(k, g)| *g && kind.unsupported().contains(k)) {
        fail(errors, at(key), (Rule::Unsupported, format!("these rules are not supported in {}; leave them out", kind.what())));
    }

    // A template may hold both lifetimes (the import checks the one that applies).
    for (i, f) in b.frequency_rules.iter().enumerate() {
        match check::unit_once(&out.frequency_cappings, f.time_unit) {
            Ok(()) => out.frequency_cappings.push(FrequencyCap { impressions: f.impressions, time_unit: f.time_unit }),
            Err(e) => fail(errors, at(&format!("frequencyRules[{i}].timeUnit")), e),
        }
    }
    for l in &b.location_rules {
        out.locations.push(LocationRule {
            allowed: l.access == Access::Allow,
            id: l.location_id.clone(),
            iso2: None,
            location_type: l.location_type,
        });
    }
    for (i, t) in b.time_rules.iter().enumerate() {
        let p = at(&format!("timeRules[{i}]"));
        if crate::json::faulted(errors, &p) {
            continue;
        }
        if t.days.is_empty() {
            fail(errors, format!("{p}.days"), (Rule::Required, "needs at least one day".to_string()));
            continue;
        }
        let mut days = t.days.clone();
        days.dedup();
        match time_rule(t.active, days, [t.from_hour, t.from_minute, t.to_hour, t.to_minute]) {
            Ok(rule) => out.time_restrictions.push(rule),
            Err(msg) => errors.push(FieldError::new(format!("{p}.toHour"), Rule::Window, format!("{p}: {msg}"))),
        }
    }

    let mut one_of_tags = 0;
    for (i, t) in b.tag_and_partner_rules.iter().enumerate() {
        let p = at(&format!("tagAndPartnerRules[{i}]"));
        // The id is `tag` on a TAG rule and `partnerId` on a CONTENT_PARTNER rule.
        let (field, id, other, other_set) = match t.resource_type {
            VariableType::Tag => ("tag", &t.tag, "partnerId", t.partner_id.is_some()),
            VariableType::ContentPartner => ("partnerId", &t.partner_id, "tag", t.tag.is_some()),
            VariableType::Site => {
                fail(
                    errors,
                    format!("{p}.resourceType"),
                    (Rule::Enum, format!("must be one of TAG, CONTENT_PARTNER (got {})", t.resource_type)),
                );
                continue;
            }
        };
        if other_set {
            let kinds = if field == "tag" { ("CONTENT_PARTNER", "TAG") } else { ("TAG", "CONTENT_PARTNER") };
            fail(errors, format!("{p}.{other}"), (Rule::NotAllowed, format!("belongs to {} rules, not {}", kinds.0, kinds.1)));
        }
        let Some(id) = id else {
            errors.push(FieldError::new(format!("{p}.{field}"), Rule::Required, format!("{p}.{field} is required")));
            continue;
        };
        if t.resource_type == VariableType::Tag && t.rule_type == RuleType::AtLeastOneOf {
            one_of_tags += 1;
        }
        match check::tag_or_partner_ref(t.resource_type, id, known) {
            Ok(()) => out.tags.push(ResourceRule { resource_id: id.clone(), rule_type: t.rule_type, variable_type: t.resource_type }),
            Err(e) => fail(errors, format!("{p}.{field}"), e),
        }
    }
    if one_of_tags == 1 {
        errors.push(FieldError::new(
            at("tagAndPartnerRules"),
            Rule::AtLeastTwoTags,
            "AT_LEAST_ONE_OF on tags needs at least two tags, each as its own TagRuleBean (one tag: use ALL_OF)",
        ));
    }

    for (i, c) in b.category_rules.iter().enumerate() {
        let p = at(&format!("categoryRules[{i}]"));
        // Seed 002: a category rule is AT_LEAST_ONE_OF or NONE_OF (a request has one category).
        if !RuleType::SINGLE_VALUED.contains(&c.rule_type) {
            fail(errors, format!("{p}.ruleType"), single_valued(c.rule_type));
        } else if let Err(e) = check::category_ref(known, &c.category_id) {
            fail(errors, format!("{p}.categoryId"), e);
        } else {
            out.content.push(ResourceRule {
                resource_id: c.category_id.clone(),
                rule_type: c.rule_type,
                variable_type: VariableType::Site,
            });
        }
    }

    for (i, r) in b.ip_rules.iter().enumerate() {
        if valid_ip_matcher(&r.ip_matcher) {
            out.ip_rules.push(IpRule { ip_matcher: r.ip_matcher.clone(), access: r.access });
        } else {
            let p = at(&format!("ipRules[{i}].ipMatcher"));
            errors.push(FieldError::new(p.clone(), Rule::Format, ip_matcher_message(&p, &r.ip_matcher)));
        }
    }

    for (i, u) in b.user_agent_rules.iter().enumerate() {
        if u.browsers.is_empty() && u.operating_systems.is_empty() {
            let p = at(&format!("userAgentRules[{i}]"));
            errors.push(FieldError::new(
                format!("{p}.browsers"),
                Rule::Required,
                format!("{p} needs at least one browser or operating system"),
            ));
            continue;
        }
        let mut browsers = u.browsers.clone();
        browsers.dedup();
        let mut operating_systems = u.operating_systems.clone();
        operating_systems.dedup();
        out.user_agent_rules.push(UserAgentRule { browsers, operating_systems, access: u.access });
    }

    // Maps: required only when the account has providers / custom parameters.
    let maps_required = kind == RulesFor::Template;
    match &b.audience_rules {
        None if maps_required && !known.providers.is_empty() => errors.push(FieldError::new(
            at("audienceRules"),
            Rule::Required,
            "audienceRules is required when the account has an audience provider integration (an empty object is fine)",
        )),
        None => {}
        Some(map) => {
            for (provider, list) in map {
                let p = format!("{}.{provider}", at("audienceRules"));
                if !known.providers.contains_key(provider) {
                    fail(errors, p, (Rule::Reference, format!("no audience provider {provider} in this account")));
                    continue;
                }
                for (i, a) in list.iter().enumerate() {
                    match check_segment_id(known, &a.segment_id, Some(provider)) {
                        Ok(()) => out.audience_rules.push(AudienceRule { segment_id: a.segment_id.clone(), rule_type: a.rule_type }),
                        Err(e) => fail(errors, format!("{p}[{i}].segmentId"), e),
                    }
                }
            }
        }
    }

    match &b.account_custom_parameter_rules {
        None if maps_required && !known.custom_parameters.is_empty() => errors.push(FieldError::new(
            at("accountCustomParameterRules"),
            Rule::Required,
            "accountCustomParameterRules is required when the account has custom parameters (an empty object is fine)",
        )),
        Some(map) if !kind.unsupported().contains(&"accountCustomParameterRules") => {
            for (name, list) in map {
                let p = format!("{}.{name}", at("accountCustomParameterRules"));
                if let Err(e) = check::acp_name(name, known, &[]) {
                    fail(errors, p, e);
                    continue;
                }
                if let Err(msg) = check::acp_count(list.len()) {
                    errors.push(FieldError::new(p, Rule::MaxCount, msg));
                    continue;
                }
                let mut rules = Vec::new();
                for (i, a) in list.iter().enumerate() {
                    if !RuleType::SINGLE_VALUED.contains(&a.rule_type) {
                        fail(errors, format!("{p}[{i}].ruleType"), single_valued(a.rule_type));
                    } else if let Err(msg) = check::acp_value_ok(&a.value) {
                        fail(errors, format!("{p}[{i}].value"), (Rule::Format, msg));
                    } else {
                        rules.push(AcpValueRule { rule_type: a.rule_type, value: a.value.clone() });
                    }
                }
                if !rules.is_empty() {
                    out.account_custom_parameters.push(AcpRule { ignore_parent: false, parameter_name: name.clone(), rules });
                }
            }
        }
        _ => {}
    }
    out
}

/// Adds the error `rule, msg` of `field`.
fn fail(errors: &mut Vec<FieldError>, field: String, (rule, msg): (Rule, String)) {
    errors.push(FieldError::new(field.clone(), rule, format!("{field}: {msg}")));
}

/// The error of a rule type where only AT_LEAST_ONE_OF and NONE_OF apply.
fn single_valued(got: RuleType) -> (Rule, String) {
    let names: Vec<&str> = RuleType::SINGLE_VALUED.iter().map(|r| r.as_str()).collect();
    (Rule::Enum, format!("must be one of {} (got {got})", names.join(", ")))
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
            vec!["locationRules[0].access enum", "locationRules[0].locationType enum"]
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
