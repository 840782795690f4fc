//! Targeting rules: campaign and goal rules (seed 001 §2.6, the XML rulesBean) and the
//! rules of targeting templates (seed 002 §2.2, JSON) are one model, stored as validated,
//! typed records the delivery engine can evaluate (`time_allows`). `check` holds one
//! validator per rule kind; `xml` and `template` are the two thin wire readers.

use crate::rule::Rule;
use std::collections::HashSet;

use serde::{Deserialize, Serialize};

use crate::domain_error::DomainError;
pub use crate::model::enums::{Access, Browser, Day, LocationType, OperatingSystem, RuleType, TimeUnit, VariableType};
use crate::xml::XmlOut;

pub mod check;
pub mod words;
mod xml;

pub use xml::parse_bean;

pub const MAX_ACP_VALUES: usize = 20;
/// Characters an account custom parameter value may not hold (seed 002 §2.2 rule 3).
pub const ACP_FORBIDDEN: &[char] = &[' ', ',', ';', '"', '\'', '\\', '|', '~', '&'];

/// Whose rules these are: the lifetime unit differs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Parent {
    Campaign,
    Goal,
}

/// Whose rules (a campaign's or a goal's): the key of the snapshot input's rule maps.
pub type Owner = (Parent, String);

impl Parent {
    pub fn lifetime(self) -> TimeUnit {
        match self {
            Parent::Campaign => TimeUnit::CampaignLifetime,
            Parent::Goal => TimeUnit::GoalLifetime,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceRule {
    pub resource_id: String,
    pub rule_type: RuleType,
    pub variable_type: VariableType,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrequencyCap {
    pub impressions: u32,
    pub time_unit: TimeUnit,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocationRule {
    pub allowed: bool,
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub iso2: Option<String>,
    pub location_type: LocationType,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TimeRule {
    pub active: bool,
    pub days: Vec<Day>,
    pub from_hour: u32,
    pub from_minute: u32,
    pub to_hour: u32,
    pub to_minute: u32,
}

impl TimeRule {
    /// `[from, to)` in minutes of the day; `00:00` as the end is midnight (1440).
    pub fn window(&self) -> (u32, u32) {
        let from = self.from_hour * 60 + self.from_minute;
        let to = self.to_hour * 60 + self.to_minute;
        (from, if to == 0 { 1440 } else { to })
    }

    pub fn covers(&self, day: Day, minute: u32) -> bool {
        let (from, to) = self.window();
        self.days.contains(&day) && from <= minute && minute < to
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AcpValueRule {
    pub rule_type: RuleType,
    pub value: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AcpRule {
    pub ignore_parent: bool,
    pub parameter_name: String,
    pub rules: Vec<AcpValueRule>,
}

/// IpRuleBean: `a.b.c.d`, `a.b.c.d-e` (a range of the last octet) or `a.b.c.*`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IpRule {
    pub ip_matcher: String,
    pub access: Access,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UserAgentRule {
    pub browsers: Vec<Browser>,
    pub operating_systems: Vec<OperatingSystem>,
    pub access: Access,
}

/// AudienceSegmentRuleBean: `segmentId` is `<provider_id>[<segmentation_id>]=<segment_id>`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AudienceRule {
    pub segment_id: String,
    pub rule_type: RuleType,
}

impl AudienceRule {
    pub fn provider(&self) -> &str {
        self.segment_id.split('[').next().unwrap_or("")
    }
}

pub fn ip_matcher_message(path: &str, v: &str) -> String {
    format!("{path} must be a.b.c.d, a.b.c.d-e or a.b.c.* (got {v:?})")
}

/// A time rule whose window is not empty, or the message saying why (the end minute is
/// exclusive; `00:00` as the end is midnight).
pub fn time_rule(active: bool, days: Vec<Day>, [fh, fm, th, tm]: [u32; 4]) -> Result<TimeRule, String> {
    let rule = TimeRule { active, days, from_hour: fh, from_minute: fm, to_hour: th, to_minute: tm };
    let (from, to) = rule.window();
    if from >= to {
        Err(format!(
            "the window {fh:02}:{fm:02}-{th:02}:{tm:02} is empty; end after start (00:00 ends at midnight; across midnight use two rules)"
        ))
    } else {
        Ok(rule)
    }
}

/// Whether an IpRuleBean matcher has one of the three forms.
pub fn valid_ip_matcher(m: &str) -> bool {
    let parts: Vec<&str> = m.split('.').collect();
    if parts.len() != 4 {
        return false;
    }
    let octet = |p: &str| !p.is_empty() && p.len() <= 3 && p.chars().all(|c| c.is_ascii_digit()) && p.parse::<u8>().is_ok();
    if !parts[..3].iter().all(|p| octet(p)) {
        return false;
    }
    let last = parts[3];
    if last == "*" {
        return true;
    }
    match last.split_once('-') {
        Some((a, b)) => octet(a) && octet(b) && a.parse::<u16>().ok() <= b.parse::<u16>().ok(),
        None => octet(last),
    }
}

/// `<provider_id>[<segmentation_id>]=<segment_id>` → its three ids.
pub fn parse_segment_id(s: &str) -> Option<(&str, &str, &str)> {
    let (provider, rest) = s.split_once('[')?;
    let (segmentation, rest) = rest.split_once(']')?;
    let segment = rest.strip_prefix('=')?;
    (!provider.is_empty() && !segmentation.is_empty() && !segment.is_empty()).then_some((provider, segmentation, segment))
}

/// Checks an audience segment id against the account's providers: the message when not.
pub fn check_segment_id(known: &Known, id: &str, provider_key: Option<&str>) -> Result<(), (Rule, String)> {
    let Some((p, sg, seg)) = parse_segment_id(id) else {
        return Err((Rule::Format, format!("segmentId must be <provider_id>[<segmentation_id>]=<segment_id> (got {id:?})")));
    };
    if let Some(k) = provider_key {
        if k != p {
            return Err((Rule::Provider, format!("segmentId {id} names provider {p}, not {k}")));
        }
    }
    let Some(segmentations) = known.providers.get(p) else {
        return Err((Rule::Reference, format!("no audience provider {p} in this account")));
    };
    match segmentations.get(sg) {
        None => Err((Rule::Reference, format!("audience provider {p} has no segmentation {sg}"))),
        Some(segments) if !segments.contains(seg) => {
            Err((Rule::Reference, format!("segmentation {sg} of provider {p} has no segment {seg}")))
        }
        Some(_) => Ok(()),
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Rules {
    pub parent_id: String,
    #[serde(default)]
    pub content: Vec<ResourceRule>,
    #[serde(default)]
    pub frequency_cappings: Vec<FrequencyCap>,
    #[serde(default)]
    pub locations: Vec<LocationRule>,
    #[serde(default)]
    pub time_restrictions: Vec<TimeRule>,
    #[serde(default)]
    pub tags: Vec<ResourceRule>,
    #[serde(default)]
    pub account_custom_parameters: Vec<AcpRule>,
    #[serde(default)]
    pub ignore_parent_content_rules: bool,
    #[serde(default)]
    pub ignore_parent_frequency_rules: bool,
    #[serde(default)]
    pub ignore_parent_location_rules: bool,
    #[serde(default)]
    pub ignore_parent_tag_rules: bool,
    #[serde(default)]
    pub ignore_parent_time_rules: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ip_rules: Vec<IpRule>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub user_agent_rules: Vec<UserAgentRule>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub audience_rules: Vec<AudienceRule>,
}

/// The account's reference data the rules may name.
#[derive(Debug, Default)]
pub struct Known {
    pub categories: HashSet<String>,
    pub partners: HashSet<String>,
    /// Custom parameter names without `acp.`.
    pub custom_parameters: HashSet<String>,
    /// Audience provider id → segmentation id → segment ids.
    pub providers: std::collections::HashMap<String, std::collections::HashMap<String, HashSet<String>>>,
}

impl Rules {
    pub fn empty(parent_id: &str) -> Rules {
        Rules { parent_id: parent_id.to_string(), ..Rules::default() }
    }

    pub fn write(&self, o: &mut XmlOut) {
        o.open("rulesBean");
        for c in &self.content {
            o.open("content")
                .leaf("resourceId", &c.resource_id)
                .leaf("ruleType", c.rule_type)
                .leaf("variableType", c.variable_type)
                .close("content");
        }
        for f in &self.frequency_cappings {
            o.open("frequencyCappings").leaf("impressions", f.impressions).leaf("timeUnit", f.time_unit).close("frequencyCappings");
        }
        o.leaf("ignoreParentContentRules", self.ignore_parent_content_rules)
            .leaf("ignoreParentFrequencyRules", self.ignore_parent_frequency_rules)
            .leaf("ignoreParentLocationRules", self.ignore_parent_location_rules)
            .leaf("ignoreParentTagRules", self.ignore_parent_tag_rules)
            .leaf("ignoreParentTimeRules", self.ignore_parent_time_rules);
        for l in &self.locations {
            o.open("locations")
                .leaf("allowed", l.allowed)
                .leaf("id", &l.id)
                .leaf_opt("iso2", l.iso2.as_ref())
                .leaf("locationType", l.location_type)
                .close("locations");
        }
        o.leaf("parentId", &self.parent_id);
        for t in &self.tags {
            o.open("tags")
                .leaf("resourceId", &t.resource_id)
                .leaf("ruleType", t.rule_type)
                .leaf("variableType", t.variable_type)
                .close("tags");
        }
        for t in &self.time_restrictions {
            o.open("timeRestrictions").leaf("active", t.active);
            for d in &t.days {
                o.leaf("days", d);
            }
            o.leaf("fromHour", t.from_hour).leaf("fromMinute", t.from_minute).leaf("toHour", t.to_hour).leaf("toMinute", t.to_minute);
            o.close("timeRestrictions");
        }
        for a in &self.account_custom_parameters {
            o.open("accountCustomParameters").leaf("ignoreParent", a.ignore_parent).leaf("parameterName", &a.parameter_name);
            for r in &a.rules {
                o.open("rules").leaf("ruleType", r.rule_type).leaf("value", &r.value).close("rules");
            }
            o.close("accountCustomParameters");
        }
        for ip in &self.ip_rules {
            o.open("ipRules").leaf("ipMatcher", &ip.ip_matcher).leaf("access", ip.access).close("ipRules");
        }
        for ua in &self.user_agent_rules {
            o.open("userAgentRules");
            for b in &ua.browsers {
                o.leaf("browsers", b);
            }
            for os in &ua.operating_systems {
                o.leaf("operatingSystems", os);
            }
            o.leaf("access", ua.access).close("userAgentRules");
        }
        for a in &self.audience_rules {
            o.open("audienceRules").leaf("segmentId", &a.segment_id).leaf("ruleType", a.rule_type).close("audienceRules");
        }
        o.close("rulesBean");
    }
}

fn upsert<T: Clone>(into: &mut Vec<T>, item: &T, same: impl Fn(&T, &T) -> bool) {
    match into.iter_mut().find(|x| same(x, item)) {
        Some(slot) => *slot = item.clone(),
        None => into.push(item.clone()),
    }
}

impl Rules {
    /// Imports a template's rules (copied: later template edits do not reach them). A rule on
    /// the same resource replaces the target's; the rest are added. Frequency caps replace
    /// the cap of the same unit; custom parameter values are united (at most 20).
    pub fn merge(&mut self, from: &Rules, parent: Parent) -> Result<(), DomainError> {
        let other = match parent {
            Parent::Campaign => Parent::Goal.lifetime(),
            Parent::Goal => Parent::Campaign.lifetime(),
        };
        if let Some(f) = from.frequency_cappings.iter().find(|f| f.time_unit == other) {
            return Err(DomainError::Conflict(format!(
                "the template's frequency rule per {} cannot apply to a {}; remove it from the template or import into a {}",
                f.time_unit,
                if parent == Parent::Campaign { "campaign" } else { "goal" },
                if parent == Parent::Campaign { "goal" } else { "campaign" }
            )));
        }
        for c in &from.content {
            upsert(&mut self.content, c, |a, b| a.resource_id == b.resource_id);
        }
        for t in &from.tags {
            upsert(&mut self.tags, t, |a, b| a.resource_id == b.resource_id && a.variable_type == b.variable_type);
        }
        for f in &from.frequency_cappings {
            upsert(&mut self.frequency_cappings, f, |a, b| a.time_unit == b.time_unit);
        }
        for l in &from.locations {
            upsert(&mut self.locations, l, |a, b| a.id == b.id && a.location_type == b.location_type);
        }
        for t in &from.time_restrictions {
            upsert(&mut self.time_restrictions, t, |a, b| a == b);
        }
        for ip in &from.ip_rules {
            upsert(&mut self.ip_rules, ip, |a, b| a.ip_matcher == b.ip_matcher);
        }
        for ua in &from.user_agent_rules {
            upsert(&mut self.user_agent_rules, ua, |a, b| a == b);
        }
        for au in &from.audience_rules {
            upsert(&mut self.audience_rules, au, |a, b| a.segment_id == b.segment_id);
        }
        for acp in &from.account_custom_parameters {
            match self.account_custom_parameters.iter_mut().find(|a| a.parameter_name == acp.parameter_name) {
                Some(mine) => {
                    for v in &acp.rules {
                        upsert(&mut mine.rules, v, |a, b| a.value == b.value);
                    }
                    if mine.rules.len() > MAX_ACP_VALUES {
                        return Err(DomainError::Conflict(format!(
                            "importing would give {} {} values; at most {MAX_ACP_VALUES} per account custom parameter",
                            mine.rules.len(),
                            acp.parameter_name
                        )));
                    }
                }
                None => self.account_custom_parameters.push(acp.clone()),
            }
        }
        Ok(())
    }
}

/// Whether the time restrictions allow delivery at `minute` (0-1439) of `day` (account
/// time zone): with any active rule, inside an active rule and no inactive one; with only
/// inactive rules, inside none of them; without rules, always.
pub fn time_allows(rules: &[TimeRule], day: Day, minute: u32) -> bool {
    let in_inactive = rules.iter().any(|r| !r.active && r.covers(day, minute));
    if in_inactive {
        return false;
    }
    let actives: Vec<&TimeRule> = rules.iter().filter(|r| r.active).collect();
    actives.is_empty() || actives.iter().any(|r| r.covers(day, minute))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::{parse, XmlOut};

    fn known() -> Known {
        Known {
            categories: ["cat1".to_string()].into(),
            partners: ["cp1".to_string()].into(),
            custom_parameters: ["genre".to_string()].into(),
            ..Known::default()
        }
    }

    fn rules(xml: &str, parent: Parent) -> Vec<String> {
        crate::domain_error::rule_list(parse_bean(&parse(xml.as_bytes()).unwrap(), parent, &known()))
    }

    fn t(active: bool, fh: u32, fm: u32, th: u32, tm: u32) -> TimeRule {
        TimeRule { active, days: vec![Day::Monday], from_hour: fh, from_minute: fm, to_hour: th, to_minute: tm }
    }

    #[test]
    fn full_bean_round_trips() {
        let xml = "<rulesBean><parentId>c1</parentId>\
            <content><resourceId>cat1</resourceId><resourceName>ignored</resourceName><ruleType>AT_LEAST_ONE_OF</ruleType><variableType>SITE</variableType></content>\
            <frequencyCappings><impressions>3</impressions><timeUnit>CAMPAIGN_LIFETIME</timeUnit></frequencyCappings>\
            <locations><allowed>true</allowed><id>se</id><iso2>se</iso2><locationType>COUNTRY</locationType><name>Sweden</name></locations>\
            <timeRestrictions><active>true</active><days>MONDAY</days><days>FRIDAY</days><fromHour>6</fromHour><fromMinute>0</fromMinute><toHour>0</toHour><toMinute>0</toMinute></timeRestrictions>\
            <tags><resourceId>sports</resourceId><ruleType>NONE_OF</ruleType><variableType>TAG</variableType></tags>\
            <tags><resourceId>cp1</resourceId><ruleType>ALL_OF</ruleType><variableType>CONTENT_PARTNER</variableType></tags>\
            <accountCustomParameters><ignoreParent>true</ignoreParent><parameterName>acp.genre</parameterName><rules><ruleType>NONE_OF</ruleType><value>horror</value></rules></accountCustomParameters>\
            <ignoreParentTimeRules>true</ignoreParentTimeRules></rulesBean>";
        let r = parse_bean(&parse(xml.as_bytes()).unwrap(), Parent::Campaign, &known()).unwrap();
        assert_eq!(r.locations[0].iso2.as_deref(), Some("SE"));
        assert_eq!(r.time_restrictions[0].window(), (360, 1440));
        assert!(r.ignore_parent_time_rules && !r.ignore_parent_tag_rules);
        let mut o = XmlOut::new();
        r.write(&mut o);
        let again = parse_bean(&parse(o.finish().as_bytes()).unwrap(), Parent::Campaign, &known()).unwrap();
        assert_eq!(again, r);
    }

    #[test]
    fn lifetime_unit_depends_on_the_parent() {
        let f = |u: &str| {
            format!("<rulesBean><frequencyCappings><impressions>1</impressions><timeUnit>{u}</timeUnit></frequencyCappings></rulesBean>")
        };
        assert!(rules(&f("CAMPAIGN_LIFETIME"), Parent::Campaign).is_empty());
        assert_eq!(rules(&f("GOAL_LIFETIME"), Parent::Campaign), vec!["rulesBean/frequencyCappings[1]/timeUnit enum"]);
        assert!(rules(&f("GOAL_LIFETIME"), Parent::Goal).is_empty());
        assert_eq!(rules(&f("CAMPAIGN_LIFETIME"), Parent::Goal), vec!["rulesBean/frequencyCappings[1]/timeUnit enum"]);
        let zero = "<rulesBean><frequencyCappings><impressions>0</impressions><timeUnit>DAY</timeUnit></frequencyCappings></rulesBean>";
        assert_eq!(rules(zero, Parent::Goal), vec!["rulesBean/frequencyCappings[1]/impressions range"]);
    }

    #[test]
    fn references_and_enumerations() {
        let c = |id: &str, rt: &str| {
            format!("<rulesBean><content><resourceId>{id}</resourceId><ruleType>{rt}</ruleType><variableType>SITE</variableType></content></rulesBean>")
        };
        assert_eq!(rules(&c("nope", "ALL_OF"), Parent::Goal), vec!["rulesBean/content[1]/resourceId reference"]);
        assert_eq!(rules(&c("cat1", "ANY_OF"), Parent::Goal), vec!["rulesBean/content[1]/ruleType enum"]);
        let tag = "<rulesBean><tags><resourceId>cpX</resourceId><ruleType>ALL_OF</ruleType><variableType>CONTENT_PARTNER</variableType></tags></rulesBean>";
        assert_eq!(rules(tag, Parent::Goal), vec!["rulesBean/tags[1]/resourceId reference"]);
        let loc = "<rulesBean><locations><allowed>maybe</allowed><id>x</id><iso2>SWE</iso2><locationType>STATE</locationType></locations></rulesBean>";
        assert_eq!(
            rules(loc, Parent::Goal),
            vec![
                "rulesBean/locations[1]/allowed boolean",
                "rulesBean/locations[1]/iso2 format",
                "rulesBean/locations[1]/locationType enum"
            ]
        );
    }

    #[test]
    fn time_restriction_ranges_and_windows() {
        let tr = |inner: &str| format!("<rulesBean><timeRestrictions><active>true</active>{inner}</timeRestrictions></rulesBean>");
        assert_eq!(
            rules(
                &tr("<days>MONDAY</days><fromHour>24</fromHour><fromMinute>60</fromMinute><toHour>5</toHour><toMinute>0</toMinute>"),
                Parent::Goal
            ),
            vec!["rulesBean/timeRestrictions[1]/fromHour range", "rulesBean/timeRestrictions[1]/fromMinute range"]
        );
        assert_eq!(
            rules(&tr("<fromHour>1</fromHour><fromMinute>0</fromMinute><toHour>5</toHour><toMinute>0</toMinute>"), Parent::Goal),
            vec!["rulesBean/timeRestrictions[1]/days required"]
        );
        assert_eq!(
            rules(
                &tr("<days>FUNDAY</days><fromHour>1</fromHour><fromMinute>0</fromMinute><toHour>5</toHour><toMinute>0</toMinute>"),
                Parent::Goal
            ),
            vec!["rulesBean/timeRestrictions[1]/days enum"]
        );
        assert_eq!(
            rules(
                &tr("<days>MONDAY</days><fromHour>22</fromHour><fromMinute>0</fromMinute><toHour>2</toHour><toMinute>0</toMinute>"),
                Parent::Goal
            ),
            vec!["rulesBean/timeRestrictions[1]/toHour window"]
        );
    }

    #[test]
    fn end_minute_is_exclusive_and_midnight_means_next_day() {
        // 05:59 as the end: the last minute delivered is 05:58.
        let r = t(true, 5, 0, 5, 59);
        assert!(time_allows(std::slice::from_ref(&r), Day::Monday, 5 * 60 + 58));
        assert!(!time_allows(std::slice::from_ref(&r), Day::Monday, 5 * 60 + 59));
        // 06:00 includes 05:59.
        assert!(time_allows(&[t(true, 5, 0, 6, 0)], Day::Monday, 5 * 60 + 59));
        // 00:00 as the end runs to midnight.
        assert!(time_allows(&[t(true, 20, 0, 0, 0)], Day::Monday, 23 * 60 + 59));
        assert!(!time_allows(&[t(true, 20, 0, 0, 0)], Day::Tuesday, 23 * 60 + 59));
    }

    #[test]
    fn active_and_inactive_rules_combine() {
        // No rules: always.
        assert!(time_allows(&[], Day::Sunday, 0));
        // An active window makes the rest inactive.
        let day = t(true, 8, 0, 18, 0);
        assert!(time_allows(std::slice::from_ref(&day), Day::Monday, 9 * 60));
        assert!(!time_allows(std::slice::from_ref(&day), Day::Monday, 19 * 60));
        assert!(!time_allows(std::slice::from_ref(&day), Day::Tuesday, 9 * 60));
        // An inactive rule carves a hole out of it.
        let lunch = t(false, 12, 0, 13, 0);
        assert!(!time_allows(&[day.clone(), lunch.clone()], Day::Monday, 12 * 60 + 30));
        assert!(time_allows(&[day, lunch.clone()], Day::Monday, 13 * 60));
        // Inactive rules alone: everything else is allowed.
        assert!(!time_allows(std::slice::from_ref(&lunch), Day::Monday, 12 * 60));
        assert!(time_allows(&[lunch], Day::Monday, 14 * 60));
    }

    #[test]
    fn custom_parameter_rules() {
        let acp = |name: &str, n: usize, value: &str| {
            let rs: String =
                (0..n).map(|i| format!("<rules><ruleType>AT_LEAST_ONE_OF</ruleType><value>{value}{i}</value></rules>")).collect();
            format!("<rulesBean><accountCustomParameters><parameterName>{name}</parameterName>{rs}</accountCustomParameters></rulesBean>")
        };
        assert!(rules(&acp("acp.genre", 20, "v"), Parent::Goal).is_empty());
        assert_eq!(rules(&acp("acp.genre", 21, "v"), Parent::Goal), vec!["rulesBean/accountCustomParameters[1]/rules maxCount"]);
        assert_eq!(rules(&acp("genre", 1, "v"), Parent::Goal), vec!["rulesBean/accountCustomParameters[1]/parameterName format"]);
        assert_eq!(rules(&acp("acp.mood", 1, "v"), Parent::Goal), vec!["rulesBean/accountCustomParameters[1]/parameterName reference"]);
        for bad in ["a b", "a,b", "a;b", "a|b", "a~b", "a&amp;b", "a'b", "a\\b", "a&quot;b"] {
            assert_eq!(
                rules(&acp("acp.genre", 1, bad), Parent::Goal),
                vec!["rulesBean/accountCustomParameters[1]/rules[1]/value format"],
                "{bad}"
            );
        }
        let all_of = "<rulesBean><accountCustomParameters><parameterName>acp.genre</parameterName><rules><ruleType>ALL_OF</ruleType><value>x</value></rules></accountCustomParameters></rulesBean>";
        assert_eq!(rules(all_of, Parent::Goal), vec!["rulesBean/accountCustomParameters[1]/rules[1]/ruleType enum"]);
    }
}
