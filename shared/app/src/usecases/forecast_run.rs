//! Running a forecast job (docs/forecasts.md): the account's records and traffic read, the
//! proposal added, the simulation run off the async threads under a progress watcher that
//! also sees a cancel, and the report written with the job's end in one transaction.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::Arc;

use chrono::{DateTime, Duration, Utc};
use sha2::{Digest, Sha256};

use super::{UseCaseError, UseCaseResult};
use crate::delivery::pacing::Pace;
use crate::delivery::snapshot::{compile, Input, Snapshot};
use crate::forecast::report_schema::Report;
use crate::forecast::traffic::{default_profile, local_day, window_days, Traffic};
use crate::forecast::{proposal, report, simulate};
use crate::jobs::ForecastMessage;
use crate::model::account::Account;
use crate::model::enums::{ForecastStatus, GoalType};
use crate::model::rules::Rules;
use crate::repo::forecasts::{self as jobs, Changed, ForecastRequest, Job};
use crate::state::AppState;

/// A report's JSON may be at most this long before packing (the packed record must also
/// fit one store item: `MAX_ITEM_BYTES`).
pub const MAX_REPORT_JSON_BYTES: usize = 8 * 1024 * 1024;

/// The traffic of the last 14 full local days, or the account's profile when none was
/// recorded (docs/forecasts.md).
pub async fn traffic(st: &AppState, account: &Account, categories: &[String], now: DateTime<Utc>) -> UseCaseResult<Traffic> {
    let store = st.store.as_ref();
    let (today, _) = local_day(&account.zone, now);
    let mut days = Vec::new();
    for k in (1..=14).rev() {
        let day = today - Duration::days(k);
        let samples = jobs::samples_of_day(store, &account.id, day).await?;
        if !samples.is_empty() {
            days.push((day, samples));
        }
    }
    if !days.is_empty() {
        return Ok(Traffic::from_recorded(&days));
    }
    let profile = account.traffic_profile.clone().unwrap_or_else(|| default_profile(account, categories));
    Ok(Traffic::from_profile(&profile, seed_of(account.id.as_bytes())))
}

fn seed_of(bytes: &[u8]) -> u64 {
    let d = Sha256::digest(bytes);
    u64::from_le_bytes([d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]])
}

fn pace_of(s: &Snapshot, paces: &HashMap<String, (Pace, u64)>) -> Vec<Pace> {
    s.goals.iter().map(|g| paces.get(&g.id).map(|(p, _)| p.clone()).unwrap_or_default()).collect()
}

fn names(input: &Input) -> report::Names {
    let campaigns = input.campaigns.iter().map(|c| (c.id.clone(), c.name.clone())).collect();
    let goals = input
        .goals
        .iter()
        .map(|g| {
            let c = input.campaigns.iter().find(|c| c.id == g.campaign_id);
            let priority = match (c, input.account.as_ref()) {
                (Some(c), Some(a)) => g.effective_priority(c, a),
                _ => g.priority.unwrap_or(5),
            };
            (g.id.clone(), (g.name.clone(), g.campaign_id.clone(), priority))
        })
        .collect();
    report::Names { goals, campaigns }
}

/// How long before the invocation's deadline a simulation stops, so that its job can be
/// marked FAILED (and its message deleted) before the Lambda is killed.
pub const DEADLINE_MARGIN: std::time::Duration = std::time::Duration::from_secs(30);

/// The message of a job stopped at its deadline.
pub const DEADLINE_MESSAGE: &str = "the forecast did not finish within the time limit; narrow the window, the formats or the targeting";

/// Simulations run at once in this process (the local server runs every job in process):
/// half the cores, at least one; the others wait, so the API keeps its latency.
fn simulations() -> &'static tokio::sync::Semaphore {
    static S: std::sync::OnceLock<tokio::sync::Semaphore> = std::sync::OnceLock::new();
    S.get_or_init(|| tokio::sync::Semaphore::new(max_simulations()))
}

/// The bound of `simulations`.
pub fn max_simulations() -> usize {
    (std::thread::available_parallelism().map_or(1, |n| n.get()) / 2).max(1)
}

static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static PEAK: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// The most simulations this process has run at once (for the tests and the bench).
pub fn peak_simulations() -> usize {
    PEAK.load(Ordering::Relaxed)
}

/// Why a simulation stopped before its end.
enum Stopped {
    /// The job was cancelled (or ended) meanwhile.
    Cancelled,
    /// The invocation's deadline is near.
    Deadline,
}

/// Runs `work` off the async threads (at most `max_simulations` at once) while a watcher
/// writes its progress to the job and stops it when the job is cancelled or the
/// invocation's deadline is `DEADLINE_MARGIN` away.
async fn supervised<T: Send + 'static>(
    st: &AppState,
    job: &Job,
    work: impl FnOnce(&dyn Fn(f64) -> bool) -> Option<T> + Send + 'static,
) -> UseCaseResult<Result<T, Stopped>> {
    let cutoff = st.deadline.map(|d| d.checked_sub(DEADLINE_MARGIN).unwrap_or(d));
    let past = move || cutoff.is_some_and(|c| std::time::Instant::now() >= c);
    let _permit = simulations().acquire().await.map_err(UseCaseError::internal)?;
    if past() {
        return Ok(Err(Stopped::Deadline));
    }
    let running = RUNNING.fetch_add(1, Ordering::Relaxed) + 1;
    PEAK.fetch_max(running, Ordering::Relaxed);
    let progress = Arc::new(AtomicU8::new(0));
    let cancel = Arc::new(AtomicBool::new(false));
    let done = Arc::new(AtomicBool::new(false));
    let (p, c) = (progress.clone(), cancel.clone());
    let task = tokio::task::spawn_blocking(move || {
        let report = move |share: f64| {
            p.store((share * 100.0).clamp(0.0, 99.0) as u8, Ordering::Relaxed);
            !c.load(Ordering::Relaxed) && !past()
        };
        work(&report)
    });
    let (store, clock, account, id, d, c2) =
        (st.store.clone(), st.clock.clone(), job.account.clone(), job.id.clone(), done.clone(), cancel.clone());
    let watcher = tokio::spawn(async move {
        let mut last = 0;
        while !d.load(Ordering::Relaxed) {
            tokio::time::sleep(std::time::Duration::from_millis(300)).await;
            let now = progress.load(Ordering::Relaxed);
            if now == last {
                // Still look for a cancel.
                if let Ok(Some(j)) = jobs::get(store.as_ref(), &account, &id, clock.now()).await {
                    if j.value.status.is_final() {
                        c2.store(true, Ordering::Relaxed);
                    }
                }
                continue;
            }
            last = now;
            match jobs::update(store.as_ref(), &account, &id, clock.now(), |j| {
                j.status = ForecastStatus::Processing;
                j.progress = now;
            })
            .await
            {
                Ok(Changed::Ended(_)) => c2.store(true, Ordering::Relaxed),
                Ok(Changed::Now(_)) => {}
                Err(e) => tracing::warn!(error = %e, "forecast progress not written"),
            }
        }
    });
    let out = task.await.map_err(|e| UseCaseError::internal_msg(format!("simulation task: {e}")));
    RUNNING.fetch_sub(1, Ordering::Relaxed);
    done.store(true, Ordering::Relaxed);
    let _ = watcher.await;
    Ok(match out? {
        Some(v) => Ok(v),
        None if past() => Err(Stopped::Deadline),
        None => Err(Stopped::Cancelled),
    })
}

/// The end of a stopped simulation: a deadline fails the job with the reason.
async fn stopped(st: &AppState, job: &Job, why: Stopped) -> UseCaseResult<Outcome> {
    match why {
        Stopped::Cancelled => Ok(Outcome::Skipped),
        Stopped::Deadline => fail(st, job, DEADLINE_MESSAGE.into()).await,
    }
}

async fn fail(st: &AppState, job: &Job, message: String) -> UseCaseResult<Outcome> {
    tracing::warn!(job = %job.id, %message, "forecast failed");
    let now = st.clock.now();
    jobs::update(st.store.as_ref(), &job.account, &job.id, now, |j| {
        j.status = ForecastStatus::Failed;
        j.message = Some(message.clone());
        j.finished = Some(now);
    })
    .await?;
    Ok(Outcome::Failed(message))
}

/// How a run ended.
#[derive(Debug, PartialEq)]
pub enum Outcome {
    /// The report is written and the job FINISHED.
    Finished,
    /// The job is FAILED with this message.
    Failed(String),
    /// Nothing to do: the job is gone, had ended (a redelivery), or was cancelled meanwhile.
    Skipped,
}

/// Runs one job (`run_job`) and frees its quota slot when it has ended.
pub async fn run(st: &AppState, m: &ForecastMessage) -> UseCaseResult<Outcome> {
    let outcome = run_job(st, m).await?;
    crate::repo::forecast_slots::release(st.store.as_ref(), &m.account, &m.job).await?;
    Ok(outcome)
}

/// Runs one job: QUEUED → PREPARING_SIMULATION (records and traffic read) → PROCESSING
/// (the simulation, progress written every ~300 ms, a cancel seen there stops it) →
/// FINISHED with the report, or FAILED with the reason. A job that ended does nothing.
async fn run_job(st: &AppState, m: &ForecastMessage) -> UseCaseResult<Outcome> {
    let store = st.store.as_ref();
    let now = st.clock.now();
    let Some(cur) = jobs::get(store, &m.account, &m.job, now).await? else {
        tracing::info!(job = %m.job, "forecast job gone (expired or unknown); message dropped");
        return Ok(Outcome::Skipped);
    };
    if cur.value.status.is_final() {
        return Ok(Outcome::Skipped);
    }
    let Changed::Now(job) = jobs::update(store, &m.account, &m.job, now, |j| {
        j.status = ForecastStatus::Preparing;
        j.progress = 0;
    })
    .await?
    else {
        return Ok(Outcome::Skipped);
    };
    let crate::repo::delivery::State { version, paces, .. } = crate::repo::delivery::state(store, &m.account).await?;
    let input = crate::repo::snapshot_load::load(
        store,
        &m.account,
        version,
        &st.settings.media_base_url,
        crate::caches::bound(&st.settings),
        st.clock.now(),
    )
    .await?;
    let Some(account) = input.account.clone() else {
        return fail(st, &job, "the account no longer exists".into()).await;
    };
    let templates: HashMap<String, Rules> =
        crate::repo::templates::all(store, &m.account).await?.into_iter().map(|t| (t.id, t.rules)).collect();
    let categories: Vec<String> = input.categories.iter().map(|c| c.id.clone()).collect();
    let mut traffic = traffic(st, &account, &categories, now).await?;
    // The seed of the request as stored (its JSON with sorted keys), so the same request
    // gives the same forecast.
    let seed = seed_of(serde_json::to_value(&job.request).map_err(UseCaseError::internal)?.to_string().as_bytes());
    let names = names(&input);

    let report = match &job.request {
        ForecastRequest::Inventory(req) => {
            if let Some(per_day) = req.traffic_estimate {
                traffic.rescale(per_day as f64);
            }
            let mut input = input;
            proposal::add_probe(&mut input, req, &templates, now);
            let s = compile(input, now);
            let pace = pace_of(&s, &paces);
            let (fills, basis) = super::fill_rates::recorded(st, &s, now).await?;
            let Some(&probe) = s.goal_index.get(proposal::PROBE) else {
                return fail(st, &job, "the forecast's targeting could not be compiled".into()).await;
            };
            let formats: Vec<_> = req.format_types.iter().filter_map(|f| f.ad_format()).collect();
            // Formats the engine does not serve (seekroll, overlay, companion) have no inventory.
            let (start, end, dcs) = (req.start, req.end, req.device_containers.clone());
            let source = traffic.source;
            let result = supervised(st, &job, move |progress| {
                let w = simulate::Window {
                    start,
                    end,
                    traffic: &traffic,
                    seed,
                    per_hour: simulate::MAX_REPLAY_PER_HOUR,
                    scale: 1.0,
                    fills: &fills,
                };
                let inv = simulate::inventory(&s, &pace, probe, &formats, &dcs, &w, &mut |p| progress(p))?;
                let days = window_days(start, end, &s.zone);
                Some((inv, days))
            })
            .await?;
            let (inv, days) = match result {
                Ok(r) => r,
                Err(why) => return stopped(st, &job, why).await,
            };
            let mut r = report::inventory(req.name.as_deref(), &job.id, &inv, &days, source);
            r.programmatic_basis = basis;
            Report::Inventory(r)
        }
        ForecastRequest::Campaign(req) => {
            // A running campaign proposed again: its own goals leave the competition.
            let mut input = input;
            if let Some(replaced) = &req.replaces {
                input.campaigns.retain(|c| c.id != *replaced);
            }
            let mut with = input.clone();
            let ids = proposal::add_campaign(&mut with, req, &templates, now);
            let base = compile(input, now);
            let all = compile(with, now);
            let (fills, basis) = super::fill_rates::recorded(st, &all, now).await?;
            let proposed: Vec<u32> = ids.iter().filter_map(|id| all.goal_index.get(id).copied()).collect();
            let pace0: HashMap<String, Pace> = paces.into_iter().map(|(k, (p, _))| (k, p)).collect();
            let start = req.goals.iter().map(|g| g.start).min().unwrap_or(now);
            let end = req.goals.iter().map(|g| g.end).max().unwrap_or(now);
            let source = traffic.source;
            let targets: Vec<Option<f64>> = req.goals.iter().map(|g| (g.goal_type != GoalType::Rtb).then_some(g.value)).collect();
            let result = supervised(st, &job, move |progress| {
                let w = simulate::Window {
                    start,
                    end,
                    traffic: &traffic,
                    seed,
                    per_hour: simulate::MAX_REPLAY_PER_HOUR,
                    scale: 1.0,
                    fills: &fills,
                };
                let (res, day_samples) = simulate::campaign(&base, &all, &pace0, &proposed, &w, &mut |p| progress(p))?;
                let days = window_days(start, end, &all.zone);
                let competing: Vec<Vec<(String, f64)>> = res
                    .iter()
                    .map(|r| {
                        let mut v: Vec<(String, f64)> = r.competing.iter().map(|(g, u)| (all.goals[*g as usize].id.clone(), *u)).collect();
                        v.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
                        v.truncate(20);
                        v
                    })
                    .collect();
                Some((res, day_samples, days, competing))
            })
            .await?;
            let (res, day_samples, days, competing) = match result {
                Ok(r) => r,
                Err(why) => return stopped(st, &job, why).await,
            };
            let results = report::CampaignResults {
                results: &res,
                targets: &targets,
                days: &days,
                day_samples: &day_samples,
                competing: &competing,
                names: &names,
            };
            let mut r = report::campaign(&req.echo, &job.id, &results, source);
            r.programmatic_basis = basis;
            Report::Campaign(r)
        }
    };
    if serde_json::to_string(&report).map_err(UseCaseError::internal)?.len() > MAX_REPORT_JSON_BYTES {
        return fail(st, &job, "the report would be too large; forecast fewer goals or a shorter window".into()).await;
    }
    match jobs::finish(store, &m.account, &m.job, &report, st.clock.now()).await {
        Ok(true) => {
            tracing::info!(job = %m.job, kind = %job.kind, "forecast finished");
            Ok(Outcome::Finished)
        }
        Ok(false) => {
            tracing::info!(job = %m.job, "forecast ended meanwhile (cancelled); report dropped");
            Ok(Outcome::Skipped)
        }
        Err(crate::repo::RepoError::TooLarge(_)) => {
            fail(st, &job, "the report is over the 400 KB record limit; forecast fewer goals or a shorter window".into()).await
        }
        Err(e) => Err(e.into()),
    }
}
