//! The decision: which ads fill one break. Pure: the snapshot, the request, the viewer's
//! state and the goals' pace records in, the picks out; the same inputs and seed give the
//! same picks (the forecaster replays it). docs/delivery.md has the algorithm.

use super::pacing::{cap_reached, local_day_hour, pacing_holds, Pace};
use super::request::{AdRequest, ViewerState};
use super::snapshot::{AdFormat, GoalEntry, Media, Snapshot};
use super::targeting::Ctx;
use super::verdict::{AdExcluded, GoalExcluded};
use crate::model::enums::{OffsetUnit, ShowWhen};
use crate::model::policy::Policy;

/// A small deterministic generator (SplitMix64).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// When the skip button shows (from the insertion policy).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Skip {
    pub value: i64,
    pub percent: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pick {
    pub ad: u32,
    pub goal: u32,
    pub skip: Option<Skip>,
}

/// Why a break is empty (logged; the forecaster counts them).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Empty {
    BreakDisabled,
    TooSoon,
    NothingEligible,
    UnknownAd,
}

impl Empty {
    pub fn code(self) -> &'static str {
        match self {
            Empty::BreakDisabled => "BREAK_DISABLED",
            Empty::TooSoon => "TOO_SOON",
            Empty::NothingEligible => "NOTHING_ELIGIBLE",
            Empty::UnknownAd => "UNKNOWN_AD",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Empty::BreakDisabled => "the insertion policy that applies turns this break off",
            Empty::TooSoon => "the insertion policy's minimum time between ads has not passed for this viewer",
            Empty::NothingEligible => "no goal could fill the break (each goal's reason is listed)",
            Empty::UnknownAd => "the requested ad (ad=) is not serving: see notServing, or it is not in this account",
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    pub picks: Vec<Pick>,
    /// The insertion policy that applied (index into `Snapshot::policies`).
    pub policy: Option<u32>,
    pub empty: Option<Empty>,
}

/// The break settings of the request's position under the policy that applies.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct BreakSettings {
    pub enabled: bool,
    pub ads: usize,
    pub time_limit: Option<i64>,
    pub standard_spots: bool,
    pub min_between: i64,
}

impl BreakSettings {
    /// Without a policy: one ad, no time limit, no minimum time between ads.
    pub fn of(p: Option<&Policy>, format: AdFormat, break_number: u32) -> BreakSettings {
        let Some(p) = p else {
            return BreakSettings { enabled: true, ads: 1, time_limit: None, standard_spots: true, min_between: 0 };
        };
        let b = &p.ad_break_settings;
        let limit = |t: &crate::model::policy::TimeLimit| t.enabled.then_some(t.seconds);
        let (enabled, ads, time_limit) = match format {
            AdFormat::Preroll => (b.preroll.enabled, b.preroll.ads_per_break, limit(&b.preroll.time_limit)),
            AdFormat::Postroll => (b.postroll.enabled, b.postroll.ads_per_break, limit(&b.postroll.time_limit)),
            AdFormat::Midroll => {
                let m = &b.midroll;
                let rule = m
                    .advanced_rules
                    .enabled
                    .then(|| m.advanced_rules.rules.iter().find(|r| r.midroll_break_number == i64::from(break_number)))
                    .flatten();
                match rule {
                    Some(r) => (m.enabled, r.ads_per_break, limit(&r.time_limit)),
                    None => (m.enabled, m.ads_per_break, limit(&m.time_limit)),
                }
            }
            AdFormat::Pause => (p.pause_ad_settings.enabled, 1, None),
            // A placeholder has no break: nothing is ever asked for it.
            AdFormat::Placeholder => (false, 0, None),
        };
        BreakSettings {
            enabled,
            ads: ads.clamp(0, 50) as usize,
            time_limit,
            standard_spots: b.standard_spots_enabled,
            min_between: p.global_settings.minimum_time_between_ads,
        }
    }
}

fn skip_of(p: Option<&Policy>, g: &GoalEntry, v: &ViewerState, now: i64) -> Option<Skip> {
    let sb = &p?.global_settings.skip_button;
    let show = match sb.show_when() {
        ShowWhen::Always => true,
        ShowWhen::AfterFirstUnique => v.freq.seen_within(&super::freq::Scope::Goal(&g.id).key(), sb.reset_after, now),
        ShowWhen::Never => false,
    };
    show.then_some(Skip { value: sb.skip_offset.value, percent: sb.skip_offset.unit() == OffsetUnit::Percent })
}

/// The first policy in rank order whose tags or categories the request has (a policy with
/// neither list applies to every request).
fn policy_for(s: &Snapshot, ctx: &Ctx) -> Option<u32> {
    s.policies
        .iter()
        .position(|p| {
            (p.tags.is_empty() && p.categories.is_empty())
                || p.tags.iter().any(|t| ctx.tags.contains(t))
                || p.categories.iter().any(|c| ctx.categories.contains(c))
        })
        .map(|i| i as u32)
}

/// What one decision reads, prepared once per break (the decision and the inspector).
pub(super) struct Env<'a> {
    pub(super) s: &'a Snapshot,
    pub(super) r: &'a AdRequest,
    pub(super) freq: &'a super::freq::FreqState,
    pub(super) ctx: Ctx,
    pub(super) pace: &'a [Pace],
    pub(super) day: i64,
    pub(super) hour: i64,
    pub(super) settings: BreakSettings,
    /// The insertion policy that applies (index into `Snapshot::policies`).
    pub(super) policy: Option<u32>,
}

impl<'a> Env<'a> {
    pub(super) fn new(s: &'a Snapshot, r: &'a AdRequest, v: &'a ViewerState, pace: &'a [Pace]) -> Env<'a> {
        let ctx = s.ctx(r, v);
        let (day, hour) = local_day_hour(ctx.now, s.zone.offset_at(ctx.now));
        let policy = policy_for(s, &ctx);
        let settings = BreakSettings::of(policy.map(|i| &s.policies[i as usize].policy), r.format, r.break_number);
        Env { s, r, freq: &v.freq, ctx, pace, day, hour, settings, policy }
    }

    /// Why the whole break is empty before any goal is looked at, if it is.
    pub(super) fn break_closed(&self) -> Option<Empty> {
        if !self.settings.enabled {
            return Some(Empty::BreakDisabled);
        }
        if self.settings.min_between > 0 && self.freq.last.is_some_and(|t| self.ctx.now - t < self.settings.min_between) {
            return Some(Empty::TooSoon);
        }
        None
    }

    /// Everything about a goal but its ads, in this order: flight, mid-roll break, caps,
    /// pacing (when `paced`), frequency caps, targeting. The first that refuses is the reason.
    pub(super) fn goal_check(&self, gi: u32, paced: bool) -> Result<(), GoalExcluded> {
        let g = &self.s.goals[gi as usize];
        let now = self.ctx.now;
        if now < g.start {
            return Err(GoalExcluded::NotStarted);
        }
        if g.end.is_some_and(|e| now >= e) {
            return Err(GoalExcluded::Ended);
        }
        if self.r.format == AdFormat::Midroll && !g.midroll_breaks.is_empty() && !g.midroll_breaks.contains(&self.r.break_number) {
            return Err(GoalExcluded::MidrollBreak);
        }
        let default = Pace::default();
        let p = self.pace.get(gi as usize).unwrap_or(&default);
        if let Some(c) = cap_reached(g, p, self.day, self.hour) {
            return Err(GoalExcluded::Cap(c));
        }
        if paced {
            if let Some(h) = pacing_holds(g, p, now) {
                return Err(GoalExcluded::Paced(h));
            }
        }
        if !g.freq.is_empty() {
            if !self.ctx.has_viewer {
                return Err(GoalExcluded::NoViewer);
            }
            if !self.freq.allows(&g.freq, now) {
                return Err(GoalExcluded::FrequencyCap);
            }
        }
        let campaign = &self.s.campaigns[g.targeting.campaign as usize];
        match g.targeting.refusal(campaign, &self.ctx) {
            Some(r) => Err(GoalExcluded::Targeting(r)),
            None => Ok(()),
        }
    }

    fn goal_ok(&self, gi: u32, paced: bool) -> bool {
        self.goal_check(gi, paced).is_ok()
    }

    /// Whether one ad fits the break: format, its own dates, device container, and the
    /// insertion policy's standard spots and time limit.
    pub(super) fn ad_check(&self, ai: u32) -> Result<(), AdExcluded> {
        let a = &self.s.ads[ai as usize];
        let now = self.ctx.now;
        if a.format != self.r.format {
            return Err(AdExcluded::Format);
        }
        if now < a.start {
            return Err(AdExcluded::NotStarted);
        }
        if a.end.is_some_and(|e| now >= e) {
            return Err(AdExcluded::Ended);
        }
        if let (Some(list), Some(dc)) = (&a.device_containers, self.ctx.device_container) {
            if !list.contains(&dc) {
                return Err(AdExcluded::DeviceContainer);
            }
        }
        let linear_file = matches!(a.media, Media::Video { .. }) && a.format != AdFormat::Pause;
        if linear_file && !self.settings.standard_spots {
            return Err(AdExcluded::StandardSpotsOff);
        }
        // Time-based breaks (§2.2): IPTV and third-party ads need a duration that fits.
        match (self.settings.time_limit, &a.media, a.duration) {
            (Some(_), Media::Iptv(_) | Media::ThirdParty { .. }, None) => Err(AdExcluded::NoDuration),
            (Some(limit), _, Some(d)) if i64::from(d) > limit => Err(AdExcluded::TooLong),
            _ => Ok(()),
        }
    }

    fn ad_ok(&self, ai: u32) -> bool {
        self.ad_check(ai).is_ok()
    }

    /// One of the goal's ads by weight (§2.3), among those that can play now.
    fn pick_ad(&self, gi: u32, rng: &mut Rng) -> Option<u32> {
        let list = &self.s.goals[gi as usize].ads[self.r.format.index()];
        let ok: Vec<(u32, f64)> = list.iter().filter(|(a, _)| self.ad_ok(*a)).copied().collect();
        let total: f64 = ok.iter().map(|(_, w)| w).sum();
        if ok.is_empty() {
            return None;
        }
        if total <= 0.0 {
            return Some(ok[rng.below(ok.len())].0);
        }
        let mut u = rng.unit() * total;
        for (a, w) in &ok {
            if u < *w {
                return Some(*a);
            }
            u -= w;
        }
        ok.last().map(|(a, _)| *a)
    }

    /// The goal's ad for this break (its skip setting is filled in by `decide`).
    fn pick(&self, gi: u32, rng: &mut Rng) -> Option<Pick> {
        Some(Pick { ad: self.pick_ad(gi, rng)?, goal: gi, skip: None })
    }
}

/// Whether goal `gi` could take this request (the forecaster's matched units): its flight,
/// caps, targeting and frequency caps — and pacing when `paced` — and, with `with_ads`, one
/// of its ads fits the break.
pub fn eligible(s: &Snapshot, r: &AdRequest, v: &ViewerState, pace: &[Pace], gi: u32, paced: bool, with_ads: bool) -> bool {
    let env = Env::new(s, r, v, pace);
    env.goal_ok(gi, paced) && (!with_ads || s.goals[gi as usize].ads[r.format.index()].iter().any(|(a, _)| env.ad_ok(*a)))
}

/// Chooses the ads of one break.
pub fn decide(s: &Snapshot, r: &AdRequest, v: &ViewerState, pace: &[Pace]) -> Decision {
    let env = Env::new(s, r, v, pace);
    let policy = env.policy;
    let settings = env.settings;
    let empty = |why| Decision { picks: Vec::new(), policy, empty: Some(why) };
    if let Some(why) = env.break_closed() {
        return empty(why);
    }
    let mut rng = Rng::new(r.seed);
    let skip_for = |gi: u32| skip_of(policy.map(|i| &s.policies[i as usize].policy), &s.goals[gi as usize], v, env.ctx.now);

    if let Some(id) = &r.forced_ad {
        let Some(&ai) = s.ad_index.get(id) else { return empty(Empty::UnknownAd) };
        let gi = s.ads[ai as usize].goal;
        return if env.goal_ok(gi, true) && env.ad_ok(ai) {
            Decision { picks: vec![Pick { ad: ai, goal: gi, skip: skip_for(gi) }], policy, empty: None }
        } else {
            empty(Empty::NothingEligible)
        };
    }

    let order = &s.order[r.format.index()];
    let mut picks: Vec<Pick> = Vec::new();
    let taken = |picks: &Vec<Pick>, gi: u32| picks.iter().any(|p| p.goal == gi);

    // Sponsor (bumper) goals: one sponsor ad opens the break, even when it holds no other ads.
    for &gi in order.iter().take_while(|g| s.goals[**g as usize].sponsor) {
        if env.goal_ok(gi, true) {
            if let Some(mut p) = env.pick(gi, &mut rng) {
                p.skip = skip_for(gi);
                picks.push(p);
                break;
            }
        }
    }
    let sponsors = order.iter().take_while(|g| s.goals[**g as usize].sponsor).count();
    let sov_end = sponsors + order[sponsors..].iter().take_while(|g| s.goals[**g as usize].sov > 0.0).count();
    let levels = &s.levels[r.format.index()];

    for _ in 0..settings.ads {
        let mut chosen = None;
        // Share of voice: one draw; each eligible SOV goal owns its share of [0, 1).
        let u = rng.unit();
        let mut cum = 0.0;
        for &gi in &order[sponsors..sov_end] {
            if taken(&picks, gi) || !env.goal_ok(gi, false) {
                continue;
            }
            cum += s.goals[gi as usize].sov;
            if u < cum {
                chosen = env.pick(gi, &mut rng);
                if chosen.is_some() {
                    break;
                }
            }
        }
        // Then priority levels, highest first; inside a level a random rotation.
        if chosen.is_none() {
            'levels: for &(from, to) in levels {
                let n = to - from;
                let start = rng.below(n);
                for k in 0..n {
                    let gi = order[from + (start + k) % n];
                    if !taken(&picks, gi) && env.goal_ok(gi, true) {
                        if let Some(p) = env.pick(gi, &mut rng) {
                            chosen = Some(p);
                            break 'levels;
                        }
                    }
                }
            }
        }
        match chosen {
            Some(mut p) => {
                p.skip = skip_for(p.goal);
                picks.push(p);
            }
            None => break,
        }
    }
    let none = picks.is_empty();
    Decision { picks, policy, empty: none.then_some(Empty::NothingEligible) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::snapshot::{compile, Input};
    use crate::delivery::synthetic::{self, ad, campaign, goal};
    use chrono::{Duration, Utc};

    fn input(goals: Vec<crate::model::goal::Goal>, ads: Vec<crate::model::ad::Ad>) -> Input {
        let now = Utc::now();
        Input {
            account: Some(synthetic::account("acc")),
            campaigns: vec![campaign("c", now)],
            goals,
            ads,
            media_base: "https://m".into(),
            ..Input::default()
        }
    }

    fn live(id: &str, kind: &str, value: f64) -> crate::model::goal::Goal {
        let now = Utc::now();
        goal(id, "c", kind, value, now - Duration::days(1), now + Duration::days(9))
    }

    fn ids(s: &Snapshot, d: &Decision) -> Vec<String> {
        d.picks.iter().map(|p| s.ads[p.ad as usize].id.clone()).collect()
    }

    fn run(s: &Snapshot, seed: u64, f: impl Fn(&mut AdRequest)) -> Decision {
        let mut r = AdRequest::new(AdFormat::Preroll, Utc::now(), seed);
        f(&mut r);
        decide(s, &r, &ViewerState::default(), &[])
    }

    #[test]
    fn priority_then_share_of_voice_and_the_same_seed_gives_the_same_picks() {
        let now = Utc::now();
        let (mut low, mut high) = (live("low", "IMPRESSION", 1e6), live("high", "IMPRESSION", 1e6));
        low.priority = Some(3);
        high.priority = Some(8);
        let sov = live("sov", "SHARE_OF_VOICE", 0.25);
        let s = compile(
            input(
                vec![low, high, sov],
                vec![
                    ad("a-low", "low", "preroll", None, now),
                    ad("a-high", "high", "preroll", None, now),
                    ad("a-sov", "sov", "preroll", None, now),
                ],
            ),
            now,
        );
        let mut count = HashMapCount::default();
        for seed in 0..4000 {
            let d = run(&s, seed, |_| {});
            assert_eq!(d, run(&s, seed, |_| {}), "deterministic");
            count.add(ids(&s, &d));
        }
        assert_eq!(count.get("a-low"), 0, "a lower priority never wins over an eligible higher one");
        let sov_share = count.get("a-sov") as f64 / 4000.0;
        assert!((sov_share - 0.25).abs() < 0.03, "{sov_share}");
    }

    #[derive(Default)]
    struct HashMapCount(std::collections::HashMap<String, usize>);
    impl HashMapCount {
        fn add(&mut self, ids: Vec<String>) {
            for i in ids {
                *self.0.entry(i).or_default() += 1;
            }
        }
        fn get(&self, id: &str) -> usize {
            self.0.get(id).copied().unwrap_or(0)
        }
    }

    fn policy(json: serde_json::Value) -> Policy {
        let mut base = serde_json::to_value(Policy::default()).unwrap();
        merge(&mut base, json);
        serde_json::from_value(base).unwrap()
    }

    fn merge(a: &mut serde_json::Value, b: serde_json::Value) {
        match (a, b) {
            (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
                for (k, v) in b {
                    merge(a.entry(k).or_insert(serde_json::Value::Null), v);
                }
            }
            (a, b) => *a = b,
        }
    }

    #[test]
    fn insertion_policy_break_settings_skip_button_and_time_limits() {
        let now = Utc::now();
        let goals = vec![live("g1", "IMPRESSION", 1e6), live("g2", "IMPRESSION", 1e6), live("g3", "IMPRESSION", 1e6)];
        let mut long = ad("long", "g3", "preroll", None, now);
        long.creative.estimated_ad_duration = Some(60);
        let mut short = ad("short", "g2", "preroll", None, now);
        short.creative.estimated_ad_duration = Some(15);
        let ads = vec![ad("no-duration", "g1", "preroll", None, now), short, long];
        let mut inp = input(goals, ads);
        inp.policies = vec![policy(serde_json::json!({"id": "p", "name": "p",
            "globalSettings": {"skipButton": {"showWhen": "ALWAYS", "skipOffset": {"value": 5, "unit": "SECONDS"}}, "minimumTimeBetweenAds": 0},
            "adBreakSettings": {"preroll": {"enabled": true, "adsPerBreak": 3, "timeLimit": {"enabled": true, "seconds": 20}}}}))];
        let s = compile(inp, now);
        let d = run(&s, 1, |_| {});
        // Only the IPTV ad whose duration fits the 20 s break; the skip button after 5 s.
        assert_eq!(ids(&s, &d), vec!["short"]);
        assert_eq!(d.picks[0].skip, Some(Skip { value: 5, percent: false }));
        assert_eq!(d.policy, Some(0));
        // Mid-roll is disabled by the policy (default), so the break is empty.
        assert_eq!(run(&s, 1, |r| r.format = AdFormat::Midroll).empty, Some(Empty::BreakDisabled));
    }

    #[test]
    fn ads_per_break_takes_distinct_goals_and_sponsors_open_the_break() {
        let now = Utc::now();
        let mut bumper = live("bumper", "IMPRESSION", 1e6);
        bumper.variant = crate::model::enums::GoalVariant::Bumper;
        let goals = vec![live("g1", "IMPRESSION", 1e6), live("g2", "IMPRESSION", 1e6), bumper];
        let ads = vec![
            ad("a1", "g1", "midroll", None, now),
            ad("a1b", "g1", "midroll", None, now),
            ad("a2", "g2", "midroll", None, now),
            ad("sp", "bumper", "midroll", None, now),
        ];
        let mut inp = input(goals, ads);
        inp.policies = vec![policy(serde_json::json!({"id": "p", "name": "p", "globalSettings": {"minimumTimeBetweenAds": 0},
            "adBreakSettings": {"midroll": {"enabled": true, "adsPerBreak": 2}}}))];
        let s = compile(inp, now);
        let d = run(&s, 7, |r| r.format = AdFormat::Midroll);
        let got = ids(&s, &d);
        assert_eq!(got.len(), 3, "{got:?}");
        assert_eq!(got[0], "sp");
        let goals: Vec<u32> = d.picks.iter().map(|p| p.goal).collect();
        assert!(goals[1] != goals[2], "two ads of one goal in a break");
        // adsPerBreak 0: only the sponsor.
        let mut inp = input(
            vec![live("g1", "IMPRESSION", 1e6), {
                let mut b = live("b", "IMPRESSION", 1e6);
                b.variant = crate::model::enums::GoalVariant::Bumper;
                b
            }],
            vec![ad("a1", "g1", "midroll", None, now), ad("sp", "b", "midroll", None, now)],
        );
        inp.policies = vec![policy(
            serde_json::json!({"id": "p", "name": "p", "globalSettings": {"minimumTimeBetweenAds": 0}, "adBreakSettings": {"midroll": {"enabled": true, "adsPerBreak": 0}}}),
        )];
        let s = compile(inp, now);
        assert_eq!(ids(&s, &run(&s, 1, |r| r.format = AdFormat::Midroll)), vec!["sp"]);
    }

    #[test]
    fn the_forced_ad_is_served_only_when_eligible() {
        let now = Utc::now();
        let mut early = live("g2", "IMPRESSION", 1e6);
        early.start = now + Duration::days(1);
        let s = compile(
            input(
                vec![live("g1", "IMPRESSION", 1e6), early],
                vec![ad("a1", "g1", "preroll", None, now), ad("a2", "g2", "preroll", None, now)],
            ),
            now,
        );
        assert_eq!(ids(&s, &run(&s, 1, |r| r.forced_ad = Some("a1".into()))), vec!["a1"]);
        assert_eq!(run(&s, 1, |r| r.forced_ad = Some("a2".into())).empty, Some(Empty::NothingEligible));
        assert_eq!(run(&s, 1, |r| r.forced_ad = Some("nope".into())).empty, Some(Empty::UnknownAd));
    }

    #[test]
    fn caps_and_pacing_use_the_pace_records() {
        let now = Utc::now();
        let mut capped = live("g1", "IMPRESSION", 1e6);
        capped.caps = vec![crate::model::goal::Cap { kind: crate::model::enums::CapKind::HourlyCap, value: 10.0 }];
        let s = compile(input(vec![capped], vec![ad("a1", "g1", "preroll", None, now)]), now);
        let (day, hour) = crate::delivery::pacing::local_day_hour(now.timestamp(), 0);
        let mut p = Pace::default();
        p.add(day, hour, 10, 10);
        let r = AdRequest::new(AdFormat::Preroll, now, 1);
        assert!(decide(&s, &r, &ViewerState::default(), std::slice::from_ref(&p)).picks.is_empty());
        // The next hour the cap has room again; far ahead of the ideal curve, pacing holds it.
        let later = AdRequest::new(AdFormat::Preroll, now + Duration::hours(1), 1);
        assert_eq!(decide(&s, &later, &ViewerState::default(), std::slice::from_ref(&p)).picks.len(), 1);
        let mut ahead = Pace::default();
        ahead.add(day, hour - 5, 900_000, 900_000);
        assert!(decide(&s, &later, &ViewerState::default(), &[ahead]).picks.is_empty(), "ahead of its curve");
    }

    #[test]
    fn a_generated_account_serves_matching_formats_only() {
        let now = Utc::now();
        let s = compile(synthetic::generate(synthetic::Spec { goals: 200, ads: 1000, seed: 3 }, now), now);
        let mut served = 0;
        for r in synthetic::requests(2000, 9, now) {
            let d = decide(&s, &r, &ViewerState::default(), &[]);
            for p in &d.picks {
                assert_eq!(s.ads[p.ad as usize].format, r.format);
                assert_eq!(s.ads[p.ad as usize].goal, p.goal);
            }
            served += d.picks.len();
        }
        assert!(served > 1000, "{served} of 2000 requests filled");
    }
}
