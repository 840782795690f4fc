//! The JSON shape of a targeting template's rules (seed 002 §2.3): what `GET
//! /api/2.0/targeting-template/{id}/rules` answers and `PUT` accepts, one type for both
//! (serde fills it, `template::parse_rules` checks it; the OpenAPI document describes it).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use crate::json::Ignored;
use crate::wire_schema::{Id, IpMatcher, RuleValue};

use super::enums::{Access, Browser, Day, LocationType, OperatingSystem, RuleType, TimeUnit, VariableType};
use super::rules::Rules;

/// Every key is shown (empty lists included), every audience provider and account custom
/// parameter too, so a GET can be PUT back. On PUT every key may be left out.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RulesView {
    #[serde(default)]
    pub frequency_rules: Vec<FrequencyRuleView>,
    #[serde(default)]
    pub location_rules: Vec<LocationRuleView>,
    #[serde(default)]
    pub time_rules: Vec<TimeRuleView>,
    #[serde(default)]
    pub tag_and_partner_rules: Vec<TagOrPartnerRuleView>,
    #[serde(default)]
    pub category_rules: Vec<CategoryRuleView>,
    #[serde(default)]
    pub ip_rules: Vec<IpRuleView>,
    #[serde(default)]
    pub user_agent_rules: Vec<UserAgentRuleView>,
    /// By provider id: the segment rules. Required on PUT when the account has an audience
    /// provider (an empty object is fine).
    #[serde(default)]
    pub audience_rules: Option<BTreeMap<String, Vec<AudienceRuleView>>>,
    /// By `acp.<parameter>`: the value rules. Required on PUT when the account has custom
    /// parameters (an empty object is fine).
    #[serde(default)]
    pub account_custom_parameter_rules: Option<BTreeMap<String, Vec<ValueRuleView>>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FrequencyRuleView {
    #[schema(minimum = 1)]
    pub impressions: u32,
    pub time_unit: TimeUnit,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LocationRuleView {
    #[schema(value_type = Id, inline)]
    pub location_id: String,
    pub location_type: LocationType,
    /// Accepted and ignored (the name of the location id).
    #[serde(default, skip_serializing_if = "Ignored::always")]
    #[schema(value_type = Option<String>)]
    pub location_name: Ignored,
    pub access: Access,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TimeRuleView {
    pub active: bool,
    /// At least one day.
    pub days: Vec<Day>,
    #[schema(maximum = 23)]
    pub from_hour: u32,
    #[schema(maximum = 59)]
    pub from_minute: u32,
    #[schema(maximum = 23)]
    pub to_hour: u32,
    #[schema(maximum = 59)]
    pub to_minute: u32,
}

/// A tag rule (`tag`, resourceType TAG) or a content partner rule (`partnerId`,
/// resourceType CONTENT_PARTNER).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TagOrPartnerRuleView {
    /// The tag, on a TAG rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<RuleValue>, inline)]
    pub tag: Option<String>,
    /// The content partner, on a CONTENT_PARTNER rule.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<Id>, inline)]
    pub partner_id: Option<String>,
    /// Accepted and ignored (the name of the partner).
    #[serde(default, skip_serializing_if = "Ignored::always")]
    #[schema(value_type = Option<String>)]
    pub partner_name: Ignored,
    /// TAG or CONTENT_PARTNER.
    pub resource_type: VariableType,
    pub rule_type: RuleType,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CategoryRuleView {
    #[schema(value_type = Id, inline)]
    pub category_id: String,
    /// Accepted and ignored (the name of the category).
    #[serde(default, skip_serializing_if = "Ignored::always")]
    #[schema(value_type = Option<String>)]
    pub category_name: Ignored,
    /// AT_LEAST_ONE_OF or NONE_OF (a request has one category).
    pub rule_type: RuleType,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct IpRuleView {
    /// `a.b.c.d`, `a.b.c.d-e` or `a.b.c.*`.
    #[schema(value_type = IpMatcher, inline)]
    pub ip_matcher: String,
    pub access: Access,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct UserAgentRuleView {
    /// With operatingSystems: at least one.
    #[serde(default)]
    pub browsers: Vec<Browser>,
    #[serde(default)]
    pub operating_systems: Vec<OperatingSystem>,
    pub access: Access,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AudienceRuleView {
    /// `<provider>[<segmentation>]=<segment>`.
    #[schema(value_type = RuleValue, inline)]
    pub segment_id: String,
    /// Accepted and ignored (the name of the segment).
    #[serde(default, skip_serializing_if = "Ignored::always")]
    #[schema(value_type = Option<String>)]
    pub segment_name: Ignored,
    pub rule_type: RuleType,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ValueRuleView {
    /// No spaces nor `, ; " ' \\ | ~ &`.
    #[schema(value_type = RuleValue, inline)]
    pub value: String,
    /// AT_LEAST_ONE_OF or NONE_OF.
    pub rule_type: RuleType,
}

/// The rules as the GET of a template shows them (§2.3): every key, every provider and
/// custom parameter listed (with `[]` when it has no rule), so the body can be PUT back.
pub fn rules_view(rules: &Rules, providers: &[String], custom_parameters: &[String]) -> RulesView {
    let mut audience: BTreeMap<String, Vec<AudienceRuleView>> = providers.iter().map(|p| (p.clone(), Vec::new())).collect();
    for a in &rules.audience_rules {
        audience.entry(a.provider().to_string()).or_default().push(AudienceRuleView {
            segment_id: a.segment_id.clone(),
            segment_name: Ignored,
            rule_type: a.rule_type,
        });
    }
    let mut acp: BTreeMap<String, Vec<ValueRuleView>> = custom_parameters.iter().map(|p| (format!("acp.{p}"), Vec::new())).collect();
    for a in &rules.account_custom_parameters {
        acp.insert(
            a.parameter_name.clone(),
            a.rules.iter().map(|r| ValueRuleView { value: r.value.clone(), rule_type: r.rule_type }).collect(),
        );
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
                location_id: l.id.clone(),
                location_type: l.location_type,
                location_name: Ignored,
                access: if l.allowed { Access::Allow } else { Access::Deny },
            })
            .collect(),
        time_rules: rules
            .time_restrictions
            .iter()
            .map(|t| TimeRuleView {
                active: t.active,
                days: t.days.clone(),
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
                    tag: tag.then(|| t.resource_id.clone()),
                    partner_id: (!tag).then(|| t.resource_id.clone()),
                    partner_name: Ignored,
                    resource_type: if tag { VariableType::Tag } else { VariableType::ContentPartner },
                    rule_type: t.rule_type,
                }
            })
            .collect(),
        category_rules: rules
            .content
            .iter()
            .map(|c| CategoryRuleView { category_id: c.resource_id.clone(), category_name: Ignored, rule_type: c.rule_type })
            .collect(),
        ip_rules: rules.ip_rules.iter().map(|i| IpRuleView { ip_matcher: i.ip_matcher.clone(), access: i.access }).collect(),
        user_agent_rules: rules
            .user_agent_rules
            .iter()
            .map(|u| UserAgentRuleView { browsers: u.browsers.clone(), operating_systems: u.operating_systems.clone(), access: u.access })
            .collect(),
        audience_rules: Some(audience),
        account_custom_parameter_rules: Some(acp),
    }
}
