//! The audience queue's messages and the bucket's object-key contract: the API writes a
//! batch file under [`PREFIX`], the bucket notification (filtered on it) and the worker
//! read the account, provider and batch back from the key.

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// Objects under this prefix are batch files (the bucket notification's filter).
pub const PREFIX: &str = "audience/";
/// Decompressed chunks of gzip files (outside the notified prefix).
pub const WORK_PREFIX: &str = "audience-work/";

/// A chunk job: `{"chunk": {...}}` on the audience queue.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ChunkJob {
    pub account: String,
    pub batch: String,
    pub index: u32,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct ChunkMessage {
    pub chunk: ChunkJob,
}

/// Start (plan) a batch that waited for an earlier batch of its provider: `{"plan": {...}}`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PlanJob {
    pub account: String,
    pub batch: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct PlanMessage {
    pub plan: PlanJob,
}

/// Keys in S3 events are URL-encoded, with `+` or `%20` for a space.
pub fn decode_key(raw: &str) -> String {
    percent_encoding::percent_decode_str(&raw.replace('+', " ")).decode_utf8_lossy().into_owned()
}

/// `audience/<account>/<provider>/<name>` → its parts.
pub fn parse_key(key: &str) -> Option<(&str, &str, &str)> {
    let rest = key.strip_prefix(PREFIX)?;
    let mut parts = rest.splitn(3, '/');
    let (a, p, n) = (parts.next()?, parts.next()?, parts.next()?);
    (!a.is_empty() && !p.is_empty() && !n.is_empty()).then_some((a, p, n))
}

/// The object key of a batch uploaded through the API.
pub fn api_object_key(account: &str, provider: &str, batch: &str) -> String {
    format!("{PREFIX}{account}/{provider}/{batch}.csv")
}

/// The object key of a gzip batch's `n`th decompressed chunk.
pub fn work_key(account: &str, batch: &str, n: usize) -> String {
    format!("{WORK_PREFIX}{account}/{batch}/{n:05}")
}

/// The batch id of a file dropped in the bucket: the same object yields the same id.
pub fn dropped_batch_id(key: &str, etag: Option<&str>) -> String {
    let d = Sha256::digest(format!("{key}\u{0}{}", etag.unwrap_or("")).as_bytes());
    let mut b = [0u8; 16];
    b.copy_from_slice(&d[..16]);
    uuid::Builder::from_custom_bytes(b).into_uuid().to_string()
}
