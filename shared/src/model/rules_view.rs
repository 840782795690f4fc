//! The JSON shape of a targeting template's rules (seed 002 §2.3): what `GET
//! /api/2.0/targeting-template/{id}/rules` answers and `PUT` accepts (the parser is
//! `template::parse_rules`; the OpenAPI document describes both with these types).

use std::collections::BTreeMap;

use serde::Serialize;
use utoipa::ToSchema;

use super::enums::{Access, Browser, Day, LocationType, OperatingSystem, RuleType, TimeUnit, VariableType};
use super::rules::Rules;

/// Every key is shown (empty lists included), every audience provider and account custom
/// parameter too, so a GET can be PUT back. On PUT every key may be left out.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RulesView<'a> {
    pub frequency_rules: Vec<FrequencyRuleView>,
    pub location_rules: Vec<LocationRuleView<'a>>,
    pub time_rules: Vec<TimeRuleView<'a>>,
    pub tag_and_partner_rules: Vec<TagOrPartnerRuleView<'a>>,
    pub category_rules: Vec<CategoryRuleView<'a>>,
    pub ip_rules: Vec<IpRuleView<'a>>,
    pub user_agent_rules: Vec<UserAgentRuleView<'a>>,
    /// By provider id: the segment rules.
    pub audience_rules: BTreeMap<String, Vec<AudienceRuleView<'a>>>,
    /// By `acp.<parameter>`: the value rules.
    pub account_custom_parameter_rules: BTreeMap<String, Vec<ValueRuleView<'a>>>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FrequencyRuleView {
    pub impressions: u32,
    pub time_unit: TimeUnit,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LocationRuleView<'a> {
    pub location_id: &'a str,
    pub location_type: LocationType,
    pub access: Access,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TimeRuleView<'a> {
    pub active: bool,
    pub days: &'a [Day],
    pub from_hour: u32,
    pub from_minute: u32,
    pub to_hour: u32,
    pub to_minute: u32,
}

/// A tag rule (`tag`, resourceType TAG) or a content partner rule (`partnerId`,
/// resourceType CONTENT_PARTNER).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TagOrPartnerRuleView<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tag: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub partner_id: Option<&'a str>,
    pub resource_type: VariableType,
    pub rule_type: RuleType,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CategoryRuleView<'a> {
    pub category_id: &'a str,
    pub rule_type: RuleType,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IpRuleView<'a> {
    pub ip_matcher: &'a str,
    pub access: Access,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserAgentRuleView<'a> {
    pub browsers: &'a [Browser],
    pub operating_systems: &'a [OperatingSystem],
    pub access: Access,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AudienceRuleView<'a> {
    pub segment_id: &'a str,
    pub rule_type: RuleType,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValueRuleView<'a> {
    pub value: &'a str,
    pub rule_type: RuleType,
}

/// The rules as the GET of a template shows them (§2.3): every key, every provider and
/// custom parameter listed (with `[]` when it has no rule), so the body can be PUT back.
pub fn rules_view<'a>(rules: &'a Rules, providers: &[String], custom_parameters: &[String]) -> RulesView<'a> {
    let mut audience: BTreeMap<String, Vec<AudienceRuleView>> = providers.iter().map(|p| (p.clone(), Vec::new())).collect();
    for a in &rules.audience_rules {
        audience.entry(a.provider().to_string()).or_default().push(AudienceRuleView { segment_id: &a.segment_id, rule_type: a.rule_type });
    }
    let mut acp: BTreeMap<String, Vec<ValueRuleView>> = custom_parameters.iter().map(|p| (format!("acp.{p}"), Vec::new())).collect();
    for a in &rules.account_custom_parameters {
        acp.insert(a.parameter_name.clone(), a.rules.iter().map(|r| ValueRuleView { value: &r.value, rule_type: r.rule_type }).collect());
    }
    RulesView {
        frequency_rules: rules
            .frequency_cappings
            .iter()
            .map(|f| FrequencyRuleView { impressions: f.impressions, time_unit: f.time_unit })
            .collect(),
        location_rules: rules
            .locations
            .iter()
            .map(|l| LocationRuleView {
                location_id: &l.id,
                location_type: l.location_type,
                access: if l.allowed { Access::Allow } else { Access::Deny },
            })
            .collect(),
        time_rules: rules
            .time_restrictions
            .iter()
            .map(|t| TimeRuleView {
                active: t.active,
                days: &t.days,
                from_hour: t.from_hour,
                from_minute: t.from_minute,
                to_hour: t.to_hour,
                to_minute: t.to_minute,
            })
            .collect(),
        tag_and_partner_rules: rules
            .tags
            .iter()
            .map(|t| {
                let tag = t.variable_type == VariableType::Tag;
                TagOrPartnerRuleView {
                    tag: tag.then_some(t.resource_id.as_str()),
                    partner_id: (!tag).then_some(t.resource_id.as_str()),
                    resource_type: if tag { VariableType::Tag } else { VariableType::ContentPartner },
                    rule_type: t.rule_type,
                }
            })
            .collect(),
        category_rules: rules.content.iter().map(|c| CategoryRuleView { category_id: &c.resource_id, rule_type: c.rule_type }).collect(),
        ip_rules: rules.ip_rules.iter().map(|i| IpRuleView { ip_matcher: &i.ip_matcher, access: i.access }).collect(),
        user_agent_rules: rules
            .user_agent_rules
            .iter()
            .map(|u| UserAgentRuleView { browsers: &u.browsers, operating_systems: &u.operating_systems, access: u.access })
            .collect(),
        audience_rules: audience,
        account_custom_parameter_rules: acp,
    }
}
