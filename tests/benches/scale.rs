//! Publisher scale (docs/publisher-scale.md): for each account size in `SIZES`
//! (goals, 5 ads each; default 1,000 / 10,000 / 50,000), seeded into the store, prints
//! - the compile worker's time (read the records, compile, encode, write object and
//!   pointer) and the compiled form's size;
//! - a serving process's first ad request after a change when it already serves the
//!   account (the decision on the snapshot held, and the store round trips the request
//!   waited for: the refresh and the new version's read run behind it), how long until the
//!   new version serves (the refresh's reads, one GET + decode, in the background), the
//!   same read on the request path (`DELIVERY_SWAP_GOALS` above the account), and what the
//!   old path took (read every record + compile);
//! - the store round trips and pace records read by a refresh with no change (x60 = a
//!   minute at the 1 s refresh), every goal having delivered a minute before, when nothing
//!   delivered since and when 100 goals did; the whole partition's query (the refresh
//!   before); and the refresh after a change;
//! - the snapshot's size in memory, decisions/s on one core and p99.
//!
//! `BACKEND=dynamodb` runs on the emulator (`AWS_ENDPOINT_URL`, as the tests; moto's S3 for
//! the bucket), the embedded store otherwise. The emulator read a 50,000-goal account back
//! in 19 minutes (its queries), so there the account is compiled by the worker once, each
//! later change (the records unchanged) gets the same form at its new version, and the
//! old path's read is left out (`RECOMPILE=1` compiles every change, `BEFORE=1` times the
//! old path). Allocator: mimalloc, as the serving function.
//! Run: `cargo bench -p api-tests --bench scale`.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::sync::Arc;
use std::time::Instant;

use api_tests::{Backend, TestApp};
use web::caches::snapshots::DeliveryCache;
use web::delivery::decide::decide;
use web::delivery::pacing::Pace;
use web::delivery::request::AdRequest;
use web::delivery::request::ViewerState;
use web::delivery::synthetic::{self, Spec};
use web::settings::Settings;
use web::state::AppState;
use web::usecases::compile::{self, Outcome};

fn sizes() -> Vec<usize> {
    std::env::var("SIZES")
        .ok()
        .map(|v| v.split(',').filter_map(|s| s.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 50_000])
}

fn pct(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

async fn seed(st: &AppState, account: &str, goals: usize) {
    let now = chrono::Utc::now();
    let input = synthetic::generate(Spec { goals, ads: goals * 5, seed: 11 }, now);
    let mut items = web::repo::snapshot_load::items(account, &input).expect("items");
    items.push(web::repo::item(web::keys::account(account), &synthetic::account(account), 1).expect("account"));
    items.push(web::repo::item(web::keys::delivery_account(account), &synthetic::account(account), 1).expect("account"));
    // Every goal has delivered, a minute ago.
    let minute_ago = web::repo::delivery::wall_ms() - 60_000;
    items.extend(input.goals.iter().map(|g| pace_item(account, &g.id, 1, minute_ago)));
    let store = st.store.clone();
    let mut set = tokio::task::JoinSet::new();
    for chunk in items.chunks(25).map(<[_]>::to_vec).collect::<Vec<_>>() {
        let store = store.clone();
        set.spawn(async move { store.batch_write(chunk, Vec::new()).await.expect("seed") });
        if set.len() >= 16 {
            set.join_next().await;
        }
    }
    while set.join_next().await.is_some() {}
    // The index keys and counts a seeded account has (the open campaigns' index included).
    web::repo::reindex::rebuild(st.store.as_ref(), account).await.expect("reindex");
    bump(st, account).await;
}

/// Writes `n` archived goals (one ad each, in archived campaigns) into the account.
async fn seed_history(st: &AppState, account: &str, n: usize) {
    let mut set = tokio::task::JoinSet::new();
    for part in synthetic::archived(n, chrono::Utc::now()) {
        for chunk in web::repo::snapshot_load::items(account, &part).expect("items").chunks(25).map(<[_]>::to_vec).collect::<Vec<_>>() {
            let store = st.store.clone();
            set.spawn(async move { store.batch_write(chunk, Vec::new()).await.expect("history") });
            if set.len() >= 16 {
                set.join_next().await;
            }
        }
    }
    while set.join_next().await.is_some() {}
    bump(st, account).await;
}

/// Archived goals the history row adds to a 10,000-goal account (`HISTORY`, default
/// 490,000 on the embedded store: 500,000 stored goals; 0 leaves the row out).
fn history() -> usize {
    std::env::var("HISTORY").ok().and_then(|v| v.parse().ok()).unwrap_or(if on_emulator() { 0 } else { 490_000 })
}

fn pace_item(account: &str, goal: &str, version: u64, at_ms: i64) -> web::store::Item {
    let pace = Pace { impressions: version, delivered: version, ..Pace::default() };
    let mut item = web::repo::item(web::keys::pace(account, goal), &pace, version).expect("pace");
    item.gsi1 = Some(web::keys::pace_changed(account, goal, at_ms));
    item
}

/// A refresh's round trips and pace records read (no change of what is served) after
/// `delivered` goals' pace records changed.
async fn refresh_reads(cache: &Arc<DeliveryCache>, st: &AppState, account: &str, settings: &Settings, delivered: &[String]) -> (u64, u64) {
    let now = web::repo::delivery::wall_ms();
    let items: Vec<_> = delivered.iter().map(|g| pace_item(account, g, 2 + now as u64 % 1_000_000, now)).collect();
    for chunk in items.chunks(25) {
        st.store.batch_write(chunk.to_vec(), Vec::new()).await.expect("paces");
    }
    settled(cache, account).await;
    let (trips, read) = (st.store.round_trips(), cache.paces_read());
    cache.current(&st.store, &st.blobs, account, settings, chrono::Utc::now()).await.expect("refresh");
    settled(cache, account).await;
    (st.store.round_trips() - trips, cache.paces_read() - read)
}

/// Waits for the refresh a request started behind it (a large account's), if any.
async fn settled(cache: &DeliveryCache, account: &str) {
    while cache.refreshing(account) {
        tokio::time::sleep(std::time::Duration::from_millis(1)).await;
    }
}

async fn bump(st: &AppState, account: &str) {
    st.store.add(&web::keys::delivery_version(account), &[("v".into(), 1)], web::store::Cond::None).await.expect("bump");
}

async fn worker(st: &AppState, account: &str) -> (f64, u64) {
    let t = Instant::now();
    let out = compile::run(st, &web::ids::AccountId::from(account)).await.expect("compile");
    let ms = t.elapsed().as_secs_f64() * 1000.0;
    match out {
        Outcome::Compiled(c) => (ms, c.bytes),
        other => panic!("not compiled: {other:?}"),
    }
}

fn on_emulator() -> bool {
    std::env::var("BACKEND").as_deref() == Ok("dynamodb")
}

fn recompile() -> bool {
    std::env::var("RECOMPILE").map_or(!on_emulator(), |v| v == "1")
}

/// What the worker writes for a change that left the records as they were: the compiled
/// form held, at the new version (the emulator's record reads take minutes at 50,000 goals).
async fn repoint(st: &AppState, account: &str) {
    let (version, pointer) = web::repo::delivery::version_and_compiled(st.store.as_ref(), account).await.expect("version");
    let (old, _) = pointer.expect("compiled once");
    let bytes = st.blobs.get(&old.object).await.expect("get").expect("the compiled form");
    let mut snapshot = web::delivery::compiled::decode(&bytes).expect("decode");
    snapshot.version = version;
    let bytes = web::delivery::compiled::encode(&snapshot).expect("encode");
    let object = web::keys::compiled_object(account, version);
    let c = web::repo::delivery::Compiled { version, object: object.clone(), bytes: bytes.len() as u64, ..old };
    st.blobs.put_bytes(&object, bytes, "application/octet-stream").await.expect("put");
    web::repo::delivery::put_compiled(st.store.as_ref(), account, &c).await.expect("pointer");
}

/// What a change costs a process that serves the account.
struct AfterChange {
    /// The first request after it (ms), and the store round trips the request waited for.
    first: f64,
    waited: u64,
    /// The refresh's round trips (on the request or behind it).
    trips: u64,
    /// How long until the new version served (ms), the compiled forms read meanwhile.
    serving: f64,
    gets: u64,
    /// Pace records read from the change until the new version served (none delivered).
    paces: u64,
}

async fn after_change(cache: &Arc<DeliveryCache>, st: &AppState, account: &str, settings: &Settings, r: &AdRequest) -> AfterChange {
    let now = chrono::Utc::now();
    let viewer = ViewerState::default();
    // No refresh left running from before: it would read the change first.
    settled(cache, account).await;
    bump(st, account).await;
    if recompile() {
        worker(st, account).await;
    } else {
        repoint(st, account).await;
    }
    let (version, _) = web::repo::delivery::version_and_compiled(st.store.as_ref(), account).await.expect("version");
    let (trips, loads, paces) = (st.store.round_trips(), cache.loads(), cache.paces_read());
    let t = Instant::now();
    let (s, pace) = cache.current(&st.store, &st.blobs, account, settings, now).await.expect("after a change");
    std::hint::black_box(decide(&s, r, &viewer, &pace));
    let first = t.elapsed().as_secs_f64() * 1000.0;
    let waited = st.store.round_trips() - trips;
    settled(cache, account).await;
    let trips = st.store.round_trips() - trips;
    loop {
        let (s, _) = cache.current(&st.store, &st.blobs, account, settings, now).await.expect("after a change");
        if s.version == version {
            let serving = t.elapsed().as_secs_f64() * 1000.0;
            settled(cache, account).await;
            let paces = cache.paces_read() - paces;
            return AfterChange { first, waited, trips, serving, gets: cache.loads() - loads, paces };
        }
        tokio::time::sleep(std::time::Duration::from_millis(2)).await;
    }
}

/// One thread: the tasks a request starts behind it run only once it has returned, so the
/// round trips counted while it runs are its own.
#[tokio::main(flavor = "current_thread")]
async fn main() {
    let on_emulator = on_emulator();
    // The emulator's table and bucket (a test app's), or an embedded store of its own (no
    // local queue polling it, so its round trips are the serving process's).
    let app = if on_emulator { Some(TestApp::spawn(Backend::DynamoDb).await) } else { None };
    let st = match &app {
        Some(app) => app.state.clone(),
        None => AppState::new(
            Arc::new(web::store::embedded::EmbeddedStore::in_memory().expect("store")),
            Arc::new(web::blobs::MemoryBlobs::default()),
            Arc::new(web::queue::NoQueue),
        )
        .with_settings(TestApp::settings()),
    };
    let settings = Settings { delivery_refresh: std::time::Duration::ZERO, ..TestApp::settings() };
    let on_request = Settings { delivery_swap_goals: usize::MAX, ..settings.clone() };
    println!("store: {}", if on_emulator { "DynamoDB + S3 on the emulator" } else { "embedded" });
    println!("| goals | ads | worker compile ms | compiled MB | first request after a change ms (store round trips it waited for) | new version serving after ms | read on the request path ms | before: read + compile ms | refresh: round trips, pace records (none delivered) | (100 goals delivered) | before: one query of the partition: round trips, pace records | after a change: the refresh's round trips + GETs, pace records read | snapshot MB | decisions/s | p99 us |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for goals in sizes() {
        let account = format!("scale-{goals}");
        seed(&st, &account, goals).await;
        let (compile_ms, bytes) = worker(&st, &account).await;
        let now = chrono::Utc::now();
        let requests = synthetic::requests(100_000, 5, now);
        let viewer = ViewerState::default();
        // A process that serves the account already.
        let cache = Arc::new(DeliveryCache::default());
        cache.current(&st.store, &st.blobs, &account, &settings, now).await.expect("warm");
        // Refreshes a second apart at steady state (the overlap is 5 s): nothing delivered,
        // then 100 goals delivered; before: one query of the whole delivery partition.
        let goal_ids: Vec<String> = cache
            .current(&st.store, &st.blobs, &account, &settings, now)
            .await
            .expect("warm")
            .0
            .goals
            .iter()
            .map(|g| g.id.clone())
            .collect();
        let calm = refresh_reads(&cache, &st, &account, &settings, &[]).await;
        let busy = refresh_reads(&cache, &st, &account, &settings, &goal_ids[..100.min(goal_ids.len())]).await;
        let trips = st.store.round_trips();
        let whole = web::repo::delivery::state(st.store.as_ref(), &account).await.expect("state");
        let whole = (st.store.round_trips() - trips, whole.paces.len());
        let (mut first, mut swapped, mut sync) = (Vec::new(), Vec::new(), Vec::new());
        let (mut waited, mut trips, mut gets, mut paces) = (0, 0, 0, 0);
        for _ in 0..5 {
            let a = after_change(&cache, &st, &account, &settings, &requests[0]).await;
            (waited, trips, gets, paces) = (waited.max(a.waited), trips.max(a.trips), gets.max(a.gets), paces.max(a.paces));
            first.push(a.first);
            swapped.push(a.serving);
            let a = after_change(&cache, &st, &account, &on_request, &requests[0]).await;
            paces = paces.max(a.paces);
            sync.push(a.first);
        }
        for v in [&mut first, &mut swapped, &mut sync] {
            v.sort_by(|a, b| a.total_cmp(b));
        }
        assert_eq!(cache.builds(), 0, "the process compiled the records itself");
        // The old path: every record read and compiled by the serving process.
        let old_ms = if std::env::var("BEFORE").map_or(!on_emulator, |v| v == "1") {
            let t = Instant::now();
            let input = web::repo::snapshot_load::load(
                st.store.as_ref(),
                &account,
                0,
                "https://m",
                web::caches::bound(&settings),
                chrono::Utc::now(),
            )
            .await
            .expect("load");
            std::hint::black_box(web::delivery::snapshot::compile(input, now));
            t.elapsed().as_secs_f64() * 1000.0
        } else {
            f64::NAN
        };
        // Decisions on one core.
        let (s, _) = cache.current(&st.store, &st.blobs, &account, &settings, now).await.expect("snapshot");
        let pace = vec![Pace::default(); s.goals.len()];
        let t = Instant::now();
        for r in &requests {
            std::hint::black_box(decide(&s, r, &viewer, &pace));
        }
        let per_sec = requests.len() as f64 / t.elapsed().as_secs_f64();
        let mut lat: Vec<f64> = requests
            .iter()
            .take(20_000)
            .map(|r| {
                let t = Instant::now();
                std::hint::black_box(decide(&s, r, &viewer, &pace));
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        lat.sort_by(|a, b| a.total_cmp(b));
        println!(
            "| {goals} | {} | {compile_ms:.0} | {:.1} | {:.1} (max {:.1}; {waited}) | {:.0} | {:.0} | {old_ms:.0} | {}, {} | {}, {} | {}, {} | {trips} + {gets} GET, {paces} | {:.0} | {per_sec:.0} | {:.1} |",
            goals * 5,
            bytes as f64 / 1e6,
            first[first.len() / 2],
            first[first.len() - 1],
            swapped[swapped.len() / 2],
            sync[sync.len() / 2],
            calm.0,
            calm.1,
            busy.0,
            busy.1,
            whole.0,
            whole.1,
            s.approx_bytes() as f64 / 1e6,
            pct(&lat, 0.99),
        );
    }
    // An account's history: 10,000 live goals beside archived ones. Serving reads only
    // what can serve, so it compiles as the 10,000-goal account does.
    let archived = history();
    if archived > 0 {
        let account = "history";
        seed(&st, account, 10_000).await;
        seed_history(&st, account, archived).await;
        let (compile_ms, bytes) = worker(&st, account).await;
        let (s, _) = Arc::new(DeliveryCache::default())
            .current(&st.store, &st.blobs, account, &settings, chrono::Utc::now())
            .await
            .expect("snapshot");
        println!();
        println!("| history | stored goals | live goals in the snapshot | worker compile ms | compiled MB | snapshot MB |");
        println!("|---|---|---|---|---|---|");
        println!(
            "| 10,000 live + {archived} archived | {} | {} | {compile_ms:.0} | {:.1} | {:.0} |",
            10_000 + archived,
            s.goals.len(),
            bytes as f64 / 1e6,
            s.approx_bytes() as f64 / 1e6
        );
    }
}
