//! Pacing and goal caps. The event worker keeps one pace record per goal (impressions and
//! delivered events in total, in the current local day and hour); the decision reads it.
//!
//! Ideal curve (docs/delivery.md): with `x` the elapsed share of the flight and `f` the
//! frontload factor / 100, the goal should have delivered `T · (1 − (1 − x)^(1 + 2f))` of
//! its target `T` (linear at f = 0, front-loaded as f grows). A goal is served while its
//! delivery is below the ideal one hour ahead, so it neither starves nor runs ahead.

pub use super::verdict::{CapReached, Held};
use serde::{Deserialize, Serialize};

use super::snapshot::GoalEntry;

/// A goal's delivery counts (the pace record of `repo::delivery`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pace {
    #[serde(default)]
    pub impressions: u64,
    /// Events of the goal's delivered kind (impressions for impression goals).
    #[serde(default)]
    pub delivered: u64,
    /// Local day number (days since 1970-01-01 in the account's time zone) of the day counts.
    #[serde(default)]
    pub day: i64,
    #[serde(default)]
    pub day_impressions: u64,
    #[serde(default)]
    pub day_delivered: u64,
    /// Local hour number (hours since the epoch, local clock) of the hour counts.
    #[serde(default)]
    pub hour: i64,
    #[serde(default)]
    pub hour_impressions: u64,
    #[serde(default)]
    pub hour_delivered: u64,
}

/// Local day and hour numbers of an instant (the account's offset at that instant).
pub fn local_day_hour(now: i64, offset: i32) -> (i64, i64) {
    let local = now + i64::from(offset);
    (local.div_euclid(86_400), local.div_euclid(3_600))
}

impl Pace {
    /// Adds `impressions` and `delivered` at local (day, hour), rolling the day and hour
    /// over when they are newer. An event of an older day or hour (late, or a redelivered
    /// batch across a boundary) adds to the totals only: it never resets the newer period's
    /// counts (which the daily and hourly caps read).
    pub fn add(&mut self, day: i64, hour: i64, impressions: u64, delivered: u64) {
        self.impressions += impressions;
        self.delivered += delivered;
        if day > self.day {
            self.day = day;
            self.day_impressions = 0;
            self.day_delivered = 0;
        }
        if day == self.day {
            self.day_impressions += impressions;
            self.day_delivered += delivered;
        }
        if hour > self.hour {
            self.hour = hour;
            self.hour_impressions = 0;
            self.hour_delivered = 0;
        }
        if hour == self.hour {
            self.hour_impressions += impressions;
            self.hour_delivered += delivered;
        }
    }

    fn today(&self, day: i64) -> (u64, u64) {
        if self.day == day {
            (self.day_impressions, self.day_delivered)
        } else {
            (0, 0)
        }
    }

    fn this_hour(&self, hour: i64) -> (u64, u64) {
        if self.hour == hour {
            (self.hour_impressions, self.hour_delivered)
        } else {
            (0, 0)
        }
    }
}

fn under(count: u64, cap: Option<f64>) -> bool {
    cap.is_none_or(|c| (count as f64) < c)
}

/// The first of the goal's caps that has no room left (seed 001 §2.2: impression caps
/// count impressions, event caps count the goal's delivered events), or `None`.
pub fn cap_reached(g: &GoalEntry, p: &Pace, day: i64, hour: i64) -> Option<CapReached> {
    let (di, dd) = p.today(day);
    let (hi, hd) = p.this_hour(hour);
    [
        (p.impressions, g.caps.total, CapReached::Total),
        (di, g.caps.daily, CapReached::Daily),
        (hi, g.caps.hourly, CapReached::Hourly),
        (dd, g.caps.daily_event, CapReached::DailyEvent),
        (hd, g.caps.hourly_event, CapReached::HourlyEvent),
    ]
    .into_iter()
    .find(|(count, cap, _)| !under(*count, *cap))
    .map(|(_, _, c)| c)
}

/// Whether the goal's caps leave room.
pub fn caps_allow(g: &GoalEntry, p: &Pace, day: i64, hour: i64) -> bool {
    cap_reached(g, p, day, hour).is_none()
}

/// The share of its target a goal should have delivered at `x` (0-1) of its flight.
pub fn ideal_share(x: f64, frontload: u8) -> f64 {
    let x = x.clamp(0.0, 1.0);
    let f = f64::from(frontload.min(100)) / 100.0;
    1.0 - (1.0 - x).powf(1.0 + 2.0 * f)
}

/// What pacing needs of a goal: its flight, target and frontload factor.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Flight {
    pub start: i64,
    pub end: Option<i64>,
    pub target: Option<f64>,
    pub frontload: u8,
}

impl GoalEntry {
    pub fn flight(&self) -> Flight {
        Flight { start: self.start, end: self.end, target: self.target, frontload: self.frontload }
    }
}

/// How much the goal should have delivered by `at` (`None`: no target or no end: unpaced).
pub fn ideal_delivery(f: &Flight, at: i64) -> Option<f64> {
    let (target, end) = (f.target?, f.end?);
    let flight = (end - f.start).max(1) as f64;
    Some(target * ideal_share((at - f.start) as f64 / flight, f.frontload))
}

/// Whether a paced goal may take this impression: target not reached, and delivery below
/// the ideal an hour ahead.
pub fn pacing_allows(g: &GoalEntry, p: &Pace, now: i64) -> bool {
    pacing_holds(g, p, now).is_none()
}

pub fn pacing_holds(g: &GoalEntry, p: &Pace, now: i64) -> Option<Held> {
    if let Some(t) = g.target {
        if p.delivered as f64 >= t {
            return Some(Held::TargetReached);
        }
    }
    match pacing_plan(&g.flight(), now) {
        Some(plan) if (p.delivered as f64) >= plan => Some(Held::AheadOfPlan),
        _ => None,
    }
}

/// What pacing lets a goal have delivered by `now`: its ideal curve an hour ahead (at least
/// 1), so a goal may run up to an hour ahead of its plan. `None`: no target or no end.
pub fn pacing_plan(f: &Flight, now: i64) -> Option<f64> {
    ideal_delivery(f, now + 3_600).map(|ideal| ideal.max(1.0))
}

/// Where a goal stands against its plan, in the words ad operations use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PaceState {
    /// Delivered under 90 % of what the plan asks by now.
    Behind,
    /// Within 10 % of the plan.
    OnPace,
    /// Over 110 % of the plan.
    Ahead,
}

/// The tolerance around the plan that still counts as on pace.
pub const ON_PACE_TOLERANCE: f64 = 0.10;

impl PaceState {
    pub fn words(self) -> &'static str {
        match self {
            PaceState::Behind => "behind",
            PaceState::OnPace => "on pace",
            PaceState::Ahead => "ahead",
        }
    }
}

/// The pace of `delivered` against the plan `ideal` (what should have been delivered by
/// now); `None` when nothing is due yet (an unpaced goal, or before its start).
pub fn pace_state(delivered: f64, ideal: f64) -> Option<PaceState> {
    if ideal <= 0.0 || !ideal.is_finite() {
        return None;
    }
    let ratio = delivered / ideal;
    Some(if ratio < 1.0 - ON_PACE_TOLERANCE {
        PaceState::Behind
    } else if ratio > 1.0 + ON_PACE_TOLERANCE {
        PaceState::Ahead
    } else {
        PaceState::OnPace
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pace_is_named_within_ten_percent_of_the_plan() {
        assert_eq!(pace_state(80.0, 100.0), Some(PaceState::Behind));
        assert_eq!(pace_state(95.0, 100.0), Some(PaceState::OnPace));
        assert_eq!(pace_state(110.0, 100.0), Some(PaceState::OnPace));
        assert_eq!(pace_state(111.0, 100.0), Some(PaceState::Ahead));
        assert_eq!(pace_state(5.0, 0.0), None);
    }

    #[test]
    fn an_older_period_never_resets_a_newer_one() {
        let mut p = Pace::default();
        p.add(10, 245, 5, 5);
        // A late event of the previous hour and day (a redelivered batch over the boundary).
        p.add(9, 239, 1, 1);
        assert_eq!((p.day, p.day_impressions, p.hour, p.hour_impressions), (10, 5, 245, 5));
        assert_eq!(p.impressions, 6);
        p.add(10, 246, 2, 0);
        assert_eq!((p.day_impressions, p.hour, p.hour_impressions, p.hour_delivered), (7, 246, 2, 0));
    }

    #[test]
    fn the_ideal_curve() {
        assert_eq!(ideal_share(0.0, 0), 0.0);
        assert!((ideal_share(0.5, 0) - 0.5).abs() < 1e-9);
        assert!((ideal_share(0.5, 100) - 0.875).abs() < 1e-9);
        assert_eq!(ideal_share(1.0, 50), 1.0);
        // Front-loading only moves delivery earlier.
        for x in [0.1, 0.3, 0.7] {
            assert!(ideal_share(x, 60) > ideal_share(x, 20));
        }
    }

    #[test]
    fn day_and_hour_roll_over() {
        let mut p = Pace::default();
        p.add(10, 240, 3, 1);
        p.add(10, 241, 2, 2);
        assert_eq!((p.impressions, p.day_impressions, p.hour_impressions, p.hour_delivered), (5, 5, 2, 2));
        p.add(11, 264, 1, 0);
        assert_eq!((p.day_impressions, p.day_delivered, p.delivered), (1, 0, 3));
        assert_eq!(local_day_hour(86_400 * 3 + 3_600 * 5, 3_600), (3, 3 * 24 + 6));
        assert_eq!(local_day_hour(-1, 0), (-1, -1));
    }
}
