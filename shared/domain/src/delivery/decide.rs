//! The decision: which ads fill one break. Pure: the snapshot, the request, the viewer's
//! state and the goals' pace records in, the picks out; the same inputs and seed give the
//! same picks (the forecaster replays it). docs/delivery.md has the algorithm.

use super::pacing::{cap_reached, local_day_hour, pacing_holds, Pace};
use super::programmatic::Fill;
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
    /// The ad (an index into `Snapshot::ads`), or `Pick::AUCTION`: the goal's auction
    /// fills the slot (docs/programmatic.md).
    pub ad: u32,
    pub goal: u32,
    pub skip: Option<Skip>,
}

impl Pick {
    /// The `ad` of a programmatic goal's pick: no ad of its own, an auction decides.
    pub const AUCTION: u32 = u32::MAX;

    pub fn is_auction(&self) -> bool {
        self.ad == Pick::AUCTION
    }
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
        if let Some(r) = g.targeting.refusal(campaign, &self.ctx) {
            return Err(GoalExcluded::Targeting(r));
        }
        if self.r.no_bid.contains(&gi) {
            return Err(GoalExcluded::NoBid);
        }
        Ok(())
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

    /// The goal's ad for this break (its skip setting is filled in by `decide`); a
    /// programmatic goal's auction, in a linear break (its ads are not used).
    fn pick(&self, gi: u32, rng: &mut Rng) -> Option<Pick> {
        let ad = match self.s.goals[gi as usize].fill {
            Fill::Auction { .. } if self.r.format.insertion_point().is_some() => Pick::AUCTION,
            Fill::Auction { .. } | Fill::Nothing => return None,
            Fill::Ads => self.pick_ad(gi, rng)?,
        };
        Some(Pick { ad, goal: gi, skip: None })
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
#[path = "decide_tests.rs"]
mod tests;
