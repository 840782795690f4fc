//! The delivery engine benchmark: an account of 1,000 active goals and 5,000
//! ads with mixed targeting (`web::delivery::synthetic`). Prints the snapshot's build
//! time (compile alone, and read from the embedded store + compile) and size, then
//! decisions on one core: decisions/s over 200,000 varied requests, and p50/p99/max of
//! single decisions. Run: `cargo bench -p api-tests --bench delivery`.

use std::time::Instant;

use web::delivery::decide::decide;
use web::delivery::pacing::Pace;
use web::delivery::request::ViewerState;
use web::delivery::snapshot::compile;
use web::delivery::synthetic::{self, Spec};
use web::store::embedded::EmbeddedStore;
use web::store::Store;

/// The account's size: `GOALS` and `ADS` in the environment (default 1,000 and 5,000).
fn size(var: &str, default: usize) -> usize {
    std::env::var(var).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}
const REQUESTS: usize = 200_000;

fn pct(sorted: &[u128], p: f64) -> u128 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let now = chrono::Utc::now();
    let (goals, ads) = (size("GOALS", 1_000), size("ADS", 5_000));
    let spec = Spec { goals, ads, seed: 11 };
    let rounds = if goals > 5_000 { 3 } else { 10 };

    // Snapshot: compile alone.
    let mut compile_ms = Vec::new();
    let mut snapshot = None;
    for _ in 0..rounds {
        let input = synthetic::generate(spec, now);
        let t = Instant::now();
        let s = compile(input, now);
        compile_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        snapshot = Some(s);
    }
    let s = snapshot.expect("compiled");
    compile_ms.sort_by(|a, b| a.total_cmp(b));
    let stored_bytes: usize =
        web::repo::snapshot_load::items("bench", &synthetic::generate(spec, now)).expect("items").iter().map(|i| i.size()).sum();

    // Snapshot: read from the store and compile (what a server does when the version moves).
    let store = EmbeddedStore::in_memory().expect("store");
    let mut items = web::repo::snapshot_load::items("bench", &synthetic::generate(spec, now)).expect("items");
    items.push(web::repo::item(web::keys::account("bench"), &synthetic::account("bench"), 1).expect("account"));
    // Serving reads the account's copy in the delivery partition.
    items.push(web::repo::item(web::keys::delivery_account("bench"), &synthetic::account("bench"), 1).expect("account"));
    for chunk in items.chunks(25) {
        store.batch_write(chunk.to_vec(), Vec::new()).await.expect("seed");
    }
    let bound = web::repo::snapshot_load::Bound { goals: web::delivery::synthetic::MAX_GOALS, ads: web::delivery::synthetic::MAX_ADS };
    let mut build_ms = Vec::new();
    let mut load_ms = Vec::new();
    for _ in 0..rounds.min(5) {
        let t = Instant::now();
        let input = web::repo::snapshot_load::load(&store, "bench", 1, "https://m", bound, chrono::Utc::now()).await.expect("load");
        load_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        let built = compile(input, now);
        build_ms.push(t.elapsed().as_secs_f64() * 1000.0);
        assert_eq!((built.goals.len(), built.ads.len()), (goals, ads));
    }
    load_ms.sort_by(|a, b| a.total_cmp(b));
    build_ms.sort_by(|a, b| a.total_cmp(b));
    println!(
        "account: {} goals, {} ads, {} campaigns, {} interned values; stored records {:.1} MB",
        s.goals.len(),
        s.ads.len(),
        s.campaigns.len(),
        s.syms.len(),
        stored_bytes as f64 / 1e6
    );
    println!(
        "snapshot compile: median {:.1} ms (min {:.1}); read from the embedded store: median {:.1} ms; read + compile: median {:.1} ms; size ~{:.1} MB in memory",
        compile_ms[compile_ms.len() / 2],
        compile_ms[0],
        load_ms[load_ms.len() / 2],
        build_ms[build_ms.len() / 2],
        s.approx_bytes() as f64 / 1e6
    );

    // Decisions on one core.
    let requests = synthetic::requests(REQUESTS, 5, now);
    let viewer = ViewerState::default();
    let pace: Vec<Pace> = vec![Pace::default(); s.goals.len()];
    let mut filled = 0usize;
    for r in requests.iter().take(20_000) {
        filled += decide(&s, r, &viewer, &pace).picks.len();
    }
    let t = Instant::now();
    let mut picks = 0usize;
    for r in &requests {
        picks += decide(&s, r, &viewer, &pace).picks.len();
    }
    let secs = t.elapsed().as_secs_f64();
    let mut lat: Vec<u128> = Vec::with_capacity(REQUESTS);
    for r in &requests {
        let t = Instant::now();
        let d = decide(&s, r, &viewer, &pace);
        lat.push(t.elapsed().as_nanos());
        std::hint::black_box(d);
    }
    lat.sort_unstable();
    println!(
        "decisions: {REQUESTS} in {:.3} s = {:.0} decisions/s on one core; {:.1} % of breaks filled (warm-up {:.1} %)",
        secs,
        REQUESTS as f64 / secs,
        picks as f64 * 100.0 / REQUESTS as f64,
        filled as f64 * 100.0 / 20_000.0
    );
    println!(
        "decision latency: p50 {:.1} us, p99 {:.1} us, p99.9 {:.1} us, max {:.1} us",
        pct(&lat, 0.5) as f64 / 1000.0,
        pct(&lat, 0.99) as f64 / 1000.0,
        pct(&lat, 0.999) as f64 / 1000.0,
        *lat.last().unwrap_or(&0) as f64 / 1000.0
    );
}
