//! Targeting templates (seed 002 §2.1-§2.3; docs/targeting-templates.md): named rule sets
//! that can be linked to campaigns and goals or imported (copied) into them. The rules are
//! kept as a [`Rules`] record, the same model campaign and goal rules use, so an import is a
//! merge of two records.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::rules::{
    check_segment_id, ip_matcher_message, time_rule, valid_ip_matcher, AcpRule, AcpValueRule, AudienceRule, FrequencyCap, IpRule, Known,
    LocationRule, ResourceRule, Rules, UserAgentRule, ACCESS, ACP_FORBIDDEN, ACP_RULE_TYPES, BROWSERS, DAYS, LOCATION_TYPES,
    MAX_ACP_VALUES, OPERATING_SYSTEMS, RULE_TYPES, UNITS,
};
use crate::error::{AppError, FieldError};
use crate::json::ObjReader;

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

pub const MAX_NAME: usize = 255;

impl Template {
    /// `{id, name, siteId, created}`; `created` with milliseconds and a numeric offset in the
    /// account's time zone.
    pub fn to_json(&self, tz: chrono_tz::Tz) -> Value {
        json!({
            "id": self.id, "name": self.name, "siteId": self.site_id,
            "created": self.created.with_timezone(&tz).format("%Y-%m-%dT%H:%M:%S%.3f%:z").to_string(),
        })
    }
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

/// The frequency units a template may use: both lifetimes (checked when imported).
fn template_units() -> Vec<&'static str> {
    UNITS.iter().copied().chain(["GOAL_LIFETIME", "CAMPAIGN_LIFETIME"]).collect()
}

fn items<'a>(r: &mut ObjReader<'a>, name: &str) -> Vec<(String, &'a Value)> {
    let path = r.at(name);
    r.array_opt(name).map(|a| a.iter().enumerate().map(|(i, v)| (format!("{path}[{i}]"), v)).collect()).unwrap_or_default()
}

fn required<T>(b: &mut ObjReader, name: &str, v: &Option<T>) {
    if v.is_none() && !b.present(name) {
        let p = b.at(name);
        b.err(name, "required", format!("{p} is required"));
    }
}

fn str_array(b: &mut ObjReader, name: &str, allowed: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let path = b.at(name);
    let Some(arr) = b.array_opt(name) else { return out };
    for (i, v) in arr.iter().enumerate() {
        match v.as_str() {
            Some(s) if allowed.contains(&s) => {
                if !out.iter().any(|x| x == s) {
                    out.push(s.to_string());
                }
            }
            _ => b.errors.push(FieldError::new(
                format!("{path}[{i}]"),
                "enum",
                format!("{path}[{i}] must be one of {} (got {v})", allowed.join(", ")),
            )),
        }
    }
    out
}

/// Parses and validates the rules body (seed 002 §2.3) against the account's reference data.
pub fn parse_rules(v: &Value, known: &Known, template_id: &str) -> Result<Rules, AppError> {
    let mut r = ObjReader::new(v, "", RULE_KEYS);
    let mut out = Rules::empty(template_id);

    let units = template_units();
    for (path, item) in items(&mut r, "frequencyRules") {
        let mut b = ObjReader::new(item, &path, &["impressions", "timeUnit"]);
        let n = b.int_opt("impressions", 1, i64::from(u32::MAX));
        required(&mut b, "impressions", &n);
        let unit = b.enum_opt("timeUnit", &units);
        required(&mut b, "timeUnit", &unit);
        if let Some(u) = &unit {
            if out.frequency_cappings.iter().any(|f| &f.time_unit == u) {
                b.err("timeUnit", "single", format!("a frequency rule per {u} is given twice"));
            }
        }
        if let (Some(n), Some(time_unit), true) = (n, unit, b.errors.is_empty()) {
            out.frequency_cappings.push(FrequencyCap { impressions: n as u32, time_unit });
        }
        r.errors.append(&mut b.errors);
    }

    for (path, item) in items(&mut r, "locationRules") {
        let mut b = ObjReader::new(item, &path, &["locationId", "locationType", "locationName", "access"]);
        let id = b.str_req("locationId", 64);
        let lt = b.enum_opt("locationType", LOCATION_TYPES);
        required(&mut b, "locationType", &lt);
        let access = b.enum_opt("access", ACCESS);
        required(&mut b, "access", &access);
        if let (Some(id), Some(location_type), Some(access), true) = (id, lt, access, b.errors.is_empty()) {
            out.locations.push(LocationRule { allowed: access == "ALLOW", id, iso2: None, location_type });
        }
        r.errors.append(&mut b.errors);
    }

    for (path, item) in items(&mut r, "timeRules") {
        let mut b = ObjReader::new(item, &path, &["active", "days", "fromHour", "fromMinute", "toHour", "toMinute"]);
        let active = b.bool_opt("active");
        required(&mut b, "active", &active);
        let days = str_array(&mut b, "days", DAYS);
        if days.is_empty() && b.errors.iter().all(|e| !e.field.starts_with(&b.at("days"))) {
            b.err("days", "required", format!("{} needs at least one day", b.at("days")));
        }
        let num = |b: &mut ObjReader, name: &str, hi: i64| {
            let v = b.int_opt(name, 0, hi);
            required(b, name, &v);
            v.map(|x| x as u32)
        };
        let fh = num(&mut b, "fromHour", 23);
        let fm = num(&mut b, "fromMinute", 59);
        let th = num(&mut b, "toHour", 23);
        let tm = num(&mut b, "toMinute", 59);
        if let (Some(active), Some(fh), Some(fm), Some(th), Some(tm), true) = (active, fh, fm, th, tm, b.errors.is_empty()) {
            match time_rule(active, days, [fh, fm, th, tm]) {
                Ok(rule) => out.time_restrictions.push(rule),
                Err(msg) => b.err("toHour", "window", format!("{path}: {msg}")),
            }
        }
        r.errors.append(&mut b.errors);
    }

    let mut one_of_tags = 0;
    for (path, item) in items(&mut r, "tagAndPartnerRules") {
        let mut b = ObjReader::new(item, &path, &["tag", "partnerId", "partnerName", "resourceType", "ruleType"]);
        let kind = b.enum_opt("resourceType", &["TAG", "CONTENT_PARTNER"]);
        required(&mut b, "resourceType", &kind);
        let rule_type = b.enum_opt("ruleType", RULE_TYPES);
        required(&mut b, "ruleType", &rule_type);
        let id = match kind.as_deref() {
            Some("TAG") => {
                if b.present("partnerId") {
                    b.err("partnerId", "notAllowed", format!("{} belongs to CONTENT_PARTNER rules, not TAG", b.at("partnerId")));
                }
                let t = b.str_req("tag", 255);
                if let Some(t) = &t {
                    if t.chars().any(char::is_control) {
                        b.err("tag", "format", format!("{} may not hold control characters", b.at("tag")));
                    }
                }
                if rule_type.as_deref() == Some("AT_LEAST_ONE_OF") {
                    one_of_tags += 1;
                }
                t
            }
            Some(_) => {
                if b.present("tag") {
                    b.err("tag", "notAllowed", format!("{} belongs to TAG rules, not CONTENT_PARTNER", b.at("tag")));
                }
                let p = b.str_req("partnerId", 64);
                if let Some(p) = &p {
                    if !known.partners.contains(p) {
                        b.err("partnerId", "reference", format!("{}: no content partner {p} in this account", b.at("partnerId")));
                    }
                }
                p
            }
            None => None,
        };
        if let (Some(resource_id), Some(rule_type), Some(variable_type), true) = (id, rule_type, kind, b.errors.is_empty()) {
            out.tags.push(ResourceRule { resource_id, rule_type, variable_type });
        }
        r.errors.append(&mut b.errors);
    }
    if one_of_tags == 1 {
        r.err(
            "tagAndPartnerRules",
            "atLeastTwoTags",
            "AT_LEAST_ONE_OF on tags needs at least two tags, each as its own TagRuleBean (one tag: use ALL_OF)",
        );
    }

    for (path, item) in items(&mut r, "categoryRules") {
        let mut b = ObjReader::new(item, &path, &["categoryId", "categoryName", "ruleType"]);
        let id = b.str_req("categoryId", 64);
        if let Some(c) = &id {
            if !known.categories.contains(c) {
                b.err("categoryId", "reference", format!("{}: no category {c} in this account", b.at("categoryId")));
            }
        }
        let rule_type = b.enum_opt("ruleType", ACP_RULE_TYPES);
        required(&mut b, "ruleType", &rule_type);
        if let (Some(resource_id), Some(rule_type), true) = (id, rule_type, b.errors.is_empty()) {
            out.content.push(ResourceRule { resource_id, rule_type, variable_type: "SITE".into() });
        }
        r.errors.append(&mut b.errors);
    }

    for (path, item) in items(&mut r, "ipRules") {
        let mut b = ObjReader::new(item, &path, &["ipMatcher", "access"]);
        let m = b.str_req("ipMatcher", 64);
        if let Some(v) = m.as_deref().filter(|v| !valid_ip_matcher(v)) {
            b.err("ipMatcher", "format", ip_matcher_message(&b.at("ipMatcher"), v));
        }
        let access = b.enum_opt("access", ACCESS);
        required(&mut b, "access", &access);
        if let (Some(ip_matcher), Some(access), true) = (m, access, b.errors.is_empty()) {
            out.ip_rules.push(IpRule { ip_matcher, access });
        }
        r.errors.append(&mut b.errors);
    }

    for (path, item) in items(&mut r, "userAgentRules") {
        let mut b = ObjReader::new(item, &path, &["browsers", "operatingSystems", "access"]);
        let browsers = str_array(&mut b, "browsers", BROWSERS);
        let operating_systems = str_array(&mut b, "operatingSystems", OPERATING_SYSTEMS);
        if browsers.is_empty() && operating_systems.is_empty() && b.errors.is_empty() {
            b.err("browsers", "required", format!("{path} needs at least one browser or operating system"));
        }
        let access = b.enum_opt("access", ACCESS);
        required(&mut b, "access", &access);
        if let (Some(access), true) = (access, b.errors.is_empty()) {
            out.user_agent_rules.push(UserAgentRule { browsers, operating_systems, access });
        }
        r.errors.append(&mut b.errors);
    }

    // Maps: required only when the account has providers / custom parameters.
    match r.get("audienceRules") {
        None if !known.providers.is_empty() => r.err(
            "audienceRules",
            "required",
            "audienceRules is required when the account has an audience provider integration (an empty object is fine)",
        ),
        None => {}
        Some(Value::Object(map)) => {
            for (provider, list) in map {
                let path = format!("audienceRules.{provider}");
                if !known.providers.contains_key(provider) {
                    r.errors.push(FieldError::new(&path, "reference", format!("{path}: no audience provider {provider} in this account")));
                    continue;
                }
                let Some(list) = list.as_array() else {
                    r.errors.push(FieldError::new(&path, "type", format!("{path} must be an array")));
                    continue;
                };
                for (i, item) in list.iter().enumerate() {
                    let mut b = ObjReader::new(item, &format!("{path}[{i}]"), &["segmentId", "segmentName", "ruleType"]);
                    let id = b.str_req("segmentId", 255);
                    if let Some(v) = &id {
                        if let Err((rule, msg)) = check_segment_id(known, v, Some(provider)) {
                            b.err("segmentId", rule, format!("{}: {msg}", b.at("segmentId")));
                        }
                    }
                    let rule_type = b.enum_opt("ruleType", RULE_TYPES);
                    required(&mut b, "ruleType", &rule_type);
                    if let (Some(segment_id), Some(rule_type), true) = (id, rule_type, b.errors.is_empty()) {
                        out.audience_rules.push(AudienceRule { segment_id, rule_type });
                    }
                    r.errors.append(&mut b.errors);
                }
            }
        }
        Some(_) => r.err("audienceRules", "type", "audienceRules must be an object of provider id to rules"),
    }

    match r.get("accountCustomParameterRules") {
        None if !known.custom_parameters.is_empty() => r.err(
            "accountCustomParameterRules",
            "required",
            "accountCustomParameterRules is required when the account has custom parameters (an empty object is fine)",
        ),
        None => {}
        Some(Value::Object(map)) => {
            for (name, list) in map {
                let path = format!("accountCustomParameterRules.{name}");
                match name.strip_prefix("acp.") {
                    Some(p) if known.custom_parameters.contains(p) => {}
                    Some(p) => {
                        r.errors.push(FieldError::new(&path, "reference", format!("{path}: the account has no custom parameter {p:?}")));
                        continue;
                    }
                    None => {
                        r.errors.push(FieldError::new(&path, "format", format!("{path}: keys are acp.<parameter name> (got {name:?})")));
                        continue;
                    }
                }
                let Some(list) = list.as_array() else {
                    r.errors.push(FieldError::new(&path, "type", format!("{path} must be an array")));
                    continue;
                };
                if list.len() > MAX_ACP_VALUES {
                    r.errors.push(FieldError::new(
                        &path,
                        "maxCount",
                        format!("at most {MAX_ACP_VALUES} values per account custom parameter (got {})", list.len()),
                    ));
                    continue;
                }
                let mut rules = Vec::new();
                for (i, item) in list.iter().enumerate() {
                    let mut b = ObjReader::new(item, &format!("{path}[{i}]"), &["value", "ruleType"]);
                    let value = b.str_req("value", 255);
                    if let Some(v) = &value {
                        if let Some(bad) = v.chars().find(|ch| ACP_FORBIDDEN.contains(ch) || ch.is_whitespace()) {
                            b.err("value", "format", format!("{} may not contain {bad:?} (no spaces or , ; \" ' \\ | ~ &)", b.at("value")));
                        }
                    }
                    let rule_type = b.enum_opt("ruleType", ACP_RULE_TYPES);
                    required(&mut b, "ruleType", &rule_type);
                    if let (Some(value), Some(rule_type), true) = (value, rule_type, b.errors.is_empty()) {
                        rules.push(AcpValueRule { rule_type, value });
                    }
                    r.errors.append(&mut b.errors);
                }
                if !rules.is_empty() {
                    out.account_custom_parameters.push(AcpRule { ignore_parent: false, parameter_name: name.clone(), rules });
                }
            }
        }
        Some(_) => r.err("accountCustomParameterRules", "type", "accountCustomParameterRules must be an object of acp.<name> to rules"),
    }

    if r.errors.is_empty() {
        Ok(out)
    } else {
        Err(AppError::Validation(r.errors))
    }
}

/// The rules body as read back: every key; unset arrays empty; the maps hold every
/// provider and custom parameter of the account, with an empty array when unset.
pub fn rules_json(rules: &Rules, providers: &[String], custom_parameters: &[String]) -> Value {
    let mut audience: Map<String, Value> = providers.iter().map(|p| (p.clone(), json!([]))).collect();
    for a in &rules.audience_rules {
        let entry = audience.entry(a.provider().to_string()).or_insert_with(|| json!([]));
        if let Some(list) = entry.as_array_mut() {
            list.push(json!({"segmentId": a.segment_id, "ruleType": a.rule_type}));
        }
    }
    let mut acp: Map<String, Value> = custom_parameters.iter().map(|p| (format!("acp.{p}"), json!([]))).collect();
    for a in &rules.account_custom_parameters {
        acp.insert(
            a.parameter_name.clone(),
            json!(a.rules.iter().map(|r| json!({"value": r.value, "ruleType": r.rule_type})).collect::<Vec<_>>()),
        );
    }
    json!({
        "frequencyRules": rules.frequency_cappings.iter().map(|f| json!({"impressions": f.impressions, "timeUnit": f.time_unit})).collect::<Vec<_>>(),
        "locationRules": rules.locations.iter().map(|l| json!({
            "locationId": l.id, "locationType": l.location_type, "access": if l.allowed { "ALLOW" } else { "DENY" }})).collect::<Vec<_>>(),
        "timeRules": rules.time_restrictions.iter().map(|t| json!({"active": t.active, "days": t.days, "fromHour": t.from_hour,
            "fromMinute": t.from_minute, "toHour": t.to_hour, "toMinute": t.to_minute})).collect::<Vec<_>>(),
        "tagAndPartnerRules": rules.tags.iter().map(|t| if t.variable_type == "TAG" {
            json!({"tag": t.resource_id, "resourceType": "TAG", "ruleType": t.rule_type})
        } else {
            json!({"partnerId": t.resource_id, "resourceType": "CONTENT_PARTNER", "ruleType": t.rule_type})
        }).collect::<Vec<_>>(),
        "categoryRules": rules.content.iter().map(|c| json!({"categoryId": c.resource_id, "ruleType": c.rule_type})).collect::<Vec<_>>(),
        "ipRules": rules.ip_rules.iter().map(|i| json!({"ipMatcher": i.ip_matcher, "access": i.access})).collect::<Vec<_>>(),
        "userAgentRules": rules.user_agent_rules.iter().map(|u| json!({"browsers": u.browsers,
            "operatingSystems": u.operating_systems, "access": u.access})).collect::<Vec<_>>(),
        "audienceRules": audience,
        "accountCustomParameterRules": acp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::rule_list;

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
        let back = rules_json(&r, &["p1".into()], &["genre".into()]);
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
