//! Audience batches (seed 002 §2.8, §3; docs/audience.md): the batch record, the provider's
//! key catalogue, and the row parser the worker and the benchmark share.
//!
//! The parser works on a block of bytes holding whole rows, allocates nothing per valid
//! row, and validates a pair with one hash lookup of its `key=value` text.

use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::account::AudienceProvider;
use super::enums::BatchSource;

pub use super::enums::BatchStatus;
pub const UPLOADED: BatchStatus = BatchStatus::Uploaded;
pub const PROCESSING: BatchStatus = BatchStatus::Processing;
pub const CANCELLED: BatchStatus = BatchStatus::Cancelled;
pub const FINISHED: BatchStatus = BatchStatus::Finished;

/// Longest PID accepted (bytes).
pub const MAX_PID: usize = 256;
/// Distinct invalid pairs kept on a batch (the count of rows is exact).
pub const MAX_INVALID_KEPT: usize = 1000;
/// An invalid pair is kept on the batch cut to this many bytes (1,000 × 100 B bound the
/// record's list well under the 400 KB item limit).
pub const MAX_PAIR_KEPT: usize = 100;
/// Longest row (bytes, line end excluded): a longer row is an invalid row, and readers drop
/// it as they go instead of buffering it.
pub const MAX_ROW_BYTES: usize = 64 * 1024;
/// Chunks of one batch: a large file gets larger chunks, so the list stays under ~70 KB.
pub const MAX_CHUNKS: u64 = 512;

/// Largest chunk (bytes): a row's place in its chunk fits [`row_order`]'s 31 bits, so a
/// plain file may hold 512 × 2 GiB = 1 TiB (larger files are refused at planning).
pub const MAX_CHUNK_BYTES: u64 = 1 << 31;

/// A byte range of an object: the rows that start in `[start, end)`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Chunk {
    pub key: String,
    pub start: u64,
    pub end: u64,
    /// Committed: its rows written and its counts added to the batch.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub done: bool,
}

/// Who is working on a chunk, until when, and how far it got (progress only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Lease {
    pub chunk: u32,
    pub token: String,
    pub until: DateTime<Utc>,
    #[serde(default)]
    pub running: u64,
}

/// Where a row stands among every row of a provider's batches, as the version of the viewer
/// record it writes: the batch's creation minute (a provider's batches run one at a time in
/// upload order, one a day), then the chunk, then the row's place in its chunk. Chunks run
/// in parallel, and a viewer write applies only over an older one, so the last row of a PID
/// wins whatever order the chunks finish in (docs/audience.md).
pub fn row_order(batch_created: DateTime<Utc>, chunk: u32, row: u64) -> u64 {
    // Minutes since 2020-01-01 (24 bits: until 2051), chunk (9 bits), row (31 bits).
    const EPOCH_2020: i64 = 1_577_836_800;
    let minutes = ((batch_created.timestamp() - EPOCH_2020).max(0) / 60) as u64;
    (minutes.min((1 << 24) - 1) << 40) | ((u64::from(chunk) & 0x1ff) << 31) | row.min((1 << 31) - 1)
}

/// How long a deleted PID's tombstone stays (longer than any batch runs): it keeps a row of
/// an earlier chunk, committed later, from bringing the PID back.
pub const TOMBSTONE_SECS: i64 = 7 * 24 * 3600;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Batch {
    pub id: String,
    pub account_id: String,
    pub provider_id: String,
    /// The uploaded object (`audience/<account>/<provider>/<name>`).
    pub object_key: String,
    pub status: BatchStatus,
    pub created: DateTime<Utc>,
    /// The day (account time zone) whose one-batch slot this batch holds.
    pub day: String,
    /// `api` or `bucket`.
    pub source: BatchSource,
    #[serde(default)]
    pub total_bytes: u64,
    #[serde(default)]
    pub chunks: Vec<Chunk>,
    #[serde(default)]
    pub chunks_done: u32,
    /// Bytes of committed chunks.
    #[serde(default)]
    pub bytes_done: u64,
    /// Position inside the running chunk (progress only; recomputed on a re-run).
    #[serde(default)]
    pub running_bytes: u64,
    #[serde(default)]
    pub stats: Stats,
    /// The chunks being worked on (chunks run in parallel).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leases: Vec<Lease>,
    /// Why a batch was refused or stopped (bucket drops over the daily limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finished: Option<DateTime<Utc>>,
}

impl Batch {
    /// A new batch of `provider`, UPLOADED at `now`; it counts against the account's local
    /// day (one batch a provider a day).
    pub fn new(
        account: &super::account::Account,
        provider: &str,
        id: &str,
        object_key: &str,
        source: BatchSource,
        now: DateTime<Utc>,
    ) -> Batch {
        Batch {
            id: id.to_string(),
            account_id: account.id.to_string(),
            provider_id: provider.to_string(),
            object_key: object_key.to_string(),
            status: UPLOADED,
            created: now,
            day: now.with_timezone(account.tz()).format("%Y-%m-%d").to_string(),
            source,
            total_bytes: 0,
            chunks: vec![],
            chunks_done: 0,
            bytes_done: 0,
            running_bytes: 0,
            stats: Stats::default(),
            leases: vec![],
            message: None,
            finished: None,
        }
    }

    pub fn percentage(&self) -> u64 {
        if self.status == FINISHED {
            return 100;
        }
        if self.total_bytes == 0 {
            return 0;
        }
        ((self.bytes_done + self.running_bytes).saturating_mul(100) / self.total_bytes).min(99)
    }

    pub fn link(&self) -> String {
        format!("/v1/audience/batch/{}", self.id)
    }

    /// The progress object (seed 002 §2.8); a batch not picked up yet reads PROCESSING.
    pub fn progress(&self) -> BatchProgress<'_> {
        let status = if self.status == UPLOADED { PROCESSING } else { self.status };
        let invalid = self.stats.rows_with_invalid_segments > 0;
        BatchProgress {
            batch_id: &self.id,
            status,
            progress_percentage: self.percentage(),
            details: BatchDetails {
                rows_with_invalid_segments: self.stats.rows_with_invalid_segments,
                invalid_rows: self.stats.invalid_rows,
                invalid_segments: invalid.then_some(self.stats.invalid_segments.as_slice()),
            },
            link: self.link(),
            message: self.message.as_deref(),
        }
    }
}

/// A batch's progress (seed 002 §2.8).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchProgress<'a> {
    pub batch_id: &'a str,
    pub status: BatchStatus,
    /// 0-100 (100 only once finished).
    pub progress_percentage: u64,
    pub details: BatchDetails<'a>,
    pub link: String,
    /// Why a batch was cancelled or failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<&'a str>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchDetails<'a> {
    pub rows_with_invalid_segments: u64,
    pub invalid_rows: u64,
    /// The `key=value` pairs no segment matched (at most 1,000, each cut to 100 bytes);
    /// shown when some row had one, and not in batch lists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid_segments: Option<&'a [String]>,
}

/// What a chunk (or a whole file) found.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub rows: u64,
    pub rows_with_invalid_segments: u64,
    pub invalid_rows: u64,
    /// Distinct invalid pairs, sorted, at most [`MAX_INVALID_KEPT`].
    pub invalid_segments: Vec<String>,
}

impl Stats {
    pub fn merge(&mut self, other: &Stats) {
        self.rows += other.rows;
        self.rows_with_invalid_segments += other.rows_with_invalid_segments;
        self.invalid_rows += other.invalid_rows;
        let mut all: BTreeSet<String> = self.invalid_segments.drain(..).collect();
        all.extend(other.invalid_segments.iter().cloned());
        self.invalid_segments = all.into_iter().take(MAX_INVALID_KEPT).collect();
    }
}

/// FxHash (as in rustc): the pair lookups are the parser's hot path, and keys come from
/// the provider's own catalogue, so a fast non-keyed hash is fine here.
#[derive(Default, Clone, Copy)]
pub struct FxHasher(u64);

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    #[inline]
    fn add(&mut self, w: u64) {
        self.0 = (self.0.rotate_left(5) ^ w).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    #[inline]
    fn write(&mut self, mut bytes: &[u8]) {
        while bytes.len() >= 8 {
            let (h, t) = bytes.split_at(8);
            self.add(u64::from_le_bytes([h[0], h[1], h[2], h[3], h[4], h[5], h[6], h[7]]));
            bytes = t;
        }
        if bytes.len() >= 4 {
            let (h, t) = bytes.split_at(4);
            self.add(u64::from(u32::from_le_bytes([h[0], h[1], h[2], h[3]])));
            bytes = t;
        }
        for b in bytes {
            self.add(u64::from(*b));
        }
    }
    #[inline]
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    #[inline]
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    #[inline]
    fn finish(&self) -> u64 {
        self.0
    }
}

type Fx = BuildHasherDefault<FxHasher>;

/// A provider's keys: `segmentationKey=segmentKey` → (segmentation, segment) indexes.
pub struct Catalog {
    pairs: HashMap<Box<[u8]>, (u16, u32), Fx>,
    /// Segmentation ids, by index.
    pub segmentation_ids: Vec<String>,
    /// Segment ids, by index.
    pub segment_ids: Vec<String>,
}

impl Catalog {
    pub fn new(p: &AudienceProvider) -> Catalog {
        let mut pairs = HashMap::default();
        let mut segmentation_ids = Vec::new();
        let mut segment_ids = Vec::new();
        for (i, s) in p.segmentations.iter().enumerate() {
            segmentation_ids.push(s.id.clone());
            for g in &s.segments {
                let text = format!("{}={}", s.key, g.key);
                pairs.insert(text.into_bytes().into_boxed_slice(), (i as u16, segment_ids.len() as u32));
                segment_ids.push(g.id.clone());
            }
        }
        Catalog { pairs, segmentation_ids, segment_ids }
    }

    #[inline]
    pub fn lookup(&self, pair: &[u8]) -> Option<(u16, u32)> {
        self.pairs.get(pair).copied()
    }
}

/// What one row asks for.
#[derive(Debug, PartialEq)]
pub enum Row<'a> {
    /// Replace the PID's data with these (segmentation, segment) pairs, one per segmentation.
    Replace(&'a [u8], &'a [(u16, u32)]),
    /// PID alone: delete its data.
    Delete(&'a [u8]),
    /// Only invalid pairs: leave the PID alone.
    Keep(&'a [u8]),
}

/// Per-parse state: counts and the distinct invalid pairs.
#[derive(Default)]
pub struct Tally {
    pub rows: u64,
    pub rows_with_invalid_segments: u64,
    pub invalid_rows: u64,
    invalid: BTreeSet<Vec<u8>>,
}

impl Tally {
    fn invalid_pair(&mut self, pair: &[u8]) {
        let pair = &pair[..pair.len().min(MAX_PAIR_KEPT)];
        if self.invalid.len() < MAX_INVALID_KEPT && !self.invalid.contains(pair) {
            self.invalid.insert(pair.to_vec());
        }
    }

    /// Rows the reader dropped for their length (never parsed).
    pub fn overlong(&mut self, n: u64) {
        self.rows += n;
        self.invalid_rows += n;
    }

    pub fn stats(&self) -> Stats {
        Stats {
            rows: self.rows,
            rows_with_invalid_segments: self.rows_with_invalid_segments,
            invalid_rows: self.invalid_rows,
            invalid_segments: self.invalid.iter().map(|b| String::from_utf8_lossy(b).into_owned()).collect(),
        }
    }
}

/// A PID: 1-256 bytes of UTF-8 without control characters.
pub fn valid_pid(pid: &[u8]) -> bool {
    !pid.is_empty() && pid.len() <= MAX_PID && pid.iter().all(|b| *b >= 0x20 && *b != 0x7f) && std::str::from_utf8(pid).is_ok()
}

/// Parses one row (without its line end) and hands it to `f`. `pairs` is scratch space.
#[inline]
pub fn parse_row(line: &[u8], cat: &Catalog, tally: &mut Tally, pairs: &mut Vec<(u16, u32)>, f: &mut impl FnMut(Row<'_>)) {
    let line = match line.last() {
        Some(b'\r') => &line[..line.len() - 1],
        _ => line,
    };
    if line.is_empty() {
        return;
    }
    tally.rows += 1;
    if line.len() > MAX_ROW_BYTES {
        tally.invalid_rows += 1;
        return;
    }
    let mut fields = line.split(|b| *b == b'|');
    let pid = fields.next().unwrap_or_default();
    if !valid_pid(pid) {
        tally.invalid_rows += 1;
        return;
    }
    pairs.clear();
    let mut any_pair = false;
    let mut any_invalid = false;
    for pair in fields {
        if pair.is_empty() {
            continue;
        }
        any_pair = true;
        match cat.lookup(pair) {
            Some((seg, segment)) => match pairs.iter_mut().find(|(s, _)| *s == seg) {
                // One segment per segmentation: the later pair wins.
                Some(slot) => slot.1 = segment,
                None => pairs.push((seg, segment)),
            },
            None => {
                any_invalid = true;
                tally.invalid_pair(pair);
            }
        }
    }
    if any_invalid {
        tally.rows_with_invalid_segments += 1;
    }
    if !any_pair {
        f(Row::Delete(pid));
    } else if pairs.is_empty() {
        f(Row::Keep(pid));
    } else {
        f(Row::Replace(pid, pairs));
    }
}

/// Parses the whole rows of `block` (its last row may lack a line end).
pub fn parse_block(block: &[u8], cat: &Catalog, tally: &mut Tally, f: &mut impl FnMut(Row<'_>)) {
    let mut scratch = Vec::with_capacity(8);
    let mut start = 0;
    for nl in memchr::Memchr::new(b'\n', block) {
        parse_row(&block[start..nl], cat, tally, &mut scratch, f);
        start = nl + 1;
    }
    if start < block.len() {
        parse_row(&block[start..], cat, tally, &mut scratch, f);
    }
}

/// The stored viewer data of one PID from one provider; no segments is a deleted PID's
/// tombstone (it expires).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Viewer {
    /// Segmentation id → segment id.
    pub segments: std::collections::BTreeMap<String, String>,
    pub batch: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::account::{Segment, Segmentation};
    use serde_json::json;

    fn provider() -> AudienceProvider {
        let seg = |id: &str, key: &str, segs: &[(&str, &str)]| Segmentation {
            id: id.into(),
            key: key.into(),
            name: key.into(),
            segments: segs.iter().map(|(i, k)| Segment { id: (*i).into(), key: (*k).into(), name: (*k).into() }).collect(),
        };
        AudienceProvider {
            id: "p".into(),
            name: "P".into(),
            url_identifier: "p".into(),
            enabled: true,
            segmentations: vec![seg("sa", "age", &[("a1", "18-24"), ("a2", "25-34")]), seg("sg", "gender", &[("gm", "m"), ("gf", "f")])],
        }
    }

    #[derive(Debug, PartialEq)]
    enum Out {
        Replace(String, Vec<(u16, u32)>),
        Delete(String),
        Keep(String),
    }

    fn run(text: &str) -> (Vec<Out>, Stats) {
        let cat = Catalog::new(&provider());
        let mut t = Tally::default();
        let mut out = Vec::new();
        parse_block(text.as_bytes(), &cat, &mut t, &mut |r| {
            out.push(match r {
                Row::Replace(p, s) => Out::Replace(String::from_utf8_lossy(p).into(), s.to_vec()),
                Row::Delete(p) => Out::Delete(String::from_utf8_lossy(p).into()),
                Row::Keep(p) => Out::Keep(String::from_utf8_lossy(p).into()),
            })
        });
        (out, t.stats())
    }

    #[test]
    fn the_six_row_rules() {
        // 1: case-sensitive keys; invalid pairs reported, not ingested.
        let (o, s) = run("v1|age=18-24|Age=18-24|age=18-24x\n");
        assert_eq!(o, vec![Out::Replace("v1".into(), vec![(0, 0)])]);
        assert_eq!(s.rows_with_invalid_segments, 1);
        assert_eq!(s.invalid_segments, vec!["Age=18-24", "age=18-24x"]);
        // 2: only invalid pairs: keep.
        assert_eq!(run("v1|x=y\n").0, vec![Out::Keep("v1".into())]);
        // 3/4: valid + invalid: replace with the valid ones.
        assert_eq!(run("v1|gender=f|bad\n").0, vec![Out::Replace("v1".into(), vec![(1, 3)])]);
        // PID alone: delete (also with a trailing pipe).
        assert_eq!(run("v1\nv2|\n").0, vec![Out::Delete("v1".into()), Out::Delete("v2".into())]);
        // 5: duplicate pairs collapse.
        assert_eq!(run("v1|age=18-24|age=18-24\n").0, vec![Out::Replace("v1".into(), vec![(0, 0)])]);
        // 6: one segment per segmentation: the later pair wins.
        assert_eq!(run("v1|age=18-24|gender=m|age=25-34\n").0, vec![Out::Replace("v1".into(), vec![(0, 1), (1, 2)])]);
    }

    #[test]
    fn line_ends_empty_lines_bad_pids_and_a_last_row_without_newline() {
        let (o, s) = run("a|age=18-24\r\n\n\r\n|age=18-24\nb|gender=m");
        assert_eq!(o, vec![Out::Replace("a".into(), vec![(0, 0)]), Out::Replace("b".into(), vec![(1, 2)])]);
        assert_eq!((s.rows, s.invalid_rows, s.rows_with_invalid_segments), (3, 1, 0));
        let long = "x".repeat(MAX_PID + 1);
        assert_eq!(run(&format!("{long}|age=18-24\n")).1.invalid_rows, 1);
        assert_eq!(run("a\u{1}b|age=18-24\n").1.invalid_rows, 1);
    }

    #[test]
    fn overlong_rows_are_invalid_and_kept_pairs_are_cut() {
        let pairs = "|age=18-24".repeat(MAX_ROW_BYTES / 10 + 1);
        let (o, s) = run(&format!("a{pairs}\nb|gender=m\n"));
        assert_eq!(o, vec![Out::Replace("b".into(), vec![(1, 2)])]);
        assert_eq!((s.rows, s.invalid_rows), (2, 1));
        let bad = format!("x={}", "y".repeat(10_000));
        let (_, s) = run(&format!("a|{bad}\n"));
        assert_eq!(s.invalid_segments, vec![bad[..MAX_PAIR_KEPT].to_string()]);
    }

    #[test]
    fn row_order_sorts_batches_then_chunks_then_rows() {
        let t = |s: &str| DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc);
        let day1 = t("2026-11-25T10:00:00Z");
        let day2 = t("2026-11-26T09:00:00Z");
        // A later row of the same chunk, any row of a later chunk, any row of a later batch.
        assert!(row_order(day1, 0, 5) < row_order(day1, 0, 6));
        assert!(row_order(day1, 0, (1 << 31) - 1) < row_order(day1, 1, 0));
        assert!(row_order(day1, 511, (1 << 31) - 1) < row_order(day2, 0, 0));
        // Every order is above a record written outside a batch (version 1).
        assert!(row_order(t("2020-01-02T00:00:00Z"), 0, 0) > 1);
        // Out-of-range parts are clamped, never carried into the next field.
        assert_eq!(row_order(day1, 0, u64::MAX), row_order(day1, 0, (1 << 31) - 1));
    }

    #[test]
    fn progress_object_shapes() {
        let mut b = Batch {
            id: "b1".into(),
            account_id: "a".into(),
            provider_id: "p".into(),
            object_key: "k".into(),
            status: UPLOADED,
            created: Utc::now(),
            day: "2026-01-01".into(),
            source: BatchSource::Api,
            total_bytes: 200,
            chunks: vec![],
            chunks_done: 0,
            bytes_done: 100,
            running_bytes: 99,
            stats: Stats::default(),
            leases: vec![],
            message: None,
            finished: None,
        };
        let v = serde_json::to_value(b.progress()).unwrap();
        assert_eq!(v["status"], PROCESSING.as_str());
        assert_eq!(v["progressPercentage"], 99);
        assert!(v["details"].get("invalidSegments").is_none());
        b.status = FINISHED;
        b.stats.rows_with_invalid_segments = 2;
        b.stats.invalid_segments = vec!["x=y".into()];
        let v = serde_json::to_value(b.progress()).unwrap();
        assert_eq!(v["progressPercentage"], 100);
        assert_eq!(v["details"]["invalidSegments"], json!(["x=y"]));
        assert_eq!(v["link"], "/v1/audience/batch/b1");
    }

    #[test]
    fn stats_merge_keeps_invalid_pairs_distinct() {
        let mut a = Stats { rows: 1, rows_with_invalid_segments: 1, invalid_rows: 0, invalid_segments: vec!["b=1".into()] };
        a.merge(&Stats { rows: 2, rows_with_invalid_segments: 1, invalid_rows: 1, invalid_segments: vec!["a=1".into(), "b=1".into()] });
        assert_eq!((a.rows, a.rows_with_invalid_segments, a.invalid_rows), (3, 2, 1));
        assert_eq!(a.invalid_segments, vec!["a=1", "b=1"]);
    }
}
