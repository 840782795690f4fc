//! The event aggregation worker: tracking events (SQS on AWS, in batches; in-process
//! locally) become `/v3` metric counters, goal pace records and viewer frequency state.
//!
//! Exactly once per (impression id, event): a group of events is one transaction holding
//! a marker per event (put only if absent), the summed counter additions, and the new pace
//! and frequency records (put only at the version read). A marker that exists means the
//! event was counted before (a replayed link or an SQS redelivery): that event leaves the
//! group and the rest is committed; a moved version means a concurrent worker: re-read and
//! try again. Nothing is added unless its marker is written in the same transaction.

use std::collections::{BTreeMap, HashMap};

use super::{JobError, JobResult};
use crate::delivery::freq::FreqState;
use crate::delivery::pacing::{local_day_hour, Pace};
use crate::metrics::{AdPath, Deltas};
use crate::repo::delivery as rd;
use crate::state::AppState;
use crate::store::TxOp;

pub use crate::jobs::Event;

pub fn parse(body: &str) -> JobResult<Vec<Event>> {
    Event::parse_message(body).map_err(JobError::Drop)
}

/// Messages the in-process runner counts together (the Lambda's SQS batch is 100).
pub const IN_PROCESS_BATCH: usize = 100;

/// Several messages as one (a JSON array of their events); malformed ones are left out
/// and logged.
pub fn join_messages(bodies: &[String]) -> String {
    let mut all = Vec::new();
    for b in bodies {
        match parse(b) {
            Ok(e) => all.extend(e),
            Err(e) => tracing::error!(error = %e, body = %b, "malformed event message dropped"),
        }
    }
    serde_json::to_string(&all).unwrap_or_else(|_| "[]".into())
}

/// Events per transaction: each adds at most 6 actions (marker, 3 counters, pace,
/// frequency), within DynamoDB's 100.
pub const GROUP: usize = 16;
const ATTEMPTS: usize = 20;

/// Counts a batch of events (any accounts); returns how many were new.
pub async fn process(st: &AppState, events: Vec<Event>) -> JobResult<usize> {
    // The same event twice in one batch counts once.
    let mut seen = std::collections::HashSet::new();
    let events: Vec<Event> =
        events.into_iter().filter(|e| seen.insert((e.account.clone(), e.impression.clone(), e.counter.clone()))).collect();
    let mut offsets: HashMap<String, crate::model::zone::Zone> = HashMap::new();
    let mut counted = 0;
    for group in events.chunks(GROUP) {
        for e in group {
            if !offsets.contains_key(&e.account) {
                let zone = crate::repo::accounts::get(st.store.as_ref(), &e.account).await?.map(|a| a.zone).unwrap_or_default();
                offsets.insert(e.account.clone(), zone);
            }
        }
        counted += commit_group(st, group.to_vec(), &offsets).await?;
    }
    Ok(counted)
}

async fn commit_group(st: &AppState, mut group: Vec<Event>, zones: &HashMap<String, crate::model::zone::Zone>) -> JobResult<usize> {
    let store = st.store.as_ref();
    for attempt in 0..ATTEMPTS {
        if attempt > 0 {
            // Lost a race on a pace or frequency record: back off with jitter.
            let ms = 5u64 << attempt.min(6);
            tokio::time::sleep(std::time::Duration::from_millis(ms / 2 + u64::from(uuid::Uuid::new_v4().as_bytes()[0]) % (ms / 2 + 1)))
                .await;
        }
        if group.is_empty() {
            return Ok(0);
        }
        let mut ops: Vec<TxOp> = group.iter().map(|e| rd::marker_op(&e.account, &e.impression, &e.counter, e.at)).collect();
        let markers = ops.len();

        let mut per_ad: BTreeMap<(String, AdPath), Deltas> = BTreeMap::new();
        for e in &group {
            let path = AdPath { campaign: e.campaign.clone(), goal: e.goal.clone(), ad: e.ad.clone() };
            let d = per_ad.entry((e.account.clone(), path)).or_default();
            d.push((e.counter.clone(), 1));
            if e.delivered {
                d.push(("delivered".into(), 1));
            }
        }
        let mut by_account: BTreeMap<String, Vec<(AdPath, Deltas)>> = BTreeMap::new();
        for ((a, path), d) in per_ad {
            by_account.entry(a).or_default().push((path, d));
        }
        for (a, list) in &by_account {
            ops.extend(crate::metrics::add_ops(a, list));
        }

        // Pace records of the goals that delivered or had impressions.
        let mut paces: BTreeMap<(String, String), (u64, u64, i64)> = BTreeMap::new();
        for e in &group {
            let imp = u64::from(e.counter == "impression");
            if imp == 0 && !e.delivered {
                continue;
            }
            let p = paces.entry((e.account.clone(), e.goal.clone())).or_insert((0, 0, e.at));
            p.0 += imp;
            p.1 += u64::from(e.delivered);
            p.2 = p.2.max(e.at);
        }
        // Viewers' frequency state: impressions only.
        let mut viewers: BTreeMap<(String, String), Vec<&Event>> = BTreeMap::new();
        for e in group.iter().filter(|e| e.counter == "impression") {
            if let Some(v) = &e.viewer {
                viewers.entry((e.account.clone(), v.clone())).or_default().push(e);
            }
        }
        // The pace and frequency records the group changes, in one batch read.
        let keys: Vec<_> = paces.keys().map(|(a, g)| rd::pace_key(a, g)).chain(viewers.keys().map(|(a, v)| rd::freq_key(a, v))).collect();
        let found = rd::versioned_many(store, &keys).await?;
        for ((a, g), (imps, delivered, at)) in &paces {
            let (mut pace, version): (Pace, u64) = rd::decode_or_default(&found, &rd::pace_key(a, g))?;
            let offset = zones.get(a).map_or(0, |z| z.offset_at(*at));
            let (day, hour) = local_day_hour(*at, offset);
            pace.add(day, hour, *imps, *delivered);
            ops.push(rd::put_versioned(rd::pace_key(a, g), &pace, version)?);
        }

        for ((a, v), evs) in &viewers {
            let (mut freq, version): (FreqState, u64) = rd::decode_or_default(&found, &rd::freq_key(a, v))?;
            for e in evs {
                freq.record(&[format!("c:{}", e.campaign), format!("g:{}", e.goal)], e.at);
            }
            ops.push(rd::put_versioned(rd::freq_key(a, v), &freq, version)?);
        }

        match rd::commit_events(store, ops, markers).await? {
            rd::Commit::Done => return Ok(group.len()),
            rd::Commit::Counted(i) => {
                tracing::info!(impression = %group[i].impression, counter = %group[i].counter, "event counted before; skipped");
                group.remove(i);
            }
            rd::Commit::Moved => {
                // A pace or frequency record moved (another worker), or the backend did not
                // say which condition failed: find counted events one by one, then retry.
                let mut left = Vec::with_capacity(group.len());
                for e in group {
                    if !rd::counted(store, &e.account, &e.impression, &e.counter).await? {
                        left.push(e);
                    }
                }
                group = left;
            }
        }
    }
    Err(JobError::from("event group kept losing races; the message will be delivered again"))
}
