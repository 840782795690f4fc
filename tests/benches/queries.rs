//! The /v3 query benchmark. Seeds one account with 2,000 campaigns,
//! 10,000 goals and 50,000 ads (`QUERY_CAMPAIGNS=10000`: 50,000 goals and 250,000 ads),
//! then measures requests through the real router (pages sorted by name come from the name
//! indexes; the same page with a filter that keeps every goal reads every record):
//! store round trips per request (counted by the store port) on both adapters — DynamoDB
//! against the emulator when `AWS_ENDPOINT_URL` is set — and median/p99 latency on the
//! embedded store; then the console's list and record pages (docs/console.md), as a
//! signed-in person opens them. Run: ./scripts/bench.sh (starts moto) or `cargo bench -p api-tests
//! --bench queries` (embedded only).

use std::time::{Duration, Instant};
use web::model::enums::{CreativeType, GoalType, GoalVariant, InsertionPoint, PricingModel};

use api_tests::chrono::{Duration as Days, Utc};
use api_tests::{Backend, TestApp};
use web::model::ad::{Ad, Creative};
use web::model::campaign::{Campaign, GoalFlight};
use web::model::goal::Goal;
use web::store::Item;

const GOALS_PER_CAMPAIGN: usize = 5;
const ADS_PER_GOAL: usize = 5;
/// Ads with delivery in the report cells, and the hours of a day they delivered in.
const REPORT_ADS: usize = 40;
const REPORT_HOURS: u32 = 12;
/// Days of report cells (a 90-day report).
const REPORT_DAYS: i64 = 90;

/// Report cells as the events worker leaves them: `REPORT_DAYS` local days up to today, each
/// with `REPORT_HOURS` hours of `REPORT_ADS` ads (480 cells a day, 43,200 in all).
async fn seed_report_cells(app: &TestApp, s: &Seeded) -> api_tests::chrono::NaiveDate {
    let a = &app.a.id;
    let today = Utc::now().date_naive();
    let mut items = Vec::new();
    for d in 0..REPORT_DAYS {
        let day = today - Days::days(d);
        for h in 0..REPORT_HOURS {
            for (i, (c, g, ad)) in s.served.iter().enumerate() {
                let sk = format!("{:02}#{c}#{g}#{ad}#preroll#-#-#-", h + 8);
                let n = (100 + (i as i64 * 13 + d) % 50) * 10;
                let counters =
                    [("impression", n), ("start", n - 5), ("complete", n / 2), ("clickThrough", n / 100), ("serverInitiated", n / 10)];
                let mut item = Item { pk: web::repo::reports::day_partition(a, day), sk, version: 1, ..Item::default() };
                item.counters = counters.iter().map(|(k, v)| (k.to_string(), *v)).collect();
                items.push(item);
            }
        }
        if items.len() >= 2_000 {
            app.store.batch_put(std::mem::take(&mut items)).await.unwrap();
        }
    }
    app.store.batch_put(items).await.unwrap();
    today
}

struct Seeded {
    goal: String,
    campaign: String,
    /// (campaign, goal, ad) of the first campaigns, for the report cells.
    served: Vec<(String, String, String)>,
}

fn campaigns() -> usize {
    std::env::var("QUERY_CAMPAIGNS").ok().and_then(|v| v.parse().ok()).unwrap_or(2_000)
}

async fn seed(app: &TestApp) -> Seeded {
    let a = &app.a.id;
    let campaign_count = campaigns();
    let now = Utc::now();
    let adv = app.client("Bench advertiser", "ADVERTISER").await;
    let mut items: Vec<Item> = Vec::new();
    let mut sample_goal = String::new();
    let mut sample_campaign = String::new();
    let mut served = Vec::new();
    let t0 = Instant::now();
    for c in 0..campaign_count {
        let cid = uuid::Uuid::new_v4().to_string();
        let mut goals = Vec::new();
        let mut flights = Vec::new();
        for g in 0..GOALS_PER_CAMPAIGN {
            let gid = uuid::Uuid::new_v4().to_string();
            let start = now + Days::days((c % 30) as i64) + Days::hours(g as i64);
            let end = start + Days::days(14);
            let mut summaries = Vec::new();
            for k in 0..ADS_PER_GOAL {
                let id = uuid::Uuid::new_v4().to_string();
                let created = now - Days::seconds((c * 100 + g * 10 + k) as i64);
                let ad = Ad {
                    id: id.clone(),
                    goal_id: gid.clone(),
                    name: format!("Ad {c:04}-{g}-{k}"),
                    custom_id: None,
                    description: Some("A benchmark ad with a realistic description".into()),
                    enabled: k % 2 == 0,
                    weight: if k == 0 { Some(40.0) } else { None },
                    creative: Creative {
                        kind: CreativeType::SpotPlaceholder,
                        insertion_point: Some([InsertionPoint::Preroll, InsertionPoint::Midroll, InsertionPoint::Postroll][k % 3]),
                        asset_id: None,
                        click_destination_uri: Some("https://brand.example/landing?utm=bench".into()),
                        video_creative_id: None,
                        vast_uri: None,
                        vpaid_strict: None,
                        vpaid_countdown: None,
                        estimated_ad_duration: None,
                    },
                    start: None,
                    end: None,
                    external_trackers: vec![],
                    device_containers: None,
                    created,
                    modified: created,
                    creative_modified: created,
                };
                if served.len() < REPORT_ADS {
                    served.push((cid.clone(), gid.clone(), id.clone()));
                }
                summaries.push(ad.summary());
                let mut item = web::repo::item(web::keys::record(a, web::keys::AD, &id), &ad, 1).unwrap();
                item.gsi2 = Some((
                    web::keys::ads_by_created(a),
                    format!("{}#{id}", created.to_rfc3339_opts(api_tests::chrono::SecondsFormat::Micros, true)),
                ));
                items.push(item);
            }
            let goal = Goal {
                id: gid.clone(),
                campaign_id: cid.clone(),
                kind: [GoalType::Impression, GoalType::ShareOfVoice, GoalType::Complete, GoalType::Rtb, GoalType::ClickThrough][g],
                variant: GoalVariant::Normal,
                goal_value: Some(100_000.0 + (c * 7 + g) as f64),
                start,
                end: Some(end),
                pricing_model: PricingModel::Cpm,
                pricing_value: Some(12.5),
                custom_id: None,
                description: None,
                name: Some(format!("Goal {c:04}-{g}")),
                front_load_factor: None,
                priority: Some(((c + g) % 10 + 1) as u8),
                caps: vec![],
                midroll_breaks: vec![],
                unlimited_impressions: false,
                marketplace_id: None,
                enabled: true,
                ads: summaries,
                deleted_at: None,
                created: now,
                modified: now,
            };
            flights.push(GoalFlight { id: gid.clone(), start, end: Some(end), deleted: false });
            items.push(web::repo::item(web::keys::record(a, web::keys::GOAL, &gid), &goal, 1).unwrap());
            if c == campaign_count / 2 && g == 0 {
                sample_goal = gid.clone();
                sample_campaign = cid.clone();
            }
            goals.push(goal);
        }
        let input = web::model::campaign::parse_bean(
            &web::xml::parse(
                format!(
                    "<campaignBean><name>Campaign {:04}</name><advertiserId>{adv}</advertiserId><enabled>{}</enabled></campaignBean>",
                    (c * 7919) % campaign_count,
                    // Half deliver: the home page's list and the inspector read a full snapshot.
                    c % 2 == 0
                )
                .as_bytes(),
            )
            .unwrap(),
        )
        .unwrap();
        let mut camp = Campaign::from_input(cid.clone(), &input, now);
        for f in flights {
            camp.set_goal(f);
        }
        items.push(web::repo::item(web::keys::record(a, web::keys::CAMPAIGN, &cid), &camp, 1).unwrap());
        if items.len() >= 2_000 {
            app.store.batch_put(std::mem::take(&mut items)).await.unwrap();
        }
    }
    app.store.batch_put(items).await.unwrap();
    // Written as records, not through the API: their name index keys and counts now.
    web::repo::reindex::rebuild(app.store.as_ref(), a).await.unwrap();
    println!(
        "  seeded {} campaigns, {} goals, {} ads into the {} store in {:.1} s",
        campaign_count,
        campaign_count * GOALS_PER_CAMPAIGN,
        campaign_count * GOALS_PER_CAMPAIGN * ADS_PER_GOAL,
        app.store.kind(),
        t0.elapsed().as_secs_f64()
    );
    Seeded { goal: sample_goal, campaign: sample_campaign, served }
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i.min(sorted.len() - 1)]
}

/// A GET as the API (its key) or as a console page (`session`: a signed-in user's cookie).
async fn get(app: &TestApp, path: &str, session: Option<&str>) -> api_tests::Res {
    match session {
        Some(s) => {
            let cookie = format!("o_session={s}");
            app.send_with_headers("GET", path, None, None, "", &[("host", api_tests::CONSOLE_HOST), ("cookie", &cookie)]).await
        }
        None => app.get(path).await,
    }
}

async fn measure(app: &TestApp, label: &str, path: &str, runs: usize) {
    measure_as(app, label, path, runs, None).await
}

async fn measure_as(app: &TestApp, label: &str, path: &str, runs: usize, session: Option<&str>) {
    if std::env::var("BENCH_ONLY").is_ok_and(|only| !path.contains(&only)) {
        return;
    }
    // Warm: the key is cached after the first request, as on a warm Lambda; a few more
    // settle the allocator after the bulk load.
    let first = get(app, path, session).await;
    assert_eq!(first.status, 200, "{path}: {}", first.body);
    for _ in 0..runs.min(20) {
        get(app, path, session).await;
    }
    let before = app.store.round_trips();
    let r = get(app, path, session).await;
    let trips = app.store.round_trips() - before;
    let bytes = r.body.len();
    let mut times = Vec::with_capacity(runs);
    for _ in 0..runs {
        let t = Instant::now();
        let r = get(app, path, session).await;
        times.push(t.elapsed());
        assert_eq!(r.status, 200);
    }
    times.sort();
    println!(
        "  {label:<76} round trips {trips:>3}   median {:>7.2} ms   p99 {:>7.2} ms   ({runs} runs, {} KB)",
        percentile(&times, 0.5).as_secs_f64() * 1e3,
        percentile(&times, 0.99).as_secs_f64() * 1e3,
        bytes / 1024
    );
}

async fn run(backend: Backend, runs: usize) {
    println!("{backend:?} store:");
    let app = TestApp::spawn(backend).await;
    let s = seed(&app).await;
    measure(&app, "/v3/campaigns?expand=goals&expand=ads&pageSize=100", "/v3/campaigns?expand=goals&expand=ads&pageSize=100", runs).await;
    for path in [
        "/v3/campaigns?pageSize=100&pageNumber=1",
        "/v3/campaigns?pageSize=100&pageNumber=10",
        "/v3/goals?pageSize=100&pageNumber=1",
        "/v3/goals?pageSize=100&pageNumber=50",
        "/v3/goals?pageSize=100&pageNumber=50&sortingOrder=descending",
        "/v3/goals?pageSize=100&pageNumber=50&goals.started.after=2000-01-01T00:00:00Z",
        "/v3/goals?sorting=campaignName&pageSize=100&pageNumber=50",
    ] {
        measure(&app, path.trim_start_matches("/v3/"), path, runs).await;
    }
    measure(&app, "/v3/ads?goal.id=<goal>", &format!("/v3/ads?goal.id={}", s.goal), runs).await;
    // The console's list and record pages (docs/console.md), rendered from the same indexes,
    // as a signed-in person opens them (target: p99 <= 30 ms at 10,000 goals, embedded).
    let password = "a long enough password";
    let r = app
        .post_json(
            "/v1/users",
            &api_tests::serde_json::json!({"email": "bench@a.example", "name": "Bench", "role": "TRAFFICKER", "password": password}),
        )
        .await;
    assert_eq!(r.status, 201, "{}", r.body);
    let (_, session) = app.console_sign_in("bench@a.example", password).await;
    let session = session.expect("signed in");
    for (label, path) in [
        ("console: campaigns, page 1".to_string(), "/console/campaigns".to_string()),
        ("console: campaigns, page 40".into(), "/console/campaigns?page=40".into()),
        ("console: campaigns searched by name".into(), "/console/campaigns?q=campaign%20100".into()),
        ("console: campaigns filtered by state (paused)".into(), "/console/campaigns?status=paused".into()),
        ("console: a campaign's page".into(), format!("/console/campaigns/{}", s.campaign)),
        ("console: a goal's page".into(), format!("/console/goals/{}", s.goal)),
        ("console: changes".into(), "/console/changes".into()),
    ] {
        measure_as(&app, &label, &path, runs, Some(&session)).await;
    }
    // Part 2 (docs/console.md): what needs attention, Why not serving and a 90-day report,
    // at 10,000 goals (target: p99 <= 50 ms, embedded).
    let today = seed_report_cells(&app, &s).await;
    let from = today - Days::days(REPORT_DAYS - 1);
    for (label, path) in [
        ("console: home, what needs attention".to_string(), "/console/".to_string()),
        ("console: why not serving (pre-roll, no category)".into(), "/console/why-not-serving?category=&format=preroll&device=".into()),
        (
            "console: reports, 90 days by day and campaign".into(),
            format!("/console/reports?from={from}&to={today}&groupBy=campaign&granularity=day"),
        ),
        ("console: reports, 90 days by day and ad".into(), format!("/console/reports?from={from}&to={today}&groupBy=ad&granularity=day")),
    ] {
        measure_as(&app, &label, &path, runs, Some(&session)).await;
    }
}

fn main() {
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    rt.block_on(async {
        let runs = std::env::var("BENCH_RUNS").ok().and_then(|v| v.parse().ok()).unwrap_or(200);
        run(Backend::Embedded, runs).await;
        if std::env::var("AWS_ENDPOINT_URL").is_ok() && std::env::var("BENCH_EMBEDDED_ONLY").is_err() {
            run(Backend::DynamoDb, 3).await;
        } else {
            println!("(AWS_ENDPOINT_URL not set: the DynamoDB round trips need ./scripts/bench.sh)");
        }
    });
}
