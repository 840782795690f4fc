//! The audience batch benchmark. Generates realistic batch files
//! (PIDs of 16-36 characters, 1-6 pairs a row, ~2 % invalid pairs, ~10 % repeated PIDs,
//! ~0.5 % PID-only rows) for a provider of 8 segmentations × 12 segments, then prints:
//!
//! 1. parse + validate throughput on one core (the worker's parser over 8 MiB blocks of the
//!    10 M-row file already in memory; no store), rows/s and MB/s;
//! 2. for 1 M and 10 M rows, each in a fresh child process on a 2-thread runtime: the real
//!    worker path end to end (object in the local blob directory → S3 event → plan → the
//!    chunk jobs in parallel, as many at once as the local server runs → ordered writes into
//!    a file-backed embedded store), rows/s, the number of chunks and the longest chunk's
//!    time, and the process's peak resident memory (VmHWM).
//!
//! Run: `cargo bench -p api-tests --bench audience` (or ./scripts/bench.sh). `BENCH_ROWS`
//! changes the large size (default 10,000,000).

// The local server's allocator (functions/local), so that the figures are the server's.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::io::{BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use web::blobs::{Blobs, LocalBlobs};
use web::model::account::{AudienceProvider, Segment, Segmentation};
use web::model::audience::{self as m, Catalog, Row, Tally};
use web::queue::{InProcessQueue, QueueName};
use web::state::{AppState, Settings};
use web::store::embedded::EmbeddedStore;
use web::store::Store;

const SEGMENTATIONS: usize = 8;
const SEGMENTS: usize = 12;

fn provider(id: &str) -> AudienceProvider {
    AudienceProvider {
        id: id.into(),
        name: "Bench DMP".into(),
        url_identifier: "bench".into(),
        enabled: true,
        segmentations: (0..SEGMENTATIONS)
            .map(|s| Segmentation {
                id: format!("sg{s}"),
                key: format!("seg{s}"),
                name: format!("Segmentation {s}"),
                segments: (0..SEGMENTS)
                    .map(|g| Segment { id: format!("s{s}-{g}"), key: format!("v{g}"), name: format!("Value {g}") })
                    .collect(),
            })
            .collect(),
    }
}

/// xorshift64*: deterministic, fast, good enough for test data.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Writes `rows` rows to `path`; returns its size.
fn generate(path: &Path, rows: u64) -> u64 {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz0123456789-";
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut w = BufWriter::with_capacity(1 << 20, std::fs::File::create(path).expect("bench file"));
    let mut recent: Vec<Vec<u8>> = Vec::with_capacity(10_000);
    let mut line = Vec::with_capacity(256);
    for _ in 0..rows {
        line.clear();
        if !recent.is_empty() && rng.below(10) == 0 {
            let i = rng.below(recent.len() as u64) as usize;
            line.extend_from_slice(&recent[i]);
        } else {
            let len = 16 + rng.below(21) as usize;
            let start = line.len();
            for _ in 0..len {
                line.push(ALPHABET[rng.below(ALPHABET.len() as u64) as usize]);
            }
            let pid = line[start..].to_vec();
            if recent.len() < 10_000 {
                recent.push(pid);
            } else {
                let i = rng.below(10_000) as usize;
                recent[i] = pid;
            }
        }
        if rng.below(200) != 0 {
            for _ in 0..1 + rng.below(6) {
                let s = rng.below(SEGMENTATIONS as u64);
                let g = rng.below(SEGMENTS as u64);
                match rng.below(50) {
                    0 => write!(line, "|Seg{s}=v{g}").ok(),
                    _ => write!(line, "|seg{s}=v{g}").ok(),
                };
            }
        }
        line.push(b'\n');
        w.write_all(&line).expect("write");
    }
    w.flush().expect("flush");
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0)
}

use api_tests::peak_rss_mb;

/// Parse + validate on one core over the file's bytes in 8 MiB blocks of whole rows.
fn parse_throughput(path: &Path, size: u64) {
    let mut data = Vec::with_capacity(size as usize);
    std::fs::File::open(path).and_then(|mut f| f.read_to_end(&mut data)).expect("read bench file");
    let cat = Catalog::new(&provider("p"));
    let mut best = f64::MAX;
    let mut rows = 0;
    let mut counts = (0u64, 0u64, 0u64);
    for _ in 0..3 {
        let mut tally = Tally::default();
        let (mut replace, mut delete, mut keep) = (0u64, 0u64, 0u64);
        let t = Instant::now();
        let mut start = 0;
        while start < data.len() {
            let mut end = (start + (8 << 20)).min(data.len());
            if end < data.len() {
                end = memchr_newline(&data, end);
            }
            m::parse_block(&data[start..end], &cat, &mut tally, &mut |r| match r {
                Row::Replace(_, p) => replace += p.len() as u64,
                Row::Delete(_) => delete += 1,
                Row::Keep(_) => keep += 1,
            });
            start = end;
        }
        best = best.min(t.elapsed().as_secs_f64());
        rows = tally.rows;
        counts = (replace, delete, keep);
        let s = tally.stats();
        if s.rows_with_invalid_segments == 0 {
            panic!("the generator should produce invalid pairs");
        }
    }
    println!(
        "parse+validate, one core: {rows} rows, {:.0} MB in {:.3} s (best of 3): {:.2} M rows/s, {:.0} MB/s  [valid pairs {}, PID-only rows {}, invalid-only rows {}]",
        size as f64 / 1e6,
        best,
        rows as f64 / best / 1e6,
        size as f64 / best / 1e6,
        counts.0,
        counts.1,
        counts.2
    );
}

fn memchr_newline(data: &[u8], from: usize) -> usize {
    data[from..].iter().position(|b| *b == b'\n').map_or(data.len(), |i| from + i + 1)
}

/// The worker end to end in this process (a child of the bench): prints one result line.
async fn child(rows: u64, dir: PathBuf) {
    let file = dir.join("batch.csv");
    let size = generate(&file, rows);
    let rss_after_generate = peak_rss_mb();
    let store: Arc<dyn Store> = Arc::new(EmbeddedStore::open(&dir.join("store.redb")).expect("store"));
    let blobs = Arc::new(LocalBlobs::new(dir.join("blobs")));
    let (q, mut rx) = InProcessQueue::new();
    let st = AppState::new(store.clone(), blobs.clone(), Arc::new(q)).with_settings(Settings::default());
    let seed = web::seed::SeedFile::parse(web::seed::DEMO_SEED).expect("seed");
    web::seed::apply(store.as_ref(), &seed).await.expect("seeding");
    let account = seed.accounts[0].id.clone();
    let p = provider("bench-dmp");
    store
        .put(web::repo::item(web::keys::record(&account, web::keys::PROVIDER, &p.id), &p, 1).expect("item"), web::store::Cond::None)
        .await
        .expect("provider");
    let key = format!("audience/{account}/{}/export.csv", p.id);
    blobs.put_file(&key, &file, "text/csv").await.expect("put");
    let _ = std::fs::remove_file(&file);

    let (_, mut audience_rx) = rx.queues.drain(..).find(|(q, _)| *q == QueueName::Audience).expect("audience queue");
    let t0 = Instant::now();
    web::workers::dispatch(&st, QueueName::Audience, &web::blobs::object_created_event(&st.settings.bucket_name, &key, size))
        .await
        .expect("plan");
    let plan_s = t0.elapsed().as_secs_f64();
    // The chunk jobs the plan sent, run as the local server's workers run them: up to
    // `durable_runner::concurrency(Audience)` at once, two a core (AUDIENCE_BENCH_WORKERS
    // to change it).
    let workers: usize = std::env::var("AUDIENCE_BENCH_WORKERS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| web::workers::durable_runner::concurrency(QueueName::Audience));
    let mut jobs = Vec::new();
    while let Ok(msg) = audience_rx.try_recv() {
        jobs.push(msg);
    }
    let chunks = jobs.len();
    use futures_util::stream::{self, StreamExt};
    let times: Vec<f64> = stream::iter(jobs)
        .map(|msg| {
            let st = st.clone();
            async move {
                tokio::spawn(async move {
                    let t = Instant::now();
                    web::workers::dispatch(&st, QueueName::Audience, &msg).await.expect("chunk");
                    t.elapsed().as_secs_f64()
                })
                .await
                .expect("chunk task")
            }
        })
        .buffer_unordered(workers)
        .collect()
        .await;
    let longest = times.iter().copied().fold(0f64, f64::max);
    assert!(audience_rx.try_recv().is_err(), "chunk jobs send no further jobs");
    let total = t0.elapsed().as_secs_f64();
    let batches: Vec<web::repo::Versioned<m::Batch>> =
        web::repo::query_all(store.as_ref(), web::store::Query::partition(web::keys::partition(&account, web::keys::BATCH)))
            .await
            .expect("batches");
    let b = &batches[0].value;
    assert_eq!(b.status, m::FINISHED, "batch not finished");
    assert_eq!(b.stats.rows, rows, "every row counted");
    println!(
        "RESULT rows={rows} mb={:.0} chunks={chunks} workers={workers} longest_chunk_s={longest:.2} plan_s={plan_s:.2} total_s={total:.1} rows_per_s={:.0} invalid_rows_with_pairs={} peak_rss_mb={:.0} rss_after_generate_mb={rss_after_generate:.0}",
        size as f64 / 1e6,
        rows as f64 / total,
        b.stats.rows_with_invalid_segments,
        peak_rss_mb()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let rows: u64 = args.get(i + 1).and_then(|r| r.parse().ok()).expect("rows");
        let dir = PathBuf::from(args.get(i + 2).expect("dir"));
        let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
        rt.block_on(child(rows, dir));
        return;
    }
    let big: u64 = std::env::var("BENCH_ROWS").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000_000);
    let tmp = std::env::temp_dir().join(format!("audience-bench-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).expect("tmp");

    let file = tmp.join("parse.csv");
    let t = Instant::now();
    let size = generate(&file, big);
    println!("generated {big} rows ({:.0} MB) in {:.1} s", size as f64 / 1e6, t.elapsed().as_secs_f64());
    parse_throughput(&file, size);
    let _ = std::fs::remove_file(&file);

    for rows in [1_000_000, big] {
        match api_tests::run_bench_child(&rows.to_string(), &tmp.join(format!("e2e-{rows}"))) {
            Ok(l) => println!("end to end (worker, embedded store): {l}"),
            Err(e) => println!("end to end {rows} rows FAILED: {e}"),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
