//! A goal's pacing (docs/reports.md "Pacing"): its plan curve, what it delivered by day, and
//! the projection to its end, pure. The projection is the forecast engine's replay of the
//! account's traffic model from now on (`simulate::goals_delivery`: the decisions serving
//! makes, with today's pace records, so competition, caps and pacing are in it), scaled
//! down to the goal's delivery of the last 24 hours when that was less than the model
//! says it could have: a goal does not suddenly deliver more than it just did. The band is
//! the same replay with the traffic lower and higher by the model's swing (its recorded
//! days' day-to-day variation, `Traffic::swing`), scaled alike.

use chrono::{DateTime, Duration, NaiveDate, TimeZone, Utc};
use serde::Serialize;

use super::simulate::Series;
use crate::delivery::pacing::{ideal_delivery, Flight};
use crate::model::zone::Zone;

/// How far ahead the engine replays traffic (a quarter); later days of a longer flight
/// continue at the mean of the last replayed week.
pub const HORIZON_DAYS: i64 = 93;
/// A pacing view lists at most this many days of a flight (from its start).
pub const MAX_DAYS: usize = 400;

/// What bounded the projection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum Basis {
    /// The engine's replay of the traffic model.
    TrafficModel,
    /// The goal's delivery of the last 24 hours (lower than the model's).
    RecentDelivery,
    /// The goal takes no request (not in the delivery snapshot: disabled, ended, no ad).
    NotServing,
    /// The flight has ended: what it delivered is final.
    Ended,
}

/// A goal's projection to its end (counts of its delivered event).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Projection {
    /// Delivered to date (the goal's `delivered` counter).
    pub delivered: f64,
    /// Where the plan curve is now (`None`: no target or no end).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan_to_date: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<f64>,
    /// Expected by the end, and the band's low and high.
    pub expected: f64,
    pub low: f64,
    pub high: f64,
    /// Target minus expected, when short; expected minus target, when over.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shortfall: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overage: Option<f64>,
    pub basis: Basis,
    /// `recorded` (the last 14 days of sampled requests) or `profile` (the account's
    /// traffic profile, or the default one, when nothing was recorded).
    pub traffic: String,
    /// The model's delivery per day for this goal (its first replayed 24 hours).
    pub model_daily: f64,
    /// The goal's delivery in the last 24 hours (`None`: it has run less than a day).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recent_daily: Option<f64>,
    /// The end the projection runs to.
    pub end: DateTime<Utc>,
}

/// One local day of the flight: the plan (cumulative, at the day's end), what was
/// delivered by its end (past days and today), the projection and its band (today on).
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PacingDay {
    pub date: NaiveDate,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivered: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub expected: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub high: Option<f64>,
}

/// What the projection of one goal reads.
pub struct GoalInput<'a> {
    pub flight: Flight,
    pub delivered: f64,
    /// The engine's series for this goal from today with the model's traffic, and with
    /// less and more traffic (`None`: the goal takes no request).
    pub engine: Option<[&'a Series; 3]>,
    /// The window's hours per day (today first).
    pub day_hours: &'a [u32],
    pub recent_daily: Option<f64>,
    pub traffic: &'a str,
    pub now: DateTime<Utc>,
}

/// Per future day (today first): expected, low, high delivery, and the basis.
fn future(g: &GoalInput<'_>, end: i64) -> (Vec<(f64, f64, f64)>, Basis, f64) {
    let Some([engine, less, more]) = g.engine else { return (Vec::new(), Basis::NotServing, 0.0) };
    let at = |s: &Series, d: usize| s.value.get(d).copied().unwrap_or(0.0);
    let days: Vec<(f64, f64, f64)> = (0..engine.value.len())
        .map(|d| {
            let e = at(engine, d);
            (e, at(less, d).min(e), at(more, d).max(e))
        })
        .collect();
    // The model's rate over its first 24 replayed hours.
    let first_hours: u32 = g.day_hours.iter().take(2).sum();
    let first_value: f64 = days.iter().take(2).map(|d| d.0).sum();
    let model_daily = if first_hours == 0 { 0.0 } else { first_value * 24.0 / f64::from(first_hours) };
    let replayed_hours: u32 = g.day_hours.iter().sum();
    let model_total: f64 = days.iter().map(|d| d.0).sum();
    // Days past the replay's horizon continue at the mean of its last week.
    let beyond_hours = ((end - g.now.timestamp()) / 3600 - i64::from(replayed_hours)).max(0) as f64;
    let last_week: Vec<&(f64, f64, f64)> = days.iter().rev().take(7).collect();
    let mean = |f: fn(&(f64, f64, f64)) -> f64| last_week.iter().map(|d| f(d)).sum::<f64>() / last_week.len().max(1) as f64;
    let tail = (mean(|d| d.0) * beyond_hours / 24.0, mean(|d| d.1) * beyond_hours / 24.0, mean(|d| d.2) * beyond_hours / 24.0);
    let recent_total = g.recent_daily.map(|r| r * (f64::from(replayed_hours) + beyond_hours) / 24.0);
    let (scale, basis) = match recent_total {
        Some(r) if r < model_total + tail.0 && model_total + tail.0 > 0.0 => (r / (model_total + tail.0), Basis::RecentDelivery),
        _ => (1.0, Basis::TrafficModel),
    };
    let mut out: Vec<(f64, f64, f64)> = days.iter().map(|(e, l, h)| (e * scale, l * scale, h * scale)).collect();
    if let Some(last) = out.last_mut() {
        last.0 += tail.0 * scale;
        last.1 += tail.1 * scale;
        last.2 += tail.2 * scale;
    }
    (out, basis, model_daily)
}

/// Per future day (today first): expected, low and high delivery.
pub type FutureDays = Vec<(f64, f64, f64)>;

/// The projection of a goal with an end (`None`: an open-ended goal has no end to reach).
pub fn project(g: &GoalInput<'_>) -> Option<(Projection, FutureDays)> {
    let end = g.flight.end?;
    let now = g.now.timestamp();
    let (days, basis, model_daily) = if now >= end { (Vec::new(), Basis::Ended, 0.0) } else { future(g, end) };
    let sum = |f: fn(&(f64, f64, f64)) -> f64| g.delivered + days.iter().map(f).sum::<f64>();
    let (mut expected, mut low, mut high) = (sum(|d| d.0), sum(|d| d.1), sum(|d| d.2));
    if let Some(t) = g.flight.target {
        // Pacing stops a goal at its target (the replay does too; the band's high may not).
        expected = expected.min(t.max(g.delivered));
        high = high.min(t.max(g.delivered));
        low = low.min(expected);
    }
    let round = |v: f64| v.round();
    let (expected, low, high) = (round(expected), round(low), round(high));
    let target = g.flight.target;
    Some((
        Projection {
            delivered: g.delivered,
            plan_to_date: ideal_delivery(&g.flight, now.min(end)).map(round),
            target,
            expected,
            low,
            high,
            shortfall: target.filter(|t| expected < *t).map(|t| t - expected),
            overage: target.filter(|t| expected > *t).map(|t| expected - t),
            basis,
            traffic: g.traffic.to_string(),
            model_daily: round(model_daily),
            recent_daily: g.recent_daily.map(round),
            end: DateTime::from_timestamp(end, 0).unwrap_or(g.now),
        },
        days,
    ))
}

/// The UTC instant a local day ends (the next local midnight).
fn day_end(zone: &Zone, d: NaiveDate) -> i64 {
    let next = (d + Duration::days(1)).and_hms_opt(0, 0, 0).unwrap_or_default();
    zone.from_local_datetime(&next).earliest().map_or_else(|| next.and_utc().timestamp(), |t| t.timestamp())
}

/// The flight's days (local, at most `MAX_DAYS`): plan, delivered by each past day's end
/// (`delivered_by_day`: the goal's delivered events per local day, from the report cells),
/// and the projection from today on (`future`: per day from today, from `project`).
pub fn days(
    zone: &Zone,
    flight: &Flight,
    now: DateTime<Utc>,
    delivered_total: f64,
    delivered_by_day: &[(NaiveDate, f64)],
    future: &[(f64, f64, f64)],
) -> Vec<PacingDay> {
    let local = |t: i64| DateTime::from_timestamp(t, 0).unwrap_or(now).with_timezone(zone).date_naive();
    let first = local(flight.start);
    let today = local(now.timestamp());
    let last = flight.end.map_or(today, |e| local(e - 1)).max(today.min(first));
    // Events counted before report cells existed are added on the first day.
    let in_cells: f64 = delivered_by_day.iter().map(|(_, v)| v).sum();
    let mut cumulative = (delivered_total - in_cells).max(0.0);
    let mut projected = delivered_total;
    let mut band = (delivered_total, delivered_total);
    let mut out = Vec::new();
    for date in first.iter_days().take_while(|d| *d <= last).take(MAX_DAYS) {
        let until = flight.end.map_or(day_end(zone, date), |e| day_end(zone, date).min(e));
        let mut day =
            PacingDay { date, plan: ideal_delivery(flight, until).map(f64::round), delivered: None, expected: None, low: None, high: None };
        if date <= today {
            cumulative += delivered_by_day.iter().filter(|(d, _)| *d == date).map(|(_, v)| v).sum::<f64>();
            day.delivered = Some(cumulative.round());
        }
        if date >= today {
            let k = (date - today).num_days() as usize;
            if let Some((e, l, h)) = future.get(k) {
                projected += e;
                band.0 += l;
                band.1 += h;
            }
            let cap = |v: f64| flight.target.map_or(v, |t| v.min(t.max(delivered_total)));
            day.expected = Some(cap(projected).round());
            day.low = Some(cap(band.0).min(cap(projected)).round());
            day.high = Some(cap(band.1).round());
        }
        out.push(day);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn series(per_day: &[f64]) -> Series {
        Series { value: per_day.to_vec(), samples: per_day.iter().map(|_| 100).collect() }
    }

    fn input<'a>(engine: Option<[&'a Series; 3]>, hours: &'a [u32], recent: Option<f64>) -> GoalInput<'a> {
        let now = DateTime::from_timestamp(1_795_600_000, 0).unwrap();
        GoalInput {
            flight: Flight {
                start: now.timestamp() - 86_400,
                end: Some(now.timestamp() + 4 * 86_400),
                target: Some(10_000.0),
                frontload: 0,
            },
            delivered: 1_000.0,
            engine,
            day_hours: hours,
            recent_daily: recent,
            traffic: "profile",
            now,
        }
    }

    #[test]
    fn the_model_projects_what_traffic_can_deliver() {
        let s = series(&[500.0, 1_000.0, 1_000.0, 1_000.0, 500.0]);
        let (less, more) = (series(&[400.0, 800.0, 800.0, 800.0, 400.0]), series(&[600.0, 1_200.0, 1_200.0, 1_200.0, 600.0]));
        let hours = [12, 24, 24, 24, 12];
        let (p, days) = project(&input(Some([&s, &less, &more]), &hours, None)).unwrap();
        assert_eq!((p.expected, p.basis), (5_000.0, Basis::TrafficModel));
        assert_eq!(p.shortfall, Some(5_000.0));
        assert_eq!((p.low, p.high), (4_200.0, 5_800.0), "{p:?}");
        assert_eq!(p.model_daily, 1_000.0);
        assert_eq!(days.len(), 5);
        // Ample traffic: the target, never beyond it.
        let big = series(&[50_000.0; 5]);
        let (p, _) = project(&input(Some([&big, &big, &big]), &hours, None)).unwrap();
        assert_eq!((p.expected, p.high, p.overage), (10_000.0, 10_000.0, None));
    }

    #[test]
    fn a_goal_that_delivered_less_than_the_model_is_projected_at_its_recent_rate() {
        let s = series(&[500.0, 1_000.0, 1_000.0, 1_000.0, 500.0]);
        let (p, _) = project(&input(Some([&s, &s, &s]), &[12, 24, 24, 24, 12], Some(100.0))).unwrap();
        // 96 hours left at 100 a day: 400 more.
        assert_eq!((p.expected, p.basis, p.recent_daily), (1_400.0, Basis::RecentDelivery, Some(100.0)));
        // A goal outside the snapshot delivers nothing more; an ended one is final.
        let (p, _) = project(&input(None, &[], None)).unwrap();
        assert_eq!((p.expected, p.basis), (1_000.0, Basis::NotServing));
        let mut ended = input(None, &[], None);
        ended.now += Duration::days(10);
        assert_eq!(project(&ended).unwrap().0.basis, Basis::Ended);
        let mut open = input(None, &[], None);
        open.flight.end = None;
        assert!(project(&open).is_none());
    }

    #[test]
    fn days_hold_the_plan_the_delivered_and_the_projection() {
        let zone = Zone::default();
        let now = DateTime::from_timestamp(1_795_600_000, 0).unwrap(); // 2026-11-25T10:13Z
        let f = Flight { start: now.timestamp() - 86_400, end: Some(now.timestamp() + 2 * 86_400), target: Some(1_000.0), frontload: 0 };
        let today = now.date_naive();
        let by_day = [(today - Duration::days(1), 200.0), (today, 100.0)];
        let d = days(&zone, &f, now, 350.0, &by_day, &[(100.0, 80.0, 120.0), (300.0, 250.0, 350.0), (100.0, 90.0, 110.0)]);
        assert_eq!(d.len(), 4);
        assert_eq!((d[0].delivered, d[0].expected), (Some(250.0), None), "50 counted before cells, on the first day");
        assert_eq!((d[1].delivered, d[1].expected), (Some(350.0), Some(450.0)));
        assert_eq!((d[3].delivered, d[3].expected, d[3].plan), (None, Some(850.0), Some(1_000.0)));
        assert!(d.windows(2).all(|w| w[0].plan <= w[1].plan));
    }
}
