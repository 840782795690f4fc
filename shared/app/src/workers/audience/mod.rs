//! The audience batch worker (docs/audience.md): S3 events plan a batch into byte-range
//! chunks; chunk jobs, all sent at once, stream their rows into viewer records in
//! parallel, each write ordered by its row's place in the file. At-least-once delivery:
//! every step is conditional on the batch record's version, counts are added only when a
//! chunk commits, and a chunk runs under a lease of its own.

use std::collections::HashMap;
use std::io::Write;
use std::time::{Duration, Instant};

use serde::Deserialize;
use tokio::io::AsyncReadExt;

use crate::keys;
use crate::model::audience::{self as m, Batch, Catalog, Chunk, Lease, Row, Tally, Viewer};
use crate::model::enums::{BatchSource, BatchStatus};
use crate::queue::QueueName;
use crate::repo::audience::Created;
use crate::repo::{self, Versioned};
use crate::state::AppState;

pub use crate::jobs::audience::{api_object_key, decode_key, dropped_batch_id, parse_key, ChunkJob, PlanJob, PREFIX, WORK_PREFIX};
use crate::jobs::audience::{ChunkMessage, PlanMessage};

/// Rows pending before a batch write (distinct PIDs: the last row of a PID wins).
const FLUSH_ROWS: usize = 20000;
/// How often a running chunk records its position.
const PROGRESS_EVERY: Duration = Duration::from_secs(2);
/// How long a chunk's lease holds (longer than the worker Lambda's timeout).
const LEASE: chrono::Duration = chrono::Duration::minutes(16);
const READ_BLOCK: usize = 1 << 20;

type WResult<T> = super::JobResult<T>;

fn se(e: impl Into<super::JobError>) -> super::JobError {
    e.into()
}

/// The fields of an S3 event record we need (emulators leave others out).
#[derive(Debug, Default, Deserialize)]
struct S3Event {
    #[serde(rename = "Records", default)]
    records: Vec<S3Record>,
    #[serde(rename = "Event", default)]
    event: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct S3Record {
    #[serde(rename = "eventName", default)]
    event_name: String,
    #[serde(default)]
    s3: S3Entity,
}

#[derive(Debug, Default, Deserialize)]
struct S3Entity {
    #[serde(default)]
    bucket: S3Bucket,
    #[serde(default)]
    object: S3Object,
}

#[derive(Debug, Default, Deserialize)]
struct S3Bucket {
    #[serde(default)]
    name: String,
}

#[derive(Debug, Default, Deserialize)]
struct S3Object {
    #[serde(default)]
    key: String,
    #[serde(rename = "eTag", default)]
    etag: Option<String>,
}

/// Handles one message of the audience queue.
pub async fn dispatch(st: &AppState, body: &str) -> WResult<()> {
    if let Ok(msg) = serde_json::from_str::<ChunkMessage>(body) {
        return process_chunk(st, &msg.chunk).await;
    }
    if let Ok(msg) = serde_json::from_str::<PlanMessage>(body) {
        return match load_batch(st, &msg.plan.account, &msg.plan.batch).await? {
            Some(b) => advance(st, b).await,
            None => Ok(()),
        };
    }
    let ev: S3Event = serde_json::from_str(body).map_err(|e| super::JobError::Drop(format!("malformed audience message: {e}")))?;
    if ev.event.as_deref() == Some("s3:TestEvent") {
        return Ok(());
    }
    for r in ev.records {
        if !r.event_name.starts_with("ObjectCreated") {
            continue;
        }
        // Only this deployment's bucket: an event naming another (a misconfigured
        // notification, a forged message) is not a batch of ours.
        if r.s3.bucket.name != st.settings.bucket_name {
            tracing::warn!(bucket = %r.s3.bucket.name, key = %r.s3.object.key, "object event from another bucket; ignored");
            continue;
        }
        plan(st, &decode_key(&r.s3.object.key), r.s3.object.etag.as_deref()).await?;
    }
    Ok(())
}

/// A new UPLOADED batch at the state's clock (`Batch::new`).
pub fn new_batch(
    st: &AppState,
    account: &crate::model::account::Account,
    provider: &str,
    id: &str,
    object_key: &str,
    source: crate::model::enums::BatchSource,
) -> Batch {
    Batch::new(account, provider, id, object_key, source, st.clock.now())
}

pub async fn load_batch(st: &AppState, account: &str, id: &str) -> WResult<Option<Versioned<Batch>>> {
    repo::audience::get(st.store.as_ref(), account, id).await.map_err(se)
}

/// A batch record as just written at `version` (its item with the listing index).
pub fn written(b: Batch, version: u64) -> WResult<Versioned<Batch>> {
    repo::audience::written(b, version).map_err(se)
}

async fn create_batch(st: &AppState, b: Batch) -> WResult<Created> {
    repo::audience::create(st.store.as_ref(), &b).await.map_err(se)
}

/// An S3 event: find or create the batch, cut it into chunks, start the first.
async fn plan(st: &AppState, key: &str, etag: Option<&str>) -> WResult<()> {
    let Some((account_id, provider_id, name)) = parse_key(key) else {
        tracing::warn!(key, "object outside audience/<account>/<provider>/<name>; ignored");
        return Ok(());
    };
    // The account's delivery copy: the worker reads no account record (least privilege).
    let Some(account) = repo::accounts::for_delivery(st.store.as_ref(), account_id).await.map_err(se)? else {
        tracing::warn!(key, "batch file for an unknown account; ignored");
        return Ok(());
    };
    if !repo::reference::exists(st.store.as_ref(), &account.id, repo::reference::Kind::AudienceProvider, provider_id).await.map_err(se)? {
        tracing::warn!(key, "batch file for an unknown audience provider; ignored");
        return Ok(());
    }
    if st.blobs.size(key).await.map_err(se)?.is_none() {
        tracing::warn!(key, "batch file gone before processing; ignored");
        return Ok(());
    }
    let api_id = name.strip_suffix(".csv").filter(|id| uuid::Uuid::parse_str(id).is_ok());
    let mut batch = None;
    if let Some(id) = api_id {
        batch = load_batch(st, &account.id, id).await?.filter(|b| b.value.object_key == key);
    }
    let batch = match batch {
        Some(b) => b,
        None => {
            let id = dropped_batch_id(key, etag);
            match load_batch(st, &account.id, &id).await? {
                Some(b) => b,
                None => match create_batch(st, Batch::new(&account, provider_id, &id, key, BatchSource::Bucket, st.clock.now())).await? {
                    Created::New(b) => *b,
                    Created::SlotTaken(other) => {
                        let mut b = Batch::new(&account, provider_id, &id, key, BatchSource::Bucket, st.clock.now());
                        b.status = m::CANCELLED;
                        b.message = Some(format!(
                            "audience provider {provider_id} already has batch {other} for {}; one batch file per provider per day",
                            b.day
                        ));
                        // Already recorded (a redelivery): that record stands.
                        repo::audience::put_new(st.store.as_ref(), &b).await.map_err(se)?;
                        tracing::warn!(key, batch = %id, "dropped batch file over the daily limit; recorded as CANCELLED");
                        return Ok(());
                    }
                },
            }
        }
    };
    advance(st, batch).await
}

/// Moves an UPLOADED batch to PROCESSING (with its chunks) and sends its chunk jobs.
async fn advance(st: &AppState, mut cur: Versioned<Batch>) -> WResult<()> {
    let mut tries = repo::Attempts::worker("audience batch", &cur.value.id);
    loop {
        tries.next_try().map_err(se)?;
        match cur.value.status {
            BatchStatus::Uploaded => {
                // One batch of a provider at a time, in upload order, so a newer file's rows
                // are never overwritten by an older one still running; the running batch
                // starts this one when it ends (`start_next`).
                if let Some(other) = running_before(st, &cur.value).await? {
                    tracing::info!(batch = %cur.value.id, waiting_for = %other, "batch waits for the provider's earlier batch");
                    return Ok(());
                }
                let mut next = cur.value.clone();
                match cut(st, &cur.value).await? {
                    Ok(planned) => {
                        next.chunks = planned.chunks;
                        next.total_bytes = planned.total;
                        next.stats.rows += planned.overlong;
                        next.stats.invalid_rows += planned.overlong;
                        if next.chunks.is_empty() {
                            next.status = m::FINISHED;
                            next.finished = Some(st.clock.now());
                        } else {
                            next.status = m::PROCESSING;
                        }
                    }
                    Err(why) => {
                        next.status = m::CANCELLED;
                        next.message = Some(why);
                    }
                }
                if repo::audience::put_next(st.store.as_ref(), &next, cur.version()).await.map_err(se)? {
                    tracing::info!(batch = %next.id, chunks = next.chunks.len(), total = next.total_bytes, status = %next.status.as_str(), "batch planned");
                    if next.status != BatchStatus::Processing {
                        // Ended at planning (refused or empty): the provider's next batch may start.
                        return start_next(st, &next.account_id, &next.provider_id).await;
                    }
                    cur = written(next, cur.version() + 1)?;
                } else {
                    cur = load_batch(st, &cur.value.account_id, &cur.value.id)
                        .await?
                        .ok_or_else(|| crate::workers::JobError::retry_msg("batch vanished"))?;
                }
            }
            BatchStatus::Processing => return send_chunks(st, &cur.value).await,
            // Ended (maybe by an earlier try whose answer was lost): the provider's next
            // batch may start.
            BatchStatus::Finished | BatchStatus::Cancelled => return start_next(st, &cur.value.account_id, &cur.value.provider_id).await,
        }
    }
}

use crate::usecases::audience::RECENT_BATCHES;

/// The provider's recent batches, oldest first.
async fn provider_batches(st: &AppState, account: &str, provider: &str) -> WResult<Vec<Batch>> {
    repo::audience::recent_of_provider(st.store.as_ref(), account, provider, RECENT_BATCHES).await.map_err(se)
}

/// An earlier batch of the same provider that is still being processed.
async fn running_before(st: &AppState, b: &Batch) -> WResult<Option<String>> {
    let all = provider_batches(st, &b.account_id, &b.provider_id).await?;
    Ok(all.into_iter().find(|o| o.id != b.id && o.status == m::PROCESSING && (o.created, &o.id) < (b.created, &b.id)).map(|o| o.id))
}

/// After a batch ends (finished or cancelled): starts the provider's oldest waiting batch.
pub async fn start_next(st: &AppState, account: &str, provider: &str) -> WResult<()> {
    crate::usecases::audience::start_next(st, &account.into(), provider).await.map_err(se)
}

/// Sends a job for every chunk not committed yet (a redelivered plan sends them again: a
/// chunk job finds its chunk done or leased).
async fn send_chunks(st: &AppState, b: &Batch) -> WResult<()> {
    for (i, c) in b.chunks.iter().enumerate() {
        if c.done {
            continue;
        }
        let msg = ChunkMessage { chunk: ChunkJob { account: b.account_id.clone(), batch: b.id.clone(), index: i as u32 } };
        st.queue.send(QueueName::Audience, serde_json::to_string(&msg).map_err(se)?).await.map_err(se)?;
    }
    Ok(())
}

mod chunk;
mod cut;
pub use chunk::{process_chunk, ChunkReader, Pending};
use cut::cut;
pub use cut::RowSink;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_parse_and_decode() {
        assert_eq!(parse_key("audience/a1/p1/file.csv"), Some(("a1", "p1", "file.csv")));
        assert_eq!(parse_key("audience/a1/p1/sub/dir.csv"), Some(("a1", "p1", "sub/dir.csv")));
        assert_eq!(parse_key("audience/a1/p1/"), None);
        assert_eq!(parse_key("a1/assets/x"), None);
        assert_eq!(decode_key("audience/a/p/my+file%20x.csv"), "audience/a/p/my file x.csv");
        assert_eq!(dropped_batch_id("k", Some("e")), dropped_batch_id("k", Some("e")));
        assert_ne!(dropped_batch_id("k", Some("e")), dropped_batch_id("k", Some("f")));
    }
}
