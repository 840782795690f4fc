//! Audience batches: seed 002 §2.8, §3, §4.3, §5, §8 (docs/audience.md). Small chunks
//! (40 bytes) so that every file is cut into several chunks and rows cross chunk ends.

use std::collections::BTreeMap;
use std::io::Write;

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, both_stores_with, TestApp};
use web::model::audience::Viewer;
use web::state::Settings;

fn settings() -> Settings {
    Settings { audience_chunk_bytes: 40, ..TestApp::settings() }
}

fn gzip(text: &str) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(text.as_bytes()).unwrap();
    e.finish().unwrap()
}

/// A PID's stored segments from the demo provider: segmentation key → segment key.
async fn viewer(app: &TestApp, pid: &str) -> Option<BTreeMap<String, String>> {
    let a = &app.a.id;
    let page = app.store.query(web::store::Query::partition(web::keys::viewer_partition(a, pid))).await.unwrap();
    assert!(page.items.len() <= 1);
    // A deleted PID's tombstone (no segments) is no viewer data.
    page.items.into_iter().next().map(|i| serde_json::from_str::<Viewer>(&i.body).unwrap()).filter(|v| !v.segments.is_empty()).map(|v| {
        v.segments
            .into_iter()
            .map(|(s, g)| (s.trim_start_matches(&format!("{a}-sg-")).to_string(), g.trim_start_matches(&format!("{a}-s-")).to_string()))
            .collect()
    })
}

fn segs(pairs: &[(&str, &str)]) -> Option<BTreeMap<String, String>> {
    Some(pairs.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect())
}

async fn upload_and_wait(app: &TestApp, text: &str) -> Value {
    let p = format!("providerId={}-ap-dmp", app.a.id);
    let r = app.upload_batch(&p, text.as_bytes().to_vec(), false).await;
    r.expect(202);
    let v = r.json();
    assert_eq!(v["status"], "UPLOADED");
    app.wait_batch(v["link"].as_str().unwrap()).await
}

both_stores_with! { super::settings();
    async fn upload_processes_every_row_rule_across_chunks(app: TestApp) {
        let p = format!("providerId={}-ap-dmp", app.a.id);
        let first = "v1|age=18-24|gender=f\nv2|age=25-34\nv3|gender=m\nv4|age=35-49\n";
        let r = app.upload_batch(&p, first.as_bytes().to_vec(), false).await;
        r.expect(202);
        let v = r.json();
        let id = v["batchId"].as_str().unwrap().to_string();
        assert_eq!(v, json!({"batchId": id, "status": "UPLOADED", "link": format!("/v1/audience/batch/{id}")}));
        assert_eq!(r.header("location"), Some(format!("/v1/audience/batch/{id}").as_str()));
        let done = app.wait_batch(&format!("/v1/audience/batch/{id}")).await;
        assert_eq!(done, json!({"batchId": id, "status": "PROCESSING_FINISHED", "progressPercentage": 100,
            "details": {"rowsWithInvalidSegments": 0, "invalidRows": 0}, "link": format!("/v1/audience/batch/{id}")}));
        assert_eq!(viewer(&app, "v1").await, segs(&[("age", "age-18"), ("gender", "g-f")]));
        assert_eq!(viewer(&app, "v3").await, segs(&[("gender", "g-m")]));

        // The next day's file exercises the six rules against stored data.
        app.advance(chrono::Duration::days(1));
        let second = "v1|Age=18-24|gender=x\n\
                      v2|gender=m|age=bad\n\
                      v3\n\
                      v5|age=18-24|age=25-34\n\
                      v6|age=18-24|gender=m\n\
                      v7|age=35-49|age=35-49\n\
                      v6|gender=f\r\n\
                      v8|age=18-24";
        let done = upload_and_wait(&app, second).await;
        assert_eq!(done["status"], "PROCESSING_FINISHED");
        assert_eq!(done["details"], json!({"rowsWithInvalidSegments": 2, "invalidRows": 0,
            "invalidSegments": ["Age=18-24", "age=bad", "gender=x"]}));
        // 1/2: only invalid pairs (case-sensitive keys) leave the stored data alone.
        assert_eq!(viewer(&app, "v1").await, segs(&[("age", "age-18"), ("gender", "g-f")]));
        // 3/4: the valid pairs replace the PID's data; the absent age is cleared.
        assert_eq!(viewer(&app, "v2").await, segs(&[("gender", "g-m")]));
        // PID alone: removed.
        assert_eq!(viewer(&app, "v3").await, None);
        // Untouched PIDs keep theirs.
        assert_eq!(viewer(&app, "v4").await, segs(&[("age", "age-35")]));
        // 6: one segment per segmentation (the later pair).
        assert_eq!(viewer(&app, "v5").await, segs(&[("age", "age-25")]));
        // 5: the last row wins (the two rows of v6 lie in different chunks); duplicates collapse.
        assert_eq!(viewer(&app, "v6").await, segs(&[("gender", "g-f")]));
        assert_eq!(viewer(&app, "v7").await, segs(&[("age", "age-35")]));
        // The last row has no line end.
        assert_eq!(viewer(&app, "v8").await, segs(&[("age", "age-18")]));
    }

    async fn chunks_committing_in_any_order_keep_each_pids_last_row(app: TestApp) {
        // A batch as the planner leaves it (40-byte chunks), its chunk jobs delivered last
        // first, as parallel workers may finish them: each PID ends with its last row.
        let a = app.a.id.clone();
        let text = "o1|age=18-24\no2|gender=m\no3\nxx|age=25-34\nyy|age=25-34\nzz|age=25-34\no1|gender=f\no2\no3|age=35-49\n";
        let key = web::jobs::audience::work_key(&a, "order", 0);
        app.state.blobs.put_bytes(&key, text.as_bytes().to_vec(), "text/csv").await.unwrap();
        let account: web::model::account::Account = web::repo::get(app.store.as_ref(), &web::keys::account(&a)).await.unwrap().unwrap().value;
        let mut b = web::workers::audience::new_batch(&app.state, &account, &format!("{a}-ap-dmp"), "6b0c6c3e-1111-4222-8333-944445555666", &key, web::model::enums::BatchSource::Bucket);
        b.status = web::model::audience::PROCESSING;
        b.day = "1999-01-02".into();
        b.total_bytes = text.len() as u64;
        b.chunks = (0..text.len() as u64).step_by(40).map(|s| web::model::audience::Chunk { key: key.clone(), start: s, end: (s + 40).min(text.len() as u64), done: false }).collect();
        let n = b.chunks.len();
        assert!(n >= 3, "the rows of a PID lie in different chunks");
        app.store.put(web::repo::audience::item(&b, 1).unwrap(), web::store::Cond::NotExists).await.unwrap();
        for i in (0..n).rev() {
            let job = json!({"chunk": {"account": a, "batch": b.id, "index": i}}).to_string();
            web::workers::dispatch(&app.state, web::queue::QueueName::Audience, &job).await.unwrap();
            if i == n - 1 {
                // Only the last chunk committed: the batch runs on, its progress counted.
                let p = app.get(&format!("/v1/audience/batch/{}", b.id)).await.json();
                assert_eq!(p["status"], "PROCESSING", "{p}");
                assert!(p["progressPercentage"].as_u64().unwrap() > 0, "{p}");
            }
        }
        let p = app.get(&format!("/v1/audience/batch/{}", b.id)).await.json();
        assert_eq!(p["status"], "PROCESSING_FINISHED", "{p}");
        assert_eq!(p["details"], json!({"rowsWithInvalidSegments": 0, "invalidRows": 0}), "{p}");
        let stored = app.store.get(&web::keys::record(&a, web::keys::BATCH, &b.id)).await.unwrap().unwrap();
        let stored: web::model::audience::Batch = serde_json::from_str(&stored.body).unwrap();
        assert_eq!((stored.stats.rows, stored.chunks_done as usize), (9, n), "every row counted once");
        assert_eq!(viewer(&app, "o1").await, segs(&[("gender", "g-f")]), "the later row replaced the earlier one's data");
        assert_eq!(viewer(&app, "o2").await, None, "deleted by its last row, though the earlier row was written after");
        assert_eq!(viewer(&app, "o3").await, segs(&[("age", "age-35")]), "an earlier deletion does not remove a later row");
        // Delivered again (a redelivery): nothing changes.
        for i in 0..n {
            let job = json!({"chunk": {"account": a, "batch": b.id, "index": i}}).to_string();
            web::workers::dispatch(&app.state, web::queue::QueueName::Audience, &job).await.unwrap();
        }
        assert_eq!(app.get(&format!("/v1/audience/batch/{}", b.id)).await.json(), p);
        assert_eq!(viewer(&app, "o1").await, segs(&[("gender", "g-f")]));
    }

    async fn gzip_uploads_and_the_alternate_path(app: TestApp) {
        let a = &app.a.id;
        let text = "g1|age=18-24\ng2|gender=f|nope=1\ng3|age=25-34|gender=m\n".repeat(3);
        let r = app.upload_batch(&format!("providerId={a}-ap-dmp&region=eu"), gzip(&text), true).await;
        r.expect(202);
        let done = app.wait_batch(r.json()["link"].as_str().unwrap()).await;
        assert_eq!(done["status"], "PROCESSING_FINISHED");
        assert_eq!(done["details"]["rowsWithInvalidSegments"], 3);
        assert_eq!(done["details"]["invalidSegments"], json!(["nope=1"]));
        assert_eq!(viewer(&app, "g3").await, segs(&[("age", "age-25"), ("gender", "g-m")]));
        // A body that is not gzip: 400, nothing stored.
        let bad = app.upload_batch(&format!("providerId={a}-ap-dmp"), b"\x1f\x8bnot really".to_vec(), true).await;
        bad.expect(400);
        assert_eq!(bad.json()["errors"][0]["field"], "body");
        // The alternate path of the seed's examples (the next day: one file a day).
        app.advance(chrono::Duration::days(1));
        let r = app
            .send("POST", &format!("/v1/audience/provider/batch?providerId={a}-ap-dmp"), Some(&app.a.key), Some("text/csv"), "g9|age=35-49\n")
            .await;
        r.expect(202);
        app.wait_batch(r.json()["link"].as_str().unwrap()).await;
        assert_eq!(viewer(&app, "g9").await, segs(&[("age", "age-35")]));
    }

    async fn a_file_dropped_in_the_bucket_is_processed(app: TestApp) {
        let a = &app.a.id;
        let key = format!("audience/{a}/{a}-ap-dmp/daily export.csv");
        app.state.blobs.put_bytes(&key, b"d1|age=18-24\nd2|gender=m|bad=1\n".to_vec(), "text/csv").await.unwrap();
        let found = api_tests::eventually("the dropped file's batch", std::time::Duration::from_secs(180), || async {
            let v = app.get(&format!("/v1/audience/batch?providerId={a}-ap-dmp")).await.json();
            v["batches"].as_array().is_some_and(|b| b.len() == 1 && b[0]["status"] == "PROCESSING_FINISHED").then(|| v["batches"][0].clone())
        })
        .await;
        assert_eq!(found["status"], "PROCESSING_FINISHED", "dropped file not processed");
        assert_eq!(found["source"], "bucket");
        assert_eq!(found["progressPercentage"], 100);
        // The list has the counts; the invalid pairs are at the batch's link (bounded lists).
        assert_eq!(found["details"]["rowsWithInvalidSegments"], 1);
        assert!(found["details"].get("invalidSegments").is_none(), "{found}");
        assert_eq!(viewer(&app, "d1").await, segs(&[("age", "age-18")]));
        assert_eq!(viewer(&app, "d2").await, segs(&[("gender", "g-m")]));
        let link = found["link"].as_str().unwrap().to_string();
        let one = app.get(&link).await.json();
        assert_eq!(one["status"], "PROCESSING_FINISHED");
        assert_eq!(one["details"]["invalidSegments"], json!(["bad=1"]));
        // A second file the same day is over the limit: recorded as CANCELLED, not processed.
        let key2 = format!("audience/{a}/{a}-ap-dmp/second.csv.gz");
        app.state.blobs.put_bytes(&key2, gzip("d3|age=18-24\n"), "application/gzip").await.unwrap();
        let second = api_tests::eventually("the second file's batch", std::time::Duration::from_secs(180), || async {
            let v = app.get(&format!("/v1/audience/batch?providerId={a}-ap-dmp")).await.json();
            let list = v["batches"].as_array().filter(|b| b.len() == 2)?;
            list.iter().find(|b| b["link"] != link.as_str()).cloned()
        })
        .await;
        assert_eq!(second["status"], "CANCELLED");
        assert!(second["message"].as_str().unwrap().contains("one batch file per provider per day"), "{second}");
        assert_eq!(viewer(&app, "d3").await, None);
    }

    async fn one_batch_per_provider_per_day(app: TestApp) {
        let p = format!("providerId={}-ap-dmp", app.a.id);
        let first = app.upload_batch(&p, b"x1|age=18-24\n".to_vec(), false).await;
        first.expect(202);
        let again = app.upload_batch(&p, b"x2|age=18-24\n".to_vec(), false).await;
        again.expect(429);
        let secs: i64 = again.header("retry-after").unwrap().parse().unwrap();
        assert!((1..=86_400 + 3_600).contains(&secs), "{secs}");
        let msg = again.json()["message"].as_str().unwrap().to_string();
        assert!(msg.contains(first.json()["batchId"].as_str().unwrap()) && msg.contains("one batch file per provider per day"), "{msg}");
        app.wait_batch(first.json()["link"].as_str().unwrap()).await;
        assert_eq!(viewer(&app, "x2").await, None);
        app.advance(chrono::Duration::days(1));
        app.upload_batch(&p, b"x2|age=18-24\n".to_vec(), false).await.expect(202);
    }

    async fn cancel_both_ways_and_the_worker_stops(app: TestApp) {
        // A finished batch: 400 with exactly {errors: [{message}]}.
        let done = upload_and_wait(&app, "c1|age=18-24\n").await;
        let id = done["batchId"].as_str().unwrap();
        let r = app.send("POST", &format!("/v1/audience/batch/{id}/cancel"), Some(&app.a.key), None, "").await;
        r.expect(400);
        assert_eq!(r.json(), json!({"errors": [{"message": format!("Batch {id} is already 100% processed and cannot be cancelled")}]}));

        // A batch below 100 %: built in the store as the planner leaves it, its chunk job not
        // yet delivered; cancelled, then the job arrives and writes nothing.
        let a = app.a.id.clone();
        let key = format!("audience/{a}/{a}-ap-dmp/manual.csv");
        let text = b"c2|age=18-24\nc3|gender=f\n".to_vec();
        let len = text.len() as u64;
        // Straight into the inner store's bytes, without an event (the memory/S3 blob put
        // would notify; the planner would then run): write through the store port only.
        let account: web::model::account::Account = web::repo::get(app.store.as_ref(), &web::keys::account(&a)).await.unwrap().unwrap().value;
        let mut b = web::workers::audience::new_batch(&app.state, &account, &format!("{a}-ap-dmp"), "5b0c6c3e-1111-4222-8333-944445555666", &key, web::model::enums::BatchSource::Bucket);
        b.status = web::model::audience::PROCESSING;
        b.day = "1999-01-01".into();
        b.total_bytes = len;
        b.chunks = vec![web::model::audience::Chunk { key: key.clone(), start: 0, end: len, done: false }];
        app.store.put(web::repo::audience::item(&b, 1).unwrap(), web::store::Cond::NotExists).await.unwrap();
        let link = format!("/v1/audience/batch/{}", b.id);
        let p = app.get(&link).await.json();
        assert_eq!((p["status"].as_str(), p["progressPercentage"].as_u64()), (Some("PROCESSING"), Some(0)));
        let r = app.send("POST", &format!("{link}/cancel"), Some(&app.a.key), None, "").await;
        r.expect(200);
        assert_eq!(r.json()["status"], "CANCELLED");
        assert_eq!(r.json()["batchId"], b.id.as_str());
        // Again: still 200, still CANCELLED.
        app.send("POST", &format!("{link}/cancel"), Some(&app.a.key), None, "").await.expect(200);
        let job = json!({"chunk": {"account": a, "batch": b.id, "index": 0}}).to_string();
        web::workers::dispatch(&app.state, web::queue::QueueName::Audience, &job).await.unwrap();
        assert_eq!(viewer(&app, "c2").await, None);
        assert_eq!(app.get(&link).await.json()["status"], "CANCELLED");
    }

    async fn a_providers_batches_run_one_at_a_time_in_upload_order(app: TestApp) {
        // An earlier batch still running (as a worker leaves it between chunks).
        let a = app.a.id.clone();
        let account: web::model::account::Account = web::repo::get(app.store.as_ref(), &web::keys::account(&a)).await.unwrap().unwrap().value;
        let mut first = web::workers::audience::new_batch(&app.state, &account, &format!("{a}-ap-dmp"), "0b0c6c3e-1111-4222-8333-944445555666", "audience/x/y/z.csv", web::model::enums::BatchSource::Bucket);
        first.status = web::model::audience::PROCESSING;
        first.day = "1999-01-01".into();
        first.total_bytes = 10;
        first.chunks = vec![web::model::audience::Chunk { key: "audience/x/y/z.csv".into(), start: 0, end: 10, done: false }];
        app.store.put(web::repo::audience::item(&first, 1).unwrap(), web::store::Cond::NotExists).await.unwrap();
        app.advance(chrono::Duration::seconds(1));
        // The next file waits: it stays at 0 % while the first runs.
        let r = app.upload_batch(&format!("providerId={a}-ap-dmp"), b"w1|age=18-24\n".to_vec(), false).await;
        r.expect(202);
        let link = r.json()["link"].as_str().unwrap().to_string();
        // Its jobs have run: it was planned, and waits.
        app.settle().await;
        let p = app.get(&link).await.json();
        assert_eq!((p["status"].as_str(), p["progressPercentage"].as_u64()), (Some("PROCESSING"), Some(0)), "{p}");
        assert_eq!(viewer(&app, "w1").await, None);
        // The first ends (cancelled here): the waiting one starts and finishes.
        app.send("POST", &format!("/v1/audience/batch/{}/cancel", first.id), Some(&app.a.key), None, "").await.expect(200);
        assert_eq!(app.wait_batch(&link).await["status"], "PROCESSING_FINISHED");
        assert_eq!(viewer(&app, "w1").await, segs(&[("age", "age-18")]));
    }

    async fn redelivered_messages_do_not_double_count(app: TestApp) {
        let a = app.a.id.clone();
        let done = upload_and_wait(&app, "r1|age=18-24|bad=1\nr2|gender=m\nr3|zz=9\n").await;
        let id = done["batchId"].as_str().unwrap().to_string();
        let q = web::queue::QueueName::Audience;
        // The S3 event and every chunk job again, as SQS may redeliver them.
        let key = format!("audience/{a}/{a}-ap-dmp/{id}.csv");
        web::workers::dispatch(&app.state, q, &web::blobs::object_created_event(&app.state.settings.bucket_name, &key, 1)).await.unwrap();
        for i in 0..4 {
            let job = json!({"chunk": {"account": a, "batch": id, "index": i}}).to_string();
            web::workers::dispatch(&app.state, q, &job).await.unwrap();
        }
        app.settle().await;
        let again = app.get(&format!("/v1/audience/batch/{id}")).await.json();
        assert_eq!(again, done);
        assert_eq!(again["details"]["rowsWithInvalidSegments"], 2);
        // moto's TestEvent and unknown messages are dropped, not retried.
        web::workers::dispatch(&app.state, q, r#"{"Event":"s3:TestEvent"}"#).await.unwrap();
        let r = web::workers::dispatch(&app.state, q, "garbage").await;
        assert!(matches!(r, Err(web::workers::JobError::Drop(_))), "malformed: dropped, not retried: {r:?}");
        assert!(web::workers::settle(&app.state, q, "garbage").await, "the message is done with");
    }

    async fn upload_checks_change_nothing(app: TestApp) {
        let a = app.a.id.clone();
        let p = format!("providerId={a}-ap-dmp");
        let rules = |r: api_tests::Res| -> Vec<String> {
            r.json()["errors"].as_array().unwrap().iter().map(|e| format!("{} {}", e["field"].as_str().unwrap(), e["rule"].as_str().unwrap())).collect()
        };
        let r = app.upload_batch("", b"x|age=18-24\n".to_vec(), false).await;
        r.expect(400);
        assert_eq!(rules(r), vec!["providerId required"]);
        let r = app.upload_batch(&format!("{p}&region=us"), b"x|age=18-24\n".to_vec(), false).await;
        r.expect(400);
        assert_eq!(rules(r), vec!["region enum"]);
        let r = app.upload_batch(&format!("{p}&region=asia"), b"x|age=18-24\n".to_vec(), false).await;
        r.expect(400);
        assert_eq!(rules(r), vec!["region region"]);
        let r = app.upload_batch(&format!("{p}&color=red"), b"x|age=18-24\n".to_vec(), false).await;
        r.expect(400);
        app.upload_batch(&p, Vec::new(), false).await.expect(400);
        app.upload_batch("providerId=nope", b"x|age=18-24\n".to_vec(), false).await.expect(404);
        let b = app.b.id.clone();
        app.upload_batch(&format!("providerId={b}-ap-dmp"), b"x|age=18-24\n".to_vec(), false).await.expect(404);
        app.send("POST", &format!("/v1/audience/batch?{p}"), Some(&app.a.key), Some("application/json"), "{}").await.expect(415);
        app.send("POST", &format!("/v1/audience/batch?{p}"), None, Some("text/csv"), "x\n").await.expect(401);
        // Nothing was stored: the day's slot is still free.
        let ok = app.upload_batch(&p, b"x|age=18-24\n".to_vec(), false).await;
        ok.expect(202);
        let link = ok.json()["link"].as_str().unwrap().to_string();
        app.wait_batch(&link).await;
        // Another account's batch and unknown ids: 404.
        app.get_as(&app.b.key, &link).await.expect(404);
        app.send("POST", &format!("{link}/cancel"), Some(&app.b.key), None, "").await.expect(404);
        app.get("/v1/audience/batch/00000000-0000-4000-8000-000000000000").await.expect(404);
        assert!(app.get_as(&app.b.key, "/v1/audience/batch").await.json()["batches"].as_array().unwrap().is_empty());
    }

    async fn an_account_of_the_other_region_is_refused(app: TestApp) {
        // Seed 002 §5: the regional address must match the account's region.
        let a = app.a.id.clone();
        app.set_account(&a, |acc| acc.region = Some("asia".into())).await;
        let r = app.upload_batch(&format!("providerId={a}-ap-dmp"), b"x|age=18-24\n".to_vec(), false).await;
        r.expect(403);
        assert!(r.json()["message"].as_str().unwrap().contains("asia"), "{}", r.body);
        app.get("/v1/audience/batch").await.expect(403);
        // Providers are not regional.
        app.get("/v1/audience/provider").await.expect(200);
    }
}

/// A file's batch as listed for the demo provider, once it has ended.
async fn wait_listed(app: &TestApp, source: &str) -> Value {
    let a = &app.a.id;
    api_tests::eventually(&format!("an ended {source} batch"), std::time::Duration::from_secs(180), || async {
        let v = app.get(&format!("/v1/audience/batch?providerId={a}-ap-dmp")).await.json();
        v["batches"].as_array().and_then(|b| {
            b.iter().find(|b| b["source"] == source && (b["status"] == "PROCESSING_FINISHED" || b["status"] == "CANCELLED")).cloned()
        })
    })
    .await
}

// Bombs and endless rows, with the service's own chunk size.
both_stores! {
    async fn gzip_bombs_are_refused_and_overlong_rows_dropped(app: TestApp) {
        let a = &app.a.id;
        let p = format!("providerId={a}-ap-dmp");
        // 32 MiB of zeros without a line end, 33 KB compressed: 413 naming the rule, nothing stored.
        let zeros = vec![0u8; 32 << 20];
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(&zeros).unwrap();
        let bomb = e.finish().unwrap();
        let r = app.upload_batch(&p, bomb.clone(), true).await;
        r.expect(413);
        let v = r.json();
        assert_eq!((v["errors"][0]["field"].as_str(), v["errors"][0]["rule"].as_str()), (Some("body"), Some("inflateRatio")), "{v}");
        assert_eq!(app.get(&format!("/v1/audience/batch?{p}")).await.json()["batches"], json!([]));
        // The same bomb dropped straight into the bucket: the worker refuses it (CANCELLED
        // with the reason) without inflating it, and does not hold up the provider.
        let key = format!("audience/{a}/{a}-ap-dmp/bomb.csv.gz");
        app.state.blobs.put_bytes(&key, bomb, "application/gzip").await.unwrap();
        let b = wait_listed(&app, "bucket").await;
        assert_eq!(b["status"], "CANCELLED", "{b}");
        assert!(b["message"].as_str().unwrap().contains("inflates more than 100 times"), "{b}");
        // The next day's file: a 200 KB row without any pair separator between good rows.
        app.advance(chrono::Duration::days(1));
        let text = format!("o1|age=18-24\n{}\no2|gender=m\n", "x".repeat(200_000));
        let done = upload_and_wait(&app, &text).await;
        assert_eq!(done["status"], "PROCESSING_FINISHED", "{done}");
        assert_eq!(done["details"]["invalidRows"], 1);
        assert_eq!(viewer(&app, "o1").await, segs(&[("age", "age-18")]));
        assert_eq!(viewer(&app, "o2").await, segs(&[("gender", "g-m")]));
        // The same rows gzipped and dropped in the bucket (the row is dropped while inflating).
        app.advance(chrono::Duration::days(1));
        let text = format!("o3|age=18-24\n{}\no4|gender=f\n", "y".repeat(200_000));
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(text.as_bytes()).unwrap();
        app.state.blobs.put_bytes(&format!("audience/{a}/{a}-ap-dmp/long.csv.gz"), e.finish().unwrap(), "application/gzip").await.unwrap();
        api_tests::eventually("viewer o4's segments", std::time::Duration::from_secs(180), || async { viewer(&app, "o4").await }).await;
        assert_eq!(viewer(&app, "o3").await, segs(&[("age", "age-18")]));
        assert_eq!(viewer(&app, "o4").await, segs(&[("gender", "g-f")]));
    }
}

/// The worker Lambda's handler on a recorded SQS event carrying a moto-shaped S3 record (no
/// userIdentity/requestParameters, `+` for a space in the key): the batch is created and
/// processed; a retryable failure (the bucket down) is reported as a batch item failure.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_worker_lambda_handles_s3_event_records() {
    let app = TestApp::spawn_with(api_tests::Backend::Embedded, settings()).await;
    let a = app.a.id.clone();
    // Stored without a notification: the event below is the only one.
    let inner = web::blobs::MemoryBlobs::default();
    let key = format!("audience/{a}/{a}-ap-dmp/nightly export.csv");
    web::blobs::Blobs::put_bytes(&inner, &key, b"l1|gender=f\nl2|age=25-34\n".to_vec(), "text/csv").await.unwrap();
    let forged_key = format!("audience/{a}/{a}-ap-dmp/forged.csv");
    web::blobs::Blobs::put_bytes(&inner, &forged_key, b"f1|gender=f\n".to_vec(), "text/csv").await.unwrap();
    // Its own queue, drained below as the event source would.
    let (q, mut rx) = web::queue::InProcessQueue::new();
    let st = web::state::AppState::new(app.store.clone(), std::sync::Arc::new(inner), std::sync::Arc::new(q))
        .with_clock(app.clock.clone())
        .with_settings(settings());
    let s3_event = |bucket: &str, key: &str| {
        json!({"Records": [{"eventVersion": "2.1", "eventSource": "aws:s3", "awsRegion": "us-east-1",
        "eventTime": "2026-11-22T10:00:00.000Z", "eventName": "ObjectCreated:Put",
        "s3": {"s3SchemaVersion": "1.0", "configurationId": "audience", "bucket": {"name": bucket, "arn": format!("arn:aws:s3:::{bucket}")},
               "object": {"key": key, "size": 26, "eTag": "abc"}}}]})
    };
    let bucket = settings().bucket_name;
    let s3 = s3_event(&bucket, &format!("audience/{a}/{a}-ap-dmp/nightly+export.csv"));
    // The same object announced by another bucket: not this deployment's batch.
    let forged = s3_event("someone-elses-bucket", &format!("audience/{a}/{a}-ap-dmp/forged.csv"));
    let record = |id: &str, body: String| {
        json!({
            "messageId": id, "receiptHandle": "AQEB-handle", "body": body,
            "attributes": {"ApproximateReceiveCount": "1", "SentTimestamp": "1795342542000", "SenderId": "AIDAEXAMPLE", "ApproximateFirstReceiveTimestamp": "1795342542001"},
            "messageAttributes": {}, "md5OfBody": "0", "eventSource": "aws:sqs",
            "eventSourceARN": "arn:aws:sqs:eu-west-1:123456789012:video-ad-campaigns-AudienceQueue", "awsRegion": "eu-west-1"
        })
    };
    let event: aws_lambda_events::sqs::SqsEvent =
        serde_json::from_value(json!({"Records": [record("m1", s3.to_string()), record("m2", r#"{"Event":"s3:TestEvent"}"#.into()), record("m3", forged.to_string())]}))
            .unwrap();
    let res = web::lambda::handle_batch(&st, web::queue::QueueName::Audience, event).await;
    assert!(res.batch_item_failures.is_empty());
    // The chunk jobs it sent, one after another (each sends the next).
    let (_, mut jobs) = rx.queues.drain(..).find(|(q, _)| *q == web::queue::QueueName::Audience).unwrap();
    let mut n = 0;
    while let Ok(job) = jobs.try_recv() {
        let event: aws_lambda_events::sqs::SqsEvent = serde_json::from_value(json!({"Records": [record("c", job)]})).unwrap();
        assert!(web::lambda::handle_batch(&st, web::queue::QueueName::Audience, event).await.batch_item_failures.is_empty());
        n += 1;
    }
    assert!(n >= 1);
    let id = web::workers::audience::dropped_batch_id(&key, Some("abc"));
    let v = app.get(&format!("/v1/audience/batch/{id}")).await.json();
    assert_eq!(v["status"], "PROCESSING_FINISHED", "{v}");
    assert_eq!(viewer(&app, "l1").await, segs(&[("gender", "g-f")]));
    let listed = app.get(&format!("/v1/audience/batch?providerId={a}-ap-dmp")).await.json();
    assert_eq!(listed["batches"].as_array().map(Vec::len), Some(1), "the forged event made no batch: {listed}");
}
