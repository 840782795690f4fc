//! The event aggregation worker: tracking events (SQS on AWS, in batches; in-process
//! locally) are parsed and handed to the counting use case (`usecases::events`), which
//! turns them into `/v3` metric counters, report cells, goal pace records and viewer
//! frequency state, valid and invalid apart (docs/traffic-quality.md).

use std::collections::BTreeSet;

use super::{JobError, JobResult};
use crate::state::AppState;
use crate::usecases::events::count;

pub use crate::jobs::Event;

pub fn parse(body: &str) -> JobResult<Vec<Event>> {
    crate::jobs::parse_events(body).map_err(JobError::Drop)
}

/// Messages counted together by a test that feeds the worker itself (the Lambda's SQS
/// batch is 100; the local queue's `durable::RECEIVE_BATCH` is 50).
pub const IN_PROCESS_BATCH: usize = 100;

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
    let out = count(st, events).await;
    tracing::info!(events = n, counted = out.counted, failed_messages = out.failed.len(), "events counted");
    out.failed
}
