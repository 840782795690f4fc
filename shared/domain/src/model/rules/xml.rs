//! The XML rulesBean reader (seed 001 §2.6): pulls each bean's raw values out of the XML and
//! hands them to the validator of its kind (`check`).

use super::check::{self, Fields};
use super::{AcpRule, Known, Parent, Rules};
use crate::domain_error::DomainError;
use crate::limits::{IP_MATCHER_MAX, MAX_ID_LEN, RULE_VALUE_MAX};
use crate::model::enums::{Day, LocationType, RuleType, VariableType};
use crate::rule::Rule;
use crate::xml::{BeanReader, Element};

/// The rule beans (each may repeat) and the rulesBean's single-valued elements.
const REPEATABLE: &[&str] = &[
    "content",
    "frequencyCappings",
    "locations",
    "timeRestrictions",
    "tags",
    "accountCustomParameters",
    "ipRules",
    "userAgentRules",
    "audienceRules",
];
const SINGLE: &[&str] = &[
    "parentId",
    "ignoreParentContentRules",
    "ignoreParentFrequencyRules",
    "ignoreParentLocationRules",
    "ignoreParentTagRules",
    "ignoreParentTimeRules",
];

/// The beans of one repeated element, each with its own reader at `name[i]` (1-based).
fn beans<'a>(r: &BeanReader, el: &'a Element, name: &str, known: &[&str], repeatable: &[&str]) -> Vec<BeanReader<'a>> {
    el.children
        .iter()
        .filter(|c| c.name == name)
        .enumerate()
        .map(|(i, c)| BeanReader::new(c, format!("{}[{}]", r.at(name), i + 1), known, repeatable))
        .collect()
}

pub fn parse_bean(el: &Element, parent: Parent, known: &Known) -> Result<Rules, DomainError> {
    let fields: Vec<&str> = REPEATABLE.iter().chain(SINGLE).copied().collect();
    let mut r = BeanReader::new(el, "rulesBean", &fields, REPEATABLE);
    let mut out = Rules { parent_id: r.text("parentId").unwrap_or_default(), ..Rules::default() };

    for mut b in beans(&r, el, "content", &["resourceId", "resourceName", "ruleType", "variableType"], &[]) {
        let id = b.required_max("resourceId", MAX_ID_LEN);
        // Seed 001 lets a content rule be ALL_OF; its variableType is SITE.
        let rule = check::category(&mut b, "resourceId", id, RuleType::ALL, known);
        b.one_of("variableType", &[VariableType::Site]);
        out.content.extend(rule.filter(|_| b.errors.is_empty()));
        r.errors.append(&mut b.errors);
    }

    let units = check::units(&[parent.lifetime()]);
    for mut b in beans(&r, el, "frequencyCappings", &["impressions", "timeUnit"], &[]) {
        let n = b.int("impressions", 1, i64::from(u32::MAX));
        out.frequency_cappings.extend(check::frequency_cap(&mut b, n, &units, &out.frequency_cappings));
        r.errors.append(&mut b.errors);
    }

    for mut b in beans(&r, el, "locations", &["allowed", "id", "iso2", "locationType", "name"], &[]) {
        let allowed = b.bool("allowed");
        let id = b.required_max("id", MAX_ID_LEN);
        let raw = b.text("iso2");
        let iso2 = check::iso2(&mut b, raw);
        let lt = b.one_of("locationType", LocationType::ALL);
        out.locations.extend(check::location(&mut b, id, lt, allowed, "allowed", iso2));
        r.errors.append(&mut b.errors);
    }

    for mut b in beans(&r, el, "timeRestrictions", &["active", "days", "fromHour", "fromMinute", "toHour", "toMinute"], &["days"]) {
        let active = b.bool("active");
        let days = b.list_of("days", Day::ALL);
        let int = |b: &mut BeanReader, name: &str, hi: i64| b.int(name, 0, hi).and_then(|v| u32::try_from(v).ok());
        let clock = [int(&mut b, "fromHour", 23), int(&mut b, "fromMinute", 59), int(&mut b, "toHour", 23), int(&mut b, "toMinute", 59)];
        out.time_restrictions.extend(check::time_restriction(&mut b, active, days, clock));
        r.errors.append(&mut b.errors);
    }

    for mut b in beans(&r, el, "tags", &["resourceId", "resourceName", "ruleType", "variableType"], &[]) {
        let id = b.required_max("resourceId", RULE_VALUE_MAX);
        let rule_type = b.one_of("ruleType", RuleType::ALL);
        b.required("ruleType", &rule_type);
        let kind = b.one_of("variableType", &[VariableType::Tag, VariableType::ContentPartner]);
        b.required("variableType", &kind);
        out.tags.extend(check::tag_or_partner(&mut b, "resourceId", kind, id, rule_type, known));
        r.errors.append(&mut b.errors);
    }

    for mut b in beans(&r, el, "accountCustomParameters", &["ignoreParent", "parameterName", "rules"], &["rules"]) {
        let ignore_parent = b.bool("ignoreParent").unwrap_or(false);
        let name = b.required_max("parameterName", 128);
        if let Some(n) = &name {
            let seen: Vec<String> = out.account_custom_parameters.iter().map(|a| a.parameter_name.clone()).collect();
            if let Err((rule, msg)) = check::acp_name(n, known, &seen) {
                let p = b.at("parameterName");
                b.err("parameterName", rule, format!("{p}: {msg}"));
            }
        }
        let values: Vec<Element> = b.element().children_named("rules").cloned().collect();
        if values.is_empty() {
            let p = b.at("rules");
            b.err("rules", Rule::Required, format!("{p} needs at least one rule"));
        }
        if let Err(msg) = check::acp_count(values.len()) {
            b.err("rules", Rule::MaxCount, msg);
        }
        let mut rules = Vec::new();
        for (j, v) in values.iter().enumerate() {
            let mut rb = BeanReader::new(v, format!("{}[{}]", b.at("rules"), j + 1), &["ruleType", "value"], &[]);
            let value = rb.required_max("value", RULE_VALUE_MAX);
            rules.extend(check::acp_value(&mut rb, value));
            b.errors.append(&mut rb.errors);
        }
        if let (Some(parameter_name), true) = (name, b.errors.is_empty()) {
            out.account_custom_parameters.push(AcpRule { ignore_parent, parameter_name, rules });
        }
        r.errors.append(&mut b.errors);
    }

    for mut b in beans(&r, el, "ipRules", &["ipMatcher", "access"], &[]) {
        let m = b.required_max("ipMatcher", IP_MATCHER_MAX);
        out.ip_rules.extend(check::ip(&mut b, m));
        r.errors.append(&mut b.errors);
    }

    for mut b in beans(&r, el, "userAgentRules", &["browsers", "operatingSystems", "access"], &["browsers", "operatingSystems"]) {
        out.user_agent_rules.extend(check::user_agent(&mut b));
        r.errors.append(&mut b.errors);
    }

    for mut b in beans(&r, el, "audienceRules", &["segmentId", "segmentName", "ruleType"], &[]) {
        let id = b.required_max("segmentId", RULE_VALUE_MAX);
        out.audience_rules.extend(check::audience(&mut b, id, None, known));
        r.errors.append(&mut b.errors);
    }

    out.ignore_parent_content_rules = r.bool("ignoreParentContentRules").unwrap_or(false);
    out.ignore_parent_frequency_rules = r.bool("ignoreParentFrequencyRules").unwrap_or(false);
    out.ignore_parent_location_rules = r.bool("ignoreParentLocationRules").unwrap_or(false);
    out.ignore_parent_tag_rules = r.bool("ignoreParentTagRules").unwrap_or(false);
    out.ignore_parent_time_rules = r.bool("ignoreParentTimeRules").unwrap_or(false);
    if r.errors.is_empty() {
        Ok(out)
    } else {
        Err(DomainError::Validation(r.errors))
    }
}
