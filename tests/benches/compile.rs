//! The snapshot compile at publisher scale: for each account size in `SIZES`
//! (goals; 5 ads each; default 1,000, 10,000, 50,000, 100,000), the compile time of a
//! generated account (median of 5 rounds, the input's own drop timed apart) and the
//! growth against the previous size and against 10,000 goals (the target: 100,000
//! in at most 12× the time), the snapshot's estimated bytes per ad and the process's
//! peak resident memory (records + snapshot). Run: `cargo bench -p api-tests --bench compile`.
//! Allocator: mimalloc, as the compile worker and the serving function (the earlier figures
//! in docs/publisher-scale.md, section 2, were taken with glibc's).

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::time::Instant;

use web::delivery::snapshot::compile_unindexed;
use web::delivery::synthetic::{self, Spec};

fn sizes() -> Vec<usize> {
    std::env::var("SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 50_000, 100_000])
}

/// The process's resident memory (kB) and its peak so far, from /proc/self/status.
fn rss_kb() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status.lines().find(|l| l.starts_with(name)).and_then(|l| l.split_whitespace().nth(1)).and_then(|v| v.parse().ok()).unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let now = chrono::Utc::now();
    let mut previous: Option<(usize, f64)> = None;
    // The measure: each size's compile against the 10,000-goal one (target: 100,000
    // goals in at most 12× its time).
    let mut at_10k: Option<f64> = None;
    println!("| goals | ads | compile ms (the worker's) | id indexes ms (serving) | drop of the input ms | per goal us | growth | × the 10,000-goal compile | snapshot MB (estimate) | bytes per ad | input + snapshot peak MB |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    for goals in sizes() {
        let spec = Spec { goals, ads: goals * 5, seed: 11 };
        let rounds = 5;
        let (mut compile_ms, mut drop_ms, mut index_ms) = (Vec::new(), Vec::new(), Vec::new());
        let (mut snapshot_bytes, mut peak_mb) = (0usize, 0.0);
        for _ in 0..rounds {
            let input = synthetic::generate(spec, now);
            let copy = input.clone();
            let t = Instant::now();
            drop(copy);
            drop_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            let (before, _) = rss_kb();
            let t = Instant::now();
            // What the compile worker runs; a process that compiles to serve also indexes.
            let mut s = compile_unindexed(input, now);
            compile_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            let t = Instant::now();
            s.reindex();
            index_ms.push(t.elapsed().as_secs_f64() * 1000.0);
            assert_eq!(s.goals.len(), goals);
            snapshot_bytes = s.approx_bytes();
            // The input was resident before the compile; the peak adds the snapshot to it.
            let (_, peak) = rss_kb();
            peak_mb = f64::max(peak_mb, peak.max(before) as f64 / 1024.0);
            std::hint::black_box(s);
        }
        let (c, d, ix) = (median(compile_ms), median(drop_ms), median(index_ms));
        let growth = previous.map_or("".to_string(), |(g, ms)| format!("{:.1}× for {}× the goals", c / ms, goals / g.max(1)));
        if goals == 10_000 {
            at_10k = Some(c);
        }
        let of_10k = at_10k.map_or("".to_string(), |t| format!("{:.1}×", c / t));
        println!(
            "| {goals} | {} | {c:.1} | {ix:.1} | {d:.1} | {:.2} | {growth} | {of_10k} | {:.1} | {} | {peak_mb:.0} |",
            goals * 5,
            c * 1000.0 / goals as f64,
            snapshot_bytes as f64 / 1e6,
            snapshot_bytes / (goals * 5)
        );
        previous = Some((goals, c));
    }
}
