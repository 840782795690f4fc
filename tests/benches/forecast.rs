//! The forecast benchmark (issue 13): an account of 1,000 active goals and 5,000 ads with
//! mixed targeting, and two weeks of recorded traffic of 1,000,000 requests a day sampled
//! 1:100 (10,000 samples a day); an inventory and a campaign forecast over 100 days, each in
//! a child process of its own: wall time (records read, compile, simulation, report) and
//! peak memory. Run: `cargo bench -p api-tests --bench forecast`.

use std::collections::HashMap;
use std::time::Instant;

use chrono::{Duration, Utc};
use shared::delivery::snapshot::{compile, AdFormat};
use shared::delivery::synthetic::{self, Spec};
use shared::forecast::traffic::{Sample, Traffic};
use shared::forecast::{proposal, report, request, simulate};
use shared::model::enums::{FormatType, GoalVariant};

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

fn child(kind: &str) {
    let now = Utc::now();
    let t0 = Instant::now();
    let input = synthetic::generate(Spec { goals: GOALS, ads: ADS, seed: 11 }, now);
    let traffic = traffic();
    let prep = t0.elapsed().as_secs_f64();
    let (start, end) = (now + Duration::days(1), now + Duration::days(101));
    let t = Instant::now();
    let w = simulate::Window { start, end, traffic: &traffic, seed: 42 };
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
            let known = shared::model::rules::Known { categories: ["cat-1".to_string()].into_iter().collect(), ..Default::default() };
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
    for kind in ["inventory", "campaign"] {
        match api_tests::run_bench_child(kind, &tmp.join(kind)) {
            Ok(line) => println!("{line}"),
            Err(e) => println!("{kind}: failed: {e}"),
        }
    }
}
