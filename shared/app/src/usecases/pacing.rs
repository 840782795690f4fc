//! Goal pacing (docs/reports.md "Pacing"): the projection of goals to their end from the
//! account's traffic model replayed through the delivery engine (one replay for every goal
//! asked), bounded by each goal's delivery of the last 24 hours; with the days, the plan
//! curve and what was delivered by day (the report cells).

use crate::ids::AccountId;
use std::collections::HashMap;

use chrono::{DateTime, Duration, NaiveDate, Utc};

use super::{UseCaseError, UseCaseResult};
use crate::delivery::pacing::Flight;
use crate::forecast::projection::{self, GoalInput, PacingDay, Projection, HORIZON_DAYS};
use crate::forecast::simulate::{goals_delivery, Series, Window, PACING_REPLAY_PER_HOUR};
use crate::forecast::traffic::{hours, local_day};
use crate::model::account::Account;
use crate::model::campaign::Campaign;
use crate::model::enums::Counter;
use crate::model::goal::Goal;
use crate::repo;
use crate::repo::reference::Kind;
use crate::state::AppState;

/// A goal's pacing: its projection (goals with an end) and, when asked, its days.
#[derive(Debug, Clone)]
pub struct Pacing {
    pub flight: Flight,
    pub projection: Option<Projection>,
    pub days: Vec<PacingDay>,
}

/// What pacing reads of a goal: its flight, target and front-load (the campaign's or the
/// account's when it has none).
pub(crate) fn flight(g: &Goal, c: &Campaign, a: &Account) -> Flight {
    Flight {
        start: g.start.timestamp(),
        end: g.end.map(|e| e.timestamp()),
        target: g.pacing_target(),
        frontload: g.effective_frontload(c, a),
    }
}

/// What the replay gives: per goal id its series with the model's traffic, less and more
/// (by the model's swing), and the window's hours per day.
struct Replay {
    series: HashMap<String, [Series; 3]>,
    day_hours: Vec<u32>,
    traffic: &'static str,
}

async fn replay(st: &AppState, account: &Account, until: DateTime<Utc>, now: DateTime<Utc>) -> UseCaseResult<Replay> {
    let store = st.store.as_ref();
    let (snapshot, pace) = st.delivery.latest(&st.store, &st.blobs, &account.id, &st.settings, now).await?;
    let categories = repo::reference::ids(store, &account.id, Kind::Category).await?;
    let traffic = crate::usecases::forecast_run::traffic(st, account, &categories, now).await?;
    let source = traffic.source;
    let day_hours = {
        let hs = hours(now, until, &snapshot.zone);
        let mut per_day = vec![0u32; hs.last().map_or(0, |h| h.1 + 1)];
        for (_, d, _) in hs {
            per_day[d] += 1;
        }
        per_day
    };
    let seed = account.id.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    let series = tokio::task::spawn_blocking(move || {
        let [model, less, more] = replay_levels(&snapshot, &pace, &traffic, now, until, seed);
        let per_goal = model.into_iter().zip(less).zip(more).map(|((m, l), h)| [m, l, h]);
        snapshot.goals.iter().map(|g| g.id.clone()).zip(per_goal).collect::<HashMap<_, _>>()
    })
    .await
    .map_err(UseCaseError::internal)?;
    Ok(Replay { series, day_hours, traffic: source })
}

/// The engine's replay of the traffic model from `now` to `until` at the model's level and
/// lower and higher by its swing, the three at once (one thread each), at most
/// `PACING_REPLAY_PER_HOUR` samples an hour: per level, every goal's series.
pub fn replay_levels(
    snapshot: &crate::delivery::snapshot::Snapshot,
    pace: &[crate::delivery::pacing::Pace],
    traffic: &crate::forecast::traffic::Traffic,
    now: DateTime<Utc>,
    until: DateTime<Utc>,
    seed: u64,
) -> [Vec<Series>; 3] {
    let run = |scale: f64| {
        goals_delivery(
            snapshot,
            pace,
            &Window {
                start: now,
                end: until,
                traffic,
                seed,
                per_hour: PACING_REPLAY_PER_HOUR,
                scale,
                fills: &crate::forecast::simulate::UNLIMITED,
            },
        )
    };
    std::thread::scope(|s| {
        let less = s.spawn(|| run(1.0 - traffic.swing));
        let more = s.spawn(|| run(1.0 + traffic.swing));
        let model = run(1.0);
        // A replay that panicked panics here too (the request answers 500), never a silent empty band.
        let join = |h: std::thread::ScopedJoinHandle<'_, Vec<Series>>| h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        [model, join(less), join(more)]
    })
}

/// Delivered events per local day of a goal from its report cells (`from`..=`to`).
async fn delivered_by_day(
    st: &AppState,
    account: &AccountId,
    goals: &[&str],
    from: NaiveDate,
    to: NaiveDate,
) -> UseCaseResult<HashMap<String, Vec<(NaiveDate, u32, f64)>>> {
    let mut out: HashMap<String, Vec<(NaiveDate, u32, f64)>> = HashMap::new();
    for cell in crate::usecases::reports::cells(st, account, from, to).await? {
        if goals.contains(&&*cell.at.goal) {
            let n = cell.counters.get(Counter::Delivered) as f64;
            out.entry(cell.at.goal.to_string()).or_default().push((cell.day, cell.at.hour, n));
        }
    }
    Ok(out)
}

/// The pacing of goals (with their campaigns and delivered counters): one replay of the
/// traffic model for all of them; `with_days` adds each goal's days (reading its report
/// cells from its start, at most a year back).
pub async fn pacing(
    st: &AppState,
    account: &Account,
    goals: &[(&Goal, &Campaign, f64)],
    with_days: bool,
) -> UseCaseResult<HashMap<String, Pacing>> {
    let now = st.clock.now();
    let horizon = now + Duration::days(HORIZON_DAYS);
    let until = goals.iter().filter_map(|(g, _, _)| g.end).filter(|e| *e > now).max().map(|e| e.min(horizon));
    let replay = match until {
        Some(u) => Some(replay(st, account, u, now).await?),
        None => None,
    };
    let zone = &account.zone;
    let (today, hour_now) = local_day(zone, now);
    let yesterday = today - Duration::days(1);
    let ids: Vec<&str> = goals.iter().map(|(g, _, _)| g.id.as_str()).collect();
    let earliest = goals.iter().map(|(g, _, _)| local_day(zone, g.start).0).min().unwrap_or(today).max(today - Duration::days(365));
    let cells = delivered_by_day(st, &account.id, &ids, if with_days { earliest.min(yesterday) } else { yesterday }, today).await?;
    let mut out = HashMap::new();
    for (g, c, delivered) in goals {
        let f = flight(g, c, account);
        let mine = cells.get(&g.id).map(Vec::as_slice).unwrap_or_default();
        // The last 24 hours: yesterday after this hour, and today.
        let recent = (now - g.start >= Duration::hours(24))
            .then(|| mine.iter().filter(|(d, h, _)| *d == today || (*d == yesterday && *h > hour_now)).fold(0.0, |sum, (_, _, n)| sum + n));
        let r = replay.as_ref();
        let input = GoalInput {
            flight: f,
            delivered: *delivered,
            engine: r.and_then(|r| r.series.get(&g.id)).map(|[m, l, h]| [m, l, h]),
            day_hours: r.map_or(&[][..], |r| &r.day_hours),
            recent_daily: recent,
            traffic: r.map_or("none", |r| r.traffic),
            now,
        };
        let projected = projection::project(&input);
        let days = if with_days {
            let mut by_day: Vec<(NaiveDate, f64)> = Vec::new();
            for (d, _, n) in mine {
                match by_day.last_mut() {
                    Some((last, v)) if last == d => *v += n,
                    _ => by_day.push((*d, *n)),
                }
            }
            let future = projected.as_ref().map(|(_, fut)| fut.as_slice()).unwrap_or_default();
            projection::days(zone, &f, now, *delivered, &by_day, future)
        } else {
            Vec::new()
        };
        out.insert(g.id.clone(), Pacing { flight: f, projection: projected.map(|(p, _)| p), days });
    }
    Ok(out)
}

/// One goal's pacing with its days (`GET /v3/goals/{id}/pacing`): the goal, its campaign,
/// what it delivered (its `delivered` counter) and its pacing; `None` when the account has
/// no such goal.
pub async fn goal_pacing(st: &AppState, account: &Account, id: &str) -> UseCaseResult<Option<(Goal, Campaign, f64, Pacing)>> {
    let Some((g, c)) = repo::goals::get_any(st.store.as_ref(), &account.id, id).await? else { return Ok(None) };
    let counters = repo::metrics::read(st.store.as_ref(), &account.id, repo::metrics::Level::Goal, std::slice::from_ref(&g.id)).await?;
    let delivered = counters.get(&g.id).map_or(0, |c| c.get(Counter::Delivered)) as f64;
    let mut all = pacing(st, account, &[(&g, &c, delivered)], true).await?;
    Ok(all.remove(&g.id).map(|p| (g, c, delivered, p)))
}
