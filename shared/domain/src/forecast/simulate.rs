//! The simulation (docs/forecasts.md): every hour of the window replays its slot's traffic
//! samples through the delivery engine, each sample standing for its weight in requests.
//! Pure and deterministic: draws are seeded from the job's seed, the hour and the sample.

use std::collections::{BTreeMap, HashMap};

use chrono::{DateTime, Duration, Utc};

use super::traffic::{hours, Traffic};
use crate::delivery::decide::{decide, eligible};
use crate::delivery::pacing::{local_day_hour, pacing_plan, Pace};
use crate::delivery::request::{AdRequest, ViewerState};
use crate::delivery::snapshot::{AdFormat, GoalEntry, Snapshot};
use crate::model::enums::GoalType;

/// Samples replayed per hour at most (docs/forecasts.md): bounds a forecast's work at
/// 100 days × 24 × this many decisions, whatever the traffic.
pub const MAX_REPLAY_PER_HOUR: usize = 200;
/// The same for a pacing projection, which answers an HTTP request (docs/reports.md).
pub const PACING_REPLAY_PER_HOUR: usize = 50;

/// Share of impressions that become each goal type's delivered event (forecast assumption).
pub fn event_rate(kind: GoalType) -> f64 {
    match kind {
        GoalType::FirstQuartile => 0.9,
        GoalType::SecondQuartile => 0.8,
        GoalType::ThirdQuartile => 0.7,
        GoalType::Complete => 0.6,
        GoalType::ClickThrough => 0.01,
        GoalType::ShareOfVoice | GoalType::Impression | GoalType::UnlimitedImpression | GoalType::Rtb => 1.0,
    }
}

fn mix(a: u64, b: u64) -> u64 {
    let mut z = a ^ b.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 27)
}

/// A day series with what the band needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    pub value: Vec<f64>,
    /// Samples counted into `value` per day.
    pub samples: Vec<u32>,
}

impl Series {
    fn new(days: usize) -> Series {
        Series { value: vec![0.0; days], samples: vec![0; days] }
    }

    fn add(&mut self, day: usize, w: f64) {
        if let (Some(v), Some(n)) = (self.value.get_mut(day), self.samples.get_mut(day)) {
            *v += w;
            *n += 1;
        }
    }

    pub fn total(&self) -> f64 {
        self.value.iter().sum()
    }

    /// Low and high of a day: ±1.96 binomial standard errors of the sample share.
    pub fn band(&self, day: usize, day_samples: u32) -> (f64, f64) {
        let (v, n) = (self.value[day], f64::from(self.samples[day]));
        let total = f64::from(day_samples.max(1));
        if n == 0.0 {
            return (0.0, 0.0);
        }
        let w = v / n;
        let sd = w * (n * (1.0 - (n / total).min(1.0))).sqrt();
        ((v - 1.96 * sd).max(0.0), v + 1.96 * sd)
    }
}

/// The simulation's common inputs.
pub struct Window<'a> {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    pub traffic: &'a Traffic,
    pub seed: u64,
    /// Samples replayed per hour at most (`MAX_REPLAY_PER_HOUR` for forecasts).
    pub per_hour: usize,
    /// The traffic's level: each sample stands for this many times its weight (1: the
    /// model; the pacing band replays it lower and higher without copying the samples).
    pub scale: f64,
    /// Programmatic goals' fill rates by marketplace (never a bidder: docs/programmatic.md,
    /// "Forecasts").
    pub fills: &'a FillRates,
}

/// Programmatic goals' recorded fill rates (wins per auction) by marketplace id; a
/// marketplace without one fills every break (unlimited, as before programmatic demand).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FillRates(pub BTreeMap<String, f64>);

/// No recorded fill rate: programmatic goals fill every break they are picked for.
pub static UNLIMITED: FillRates = FillRates(BTreeMap::new());

impl FillRates {
    /// The fill rate of goal `gi`'s marketplace (1: unlimited, or not programmatic).
    fn of(&self, s: &Snapshot, gi: u32) -> f64 {
        match s.goals.get(gi as usize).map(|g| g.fill) {
            Some(crate::delivery::programmatic::Fill::Auction { market, .. }) => {
                s.demand.markets.get(market as usize).and_then(|m| self.0.get(&m.id)).copied().unwrap_or(1.0)
            }
            _ => 1.0,
        }
    }
}

/// The decision, with each programmatic pick filled at its marketplace's fill rate (a
/// deterministic draw of the sample's seed): a pick the draw leaves unfilled is decided
/// again without its goal, as serving does when no valid bid comes.
fn decide_filled(s: &Snapshot, r: &AdRequest, v: &ViewerState, pace: &[Pace], fills: &FillRates) -> crate::delivery::Decision {
    let mut d = decide(s, r, v, pace);
    if fills.0.is_empty() || !d.picks.iter().any(|p| p.is_auction()) {
        return d;
    }
    let mut again = r.clone();
    for _ in 0..crate::delivery::programmatic::MAX_ROUNDS {
        let unfilled: Vec<u32> = d
            .picks
            .iter()
            .filter(|p| p.is_auction())
            .filter(|p| crate::delivery::decide::Rng::new(r.seed ^ (u64::from(p.goal) << 32)).unit() >= fills.of(s, p.goal))
            .map(|p| p.goal)
            .collect();
        if unfilled.is_empty() {
            break;
        }
        again.no_bid.extend(unfilled);
        d = decide(s, &again, v, pace);
    }
    d.picks.retain(|p| !p.is_auction() || !again.no_bid.contains(&p.goal));
    d
}

impl Window<'_> {
    pub fn days(&self, s: &Snapshot) -> usize {
        hours(self.start, self.end, &s.zone).last().map_or(0, |h| h.1 + 1)
    }
}

/// Credits a pick of weight `w` to its goal's pace; returns the delivered events credited.
/// A sample stands for many requests, but a paced goal takes only what its plan leaves it
/// (as serving, request by request, would): the credit stops at the plan an hour ahead.
fn credit(s: &Snapshot, pace: &mut [Pace], gi: u32, w: f64, at: i64) -> f64 {
    let g: &GoalEntry = &s.goals[gi as usize];
    let (day, hour) = local_day_hour(at, s.zone.offset_at(at));
    let rate = event_rate(g.kind);
    let Some(p) = pace.get_mut(gi as usize) else { return 0.0 };
    let w = match pacing_plan(&g.flight(), at) {
        Some(plan) => w.min((plan - p.delivered as f64).max(1.0) / rate),
        None => w,
    };
    let imps = (w.round() as u64).max(1);
    p.add(day, hour, imps, (w * rate).round() as u64);
    // The series take the exact share (a sample's rounding would add up over thousands).
    w * rate
}

/// Walks every sample of the window: `f(day, at, weight, request)`; `progress(done share)`
/// is called every 5 % and stops the walk when it answers false. Returns the samples per day.
fn walk(
    s: &Snapshot,
    w: &Window<'_>,
    progress: &mut dyn FnMut(f64) -> bool,
    f: &mut dyn FnMut(usize, i64, f64, &crate::delivery::request::AdRequest),
) -> Option<Vec<u32>> {
    let hs = hours(w.start, w.end, &s.zone);
    let mut per_day = vec![0u32; hs.last().map_or(0, |h| h.1 + 1)];
    let step = (hs.len() / 20).max(1);
    for (i, (at, day, (wd, h))) in hs.iter().enumerate() {
        if i % step == 0 && !progress(i as f64 / hs.len() as f64) {
            return None;
        }
        let (samples, weight) = w.traffic.slot(*wd, *h);
        let weight = weight * w.scale;
        // At most `per_hour` samples an hour, evenly spread over the slot's samples, each
        // standing for proportionally more requests.
        let stride = samples.len().div_ceil(w.per_hour.max(1)).max(1);
        let weight = weight * samples.len() as f64 / samples.len().div_ceil(stride).max(1) as f64;
        let n = samples.len().div_ceil(stride).max(1) as i64;
        for (k, sample) in samples.iter().step_by(stride).enumerate() {
            // Spread the hour's samples over the hour.
            let t = *at + Duration::seconds(3600 * k as i64 / n);
            let Some(r) = sample.request(t, mix(w.seed, (i as u64) << 20 | k as u64)) else { continue };
            per_day[*day] += 1;
            f(*day, t.timestamp(), weight, &r);
        }
    }
    Some(per_day)
}

/// Inventory by day and format (all matching requests, and those no booked goal took).
#[derive(Debug, Clone, Default)]
pub struct Inventory {
    pub total: BTreeMap<AdFormat, Series>,
    pub unused: BTreeMap<AdFormat, Series>,
    pub day_samples: Vec<u32>,
    pub days: usize,
}

/// An inventory forecast: `probe` is a goal of `s` (no ads) holding the request's targeting;
/// `formats` and `device_containers` filter the samples (empty: all).
pub fn inventory(
    s: &Snapshot,
    pace0: &[Pace],
    probe: u32,
    formats: &[AdFormat],
    device_containers: &[String],
    w: &Window<'_>,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Option<Inventory> {
    let days = w.days(s);
    let mut pace = pace0.to_vec();
    pace.resize(s.goals.len(), Pace::default());
    let mut out = Inventory { days, ..Inventory::default() };
    let viewer = ViewerState::default();
    let day_samples = walk(s, w, progress, &mut |day, at, weight, r| {
        let d = decide_filled(s, r, &viewer, &pace, w.fills);
        for p in &d.picks {
            credit(s, &mut pace, p.goal, weight, at);
        }
        let format_ok = formats.is_empty() || formats.contains(&r.format);
        let dc_ok = device_containers.is_empty() || r.device_container.as_ref().is_none_or(|dc| device_containers.contains(dc));
        if format_ok && dc_ok && eligible(s, r, &viewer, &pace, probe, false, false) {
            out.total.entry(r.format).or_insert_with(|| Series::new(days)).add(day, weight);
            if d.picks.is_empty() {
                out.unused.entry(r.format).or_insert_with(|| Series::new(days)).add(day, weight);
            }
        }
    })?;
    out.day_samples = day_samples;
    Some(out)
}

/// What one proposed goal gets.
#[derive(Debug, Clone, Default)]
pub struct GoalForecast {
    pub delivered: Series,
    pub matched: f64,
    pub possible: f64,
    pub available: f64,
    /// Booked goal index (in the proposal's snapshot) → units it took that this goal wanted.
    pub competing: BTreeMap<u32, f64>,
}

/// A campaign forecast: `base` holds the booked goals, `all` the booked and the proposed
/// ones (`proposed`, indices in `all`). Returns one result per proposed goal and the days'
/// sample counts.
pub fn campaign(
    base: &Snapshot,
    all: &Snapshot,
    pace0: &HashMap<String, Pace>,
    proposed: &[u32],
    w: &Window<'_>,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Option<(Vec<GoalForecast>, Vec<u32>)> {
    let days = w.days(all);
    let pace_of = |s: &Snapshot| -> Vec<Pace> { s.goals.iter().map(|g| pace0.get(&g.id).cloned().unwrap_or_default()).collect() };
    let (mut pace_base, mut pace_all) = (pace_of(base), pace_of(all));
    let to_all: Vec<Option<u32>> = base.goals.iter().map(|g| all.goal_index.get(&g.id).copied()).collect();
    let mut out: Vec<GoalForecast> =
        proposed.iter().map(|_| GoalForecast { delivered: Series::new(days), ..GoalForecast::default() }).collect();
    let viewer = ViewerState::default();
    let day_samples = walk(all, w, progress, &mut |day, at, weight, r| {
        let d_base = decide_filled(base, r, &viewer, &pace_base, w.fills);
        for p in &d_base.picks {
            credit(base, &mut pace_base, p.goal, weight, at);
        }
        let base_won: Vec<u32> = d_base.picks.iter().filter_map(|p| to_all[p.goal as usize]).collect();
        let wanted: Vec<bool> = proposed.iter().map(|g| eligible(all, r, &viewer, &pace_all, *g, false, true)).collect();
        let won: Vec<u32> = if wanted.iter().any(|x| *x) {
            decide_filled(all, r, &viewer, &pace_all, w.fills).picks.iter().map(|p| p.goal).collect()
        } else {
            base_won.clone()
        };
        // What pacing credits is what a goal delivers: a paced goal stops at its target,
        // as serving and the pacing projection stop it (not a sample's whole weight).
        let credited: Vec<(u32, f64)> = won.iter().map(|g| (*g, credit(all, &mut pace_all, *g, weight, at))).collect();
        for (k, g) in proposed.iter().enumerate() {
            if !wanted[k] {
                continue;
            }
            let o = &mut out[k];
            o.matched += weight;
            if base_won.is_empty() {
                o.available += weight;
            }
            let mine = all.goals[*g as usize].rank();
            if base_won.iter().all(|q| all.goals[*q as usize].rank() >= mine) {
                o.possible += weight;
            }
            if let Some((_, n)) = credited.iter().find(|(q, _)| q == g) {
                o.delivered.add(day, *n);
            } else {
                for q in won.iter().filter(|q| !proposed.contains(q)) {
                    *o.competing.entry(*q).or_insert(0.0) += weight;
                }
            }
        }
    })?;
    Some((out, day_samples))
}

/// What every goal of the account delivers over the window, with today's pace records
/// (the pacing projection, docs/reports.md "Pacing"): one decision per sample, as serving
/// makes it, each pick credited to its goal. Returns the goals' series (index as in `s`).
pub fn goals_delivery(s: &Snapshot, pace0: &[Pace], w: &Window<'_>) -> Vec<Series> {
    let days = w.days(s);
    let mut pace = pace0.to_vec();
    pace.resize(s.goals.len(), Pace::default());
    let mut out = vec![Series::new(days); s.goals.len()];
    let viewer = ViewerState::default();
    walk(s, w, &mut |_| true, &mut |day, at, weight, r| {
        for p in &decide_filled(s, r, &viewer, &pace, w.fills).picks {
            // What pacing counts is what the series shows, so a paced goal ends on its target.
            let delivered = credit(s, &mut pace, p.goal, weight, at);
            out[p.goal as usize].add(day, delivered);
        }
    });
    out
}
