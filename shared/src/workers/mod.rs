//! Workers: pure functions over the ports, fed by SQS on AWS and by in-process channels on
//! the local server. At-least-once delivery: every worker is idempotent.

use std::time::Duration;

use crate::queue::{QueueName, Receivers};
use crate::state::AppState;

pub mod assets;
pub mod audience;

/// Handles one message. `Err` means "try again later" (the message is redelivered);
/// a malformed message is logged and dropped (retrying cannot fix it).
pub async fn dispatch(st: &AppState, q: QueueName, body: &str) -> Result<(), String> {
    match q {
        QueueName::Assets => match serde_json::from_str::<assets::AssetJob>(body) {
            Ok(job) => assets::process(st, &job).await,
            Err(e) => {
                tracing::error!(error = %e, body, "malformed asset job dropped");
                Ok(())
            }
        },
        QueueName::Audience => audience::dispatch(st, body).await,
    }
}

/// Runs one message and says whether it is done (`false`: leave it for redelivery).
pub async fn settle(st: &AppState, q: QueueName, body: &str) -> bool {
    match dispatch(st, q, body).await {
        Ok(()) => true,
        Err(e) => {
            tracing::warn!(queue = q.short(), error = %e, "job failed; SQS will redeliver it");
            false
        }
    }
}

/// Runs the workers in this process (local server, tests): each message is tried up to
/// five times with backoff, like SQS redelivery before the dead-letter queue.
pub fn run_in_process(st: AppState, receivers: Receivers) {
    for (q, mut rx) in receivers.0 {
        let st = st.clone();
        tokio::spawn(async move {
            while let Some(body) = rx.recv().await {
                let st = st.clone();
                tokio::spawn(async move {
                    for attempt in 0..5u32 {
                        match dispatch(&st, q, &body).await {
                            Ok(()) => return,
                            Err(e) => {
                                tracing::warn!(queue = q.short(), attempt, error = %e, "job failed; retrying");
                                tokio::time::sleep(Duration::from_millis(200 << attempt)).await;
                            }
                        }
                    }
                    tracing::error!(queue = q.short(), body, "job failed five times; dropped (dead letter)");
                });
            }
        });
    }
}
