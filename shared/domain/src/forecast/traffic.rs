//! Traffic for forecasts (docs/forecasts.md): samples of real ad requests recorded by the
//! serving endpoint (one in 100), projected with a two-week moving average by weekday and
//! hour; an account without recorded traffic uses its seed file's traffic profile.

use chrono::{DateTime, Datelike, Duration, NaiveDate, TimeZone, Timelike, Utc};
use serde::{Deserialize, Serialize};

use crate::delivery::decide::Rng;
use crate::delivery::request::AdRequest;
use crate::delivery::snapshot::AdFormat;
use crate::model::account::{Account, TrafficProfile};
use crate::model::zone::Zone;

/// One ad request in this many is recorded.
pub const SAMPLE_RATE: u64 = 100;
/// Recorded samples are kept this long (two full weeks and a day).
pub const KEEP_DAYS: i64 = 15;
/// Samples a profile generates per slot at most (each then stands for more requests).
pub const MAX_SAMPLES_PER_SLOT: usize = 400;

/// A recorded ad request (what a decision needs; no viewer identity).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct Sample {
    #[serde(rename = "f")]
    pub format: String,
    #[serde(rename = "n", default = "one", skip_serializing_if = "is_one")]
    pub break_number: u32,
    #[serde(rename = "c", default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(rename = "p", default, skip_serializing_if = "Option::is_none")]
    pub partner: Option<String>,
    #[serde(rename = "t", default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(rename = "l", default, skip_serializing_if = "Vec::is_empty")]
    pub locations: Vec<String>,
    #[serde(rename = "d", default, skip_serializing_if = "Option::is_none")]
    pub device_container: Option<String>,
    #[serde(rename = "a", default, skip_serializing_if = "Vec::is_empty")]
    pub acp: Vec<(String, String)>,
    /// Whether the request named a viewer.
    #[serde(rename = "v", default)]
    pub viewer: bool,
}

/// Bounds of a stored sample (docs/traffic-quality.md §3).
pub const MAX_SAMPLE_LIST: usize = 16;
pub const MAX_SAMPLE_BYTES: usize = 2048;

fn one() -> u32 {
    1
}
fn is_one(n: &u32) -> bool {
    *n == 1
}

impl Sample {
    /// Whether a draw is sampled: one in `SAMPLE_RATE` uniformly. The server draws (a
    /// random number of its own, `chosen_by_server`): the caller's `seed` never decides
    /// what becomes traffic history (docs/traffic-quality.md §3).
    pub fn chosen(draw: u64) -> bool {
        draw.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32 < (1u64 << 32) / SAMPLE_RATE
    }

    /// The server's own draw for this request.
    pub fn chosen_by_server() -> bool {
        Sample::chosen(crate::ids::fast_u64())
    }

    /// The sample of a request, bounded: at most `MAX_SAMPLE_LIST` tags, locations and
    /// custom parameters; `None` when it would still be over `MAX_SAMPLE_BYTES` (not kept).
    pub fn of(r: &AdRequest) -> Option<Sample> {
        let s = Sample {
            format: r.format.as_str().to_string(),
            break_number: r.break_number,
            category: r.category.clone(),
            partner: r.partner.clone(),
            tags: r.tags.iter().take(MAX_SAMPLE_LIST).cloned().collect(),
            locations: r.locations.iter().take(MAX_SAMPLE_LIST).cloned().collect(),
            device_container: r.device_container.clone(),
            acp: r.acp.iter().take(MAX_SAMPLE_LIST).cloned().collect(),
            viewer: r.viewer.is_some(),
        };
        (serde_json::to_string(&s).map_or(usize::MAX, |j| j.len()) <= MAX_SAMPLE_BYTES).then_some(s)
    }

    /// The request this sample stands for at `at`, with a seed for the decision's draws.
    pub fn request(&self, at: DateTime<Utc>, seed: u64) -> Option<AdRequest> {
        let mut r = AdRequest::new(AdFormat::parse_served(&self.format)?, at, seed);
        r.break_number = self.break_number;
        r.category = self.category.clone();
        r.partner = self.partner.clone();
        r.tags = self.tags.clone();
        r.locations = self.locations.clone();
        r.device_container = self.device_container.clone();
        r.acp = self.acp.clone();
        // Viewer identity is not kept: frequency caps are not modelled (docs/forecasts.md).
        r.viewer = self.viewer.then(|| "sampled".to_string());
        Some(r)
    }
}

/// The account's local date of an instant, `yyyy-mm-dd`, and the local hour.
pub fn local_day(zone: &Zone, at: DateTime<Utc>) -> (NaiveDate, u32) {
    let l = at.with_timezone(zone);
    (l.date_naive(), l.hour())
}

/// A slot: weekday (0 = Monday) and local hour.
pub type Slot = (usize, usize);

/// The projected traffic: per weekday and hour, the samples and what each stands for.
#[derive(Debug, Clone, Default)]
pub struct Traffic {
    pub slots: Vec<Vec<Sample>>,
    /// Requests each sample of a slot stands for.
    pub weights: Vec<f64>,
    /// Where the traffic came from (`recorded` or `profile`).
    pub source: &'static str,
    pub recorded_samples: usize,
    /// How much a day's traffic may differ from the model (a share): 1.96 coefficients of
    /// variation of the recorded days' sample counts (5-50 %), or 20 % for a profile or
    /// fewer than three recorded days. The pacing band replays the model this much lower
    /// and higher.
    pub swing: f64,
}

/// The swing of a model with nothing to measure it by.
pub const DEFAULT_SWING: f64 = 0.2;

fn slot_index(weekday: usize, hour: usize) -> usize {
    weekday * 24 + hour
}

impl Traffic {
    fn empty(source: &'static str) -> Traffic {
        Traffic { slots: vec![Vec::new(); 7 * 24], weights: vec![0.0; 7 * 24], source, recorded_samples: 0, swing: DEFAULT_SWING }
    }

    pub fn slot(&self, weekday: usize, hour: usize) -> (&[Sample], f64) {
        let i = slot_index(weekday % 7, hour % 24);
        (&self.slots[i], self.weights[i])
    }

    /// Requests per day on average (for reports and rescaling).
    pub fn per_day(&self) -> f64 {
        self.slots.iter().zip(&self.weights).map(|(s, w)| s.len() as f64 * w).sum::<f64>() / 7.0
    }

    /// Rescales every weight so a day holds `per_day` requests on average.
    pub fn rescale(&mut self, per_day: f64) {
        let now = self.per_day();
        if now > 0.0 {
            let k = per_day / now;
            for w in &mut self.weights {
                *w *= k;
            }
        }
    }

    /// The two-week moving average of recorded samples: `days` holds each of the last
    /// full local days (oldest first) with its samples by hour.
    pub fn from_recorded(days: &[(NaiveDate, Vec<(u32, Sample)>)]) -> Traffic {
        let mut t = Traffic::empty("recorded");
        let mut occurrences = [0usize; 7];
        for (day, samples) in days {
            let wd = day.weekday().num_days_from_monday() as usize;
            occurrences[wd] += 1;
            for (hour, s) in samples {
                t.slots[slot_index(wd, *hour as usize % 24)].push(s.clone());
                t.recorded_samples += 1;
            }
        }
        for (wd, n) in occurrences.iter().enumerate() {
            for h in 0..24 {
                t.weights[slot_index(wd, h)] = SAMPLE_RATE as f64 / (*n).max(1) as f64;
            }
        }
        let counts: Vec<f64> = days.iter().map(|(_, s)| s.len() as f64).collect();
        if counts.len() >= 3 {
            let mean = counts.iter().sum::<f64>() / counts.len() as f64;
            let var = counts.iter().map(|c| (c - mean).powi(2)).sum::<f64>() / (counts.len() - 1) as f64;
            if mean > 0.0 {
                t.swing = (1.96 * var.sqrt() / mean).clamp(0.05, 0.5);
            }
        }
        t
    }

    /// Samples generated from a traffic profile (deterministic for a seed).
    pub fn from_profile(p: &TrafficProfile, seed: u64) -> Traffic {
        let mut t = Traffic::empty("profile");
        let mut rng = Rng::new(seed);
        let hours = hourly(p);
        let pick = |rng: &mut Rng, m: &std::collections::BTreeMap<String, f64>| -> Option<String> {
            let total: f64 = m.values().sum();
            let mut u = rng.unit() * total.max(1.0);
            for (k, v) in m {
                if u < *v {
                    return Some(k.clone());
                }
                u -= v;
            }
            None
        };
        let formats = if p.format_shares.is_empty() {
            [("preroll", 0.6), ("midroll", 0.3), ("postroll", 0.1)].iter().map(|(k, v)| (k.to_string(), *v)).collect()
        } else {
            p.format_shares.clone()
        };
        for wd in 0..7 {
            for (h, share) in hours.iter().enumerate() {
                let requests = p.requests_per_day as f64 * share;
                let n = ((requests / SAMPLE_RATE as f64).ceil() as usize).clamp(1, MAX_SAMPLES_PER_SLOT);
                let samples: Vec<Sample> = (0..n)
                    .map(|_| Sample {
                        format: pick(&mut rng, &formats).unwrap_or_else(|| "preroll".into()),
                        category: pick(&mut rng, &p.category_shares),
                        tags: p.tag_shares.iter().filter(|(_, share)| rng.unit() < **share).map(|(tag, _)| tag.clone()).collect(),
                        device_container: pick(&mut rng, &p.device_container_shares),
                        viewer: true,
                        break_number: 1,
                        ..Sample::default()
                    })
                    .collect();
                t.weights[slot_index(wd, h)] = requests / n as f64;
                t.slots[slot_index(wd, h)] = samples;
            }
        }
        t
    }
}

/// The profile's hourly shares, or a viewing-day curve (low at night, peak in the evening).
fn hourly(p: &TrafficProfile) -> Vec<f64> {
    let raw: Vec<f64> = if p.hourly_shares.len() == 24 {
        p.hourly_shares.clone()
    } else {
        vec![2.0, 1.5, 1.0, 1.0, 1.0, 1.5, 2.5, 3.5, 4.0, 4.0, 4.0, 4.5, 5.0, 4.5, 4.5, 4.5, 5.0, 5.5, 6.5, 7.5, 8.0, 7.5, 5.5, 3.5]
    };
    let total: f64 = raw.iter().sum();
    raw.iter().map(|v| v / total.max(f64::MIN_POSITIVE)).collect()
}

/// The profile an account without one and without recorded traffic gets.
pub fn default_profile(account: &Account, categories: &[String]) -> TrafficProfile {
    let _ = account;
    let share = if categories.is_empty() { 0.0 } else { 1.0 / categories.len() as f64 };
    TrafficProfile {
        requests_per_day: 100_000,
        hourly_shares: Vec::new(),
        format_shares: Default::default(),
        category_shares: categories.iter().map(|c| (c.clone(), share)).collect(),
        tag_shares: Default::default(),
        device_container_shares: Default::default(),
    }
}

/// The hours of a forecast window: (UTC start, day index from the first local day, slot).
pub fn hours(start: DateTime<Utc>, end: DateTime<Utc>, zone: &Zone) -> Vec<(DateTime<Utc>, usize, Slot)> {
    let mut out = Vec::new();
    let first = local_day(zone, start).0;
    let mut t = start;
    while t < end {
        let (d, h) = local_day(zone, t);
        let day = (d - first).num_days().max(0) as usize;
        out.push((t, day, (d.weekday().num_days_from_monday() as usize, h as usize)));
        t += Duration::hours(1);
    }
    out
}

/// A window's local days: each day's report key and, for a partly covered first or last
/// day, the hours the window has of it.
pub fn window_days(start: DateTime<Utc>, end: DateTime<Utc>, zone: &Zone) -> Vec<(String, Option<u32>)> {
    let hs = hours(start, end, zone);
    let n = hs.last().map_or(0, |h| h.1 + 1);
    let mut per_day = vec![0u32; n];
    for (_, d, _) in &hs {
        per_day[*d] += 1;
    }
    let first = local_day(zone, start).0;
    // A full local day has 23-25 hours (DST); only an edge day can be short.
    let full = |d: usize| {
        let day = first + Duration::days(d as i64);
        let at = |x: NaiveDate| zone.from_local_datetime(&x.and_hms_opt(0, 0, 0).unwrap_or_default()).earliest().map(|t| t.timestamp());
        match (at(day), at(day + Duration::days(1))) {
            (Some(a), Some(b)) => ((b - a) / 3600) as u32,
            _ => 24,
        }
    };
    (0..n)
        .map(|d| {
            let partial = (d == 0 || d + 1 == n) && per_day[d] < full(d);
            (day_key(zone, first, d), partial.then_some(per_day[d]))
        })
        .collect()
}

/// The local midnight of a window day as the report's key (`2026-12-01T00:00:00+01:00`).
pub fn day_key(zone: &Zone, first: NaiveDate, day: usize) -> String {
    let d = first + Duration::days(day as i64);
    let midnight = d.and_hms_opt(0, 0, 0).unwrap_or_default();
    match zone.from_local_datetime(&midnight).earliest() {
        Some(l) => l.to_rfc3339_opts(chrono::SecondsFormat::Secs, false),
        None => format!("{d}T00:00:00Z"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_window_ending_at_utc_midnight_has_a_short_last_local_day() {
        let z = crate::model::zone::zone_table("Europe/Stockholm");
        let start = DateTime::parse_from_rfc3339("2026-12-01T00:00:00Z").unwrap().with_timezone(&Utc);
        let end = DateTime::parse_from_rfc3339("2026-12-04T00:00:00Z").unwrap().with_timezone(&Utc);
        let days = window_days(start, end, &z);
        // 01:00 on Dec 1 to 01:00 on Dec 4, Stockholm: 23 hours, two full days, 1 hour.
        assert_eq!(days.iter().map(|d| d.1).collect::<Vec<_>>(), vec![Some(23), None, None, Some(1)]);
        assert_eq!(days[3].0, "2026-12-04T00:00:00+01:00");
    }

    #[test]
    fn samples_are_bounded() {
        let mut r = AdRequest::new(crate::delivery::AdFormat::Preroll, chrono::Utc::now(), 1);
        r.tags = (0..50).map(|i| format!("tag-{i}")).collect();
        r.acp = (0..20).map(|i| (format!("k{i}"), "v".repeat(20))).collect();
        let s = Sample::of(&r).expect("bounded lists fit");
        assert_eq!((s.tags.len(), s.acp.len()), (MAX_SAMPLE_LIST, MAX_SAMPLE_LIST));
        r.acp = (0..16).map(|i| (format!("k{i}"), "v".repeat(250))).collect();
        assert!(Sample::of(&r).is_none(), "over 2 KB is not kept");
    }

    #[test]
    fn one_request_in_a_hundred_is_sampled() {
        let mut rng = Rng::new(1);
        let n = (0..200_000).filter(|_| Sample::chosen(rng.next_u64())).count();
        assert!((1800..2200).contains(&n), "{n}");
    }

    #[test]
    fn the_two_week_average_weights_samples_by_their_slot() {
        let monday = NaiveDate::from_ymd_opt(2026, 11, 2).unwrap();
        let s = Sample { format: "preroll".into(), ..Sample::default() };
        let days: Vec<(NaiveDate, Vec<(u32, Sample)>)> =
            (0..14).map(|i| (monday + Duration::days(i), vec![(9, s.clone()), (9, s.clone())])).collect();
        let t = Traffic::from_recorded(&days);
        let (samples, w) = t.slot(0, 9);
        // Two Mondays, two samples each: four samples standing for 50 requests each = 200 a Monday 9:00.
        assert_eq!((samples.len(), w), (4, 50.0));
        assert_eq!(t.slot(0, 10).0.len(), 0);
        assert!((t.per_day() - 200.0).abs() < 1e-9);
        // Every day alike: the least swing; days of 2 and 6 samples: the most.
        assert_eq!(t.swing, 0.05);
        let uneven: Vec<(NaiveDate, Vec<(u32, Sample)>)> =
            (0..4).map(|i| (monday + Duration::days(i), vec![(9, s.clone()); if i % 2 == 0 { 2 } else { 6 }])).collect();
        assert_eq!(Traffic::from_recorded(&uneven).swing, 0.5);
    }

    #[test]
    fn a_profile_gives_its_daily_requests_deterministically() {
        let p = TrafficProfile {
            requests_per_day: 1_000_000,
            hourly_shares: Vec::new(),
            format_shares: Default::default(),
            category_shares: [("a".to_string(), 0.5)].into_iter().collect(),
            tag_shares: [("news".to_string(), 0.2)].into_iter().collect(),
            device_container_shares: Default::default(),
        };
        let t = Traffic::from_profile(&p, 7);
        assert!((t.per_day() - 1_000_000.0).abs() < 1.0, "{}", t.per_day());
        let again = Traffic::from_profile(&p, 7);
        assert_eq!(t.slots, again.slots);
        let all: Vec<&Sample> = t.slots.iter().flatten().collect();
        let with_cat = all.iter().filter(|s| s.category.is_some()).count() as f64 / all.len() as f64;
        assert!((with_cat - 0.5).abs() < 0.05, "{with_cat}");
    }
}
