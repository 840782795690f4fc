//! One validator per rule kind. The XML rulesBean reader (seed 001 §2.6) pulls raw values
//! through [`Fields`] and calls the kind's validator; the JSON targeting-template rules
//! (seed 002 §2.2, `template::check_rules`) arrive typed by serde and call the same kinds'
//! checks (`category_ref`, `tag_or_partner_ref`, `unit_once`, `acp_value_ok`, ...), so each
//! rule is written once whatever the wire shape.

use super::{
    time_rule, valid_ip_matcher, AcpValueRule, AudienceRule, FrequencyCap, IpRule, Known, LocationRule, ResourceRule, TimeRule,
    UserAgentRule, ACP_FORBIDDEN, MAX_ACP_VALUES,
};
use crate::domain_error::FieldError;
use crate::model::enums::{Access, Browser, Day, LocationType, OperatingSystem, RuleType, TimeUnit, VariableType, WireEnum};
use crate::rule::Rule;

use crate::xml::BeanReader;

/// What a validator needs of a wire reader: field paths, presence, typed values of closed
/// sets, and the error list.
pub trait Fields {
    /// The full path of a field of this bean, e.g. `rulesBean/tags[2]/ruleType`.
    fn at(&self, name: &str) -> String;
    fn err(&mut self, name: &str, rule: Rule, message: String);
    /// Whether the field was sent at all (a present but invalid value has its own error).
    fn present(&self, name: &str) -> bool;
    fn errors(&mut self) -> &mut Vec<FieldError>;
    /// The value of `name` when it is one of `allowed`; another value is an `enum` error.
    fn one_of<E: WireEnum>(&mut self, name: &str, allowed: &[E]) -> Option<E>;
    /// Every value of the repeated field (XML) or array (JSON) `name`, each one of `allowed`,
    /// without repeats.
    fn list_of<E: WireEnum + PartialEq>(&mut self, name: &str, allowed: &[E]) -> Vec<E>;

    /// No error so far.
    fn clean(&mut self) -> bool {
        self.errors().is_empty()
    }

    /// `name` is required: absent (not merely invalid) is a `required` error.
    fn required<T>(&mut self, name: &str, v: &Option<T>) {
        if v.is_none() && !self.present(name) {
            let p = self.at(name);
            self.err(name, Rule::Required, format!("{p} is required"));
        }
    }
}

fn names<E: WireEnum>(allowed: &[E]) -> String {
    allowed.iter().map(|e| e.as_str()).collect::<Vec<_>>().join(", ")
}

impl Fields for BeanReader<'_> {
    fn at(&self, name: &str) -> String {
        BeanReader::at(self, name)
    }
    fn err(&mut self, name: &str, rule: Rule, message: String) {
        BeanReader::err(self, name, rule, message)
    }
    fn present(&self, name: &str) -> bool {
        BeanReader::present(self, name)
    }
    fn errors(&mut self) -> &mut Vec<FieldError> {
        &mut self.errors
    }
    fn one_of<E: WireEnum>(&mut self, name: &str, allowed: &[E]) -> Option<E> {
        BeanReader::one_of(self, name, allowed)
    }
    fn list_of<E: WireEnum + PartialEq>(&mut self, name: &str, allowed: &[E]) -> Vec<E> {
        let el = self.element();
        let mut out: Vec<E> = Vec::new();
        for d in el.children_named(name) {
            match d.value().and_then(E::parse).filter(|e| allowed.contains(e)) {
                Some(e) => {
                    if !out.contains(&e) {
                        out.push(e);
                    }
                }
                None => {
                    let p = Fields::at(self, name);
                    let got = d.value().unwrap_or("");
                    Fields::err(self, name, Rule::Enum, format!("{p} must be one of {} (got {got:?})", names(allowed)));
                }
            }
        }
        out
    }
}

/// The rule of a category: the account's.
pub fn category_ref(known: &Known, id: &str) -> Result<(), (Rule, String)> {
    if known.categories.contains(id) {
        Ok(())
    } else {
        Err((Rule::Reference, format!("no category {id} in this account")))
    }
}

/// The rule of a tag or content partner id: a content partner must be the account's, a
/// tag is free text without control characters.
pub fn tag_or_partner_ref(kind: VariableType, id: &str, known: &Known) -> Result<(), (Rule, String)> {
    match kind {
        VariableType::ContentPartner if !known.partners.contains(id) => {
            Err((Rule::Reference, format!("no content partner {id} in this account")))
        }
        VariableType::Tag if id.chars().any(char::is_control) => Err((Rule::Format, "may not hold control characters".to_string())),
        _ => Ok(()),
    }
}

/// The rule of frequency caps: one per unit.
pub fn unit_once(seen: &[FrequencyCap], u: TimeUnit) -> Result<(), (Rule, String)> {
    if seen.iter().any(|c| c.time_unit == u) {
        Err((Rule::Single, format!("a frequency cap per {u} is given twice")))
    } else {
        Ok(())
    }
}

/// The rule of a custom parameter's value: no spaces nor `, ; " ' \ | ~ &`.
pub fn acp_value_ok(v: &str) -> Result<(), String> {
    match v.chars().find(|ch| ACP_FORBIDDEN.contains(ch) || ch.is_whitespace()) {
        Some(bad) => Err(format!("may not contain {bad:?} (no spaces or , ; \" ' \\ | ~ &)")),
        None => Ok(()),
    }
}

/// A category rule: the category must be the account's.
pub fn category(f: &mut impl Fields, field: &str, id: Option<String>, allowed: &[RuleType], known: &Known) -> Option<ResourceRule> {
    let rule_type = f.one_of("ruleType", allowed);
    f.required("ruleType", &rule_type);
    if let Some(Err((rule, msg))) = id.as_deref().map(|c| category_ref(known, c)) {
        let p = f.at(field);
        f.err(field, rule, format!("{p}: {msg}"));
    }
    let (resource_id, rule_type) = (id?, rule_type?);
    f.clean().then_some(ResourceRule { resource_id, rule_type, variable_type: VariableType::Site })
}

/// A tag rule or a content-partner rule (`kind`): a tag is free text without control
/// characters; a content partner must be the account's.
pub fn tag_or_partner(
    f: &mut impl Fields,
    field: &str,
    kind: Option<VariableType>,
    id: Option<String>,
    rule_type: Option<RuleType>,
    known: &Known,
) -> Option<ResourceRule> {
    if let (Some(id), Some(kind)) = (&id, kind) {
        if let Err((rule, msg)) = tag_or_partner_ref(kind, id, known) {
            let p = f.at(field);
            f.err(field, rule, format!("{p}: {msg}"));
        }
    }
    let (resource_id, rule_type, variable_type) = (id?, rule_type?, kind?);
    f.clean().then_some(ResourceRule { resource_id, rule_type, variable_type })
}

/// The frequency units a parent's rules may use: the periods and its own lifetime(s).
pub fn units(lifetimes: &[TimeUnit]) -> Vec<TimeUnit> {
    TimeUnit::PERIODS.iter().chain(lifetimes).copied().collect()
}

/// A frequency cap: at least one impression, one cap per unit.
pub fn frequency_cap(f: &mut impl Fields, impressions: Option<i64>, units: &[TimeUnit], seen: &[FrequencyCap]) -> Option<FrequencyCap> {
    f.required("impressions", &impressions);
    let unit = f.one_of("timeUnit", units);
    f.required("timeUnit", &unit);
    if let Some(Err((rule, msg))) = unit.map(|u| unit_once(seen, u)) {
        f.err("timeUnit", rule, msg);
    }
    let (n, time_unit) = (impressions?, unit?);
    f.clean().then_some(FrequencyCap { impressions: u32::try_from(n).unwrap_or(u32::MAX), time_unit })
}

/// A location rule: an id, a type, allowed or denied, and an optional two-letter country.
pub fn location(
    f: &mut impl Fields,
    id: Option<String>,
    location_type: Option<LocationType>,
    allowed: Option<bool>,
    allowed_field: &str,
    iso2: Option<String>,
) -> Option<LocationRule> {
    f.required(allowed_field, &allowed);
    f.required("locationType", &location_type);
    let (allowed, id, location_type) = (allowed?, id?, location_type?);
    f.clean().then_some(LocationRule { allowed, id, iso2: iso2.map(|v| v.to_uppercase()), location_type })
}

/// A location's optional country (XML): two letters.
pub fn iso2(f: &mut impl Fields, v: Option<String>) -> Option<String> {
    let v = v?;
    if v.len() != 2 || !v.chars().all(|ch| ch.is_ascii_alphabetic()) {
        let p = f.at("iso2");
        f.err("iso2", Rule::Format, format!("{p} must be a two-letter country code (got {v:?})"));
    }
    Some(v)
}

/// `allowed` from an `access` field (the JSON form of a location rule).
pub fn access(f: &mut impl Fields) -> Option<Access> {
    let a = f.one_of("access", Access::ALL);
    f.required("access", &a);
    a
}

/// A time restriction: at least one day, hours 0-23 and minutes 0-59 (checked by the
/// reader's number parsing), and a window that is not empty.
/// `days` is the reader's `list_of("days", Day::ALL)`.
pub fn time_restriction(f: &mut impl Fields, active: Option<bool>, days: Vec<Day>, clock: [Option<u32>; 4]) -> Option<TimeRule> {
    f.required("active", &active);
    let day_errors = {
        let p = f.at("days");
        f.errors().iter().any(|e| e.field.starts_with(&p))
    };
    if days.is_empty() && !day_errors {
        let p = f.at("days");
        f.err("days", Rule::Required, format!("{p} needs at least one day"));
    }
    for (name, v) in ["fromHour", "fromMinute", "toHour", "toMinute"].iter().zip(&clock) {
        f.required(name, v);
    }
    let [fh, fm, th, tm] = clock;
    let (active, fh, fm, th, tm) = (active?, fh?, fm?, th?, tm?);
    if !f.clean() {
        return None;
    }
    match time_rule(active, days, [fh, fm, th, tm]) {
        Ok(rule) => Some(rule),
        Err(msg) => {
            let p = f.at("");
            f.err("toHour", Rule::Window, format!("{}: {msg}", p.trim_end_matches(['/', '.'])));
            None
        }
    }
}

/// An IP rule: `a.b.c.d`, `a.b.c.d-e` or `a.b.c.*`, allowed or denied.
pub fn ip(f: &mut impl Fields, matcher: Option<String>) -> Option<IpRule> {
    if let Some(v) = matcher.as_deref().filter(|v| !valid_ip_matcher(v)) {
        let p = f.at("ipMatcher");
        f.err("ipMatcher", Rule::Format, super::ip_matcher_message(&p, v));
    }
    let access = access(f);
    let (ip_matcher, access) = (matcher?, access?);
    f.clean().then_some(IpRule { ip_matcher, access })
}

/// A user-agent rule: at least one browser or operating system, allowed or denied.
pub fn user_agent(f: &mut impl Fields) -> Option<UserAgentRule> {
    let browsers: Vec<Browser> = f.list_of("browsers", Browser::ALL);
    let operating_systems: Vec<OperatingSystem> = f.list_of("operatingSystems", OperatingSystem::ALL);
    if browsers.is_empty() && operating_systems.is_empty() && f.clean() {
        let p = f.at("");
        f.err("browsers", Rule::Required, format!("{} needs at least one browser or operating system", p.trim_end_matches(['/', '.'])));
    }
    let access = access(f)?;
    f.clean().then_some(UserAgentRule { browsers, operating_systems, access })
}

/// An audience segment rule: `<provider>[<segmentation>]=<segment>` of the account (and of
/// `provider` when the wire shape groups rules by provider).
pub fn audience(f: &mut impl Fields, segment_id: Option<String>, provider: Option<&str>, known: &Known) -> Option<AudienceRule> {
    if let Some(v) = &segment_id {
        if let Err((rule, msg)) = super::check_segment_id(known, v, provider) {
            let p = f.at("segmentId");
            f.err("segmentId", rule, format!("{p}: {msg}"));
        }
    }
    let rule_type = f.one_of("ruleType", RuleType::ALL);
    f.required("ruleType", &rule_type);
    let (segment_id, rule_type) = (segment_id?, rule_type?);
    f.clean().then_some(AudienceRule { segment_id, rule_type })
}

/// The name of an account custom parameter rule: `acp.<name>` of one of the account's
/// parameters, given once.
pub fn acp_name(name: &str, known: &Known, seen: &[String]) -> Result<(), (Rule, String)> {
    match name.strip_prefix("acp.") {
        Some(p) if known.custom_parameters.contains(p) => {
            if seen.iter().any(|x| x == name) {
                Err((Rule::Single, format!("{name} is given twice")))
            } else {
                Ok(())
            }
        }
        Some(p) => Err((Rule::Reference, format!("the account has no custom parameter {p:?}"))),
        None => Err((Rule::Format, format!("must be acp.<parameter name> (got {name:?})"))),
    }
}

/// How many values an account custom parameter rule may list.
pub fn acp_count(n: usize) -> Result<(), String> {
    if n > MAX_ACP_VALUES {
        Err(format!("at most {MAX_ACP_VALUES} values per account custom parameter (got {n})"))
    } else {
        Ok(())
    }
}

/// One value of an account custom parameter rule: no spaces nor `, ; " ' \ | ~ &`.
pub fn acp_value(f: &mut impl Fields, value: Option<String>) -> Option<AcpValueRule> {
    if let Some(Err(msg)) = value.as_deref().map(acp_value_ok) {
        let p = f.at("value");
        f.err("value", Rule::Format, format!("{p} {msg}"));
    }
    let rule_type = f.one_of("ruleType", RuleType::SINGLE_VALUED);
    f.required("ruleType", &rule_type);
    let (value, rule_type) = (value?, rule_type?);
    f.clean().then_some(AcpValueRule { rule_type, value })
}
