//! The event aggregation worker: tracking events (SQS on AWS, in batches; in-process
//! locally) become `/v3` metric counters, goal pace records and viewer frequency state,
//! valid and invalid apart (docs/traffic-quality.md, rules in `event_rules`).
//!
//! Exactly once per (impression id, event): a group of events is one transaction holding
//! a marker per event (put only if absent; its body the tracking call's id and verdict),
//! the summed counter additions, and the new pace, frequency, rate and spend records (put
//! only at the version read). Any failed condition means a concurrent worker: re-read and
//! judge again. Nothing is added unless its marker is written in the same transaction.
//!
//! Failures are per message: events are grouped by account, and a group that fails (or
//! an event that waits for its impression) reports only its own messages for redelivery.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use super::event_rules::{self, GoalLimits, Verdict};
use super::{JobError, JobResult};
use crate::delivery::freq::FreqState;
use crate::delivery::ivt::spend_limit;
use crate::delivery::pacing::{local_day_hour, Pace};
use crate::metrics::{AdPath, Deltas};
use crate::model::zone::Zone;
use crate::repo::delivery as rd;
use crate::state::AppState;
use crate::store::{Key, TxOp};

pub use crate::jobs::Event;

pub fn parse(body: &str) -> JobResult<Vec<Event>> {
    Event::parse_message(body).map_err(JobError::Drop)
}

/// Messages the in-process runner counts together (the Lambda's SQS batch is 100).
pub const IN_PROCESS_BATCH: usize = 100;

/// Events per transaction: each adds at most 11 actions (marker, 3 counters, its report
/// cell, pace, frequency, 2 rate and 2 spend records), within DynamoDB's 100.
pub const GROUP: usize = 9;
const ATTEMPTS: usize = 20;

/// What an account's events need besides the records: its zone and goals' limits.
struct AccountCtx {
    zone: Zone,
    goals: HashMap<String, GoalLimits>,
}

/// Counts the events of a batch of messages; returns the indices of the messages to
/// deliver again (their group failed, or an event waits for its impression). Malformed
/// messages are logged and dropped.
pub async fn process_messages(st: &AppState, bodies: &[&str]) -> BTreeSet<usize> {
    let mut events = Vec::new();
    for (i, b) in bodies.iter().enumerate() {
        match parse(b) {
            Ok(list) => events.extend(list.into_iter().map(|mut e| {
                e.message = i;
                e
            })),
            Err(e) => tracing::error!(error = %e, body = %b, "malformed event message dropped"),
        }
    }
    let n = events.len();
    let (counted, failed) = process(st, events).await;
    tracing::info!(events = n, counted, failed_messages = failed.len(), "events counted");
    failed
}

/// Counts events (any accounts, each tagged with its message); returns how many were
/// written and the messages to deliver again.
pub async fn process(st: &AppState, events: Vec<Event>) -> (usize, BTreeSet<usize>) {
    // The same tracking call twice in one batch (a duplicated message) counts once.
    let mut seen = std::collections::HashSet::new();
    let mut by_account: BTreeMap<String, Vec<Event>> = BTreeMap::new();
    for e in events {
        if seen.insert((e.account.clone(), e.impression.clone(), e.counter.clone(), e.id.clone())) {
            by_account.entry(e.account.clone()).or_default().push(e);
        }
    }
    let mut counted = 0;
    let mut failed = BTreeSet::new();
    for (account, events) in by_account {
        let ctx = match account_ctx(st, &account).await {
            Ok(c) => c,
            Err(e) => {
                tracing::warn!(error = %e, account, "account not readable; its events come back");
                failed.extend(events.iter().map(|e| e.message));
                continue;
            }
        };
        for group in events.chunks(GROUP) {
            match commit_group(st, group, &ctx).await {
                Ok((n, wait)) => {
                    counted += n;
                    failed.extend(wait);
                }
                Err(e) => {
                    tracing::warn!(error = %e, account, "an event group was not counted; its messages come back");
                    failed.extend(group.iter().map(|e| e.message));
                }
            }
        }
    }
    (counted, failed)
}

async fn account_ctx(st: &AppState, account: &str) -> JobResult<AccountCtx> {
    let (snapshot, _) = st.delivery.current(st.store.as_ref(), account, &st.settings, st.clock.now()).await?;
    let zone = snapshot.zone.clone();
    let goals = snapshot
        .goals
        .iter()
        .map(|g| {
            let limits = GoalLimits {
                total: spend_limit(g.caps.total, crate::delivery::ivt::GOAL_TOTAL_SHARE),
                daily: spend_limit(g.caps.daily, crate::delivery::ivt::GOAL_DAILY_SHARE),
                end: g.end,
            };
            (g.id.clone(), limits)
        })
        .collect();
    Ok(AccountCtx { zone, goals })
}

async fn backoff(attempt: usize) {
    let ms = 5u64 << attempt.min(6);
    tokio::time::sleep(std::time::Duration::from_millis(ms / 2 + u64::from(uuid::Uuid::new_v4().as_bytes()[0]) % (ms / 2 + 1))).await;
}

/// One group of one account's events: judged and written in one transaction. Returns how
/// many were counted and the messages of events waiting for their impression.
async fn commit_group(st: &AppState, group: &[Event], ctx: &AccountCtx) -> JobResult<(usize, BTreeSet<usize>)> {
    let store = st.store.as_ref();
    let now = st.clock.now().timestamp();
    let limits = |e: &Event| ctx.goals.get(&e.goal).copied().unwrap_or_default();
    let local_day = |e: &Event| local_day_hour(e.at, ctx.zone.offset_at(e.at)).0;
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            backoff(attempt).await;
        }
        let found = rd::versioned_many(store, &event_rules::keys_to_read(group)).await?;
        let (verdicts, tallies) = event_rules::judge(group, &found, now, &limits, &local_day);
        let wait: BTreeSet<usize> = group.iter().zip(&verdicts).filter(|(_, v)| **v == Verdict::Wait).map(|(e, _)| e.message).collect();
        let counted: Vec<(&Event, Option<crate::delivery::ivt::Reason>, &Key)> = group
            .iter()
            .zip(&verdicts)
            .filter_map(|(e, v)| match v {
                Verdict::Count { reason, marker } => Some((e, *reason, marker)),
                _ => None,
            })
            .collect();
        if counted.is_empty() {
            return Ok((0, wait));
        }
        let mut ops: Vec<TxOp> =
            counted.iter().map(|(e, r, k)| rd::marker_op((*k).clone(), &e.id, r.map_or("", |r| r.as_str()), e.at.max(now))).collect();
        ops.extend(counter_ops(&counted));
        ops.extend(report_ops(&counted, ctx));
        ops.extend(pace_and_freq_ops(store, &counted, ctx).await?);
        for (k, (tally, version, expires)) in &tallies.rates {
            ops.push(versioned_with_ttl(k, tally, *version, *expires)?);
        }
        for (k, (spend, version, expires)) in &tallies.spends {
            ops.push(versioned_with_ttl(k, spend, *version, *expires)?);
        }
        match store.transact(ops).await {
            Ok(()) => return Ok((counted.len(), wait)),
            Err(crate::store::StoreError::TransactionCanceled { .. }) | Err(crate::store::StoreError::ConditionFailed) => {
                tracing::debug!(attempt, "an event group lost a race; judged again");
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(JobError::from("event group kept losing races; the message will be delivered again"))
}

fn versioned_with_ttl<T: serde::Serialize>(key: &Key, value: &T, version: u64, expires: i64) -> JobResult<TxOp> {
    Ok(match rd::put_versioned(key.clone(), value, version)? {
        TxOp::Put(mut item, cond) => {
            item.expires_at = Some(expires);
            TxOp::Put(item, cond)
        }
        other => other,
    })
}

/// The counter additions: valid events to their counters (and `delivered`), invalid ones
/// to `invalid_<reason>`; summed per ad.
fn counter_ops(counted: &[(&Event, Option<crate::delivery::ivt::Reason>, &Key)]) -> Vec<TxOp> {
    let Some((first, _, _)) = counted.first() else { return Vec::new() };
    let mut per_ad: BTreeMap<AdPath, Deltas> = BTreeMap::new();
    for (e, reason, _) in counted {
        let path = AdPath { campaign: e.campaign.clone(), goal: e.goal.clone(), ad: e.ad.clone() };
        let d = per_ad.entry(path).or_default();
        match reason {
            None => {
                d.push((e.counter.clone(), 1));
                if e.delivered {
                    d.push(("delivered".into(), 1));
                }
            }
            Some(r) => d.push((r.counter(), 1)),
        }
    }
    crate::metrics::add_ops(&first.account, &per_ad.into_iter().collect::<Vec<_>>())
}

/// The additions to the report cells (docs/reports.md): the same counter names as the
/// metrics, summed per cell.
fn report_ops(counted: &[(&Event, Option<crate::delivery::ivt::Reason>, &Key)], ctx: &AccountCtx) -> Vec<TxOp> {
    let names = counted.iter().flat_map(|(e, reason, _)| {
        let names: Vec<String> = match reason {
            None if e.delivered => vec![e.counter.clone(), "delivered".into()],
            None => vec![e.counter.clone()],
            Some(r) => vec![r.counter()],
        };
        names.into_iter().map(move |n| (*e, n))
    });
    crate::repo::reports::add_ops(names, &|at| ctx.zone.offset_at(at))
}

/// The pace records of the goals with valid deliveries and the frequency states of the
/// viewers with valid impressions, at the versions read.
async fn pace_and_freq_ops(
    store: &dyn crate::store::Store,
    counted: &[(&Event, Option<crate::delivery::ivt::Reason>, &Key)],
    ctx: &AccountCtx,
) -> JobResult<Vec<TxOp>> {
    let valid: Vec<&Event> = counted.iter().filter(|(_, r, _)| r.is_none()).map(|(e, _, _)| *e).collect();
    let mut paces: BTreeMap<&str, Vec<&Event>> = BTreeMap::new();
    let mut viewers: BTreeMap<&str, Vec<&Event>> = BTreeMap::new();
    for e in &valid {
        if e.counter == "impression" || e.delivered {
            paces.entry(e.goal.as_str()).or_default().push(e);
        }
        if let (Some(v), true) = (&e.viewer, e.counter == "impression") {
            viewers.entry(v.as_str()).or_default().push(e);
        }
    }
    let Some(account) = valid.first().map(|e| e.account.as_str()) else { return Ok(Vec::new()) };
    let keys: Vec<Key> = paces.keys().map(|g| rd::pace_key(account, g)).chain(viewers.keys().map(|v| rd::freq_key(account, v))).collect();
    let found = rd::versioned_many(store, &keys).await?;
    let mut ops = Vec::new();
    for (g, evs) in &paces {
        let (mut pace, version): (Pace, u64) = rd::decode_or_default(&found, &rd::pace_key(account, g))?;
        for e in evs {
            let (day, hour) = local_day_hour(e.at, ctx.zone.offset_at(e.at));
            pace.add(day, hour, u64::from(e.counter == "impression"), u64::from(e.delivered));
        }
        ops.push(rd::put_versioned(rd::pace_key(account, g), &pace, version)?);
    }
    for (v, evs) in &viewers {
        let (mut freq, version): (FreqState, u64) = rd::decode_or_default(&found, &rd::freq_key(account, v))?;
        for e in evs {
            freq.record(&[format!("c:{}", e.campaign), format!("g:{}", e.goal)], e.at);
        }
        ops.push(rd::put_versioned(rd::freq_key(account, v), &freq, version)?);
    }
    Ok(ops)
}
