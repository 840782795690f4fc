//! Hostile input benchmark. Prints:
//!
//! 1. the time to answer hostile ~1 MiB bodies through the whole HTTP stack (the router of
//!    every group on the embedded store, in memory): an XML bean with 95,000 unknown
//!    children and 36,000 repeated names, an ad with 80,000 device containers, a rulesBean
//!    over the item limit, and a 1 MiB gzip bomb upload (inflates to ~1 GiB). Median and
//!    worst of 15 runs, release build; the target is under 100 ms.
//! 2. the audience worker's peak resident memory (VmHWM) on hostile batch files dropped in the
//!    bucket, each in a fresh child process: a 2 MB gzip bomb of 2 GiB of zeros without a
//!    line end, a gzip bomb of 2 GiB of line ends, and a plain 256 MiB file that is one row.
//!    The target is under 256 MB, and each batch must end (CANCELLED or FINISHED).
//!
//! Run: `cargo bench -p api-tests --bench hostile` (or ./scripts/bench.sh).

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use api_tests::{Backend, TestApp};
use web::blobs::{Blobs, LocalBlobs};
use web::model::audience as m;
use web::queue::{InProcessQueue, QueueName};
use web::state::{AppState, Settings};
use web::store::embedded::EmbeddedStore;
use web::store::Store;

use api_tests::peak_rss_mb;

fn gzip_of(byte: u8, len: usize) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let block = vec![byte; 1 << 20];
    for _ in 0..len >> 20 {
        e.write_all(&block).expect("gzip");
    }
    e.finish().expect("gzip")
}

fn xml_bean() -> String {
    let mut bean = String::from("<clientBean><type>ADVERTISER</type>");
    for i in 0..95_000 {
        bean.push_str(&format!("<u{}/>", i % 7));
    }
    for _ in 0..36_000 {
        bean.push_str("<name>n</name>");
    }
    bean.push_str("</clientBean>");
    bean
}

async fn bodies() {
    let app = TestApp::spawn(Backend::Embedded).await;
    let (_, campaign) = app.advertiser_campaign().await;
    let many: Vec<String> = (0..80_000).map(|i| format!("dc-{i:06}")).collect();
    let ad = serde_json::json!({"name": "A", "goalId": "g", "creative": {"type": "placeholder"}, "deviceContainers": many}).to_string();
    let tags: String = (0..8000)
        .map(|i| {
            format!("<tags><resourceId>tag-number-{i:05}-x</resourceId><ruleType>NONE_OF</ruleType><variableType>TAG</variableType></tags>")
        })
        .collect();
    let rules = format!("<rulesBean>{tags}</rulesBean>");
    let rules_path = format!("/api/1.0/campaign/rules/by_campaign_id;id={campaign}");
    let bomb = gzip_of(0, 1 << 30);
    let provider = format!("providerId={}-ap-dmp", app.a.id);
    let xml = xml_bean();
    println!("hostile bodies (release, whole HTTP stack, embedded store; 15 runs each):");
    let cases: [(&str, usize); 4] = [("clientBean", xml.len()), ("ad", ad.len()), ("rulesBean", rules.len()), ("gzip bomb", bomb.len())];
    for (name, size) in cases {
        let mut times = Vec::new();
        let mut status = 0;
        let mut answer = 0;
        for _ in 0..15 {
            let t = Instant::now();
            let r = match name {
                "clientBean" => app.post_xml("/api/1.0/client", &xml).await,
                "ad" => app.send("POST", "/v1/ads", Some(&app.a.key), Some("application/json"), &ad).await,
                "rulesBean" => app.put_xml(&rules_path, &rules).await,
                _ => app.upload_batch(&provider, bomb.clone(), true).await,
            };
            times.push(t.elapsed().as_secs_f64() * 1e3);
            status = r.status;
            answer = r.body.len();
        }
        times.sort_by(f64::total_cmp);
        println!(
            "  {name:<11} {:>7.2} MB -> {status}, {answer} B answer: median {:.1} ms, worst {:.1} ms",
            size as f64 / 1e6,
            times[times.len() / 2],
            times[times.len() - 1]
        );
    }
}

/// One hostile file through the worker in this (child) process: prints one result line.
async fn child(case: &str, dir: PathBuf) {
    let store: Arc<dyn Store> = Arc::new(EmbeddedStore::open(&dir.join("store.redb")).expect("store"));
    let blobs = Arc::new(LocalBlobs::new(dir.join("blobs")));
    let (q, mut rx) = InProcessQueue::new();
    let st = AppState::new(store.clone(), blobs.clone(), Arc::new(q)).with_settings(Settings::default());
    let seed = web::seed::SeedFile::parse(web::seed::DEMO_SEED).expect("seed");
    web::seed::apply(store.as_ref(), &seed).await.expect("seeding");
    let account = seed.accounts[0].id.clone();
    let provider = seed.accounts[0].audience_providers.first().map(|p| p.id.clone()).expect("a provider");
    let key = format!("audience/{account}/{provider}/{case}");
    let size = match case {
        "bomb-no-newline.gz" => {
            let b = gzip_of(b'0', 2 << 30);
            blobs.put_bytes(&key, b.clone(), "application/gzip").await.expect("put");
            b.len()
        }
        "bomb-newlines.gz" => {
            let b = gzip_of(b'\n', 2 << 30);
            blobs.put_bytes(&key, b.clone(), "application/gzip").await.expect("put");
            b.len()
        }
        _ => {
            let file = dir.join("one-row.csv");
            let mut f = std::io::BufWriter::new(std::fs::File::create(&file).expect("file"));
            let block = vec![b'x'; 1 << 20];
            for _ in 0..256 {
                f.write_all(&block).expect("write");
            }
            f.write_all(b"\nlast|age=18-24\n").expect("write");
            drop(f);
            blobs.put_file(&key, &file, "text/csv").await.expect("put");
            let _ = std::fs::remove_file(&file);
            (256 << 20) + 16
        }
    };
    let (_, mut audience_rx) = rx.queues.drain(..).find(|(q, _)| *q == QueueName::Audience).expect("audience queue");
    let rss_before = peak_rss_mb();
    let t0 = Instant::now();
    web::workers::dispatch(&st, QueueName::Audience, &web::blobs::object_created_event(&st.settings.bucket_name, &key, size as u64))
        .await
        .expect("plan");
    while let Ok(msg) = audience_rx.try_recv() {
        web::workers::dispatch(&st, QueueName::Audience, &msg).await.expect("chunk");
    }
    let total = t0.elapsed().as_secs_f64();
    let batches: Vec<web::repo::Versioned<m::Batch>> =
        web::repo::query_all(store.as_ref(), web::store::Query::partition(web::keys::partition(&account, web::keys::BATCH)))
            .await
            .expect("batches");
    let b = &batches[0].value;
    assert!(b.status == m::CANCELLED || b.status == m::FINISHED, "batch did not end: {:?}", b.status);
    println!(
        "RESULT {case}: {:.1} MB file -> {} in {total:.2} s ({}); invalid rows {}; peak RSS {:.0} MB (before the worker: {rss_before:.0} MB)",
        size as f64 / 1e6,
        b.status.as_str(),
        b.message.as_deref().unwrap_or("no message"),
        b.stats.invalid_rows,
        peak_rss_mb()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rt = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    if let Some(i) = args.iter().position(|a| a == "--child") {
        let case = args.get(i + 1).expect("case").clone();
        let dir = PathBuf::from(args.get(i + 2).expect("dir"));
        rt.block_on(child(&case, dir));
        return;
    }
    rt.block_on(bodies());
    let tmp = std::env::temp_dir().join(format!("hostile-bench-{}", std::process::id()));
    println!("hostile batch files through the audience worker (fresh process each, embedded store):");
    for case in ["bomb-no-newline.gz", "bomb-newlines.gz", "one-256MiB-row.csv"] {
        match api_tests::run_bench_child(case, &tmp.join(case)) {
            Ok(l) => println!("  {l}"),
            Err(e) => println!("  {case} FAILED: {e}"),
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
}
