//! Targeting compiled for the decision: every rule of a campaign or a goal (its own rules
//! and the rules of the templates linked to it) turned into small sorted lists of interned
//! symbols, so a check is a few comparisons and no string is touched per request.
//!
//! A goal passes a dimension when each level that has rules in it passes: the campaign's
//! level (unless the goal's `ignoreParent…Rules` flag for that dimension is set) and the
//! goal's own. docs/delivery.md has the semantics of each dimension.

use super::symbols::{Interner, Sym};
use crate::model::enums::{Access, Browser, Day, OperatingSystem, RuleType, VariableType};
use crate::model::rules::{time_allows, Rules, TimeRule};

/// The request in the snapshot's terms.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub now: i64,
    /// Local day and minute of the day (account time zone) for time rules.
    pub day: Day,
    pub minute: u32,
    pub categories: Vec<Sym>,
    pub partner: Vec<Sym>,
    pub tags: Vec<Sym>,
    pub locations: Vec<Sym>,
    pub segments: Vec<Sym>,
    pub acp: Vec<(Sym, Sym)>,
    pub device_container: Option<Sym>,
    pub ip: Option<u32>,
    pub browser: Browser,
    pub os: OperatingSystem,
    pub has_viewer: bool,
}

/// ALL_OF / AT_LEAST_ONE_OF / NONE_OF over a set of values the request has.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SetRule {
    pub all: Vec<Sym>,
    pub any: Vec<Sym>,
    pub none: Vec<Sym>,
}

impl SetRule {
    fn push(&mut self, t: RuleType, s: Sym) {
        let v = match t {
            RuleType::AllOf => &mut self.all,
            RuleType::AtLeastOneOf => &mut self.any,
            RuleType::NoneOf => &mut self.none,
        };
        if !v.contains(&s) {
            v.push(s);
        }
    }

    fn is_empty(&self) -> bool {
        self.all.is_empty() && self.any.is_empty() && self.none.is_empty()
    }

    /// `have` is what the request carries (small: a category's lineage, a few tags).
    pub fn allows(&self, have: &[Sym]) -> bool {
        self.all.iter().all(|s| have.contains(s))
            && (self.any.is_empty() || self.any.iter().any(|s| have.contains(s)))
            && !self.none.iter().any(|s| have.contains(s))
    }
}

/// ALLOW / DENY lists: denied on any DENY match; with ALLOW entries, one must match.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AllowDeny<T> {
    pub allow: Vec<T>,
    pub deny: Vec<T>,
}

impl<T> Default for AllowDeny<T> {
    fn default() -> Self {
        AllowDeny { allow: Vec::new(), deny: Vec::new() }
    }
}

impl<T> AllowDeny<T> {
    fn push(&mut self, allowed: bool, v: T) {
        if allowed {
            self.allow.push(v)
        } else {
            self.deny.push(v)
        }
    }

    fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.deny.is_empty()
    }

    pub fn allows(&self, matches: impl Fn(&T) -> bool) -> bool {
        !self.deny.iter().any(&matches) && (self.allow.is_empty() || self.allow.iter().any(&matches))
    }
}

/// IpRuleBean matcher: the first three octets and a range of the last.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct IpMatch {
    pub prefix: u32,
    pub lo: u8,
    pub hi: u8,
}

impl IpMatch {
    /// `a.b.c.d`, `a.b.c.d-e` or `a.b.c.*` (validated when stored; anything else: none).
    pub fn parse(m: &str) -> Option<IpMatch> {
        let mut parts = m.split('.');
        let mut prefix = 0u32;
        for _ in 0..3 {
            prefix = (prefix << 8) | u32::from(parts.next()?.parse::<u8>().ok()?);
        }
        let last = parts.next()?;
        let (lo, hi) = match last.split_once('-') {
            _ if last == "*" => (0, u8::MAX),
            Some((a, b)) => (a.parse().ok()?, b.parse().ok()?),
            None => {
                let v = last.parse().ok()?;
                (v, v)
            }
        };
        Some(IpMatch { prefix, lo, hi })
    }

    pub fn matches(&self, ip: u32) -> bool {
        let last = (ip & 0xff) as u8;
        ip >> 8 == self.prefix && self.lo <= last && last <= self.hi
    }
}

/// Browser and OS bit masks of a UserAgentRuleBean (an empty list matches any).
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct AgentMatch {
    pub browsers: u8,
    pub systems: u8,
}

impl AgentMatch {
    pub fn matches(&self, browser: Browser, os: OperatingSystem) -> bool {
        (self.browsers == 0 || self.browsers & bit(browser as usize) != 0) && (self.systems == 0 || self.systems & bit(os as usize) != 0)
    }
}

fn bit(i: usize) -> u8 {
    1u8 << (i as u32).min(7)
}

/// The rules of one level (a campaign or a goal, with its linked templates), compiled.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Level {
    pub categories: SetRule,
    pub partners: SetRule,
    pub tags: SetRule,
    pub audience: SetRule,
    pub locations: AllowDeny<Sym>,
    pub times: Vec<TimeRule>,
    pub ips: AllowDeny<IpMatch>,
    pub agents: AllowDeny<AgentMatch>,
    /// Custom parameter name → its value rule, and whether it ignores the parent's.
    pub acp: Vec<(Sym, SetRule, bool)>,
}

impl Level {
    /// Compiles a level's own rules and its linked templates' rules (all apply together).
    pub fn compile(sources: &[&Rules], syms: &mut Interner) -> Level {
        let mut l = Level::default();
        for r in sources {
            for c in &r.content {
                l.categories.push(c.rule_type, syms.intern(&c.resource_id));
            }
            for t in &r.tags {
                let s = syms.intern(&t.resource_id);
                match t.variable_type {
                    VariableType::ContentPartner => l.partners.push(t.rule_type, s),
                    VariableType::Tag | VariableType::Site => l.tags.push(t.rule_type, s),
                }
            }
            for a in &r.audience_rules {
                l.audience.push(a.rule_type, syms.intern(&a.segment_id));
            }
            for loc in &r.locations {
                l.locations.push(loc.allowed, syms.intern(&loc.id));
            }
            l.times.extend(r.time_restrictions.iter().cloned());
            for ip in &r.ip_rules {
                if let Some(m) = IpMatch::parse(&ip.ip_matcher) {
                    l.ips.push(ip.access == Access::Allow, m);
                }
            }
            for ua in &r.user_agent_rules {
                let browsers = ua.browsers.iter().fold(0u8, |m, b| m | bit(*b as usize));
                let systems = ua.operating_systems.iter().fold(0u8, |m, o| m | bit(*o as usize));
                l.agents.push(ua.access == Access::Allow, AgentMatch { browsers, systems });
            }
            for p in &r.account_custom_parameters {
                let name = syms.intern(p.parameter_name.strip_prefix("acp.").unwrap_or(&p.parameter_name));
                let idx = match l.acp.iter().position(|(n, _, _)| *n == name) {
                    Some(i) => i,
                    None => {
                        l.acp.push((name, SetRule::default(), false));
                        l.acp.len() - 1
                    }
                };
                l.acp[idx].2 |= p.ignore_parent;
                for v in &p.rules {
                    let s = syms.intern(&v.value);
                    l.acp[idx].1.push(v.rule_type, s);
                }
            }
        }
        l
    }

    /// No rule at all: allows every request.
    pub fn is_empty(&self) -> bool {
        self.categories.is_empty()
            && self.partners.is_empty()
            && self.tags.is_empty()
            && self.audience.is_empty()
            && self.locations.is_empty()
            && self.times.is_empty()
            && self.ips.is_empty()
            && self.agents.is_empty()
            && self.acp.is_empty()
    }

    fn acp_allows(&self, ctx: &Ctx, skip: &[Sym]) -> bool {
        self.acp.iter().filter(|(n, _, _)| !skip.contains(n)).all(|(name, rule, _)| {
            let have: &[Sym] = match ctx.acp.iter().find(|(n, _)| n == name) {
                Some((_, v)) => std::slice::from_ref(v),
                None => &[],
            };
            rule.allows(have)
        })
    }
}

/// Which dimensions of the campaign's rules a goal ignores (its `ignoreParent…` flags).
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Ignore {
    pub content: bool,
    pub tags: bool,
    pub locations: bool,
    pub times: bool,
}

impl Ignore {
    pub fn of(goal_rules: &Rules) -> Ignore {
        Ignore {
            content: goal_rules.ignore_parent_content_rules,
            tags: goal_rules.ignore_parent_tag_rules,
            locations: goal_rules.ignore_parent_location_rules,
            times: goal_rules.ignore_parent_time_rules,
        }
    }
}

/// A goal's whole targeting: the campaign's level (shared by its goals) and its own.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Targeting {
    pub campaign: u32,
    /// The goal's own level; `None` when it has no rule (most goals: a level takes 480
    /// bytes inline, and a goal entry is copied and kept per goal).
    pub goal: Option<Box<Level>>,
    pub ignore: Ignore,
    /// Custom parameters the goal's own rules take over (`ignoreParent` on the parameter).
    pub acp_own: Vec<Sym>,
}

impl Targeting {
    pub fn new(campaign: u32, goal: Level, ignore: Ignore) -> Targeting {
        let acp_own = goal.acp.iter().filter(|(_, _, own)| *own).map(|(n, _, _)| *n).collect();
        let goal = (!goal.is_empty()).then(|| Box::new(goal));
        Targeting { campaign, goal, ignore, acp_own }
    }

    pub fn needs_audience(&self, campaign: &Level) -> bool {
        self.goal.as_ref().is_some_and(|g| !g.audience.is_empty()) || !campaign.audience.is_empty()
    }

    /// Whether the request fits every level's rules.
    pub fn allows(&self, campaign: &Level, ctx: &Ctx) -> bool {
        self.refusal(campaign, ctx).is_none()
    }

    /// The first rule that refuses the request (the goal's own level first, then the
    /// campaign's), or `None` when every level allows it. One place for both the decision
    /// and the inspector.
    pub fn refusal(&self, campaign: &Level, ctx: &Ctx) -> Option<Refusal> {
        let at = |level| move |dimension| Refusal { level, dimension };
        if let Some(d) = self.goal.as_deref().and_then(|g| level_refusal(g, ctx, &[])) {
            return Some(at(RuleLevel::Goal)(d));
        }
        let c = campaign;
        let d = if !self.ignore.content && !c.categories.allows(&ctx.categories) {
            Some(Dimension::Content)
        } else if !self.ignore.tags && !c.partners.allows(&ctx.partner) {
            Some(Dimension::ContentPartner)
        } else if !self.ignore.tags && !c.tags.allows(&ctx.tags) {
            Some(Dimension::Tag)
        } else if !self.ignore.locations && !c.locations.allows(|s| ctx.locations.contains(s)) {
            Some(Dimension::Location)
        } else if !self.ignore.times && !c.times.is_empty() && !time_allows(&c.times, ctx.day, ctx.minute) {
            Some(Dimension::Time)
        } else if let Some(d) = common_refusal(c, ctx) {
            Some(d)
        } else if !c.acp_allows(ctx, &self.acp_own) {
            Some(Dimension::CustomParameter)
        } else {
            None
        };
        d.map(at(RuleLevel::Campaign))
    }
}

/// The level whose rule refused a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleLevel {
    Campaign,
    Goal,
}

impl RuleLevel {
    pub fn as_str(self) -> &'static str {
        match self {
            RuleLevel::Campaign => "campaign",
            RuleLevel::Goal => "goal",
        }
    }
}

/// A targeting dimension, named as the rules bean names its list (docs/delivery.md).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    Content,
    ContentPartner,
    Tag,
    Location,
    Time,
    Ip,
    UserAgent,
    Audience,
    CustomParameter,
}

impl Dimension {
    pub fn as_str(self) -> &'static str {
        match self {
            Dimension::Content => "content",
            Dimension::ContentPartner => "tags.contentPartner",
            Dimension::Tag => "tags",
            Dimension::Location => "locations",
            Dimension::Time => "timeRestrictions",
            Dimension::Ip => "ipRules",
            Dimension::UserAgent => "userAgentRules",
            Dimension::Audience => "audienceRules",
            Dimension::CustomParameter => "accountCustomParameters",
        }
    }
}

/// Which rule refused a request: its level and its dimension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Refusal {
    pub level: RuleLevel,
    pub dimension: Dimension,
}

/// The dimensions without an `ignoreParent` flag (IP, browser/OS, audience: template-only).
fn common_refusal(l: &Level, ctx: &Ctx) -> Option<Dimension> {
    let ip_ok =
        l.ips.is_empty() || ctx.ip.is_some_and(|ip| l.ips.allows(|m| m.matches(ip))) || (l.ips.allow.is_empty() && ctx.ip.is_none());
    if !ip_ok {
        Some(Dimension::Ip)
    } else if !l.agents.allows(|m| m.matches(ctx.browser, ctx.os)) {
        Some(Dimension::UserAgent)
    } else if !l.audience.allows(&ctx.segments) {
        Some(Dimension::Audience)
    } else {
        None
    }
}

fn level_refusal(l: &Level, ctx: &Ctx, skip_acp: &[Sym]) -> Option<Dimension> {
    if !l.categories.allows(&ctx.categories) {
        Some(Dimension::Content)
    } else if !l.partners.allows(&ctx.partner) {
        Some(Dimension::ContentPartner)
    } else if !l.tags.allows(&ctx.tags) {
        Some(Dimension::Tag)
    } else if !l.locations.allows(|s| ctx.locations.contains(s)) {
        Some(Dimension::Location)
    } else if !l.times.is_empty() && !time_allows(&l.times, ctx.day, ctx.minute) {
        Some(Dimension::Time)
    } else if let Some(d) = common_refusal(l, ctx) {
        Some(d)
    } else if !l.acp_allows(ctx, skip_acp) {
        Some(Dimension::CustomParameter)
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_rules_combine_as_the_seeds_say() {
        let r = SetRule { all: vec![1, 2], any: vec![], none: vec![9] };
        assert!(r.allows(&[1, 2, 3]));
        assert!(!r.allows(&[1, 3]));
        assert!(!r.allows(&[1, 2, 9]));
        let any = SetRule { all: vec![], any: vec![4, 5], none: vec![] };
        assert!(any.allows(&[5]) && !any.allows(&[6]) && !any.allows(&[]));
        assert!(SetRule::default().allows(&[]));
    }

    #[test]
    fn ip_matchers_of_the_three_forms() {
        let ip = |s: &str| s.parse::<std::net::Ipv4Addr>().map(u32::from).unwrap();
        let exact = IpMatch::parse("10.1.2.3").unwrap();
        let range = IpMatch::parse("10.1.2.10-20").unwrap();
        let wild = IpMatch::parse("10.1.2.*").unwrap();
        assert!(exact.matches(ip("10.1.2.3")) && !exact.matches(ip("10.1.2.4")));
        assert!(range.matches(ip("10.1.2.10")) && range.matches(ip("10.1.2.20")) && !range.matches(ip("10.1.2.21")));
        assert!(wild.matches(ip("10.1.2.255")) && !wild.matches(ip("10.1.3.1")));
        assert_eq!(IpMatch::parse("10.1.2"), None);
    }
}
