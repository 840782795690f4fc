//! The counting rules of tracking events (docs/traffic-quality.md §1), pure: given the
//! records read for a group of events (`Seen`: their once-only markers, the rate and spend
//! tallies), which events are redeliveries (nothing to do), which wait for their
//! impression (retried), and which count, as valid or as invalid with a reason, under
//! which marker. The events use case reads and commits (`usecases::events`,
//! `repo::events`); nothing here touches a store.
//!
//! In order:
//! 1. An event whose marker holds another tracking call's id is a **duplicate** (a replayed
//!    link); one holding its own id is a redelivery of its message: skipped.
//! 2. A verdict made on arrival (`crawler`, `nonBrowser`, `expired`) stands.
//! 3. An impression is checked against the viewer's and the address block's rate in its
//!    minute and against what they spent of the goal (per-goal protection).
//! 4. Any other event needs its impression: it takes the impression's verdict (valid, or
//!    the impression's invalid reason); without one it waits `IMPRESSION_GRACE_SECS`
//!    (queues do not keep order), then counts as `noImpression`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::counters::Slot;
use super::ivt::{self, Reason};
use super::tracking::Dims;
use crate::model::enums::Counter;

/// How long an event may wait for its impression to be counted before it is invalid.
pub const IMPRESSION_GRACE_SECS: i64 = 120;
/// How long a rate record is kept (its minute and the next).
pub const RATE_TTL_SECS: i64 = 180;
/// How long a spend record is kept past its goal's end (no end: this long from now).
pub const SPEND_TTL_SECS: i64 = 400 * 86_400;

/// One counted playback event (the tracking endpoint's message on the events queue;
/// `jobs::Event` is this type).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub account: String,
    pub campaign: String,
    pub goal: String,
    pub ad: String,
    pub impression: String,
    /// The `/v3` counter (`impression`, `start`, …, `clickThrough`).
    pub counter: Counter,
    /// Whether this event is the goal's delivery (adds to `delivered` and the pace record).
    pub delivered: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<String>,
    /// Epoch seconds of the event.
    pub at: i64,
    /// This tracking call's id: a redelivery of its message has the same id, a replay of
    /// the link another (then it is a duplicate).
    #[serde(default)]
    pub id: String,
    /// The verdict made when the call arrived (`crawler`, `nonBrowser`, `expired`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// The caller's address block (`203.0.113.0/24`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// The report dimensions the link carried (version-3 links; none before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dims: Option<Dims>,
    /// The tracking call came from a registered stitcher (server-side ad insertion): a valid
    /// impression also adds to `serverInitiated`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub server: bool,
    /// Which message of a batch the event came in (not sent: the worker sets it).
    #[serde(skip)]
    pub message: usize,
}

impl Event {
    pub fn is_impression(&self) -> bool {
        self.counter == Counter::Impression
    }
}

/// Whose rate and spend an impression is checked against.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Subject {
    /// The viewer (`pid`).
    Viewer(String),
    /// The caller's address block.
    Block(String),
}

impl Subject {
    /// The subject's part of its records' keys (`v:<pid>`, `b:<block>`), as stored.
    pub fn key_part(&self) -> String {
        match self {
            Subject::Viewer(v) => format!("v:{v}"),
            Subject::Block(b) => format!("b:{b}"),
        }
    }

    fn of(e: &Event) -> [(Option<Subject>, Reason, Reason); 2] {
        [
            (e.viewer.clone().map(Subject::Viewer), Reason::ViewerRate, Reason::ViewerGoalCap),
            (e.block.clone().map(Subject::Block), Reason::AddressRate, Reason::AddressGoalCap),
        ]
    }
}

/// Which once-only marker an event takes: its impression's slot for its counter, or (a
/// duplicate) a slot of its own tracking call.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MarkerId {
    pub impression: String,
    /// The counter's name, or `<counter>!<call id>` for a duplicate.
    pub slot: String,
}

impl MarkerId {
    pub fn of(impression: &str, counter: Counter) -> MarkerId {
        MarkerId { impression: impression.to_string(), slot: counter.as_str().to_string() }
    }

    fn duplicate(e: &Event) -> MarkerId {
        MarkerId { impression: e.impression.clone(), slot: format!("{}!{}", e.counter.as_str(), e.id) }
    }
}

/// A marker as stored: the tracking call that took it and its verdict (`None`: valid).
#[derive(Debug, Clone, PartialEq)]
pub struct Marker {
    pub call: String,
    pub reason: Option<Reason>,
}

/// Impressions counted in one minute (a rate record).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Tally {
    pub n: u64,
}

/// What a viewer or address block spent of a goal: in all, and on its local day.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Spend {
    pub total: u64,
    pub day: i64,
    pub today: u64,
}

/// A rate record's coordinates: subject and minute.
pub type RateAt = (Subject, i64);
/// A spend record's coordinates: subject and goal.
pub type SpendOf = (Subject, String);

/// What a group's rules need read.
#[derive(Debug, Default, PartialEq)]
pub struct Wanted {
    pub markers: Vec<MarkerId>,
    pub rates: Vec<RateAt>,
    pub spends: Vec<SpendOf>,
}

/// The records read for a group: markers, and tallies with their versions (absent: none).
#[derive(Debug, Default)]
pub struct Seen {
    pub markers: HashMap<MarkerId, Marker>,
    pub rates: HashMap<RateAt, (Tally, u64)>,
    pub spends: HashMap<SpendOf, (Spend, u64)>,
}

/// The per-goal protection limits of a goal (`None`: no cap).
#[derive(Debug, Clone, Copy, Default)]
pub struct GoalLimits {
    pub total: Option<u64>,
    pub daily: Option<u64>,
    /// The goal's end (epoch seconds), for the spend records' TTL.
    pub end: Option<i64>,
}

/// What happens to one event of a group.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Counted before (a redelivery of the same tracking call): nothing to write.
    Skip,
    /// Its impression is not counted yet: its message comes back later.
    Wait,
    /// Counted: valid (`None`) or invalid with a reason, under this marker.
    Count { reason: Option<Reason>, marker: MarkerId },
}

/// The rate and spend records a group changes: new values, the versions read, and when
/// each expires.
#[derive(Debug, Default)]
pub struct Tallies {
    pub rates: HashMap<RateAt, (Tally, u64, i64)>,
    pub spends: HashMap<SpendOf, (Spend, u64, i64)>,
}

/// The counters a counted event adds to, and by how much: a valid one its counter (and
/// `delivered` when it is its goal's delivery, `serverInitiated` when it is an impression a
/// stitcher fired, `revenueMicros` when it is a programmatic ad's impression: its clearing
/// CPM / 1,000), an invalid one its reason's.
pub fn slots(e: &Event, reason: Option<Reason>) -> impl Iterator<Item = (Slot, i64)> {
    let sale = e.dims.as_ref().and_then(|d| d.sale.as_ref()).filter(|_| e.is_impression());
    let (first, second, third, fourth) = match reason {
        None => (
            Slot::Valid(e.counter),
            e.delivered.then_some(Slot::Valid(Counter::Delivered)),
            (e.server && e.is_impression()).then_some(Slot::Valid(Counter::ServerInitiated)),
            sale.map(|s| (Slot::Valid(Counter::RevenueMicros), s.price_micros / 1000)),
        ),
        Some(r) => (Slot::Invalid(r), None, None, None),
    };
    std::iter::once((first, 1)).chain(second.map(|s| (s, 1))).chain(third.map(|s| (s, 1))).chain(fourth)
}

fn minute(at: i64) -> i64 {
    at.div_euclid(60)
}

/// Every record the rules of these events read.
pub fn wanted(events: &[Event]) -> Wanted {
    let mut w = Wanted::default();
    for e in events {
        w.markers.push(MarkerId::of(&e.impression, e.counter));
        // A duplicate's own marker: its message's redelivery finds it and counts nothing.
        w.markers.push(MarkerId::duplicate(e));
        if e.is_impression() {
            for (subject, _, _) in Subject::of(e) {
                if let Some(s) = subject {
                    w.rates.push((s.clone(), minute(e.at)));
                    w.spends.push((s, e.goal.clone()));
                }
            }
        } else {
            w.markers.push(MarkerId::of(&e.impression, Counter::Impression));
        }
    }
    w.markers.sort();
    w.markers.dedup();
    w.rates.sort();
    w.rates.dedup();
    w.spends.sort();
    w.spends.dedup();
    w
}

/// Judges a group (impressions first, so that their events inherit their verdicts).
/// `limits` gives a goal's protection limits, `local_day` an event's local day.
pub fn judge(
    events: &[Event],
    seen: &Seen,
    now: i64,
    limits: &dyn Fn(&Event) -> GoalLimits,
    local_day: &dyn Fn(&Event) -> i64,
) -> (Vec<Verdict>, Tallies) {
    let mut out = vec![Verdict::Skip; events.len()];
    let mut tallies = Tallies::default();
    // Slots taken in this group: marker → the taker's reason.
    let mut taken: HashMap<MarkerId, Option<Reason>> = HashMap::new();
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by_key(|&i| (!events[i].is_impression(), events[i].at));
    for i in order {
        let e = &events[i];
        let slot = MarkerId::of(&e.impression, e.counter);
        if let Some(m) = seen.markers.get(&slot) {
            let again = m.call == e.id || seen.markers.contains_key(&MarkerId::duplicate(e));
            out[i] = if again { Verdict::Skip } else { duplicate(e) };
            continue;
        }
        if taken.contains_key(&slot) {
            out[i] = duplicate(e);
            continue;
        }
        let mut reason = e.invalid.as_deref().and_then(Reason::parse);
        if reason.is_none() {
            if e.is_impression() {
                reason = protect(e, seen, &mut tallies, limits(e), local_day(e));
            } else {
                let imp = MarkerId::of(&e.impression, Counter::Impression);
                let stored = seen.markers.get(&imp).map(|m| m.reason);
                match taken.get(&imp).copied().or(stored) {
                    Some(r) => reason = r,
                    None if now - e.at < IMPRESSION_GRACE_SECS => {
                        out[i] = Verdict::Wait;
                        continue;
                    }
                    None => reason = Some(Reason::NoImpression),
                }
            }
        }
        taken.insert(slot.clone(), reason);
        out[i] = Verdict::Count { reason, marker: slot };
    }
    (out, tallies)
}

fn duplicate(e: &Event) -> Verdict {
    // Its own marker (by its call's id), so a redelivery of the duplicate counts once.
    Verdict::Count { reason: Some(Reason::Duplicate), marker: MarkerId::duplicate(e) }
}

/// The rate and per-goal rules of a valid impression; when it passes, its tallies grow.
fn protect(e: &Event, seen: &Seen, t: &mut Tallies, limits: GoalLimits, day: i64) -> Option<Reason> {
    let mut checks: Vec<(RateAt, SpendOf)> = Vec::new();
    for (subject, rate_reason, goal_reason) in Subject::of(e) {
        let Some(s) = subject else { continue };
        let rk = (s.clone(), minute(e.at));
        let per_minute = match s {
            Subject::Viewer(_) => ivt::VIEWER_PER_MINUTE,
            Subject::Block(_) => ivt::BLOCK_PER_MINUTE,
        };
        let rate = t.rates.entry(rk.clone()).or_insert_with(|| {
            let (v, ver) = seen.rates.get(&rk).cloned().unwrap_or_default();
            (v, ver, e.at + RATE_TTL_SECS)
        });
        if rate.0.n >= per_minute {
            return Some(rate_reason);
        }
        let sk = (s, e.goal.clone());
        let expires = limits.end.map_or(e.at + SPEND_TTL_SECS, |end| end.max(e.at) + 86_400);
        let spend = t.spends.entry(sk.clone()).or_insert_with(|| {
            let (v, ver) = seen.spends.get(&sk).cloned().unwrap_or_default();
            (v, ver, expires)
        });
        let today = if spend.0.day == day { spend.0.today } else { 0 };
        if limits.total.is_some_and(|l| spend.0.total >= l) || limits.daily.is_some_and(|l| today >= l) {
            return Some(goal_reason);
        }
        checks.push((rk, sk));
    }
    for (rk, sk) in checks {
        if let Some(r) = t.rates.get_mut(&rk) {
            r.0.n += 1;
        }
        if let Some(s) = t.spends.get_mut(&sk) {
            if s.0.day != day {
                s.0.day = day;
                s.0.today = 0;
            }
            s.0.total += 1;
            s.0.today += 1;
        }
    }
    None
}

#[cfg(test)]
#[path = "counting_tests.rs"]
mod tests;
