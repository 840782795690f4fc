//! The forecast benchmark: an account of 1,000 active goals and 5,000 ads with
//! mixed targeting, and two weeks of recorded traffic of 1,000,000 requests a day sampled
//! 1:100 (10,000 samples a day); an inventory and a campaign forecast over 100 days, each in
//! a child process of its own: wall time (records read, compile, simulation, report) and
//! peak memory. Then what the operators' views cost on that account: the pacing replay of
//! `embed=projections` / `GET /v3/goals/{id}/pacing` (the traffic model three times, model,
//! less and more, over the goals' remaining flight: 10 and 93 days), and a 30-day delivery
//! report by day over 2,000 report cells a day (embedded store). Run:
//! `cargo bench -p api-tests --bench forecast`.

use std::collections::HashMap;
use std::time::Instant;

use chrono::{Duration, Utc};
use web::delivery::snapshot::{compile, AdFormat};
use web::delivery::synthetic::{self, Spec};
use web::forecast::traffic::{Sample, Traffic};
use web::forecast::{proposal, report, request, simulate};
use web::model::enums::{FormatType, GoalVariant};

const GOALS: usize = 1_000;
const ADS: usize = 5_000;
const PER_DAY: usize = 10_000;

fn traffic() -> Traffic {
    let now = Utc::now();
    let start = (now - Duration::days(14)).date_naive();
    let days: Vec<_> = (0..14)
        .map(|d| {
            let reqs = synthetic::requests(PER_DAY, 1000 + d as u64, now);
            let samples = reqs.iter().enumerate().filter_map(|(i, r)| Some(((i * 24 / PER_DAY) as u32, Sample::of(r)?))).collect();
            (start + Duration::days(d), samples)
        })
        .collect();
    Traffic::from_recorded(&days)
}

/// The pacing replay of `usecases::pacing` over `days` of the account's goals' flights.
fn pacing(days: i64) {
    let now = Utc::now();
    let input = synthetic::generate(Spec { goals: GOALS, ads: ADS, seed: 11 }, now);
    let traffic = traffic();
    let s = compile(input, now);
    let t = Instant::now();
    let runs = web::usecases::pacing::replay_levels(&s, &[], &traffic, now, now + Duration::days(days), 42);
    let expected: f64 = runs[0].iter().map(|x| x.total()).sum();
    println!(
        "RESULT pacing-{days}d: the replay of {GOALS} goals over {days} days, three times at once (model, -{:.0} %, +{:.0} %), at most {} samples an hour: {:.2} s, peak RSS {:.0} MB, {:.0} units to all goals",
        traffic.swing * 100.0,
        traffic.swing * 100.0,
        simulate::PACING_REPLAY_PER_HOUR,
        t.elapsed().as_secs_f64(),
        api_tests::peak_rss_mb(),
        expected
    );
}

/// A 30-day report by day, grouped by campaign and format, over 2,000 cells a day.
fn report_bench() {
    use web::store::Store;
    const CELLS: usize = 2_000;
    let store = web::store::embedded::EmbeddedStore::in_memory().expect("store");
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let first = chrono::NaiveDate::from_ymd_opt(2026, 11, 1).expect("date");
    let t = Instant::now();
    rt.block_on(async {
        for d in 0..30 {
            let day = first + Duration::days(d);
            let ops: Vec<web::store::TxOp> = (0..CELLS)
                .map(|i| {
                    let sk = format!("{:02}#c{}#g{}#a{}#preroll#cat-{}#-#-", i % 24, i % 20, i % 200, i % 1000, i % 37);
                    let key = web::store::Key::new(web::repo::reports::day_partition("bench", day), sk);
                    web::store::TxOp::Add(key, vec![("impression".into(), 10), ("complete".into(), 7)], web::store::Cond::None)
                })
                .collect();
            for chunk in ops.chunks(100) {
                store.transact(chunk.to_vec()).await.expect("written");
            }
        }
    });
    let written = t.elapsed().as_secs_f64();
    let spec = web::usecases::reports::Spec {
        from: first,
        to: first + Duration::days(29),
        granularity: web::model::enums::Granularity::Day,
        group_by: vec![web::model::enums::ReportDimension::Campaign, web::model::enums::ReportDimension::Format],
        campaign: None,
        goal: None,
        ad: None,
    };
    let mut times = Vec::new();
    let mut rows = 0;
    for _ in 0..5 {
        let t = Instant::now();
        let cells: Vec<_> = rt.block_on(async {
            let mut all = Vec::new();
            for d in 0..30 {
                all.extend(web::repo::reports::day(&store, "bench", first + Duration::days(d)).await.expect("read"));
            }
            all
        });
        rows = web::usecases::reports::group(&spec, &cells).expect("grouped").len();
        times.push(t.elapsed().as_secs_f64() * 1000.0);
    }
    times.sort_by(f64::total_cmp);
    println!(
        "RESULT report: 30 days x {CELLS} cells ({} cells written in {written:.1} s); by day x campaign x format: {rows} rows in {:.0} ms (median of 5, embedded store; 30 partition queries)",
        30 * CELLS,
        times[2]
    );
}

fn child(kind: &str) {
    match kind {
        "pacing-10d" => return pacing(10),
        "pacing-93d" => return pacing(93),
        "report" => return report_bench(),
        _ => {}
    }
    let now = Utc::now();
    let t0 = Instant::now();
    let input = synthetic::generate(Spec { goals: GOALS, ads: ADS, seed: 11 }, now);
    let traffic = traffic();
    let prep = t0.elapsed().as_secs_f64();
    let (start, end) = (now + Duration::days(1), now + Duration::days(101));
    let t = Instant::now();
    let w = simulate::Window {
        start,
        end,
        traffic: &traffic,
        seed: 42,
        per_hour: simulate::MAX_REPLAY_PER_HOUR,
        scale: 1.0,
        fills: &simulate::UNLIMITED,
    };
    let units = match kind {
        "inventory" => {
            let f = request::InventoryForecast {
                name: Some("bench".into()),
                variant: GoalVariant::Normal,
                start,
                end,
                traffic_estimate: None,
                format_types: vec![FormatType::Preroll, FormatType::Midroll],
                device_containers: Vec::new(),
                targeting: request::Targeting { templates: Vec::new(), rules: Default::default(), overrides: Vec::new() },
            };
            let mut input = input;
            proposal::add_probe(&mut input, &f, &HashMap::new(), now);
            let s = compile(input, now);
            let probe = s.goal_index[proposal::PROBE];
            let inv = simulate::inventory(&s, &[], probe, &[AdFormat::Preroll, AdFormat::Midroll], &[], &w, &mut |_| true).expect("ran");
            let days: Vec<(String, Option<u32>)> = (0..inv.days).map(|d| (d.to_string(), None)).collect();
            let r = report::inventory(Some("bench"), "job", &inv, &days, "recorded");
            r.total_inventory.total
        }
        _ => {
            let body = serde_json::json!({"campaign": {"name": "bench", "goals": [{"name": "g", "startDate": start.to_rfc3339(), "endDate": (end - Duration::days(1)).to_rfc3339(),
                "variant": "NORMAL", "priority": 6, "deliveryGoal": {"type": "IMPRESSION", "value": 20_000_000},
                "targeting": {"targetingRules": {"categoryRules": [{"categoryId": "cat-1", "ruleType": "AT_LEAST_ONE_OF"}]}},
                "ads": [{"name": "a", "format": "preroll_standard", "deviceContainers": []}]}]}});
            let known = web::model::rules::Known { categories: ["cat-1".to_string()].into_iter().collect(), ..Default::default() };
            let refs = request::Refs { known: &known, templates: &[], device_containers: &[] };
            let mut f = request::campaign(&body, &refs, now).expect("valid");
            // Validation allows ends up to 100 days from today; the bench flies the full 100.
            f.goals[0].end = end;
            let mut with = input.clone();
            let ids = proposal::add_campaign(&mut with, &f, &HashMap::new(), now);
            let base = compile(input, now);
            let all = compile(with, now);
            let proposed: Vec<u32> = ids.iter().map(|id| all.goal_index[id]).collect();
            let (res, _) = simulate::campaign(&base, &all, &HashMap::new(), &proposed, &w, &mut |_| true).expect("ran");
            res[0].delivered.total()
        }
    };
    let sim = t.elapsed().as_secs_f64();
    println!(
        "RESULT {kind}: setup {prep:.2} s, compile + simulate + report {sim:.2} s, total {:.2} s, peak RSS {:.0} MB, {:.0} units",
        t0.elapsed().as_secs_f64(),
        api_tests::peak_rss_mb(),
        units
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--child") {
        child(args.get(2).map(String::as_str).unwrap_or("inventory"));
        return;
    }
    let samples = 14 * PER_DAY;
    println!(
        "account: {GOALS} goals, {ADS} ads; traffic: 14 days x {PER_DAY} samples (1,000,000 requests a day at 1:100) = {samples} samples; window 100 days, at most {} replayed per hour",
        simulate::MAX_REPLAY_PER_HOUR
    );
    let tmp = std::env::temp_dir().join("forecast-bench");
    for kind in ["inventory", "campaign", "pacing-10d", "pacing-93d", "report"] {
        match api_tests::run_bench_child(kind, &tmp.join(kind)) {
            Ok(line) => println!("{line}"),
            Err(e) => println!("{kind}: failed: {e}"),
        }
    }
}
