//! The counting rules of the events worker (docs/traffic-quality.md §1), pure: given the
//! records read for a group of events, which events are redeliveries (nothing to do),
//! which wait for their impression (retried), and which count, as valid or as invalid
//! with a reason, under which marker.
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

use crate::delivery::ivt::{self, Reason};
use crate::jobs::Event;
use crate::repo::delivery as rd;
use crate::store::{Item, Key};

/// How long an event may wait for its impression to be counted before it is invalid.
pub const IMPRESSION_GRACE_SECS: i64 = 120;
/// How long a rate record is kept (its minute and the next).
pub const RATE_TTL_SECS: i64 = 180;
/// How long a spend record is kept past its goal's end (no end: this long from now).
pub const SPEND_TTL_SECS: i64 = 400 * 86_400;

/// Impressions counted in one minute (a rate record).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Tally {
    pub n: u64,
}

/// What a viewer or address block spent of a goal: in all, and on its local day.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Spend {
    pub total: u64,
    pub day: i64,
    pub today: u64,
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
    Count { reason: Option<Reason>, marker: Key },
}

/// The records a group's rules read (markers, rate and spend records), by key.
pub type Found = HashMap<(String, String), (Item, u64)>;

fn subject_keys(e: &Event) -> [(Option<String>, Reason, Reason); 2] {
    [
        (e.viewer.as_ref().map(|v| format!("v:{v}")), Reason::ViewerRate, Reason::ViewerGoalCap),
        (e.block.as_ref().map(|b| format!("b:{b}")), Reason::AddressRate, Reason::AddressGoalCap),
    ]
}

fn minute(at: i64) -> i64 {
    at.div_euclid(60)
}

/// Every key the rules of these events read.
pub fn keys_to_read(events: &[Event]) -> Vec<Key> {
    let mut keys = Vec::new();
    for e in events {
        keys.push(rd::marker_key(&e.account, &e.impression, &e.counter));
        if e.counter == "impression" {
            for (subject, _, _) in subject_keys(e) {
                if let Some(s) = subject {
                    keys.push(crate::keys::rate(&e.account, &s, minute(e.at)));
                    keys.push(crate::keys::spend(&e.account, &s, &e.goal));
                }
            }
        } else {
            keys.push(rd::marker_key(&e.account, &e.impression, "impression"));
        }
    }
    keys.sort_by(|a, b| (&a.pk, &a.sk).cmp(&(&b.pk, &b.sk)));
    keys.dedup();
    keys
}

/// The rate and spend records a group changes: new values with the versions read.
#[derive(Default)]
pub struct Tallies {
    pub rates: HashMap<Key, (Tally, u64, i64)>,
    pub spends: HashMap<Key, (Spend, u64, i64)>,
}

fn decode<T: serde::de::DeserializeOwned + Default>(found: &Found, key: &Key) -> (T, u64) {
    match found.get(&(key.pk.clone(), key.sk.clone())) {
        Some((item, v)) => (serde_json::from_str(&item.body).unwrap_or_default(), *v),
        None => (T::default(), 0),
    }
}

/// Judges a group (impressions first, so that their events inherit their verdicts).
/// `limits` gives a goal's protection limits, `local_day` an event's local day.
pub fn judge(
    events: &[Event],
    found: &Found,
    now: i64,
    limits: &dyn Fn(&Event) -> GoalLimits,
    local_day: &dyn Fn(&Event) -> i64,
) -> (Vec<Verdict>, Tallies) {
    let mut out = vec![Verdict::Skip; events.len()];
    let mut tallies = Tallies::default();
    // Slots taken in this group: marker key → the taker's reason.
    let mut taken: HashMap<(String, String), Option<Reason>> = HashMap::new();
    let mut order: Vec<usize> = (0..events.len()).collect();
    order.sort_by_key(|&i| (events[i].counter != "impression", events[i].at));
    for i in order {
        let e = &events[i];
        let slot = rd::marker_key(&e.account, &e.impression, &e.counter);
        let slot_id = (slot.pk.clone(), slot.sk.clone());
        if let Some((item, _)) = found.get(&slot_id) {
            let (id, _) = rd::marker_of(item);
            out[i] = if id == e.id { Verdict::Skip } else { duplicate(e) };
            continue;
        }
        if taken.contains_key(&slot_id) {
            out[i] = duplicate(e);
            continue;
        }
        let mut reason = e.invalid.as_deref().and_then(Reason::parse);
        if reason.is_none() {
            if e.counter == "impression" {
                reason = protect(e, found, &mut tallies, limits(e), local_day(e));
            } else {
                let imp = rd::marker_key(&e.account, &e.impression, "impression");
                let imp_id = (imp.pk, imp.sk);
                let stored = found.get(&imp_id).map(|(item, _)| Reason::parse(rd::marker_of(item).1));
                match taken.get(&imp_id).copied().or(stored) {
                    Some(r) => reason = r,
                    None if now - e.at < IMPRESSION_GRACE_SECS => {
                        out[i] = Verdict::Wait;
                        continue;
                    }
                    None => reason = Some(Reason::NoImpression),
                }
            }
        }
        taken.insert(slot_id, reason);
        out[i] = Verdict::Count { reason, marker: slot };
    }
    (out, tallies)
}

fn duplicate(e: &Event) -> Verdict {
    // Its own marker (by its call's id), so a redelivery of the duplicate counts once.
    let marker = rd::marker_key(&e.account, &e.impression, &format!("{}!{}", e.counter, e.id));
    Verdict::Count { reason: Some(Reason::Duplicate), marker }
}

/// The rate and per-goal rules of a valid impression; when it passes, its tallies grow.
fn protect(e: &Event, found: &Found, t: &mut Tallies, limits: GoalLimits, day: i64) -> Option<Reason> {
    let mut checks: Vec<(Key, Key)> = Vec::new();
    for (subject, rate_reason, goal_reason) in subject_keys(e) {
        let Some(s) = subject else { continue };
        let rk = crate::keys::rate(&e.account, &s, minute(e.at));
        let per_minute = if rate_reason == Reason::ViewerRate { ivt::VIEWER_PER_MINUTE } else { ivt::BLOCK_PER_MINUTE };
        let rate = t.rates.entry(rk.clone()).or_insert_with(|| {
            let (v, ver) = decode::<Tally>(found, &rk);
            (v, ver, e.at + RATE_TTL_SECS)
        });
        if rate.0.n >= per_minute {
            return Some(rate_reason);
        }
        let sk = crate::keys::spend(&e.account, &s, &e.goal);
        let expires = limits.end.map_or(e.at + SPEND_TTL_SECS, |end| end.max(e.at) + 86_400);
        let spend = t.spends.entry(sk.clone()).or_insert_with(|| {
            let (v, ver) = decode::<Spend>(found, &sk);
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
mod tests {
    use super::*;

    fn ev(counter: &str, imp: &str, id: &str, at: i64) -> Event {
        Event {
            account: "a".into(),
            campaign: "c".into(),
            goal: "g".into(),
            ad: "ad".into(),
            impression: imp.into(),
            counter: counter.into(),
            delivered: counter == "impression",
            viewer: Some("v1".into()),
            at,
            id: id.into(),
            invalid: None,
            block: Some("203.0.113.0/24".into()),
            dims: None,
            message: 0,
        }
    }

    fn none(_: &Event) -> GoalLimits {
        GoalLimits::default()
    }

    fn day(_: &Event) -> i64 {
        1
    }

    fn reasons(v: &[Verdict]) -> Vec<Option<Option<Reason>>> {
        v.iter()
            .map(|x| match x {
                Verdict::Count { reason, .. } => Some(*reason),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn an_event_needs_its_impression() {
        let now = 10_000;
        let found = Found::new();
        // Fresh complete without impression: waits; an old one: noImpression.
        let (v, _) = judge(&[ev("complete", "i1", "x", now - 5), ev("complete", "i2", "y", now - 500)], &found, now, &none, &day);
        assert_eq!(v[0], Verdict::Wait);
        assert_eq!(reasons(&v)[1], Some(Some(Reason::NoImpression)));
        // With its impression in the same group: valid.
        let (v, _) = judge(&[ev("complete", "i1", "x", now), ev("impression", "i1", "z", now - 20)], &found, now, &none, &day);
        assert_eq!(reasons(&v), vec![Some(None), Some(None)]);
    }

    #[test]
    fn replays_are_duplicates_and_redeliveries_nothing() {
        let e = ev("impression", "i1", "call-1", 100);
        let marker = rd::marker_key("a", "i1", "impression");
        let mut found = Found::new();
        let item = Item { pk: marker.pk.clone(), sk: marker.sk.clone(), body: "call-1\t".into(), ..Item::default() };
        found.insert((marker.pk, marker.sk), (item, 1));
        let replay = ev("impression", "i1", "call-2", 100);
        let (v, _) = judge(&[e, replay], &found, 100, &none, &day);
        assert_eq!(v[0], Verdict::Skip);
        assert_eq!(reasons(&v)[1], Some(Some(Reason::Duplicate)));
    }

    #[test]
    fn rates_and_goal_spend_are_bounded() {
        let evs: Vec<Event> = (0..20).map(|n| ev("impression", &format!("i{n}"), &format!("c{n}"), 600)).collect();
        let (v, t) = judge(&evs, &Found::new(), 600, &none, &day);
        let r = reasons(&v);
        assert_eq!(r.iter().filter(|x| **x == Some(None)).count(), ivt::VIEWER_PER_MINUTE as usize);
        assert!(r[12..].iter().all(|x| *x == Some(Some(Reason::ViewerRate))));
        assert_eq!(t.rates.values().map(|r| r.0.n).max(), Some(12));
        let capped = |_: &Event| GoalLimits { total: Some(3), daily: None, end: None };
        let (v, _) = judge(&evs[..5], &Found::new(), 600, &capped, &day);
        assert_eq!(reasons(&v)[3], Some(Some(Reason::ViewerGoalCap)));
        // An inherited verdict: the events of an invalid impression are invalid alike.
        let mut bot = ev("impression", "ib", "cb", 600);
        bot.invalid = Some("crawler".into());
        let (v, _) = judge(&[ev("start", "ib", "cs", 600), bot], &Found::new(), 600, &none, &day);
        assert_eq!(reasons(&v), vec![Some(Some(Reason::Crawler)), Some(Some(Reason::Crawler))]);
    }
}
