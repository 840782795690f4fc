//! Targeting rules in words, as the console shows them ("Category is Sports or News, and
//! at most 3 impressions a day"): one sentence per kind of rule, pure over the rules and
//! the names of what they refer to.

use super::{Access, Day, RuleType, Rules, TimeUnit, VariableType};

/// What a rule names, in words: `name(id)` is the record's name (its id when unknown).
pub fn describe(r: &Rules, name: &dyn Fn(&str) -> String) -> Vec<String> {
    let mut out = Vec::new();
    for kind in [VariableType::Site, VariableType::ContentPartner, VariableType::Tag] {
        let rules: Vec<_> = r.content.iter().chain(&r.tags).filter(|c| c.variable_type == kind).collect();
        for rt in [RuleType::AtLeastOneOf, RuleType::AllOf, RuleType::NoneOf] {
            let ids: Vec<String> = rules.iter().filter(|c| c.rule_type == rt).map(|c| name(&c.resource_id)).collect();
            if !ids.is_empty() {
                out.push(format!("{} {}", subject(kind), listed(rt, &ids)));
            }
        }
    }
    for f in &r.frequency_cappings {
        out.push(format!("at most {} impression{} {} per viewer", f.impressions, plural(f.impressions), per(f.time_unit)));
    }
    let places = |allowed: bool| -> Vec<String> {
        r.locations
            .iter()
            .filter(|l| l.allowed == allowed)
            .map(|l| format!("{} {}", l.location_type.as_str().to_lowercase(), l.id))
            .collect()
    };
    let (inside, outside) = (places(true), places(false));
    if !inside.is_empty() {
        out.push(format!("location is {}", inside.join(" or ")));
    }
    if !outside.is_empty() {
        out.push(format!("location is not {}", outside.join(" or ")));
    }
    for t in &r.time_restrictions {
        let days: Vec<&str> = t.days.iter().map(|d| day(*d)).collect();
        out.push(format!(
            "{} on {} from {:02}:{:02} to {:02}:{:02}",
            if t.active { "only" } else { "not" },
            days.join(", "),
            t.from_hour,
            t.from_minute,
            t.to_hour,
            t.to_minute
        ));
    }
    for ip in &r.ip_rules {
        out.push(format!("{} addresses {}", access(ip.access), ip.ip_matcher));
    }
    for ua in &r.user_agent_rules {
        let what: Vec<String> = ua
            .browsers
            .iter()
            .map(|b| b.as_str().to_lowercase())
            .chain(ua.operating_systems.iter().map(|o| o.as_str().to_lowercase()))
            .collect();
        out.push(format!("{} {}", access(ua.access), what.join(", ")));
    }
    for a in &r.audience_rules {
        out.push(format!("audience {}", listed(a.rule_type, std::slice::from_ref(&a.segment_id))));
    }
    for p in &r.account_custom_parameters {
        for v in &p.rules {
            out.push(format!("{} {}", p.parameter_name, listed(v.rule_type, std::slice::from_ref(&v.value))));
        }
    }
    if let Some(first) = out.first_mut() {
        if let Some(c) = first.get(..1) {
            *first = format!("{}{}", c.to_uppercase(), &first[1..]);
        }
    }
    out
}

/// The rules as one sentence ("No targeting rules" when there are none).
pub fn sentence(r: &Rules, name: &dyn Fn(&str) -> String) -> String {
    let parts = describe(r, name);
    match parts.len() {
        0 => "No targeting rules: every request may match.".to_string(),
        _ => format!("{}.", parts.join(", and ")),
    }
}

fn subject(kind: VariableType) -> &'static str {
    match kind {
        VariableType::Site => "category",
        VariableType::ContentPartner => "content partner",
        VariableType::Tag => "tag",
    }
}

fn listed(rt: RuleType, names: &[String]) -> String {
    match rt {
        RuleType::AtLeastOneOf => format!("is {}", names.join(" or ")),
        RuleType::AllOf => format!("is all of {}", names.join(" and ")),
        RuleType::NoneOf => format!("is not {}", names.join(" or ")),
    }
}

fn plural(n: u32) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

fn per(u: TimeUnit) -> &'static str {
    match u {
        TimeUnit::FiveMinutes => "per 5 minutes",
        TimeUnit::TenMinutes => "per 10 minutes",
        TimeUnit::QuarterHour => "per 15 minutes",
        TimeUnit::HalfHour => "per 30 minutes",
        TimeUnit::Hour => "an hour",
        TimeUnit::Day => "a day",
        TimeUnit::Week => "a week",
        TimeUnit::Month => "a month",
        TimeUnit::CampaignLifetime => "over the campaign",
        TimeUnit::GoalLifetime => "over the goal",
    }
}

fn day(d: Day) -> &'static str {
    match d {
        Day::Monday => "Mon",
        Day::Tuesday => "Tue",
        Day::Wednesday => "Wed",
        Day::Thursday => "Thu",
        Day::Friday => "Fri",
        Day::Saturday => "Sat",
        Day::Sunday => "Sun",
    }
}

fn access(a: Access) -> &'static str {
    match a {
        Access::Allow => "only",
        Access::Deny => "not",
    }
}

#[cfg(test)]
mod tests {
    use super::super::{FrequencyCap, ResourceRule};
    use super::*;

    fn category(id: &str, rt: RuleType) -> ResourceRule {
        ResourceRule { resource_id: id.into(), rule_type: rt, variable_type: VariableType::Site }
    }

    #[test]
    fn rules_read_as_a_sentence_with_the_names_of_what_they_name() {
        let mut r = Rules::empty("g");
        r.content = vec![category("c1", RuleType::AtLeastOneOf), category("c2", RuleType::AtLeastOneOf), category("c3", RuleType::NoneOf)];
        r.frequency_cappings = vec![FrequencyCap { impressions: 3, time_unit: TimeUnit::Day }];
        let names = |id: &str| match id {
            "c1" => "Sports".to_string(),
            "c2" => "News".to_string(),
            other => other.to_string(),
        };
        assert_eq!(sentence(&r, &names), "Category is Sports or News, and category is not c3, and at most 3 impressions a day per viewer.");
        assert_eq!(sentence(&Rules::empty("g"), &names), "No targeting rules: every request may match.");
    }
}
