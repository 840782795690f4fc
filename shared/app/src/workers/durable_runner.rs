//! The workers of the local server over its durable queue (`queue::durable`): per queue, a
//! loop receives the visible messages and runs them, at most `CONCURRENCY` at once; a
//! message is done when its job is, and comes back after a backoff when it failed, until it
//! is a dead letter. Tracking events are counted in batches, as SQS hands them to the
//! Lambda, and only the failed messages of a batch come back.

use std::sync::Arc;
use std::time::Duration;

use super::{events, settle};
use crate::queue::durable::{DurableQueue, Received, RECEIVE_BATCH};
use crate::queue::QueueName;
use crate::state::AppState;

/// Jobs of one queue run at once in this process (transcodes have their own, lower cap).
pub const CONCURRENCY: usize = 16;

/// Jobs of `q` run at once: audience chunks two a core (a chunk parses while the embedded
/// store's viewer shards write another's rows and wait on the disk; one a core left a core
/// idle, 16 at once took three times the memory: docs/publisher-scale.md, section 5).
pub fn concurrency(q: QueueName) -> usize {
    match q {
        QueueName::Audience => std::thread::available_parallelism().map_or(4, |n| 2 * n.get()).min(CONCURRENCY),
        QueueName::Assets | QueueName::Events | QueueName::Forecast | QueueName::Notices | QueueName::Compile => CONCURRENCY,
    }
}

/// When a failed message is visible again: 200 ms doubling per receive, at most 30 s (the
/// receives of `durable::MAX_RECEIVES` then span more than three minutes, longer than an
/// event may wait for its impression).
pub fn retry_delay(receives: u32) -> Duration {
    Duration::from_millis((200u64 << receives.saturating_sub(1).min(8)).min(30_000))
}

/// Starts one receiving loop per queue.
pub fn run(state_of: impl Fn(QueueName) -> AppState, queue: Arc<DurableQueue>) {
    for q in QueueName::ALL {
        let q = *q;
        let st = state_of(q);
        let queue = queue.clone();
        tokio::spawn(async move { receive_loop(st, q, queue).await });
    }
}

async fn receive_loop(st: AppState, q: QueueName, queue: Arc<DurableQueue>) {
    let slots = Arc::new(tokio::sync::Semaphore::new(concurrency(q)));
    loop {
        // A free slot first: messages are leased only when they can start.
        let Ok(first) = slots.clone().acquire_owned().await else { return };
        let want = if q == QueueName::Events { RECEIVE_BATCH } else { 1 + slots.available_permits().min(RECEIVE_BATCH - 1) };
        let got = match queue.receive(q, want).await {
            Ok(got) => got,
            Err(e) => {
                tracing::error!(queue = q.short(), error = %e, "receiving from the local queue failed; trying again");
                drop(first);
                tokio::time::sleep(Duration::from_secs(1)).await;
                continue;
            }
        };
        if got.is_empty() {
            drop(first);
            queue.wait(q, Duration::from_millis(250)).await;
            continue;
        }
        if q == QueueName::Events {
            let (st, queue) = (st.clone(), queue.clone());
            tokio::spawn(async move {
                let _slot = first;
                event_batch(&st, &queue, got).await;
            });
            continue;
        }
        let mut permits = vec![first];
        for _ in 1..got.len() {
            match slots.clone().try_acquire_owned() {
                Ok(p) => permits.push(p),
                Err(_) => break,
            }
        }
        for (m, permit) in got.into_iter().zip(permits.into_iter().map(Some).chain(std::iter::repeat_with(|| None))) {
            let (st, queue) = (st.clone(), queue.clone());
            tokio::spawn(async move {
                let _slot = permit;
                // A handler that panics fails its message (with `panic = "abort"` the process
                // ends instead, and the receive past the limit buries the message).
                let ok = futures_util::FutureExt::catch_unwind(std::panic::AssertUnwindSafe(settle(&st, q, &m.body))).await.unwrap_or_else(
                    |_| {
                        tracing::error!(queue = q.short(), "a job's handler panicked; its message failed");
                        false
                    },
                );
                finish(&queue, q, &m, ok).await;
            });
        }
    }
}

async fn finish(queue: &DurableQueue, q: QueueName, m: &Received, ok: bool) {
    let r = if ok { queue.done(q, m).await } else { queue.failed(q, m, retry_delay(m.receives)).await };
    if let Err(e) = r {
        // The lease ends by itself: the message comes back.
        tracing::error!(queue = q.short(), error = %e, "settling a local queue message failed; it comes back");
    }
}

async fn event_batch(st: &AppState, queue: &DurableQueue, batch: Vec<Received>) {
    let bodies: Vec<&str> = batch.iter().map(|m| m.body.as_str()).collect();
    let failed = events::process_messages(st, &bodies).await;
    let done: Vec<Received> = batch.iter().enumerate().filter(|(i, _)| !failed.contains(i)).map(|(_, m)| m.clone()).collect();
    if let Err(e) = queue.all_done(QueueName::Events, &done).await {
        tracing::error!(error = %e, "settling counted events failed; they come back (counted once: their markers)");
    }
    for i in failed {
        if let Some(m) = batch.get(i) {
            finish(queue, QueueName::Events, m, false).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::durable::MAX_RECEIVES;

    #[test]
    fn event_retries_outlast_the_wait_for_an_impression() {
        let total: u64 = (1..MAX_RECEIVES).map(|r| retry_delay(r).as_millis() as u64).sum();
        assert!(total / 1000 > crate::delivery::counting::IMPRESSION_GRACE_SECS as u64, "{total} ms");
        assert_eq!(retry_delay(1), Duration::from_millis(200));
        assert_eq!(retry_delay(30), Duration::from_secs(30));
    }
}
