//! The service under faults: the store refuses 10 % of calls, times out
//! 3 % of writes before and 3 % after applying them, applies part of 30 % of batch writes;
//! 5 % of bucket and queue calls fail. Under that schedule every API write answers as if
//! nothing happened (or 503, and then the client's retry does), nothing is half-written,
//! and an audience batch ends with every row counted once and stored.

use api_tests::faults::{Faults, Schedule};
use api_tests::serde_json::{json, Value};
use api_tests::{xml_texts, Backend, Res, TestApp};
use web::clock::Clock;

fn schedule(seed: u64) -> Schedule {
    Schedule { seed, throttle: 100, timeout_before: 30, timeout_after: 30, partial_batch: 300, blob: 50, queue: 50 }
}

/// A client that retries a 503 (with the same Idempotency-Key for a create).
async fn call(app: &TestApp, method: &str, path: &str, ct: &str, body: &str, key: &str) -> Res {
    for _ in 0..20 {
        let r = app.send_with_headers(method, path, Some(&app.a.key), Some(ct), body, &[("idempotency-key", key)]).await;
        if r.status != 503 {
            assert!(r.status < 500, "{method} {path}: {} {}", r.status, r.body);
            return r;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    panic!("{method} {path}: still 503 after 20 tries")
}

api_tests::both_backends! {
    async fn under_faults_writes_are_whole_and_batches_exact(backend: Backend) {
        let seed = std::env::var("FAULT_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(11);
        let faults = Faults::new(schedule(seed));
        let settings = web::state::Settings { audience_chunk_bytes: 100, ..TestApp::settings() };
        let app = TestApp::spawn_faulty(backend, settings, faults.clone()).await;
        let a = app.a.id.clone();
        // Clients, campaigns (each names its advertiser: a reference count on the client),
        // goals (each on its campaign's goal list), ads (each on its goal), templates (a counter).
        let mut campaigns = Vec::new();
        for i in 0..4 {
            let adv = call(
                &app,
                "POST",
                "/api/1.0/client",
                "application/xml",
                &format!("<clientBean><name>Adv {i}</name><type>ADVERTISER</type></clientBean>"),
                &format!("c{i}"),
            )
            .await;
            adv.expect(200);
            let c = call(
                &app,
                "POST",
                "/api/1.0/campaign",
                "application/xml",
                &format!("<campaignBean><name>Camp {i}</name><advertiserId>{}</advertiserId></campaignBean>", adv.body),
                &format!("k{i}"),
            )
            .await;
            c.expect(200);
            let start = (app.clock.now() + chrono::Duration::days(1)).to_rfc3339();
            let end = (app.clock.now() + chrono::Duration::days(9)).to_rfc3339();
            let g = call(&app, "POST", "/api/1.0.cpvext/goal", "application/xml",
                &format!("<goalBean><campaignId>{}</campaignId><type>IMPRESSION</type><variant>NORMAL</variant><start>{start}</start><end>{end}</end><goalValue>5</goalValue></goalBean>", c.body),
                &format!("g{i}")).await;
            g.expect(200);
            let ad = call(
                &app,
                "POST",
                "/v1/ads",
                "application/json",
                &json!({"name": format!("Ad {i}"), "goalId": g.body, "creative": {"type": "spotPlaceholder", "insertionPoint": "preroll"}})
                    .to_string(),
                &format!("a{i}"),
            )
            .await;
            ad.expect(201);
            let t = call(
                &app,
                "POST",
                "/api/2.0/targeting-template",
                "application/json",
                &json!({"name": format!("T{i}")}).to_string(),
                &format!("t{i}"),
            )
            .await;
            t.expect(200);
            campaigns.push((adv.body.clone(), c.body.clone(), g.body.clone()));
        }
        // Changes: renames (PUT replaces: sending it again is harmless), one delete.
        for (i, (_, c, _)) in campaigns.iter().enumerate() {
            let path = format!("/api/1.0/campaign/by_campaign_id;id={c}");
            let shown = call(&app, "GET", &path, "application/xml", "", &format!("get{i}")).await.body;
            let start = shown.find("<campaignBean>").unwrap();
            let end = shown.find("</campaignBean>").unwrap() + "</campaignBean>".len();
            let bean = shown[start..end].replacen(&format!("<name>Camp {i}</name>"), &format!("<name>Renamed {i}</name>"), 1);
            let r = call(&app, "PUT", &path, "application/xml", &bean, &format!("r{i}")).await;
            assert!(r.status == 204 || r.status == 200, "{} {}", r.status, r.body);
        }
        let (_, gone, _) = &campaigns[3];
        let r = call(&app, "DELETE", &format!("/api/1.0/campaign/by_campaign_id;id={gone}"), "application/xml", "", "d3").await;
        assert!(r.status == 204 || r.status == 200 || r.status == 404, "{} {}", r.status, r.body);
        // An audience batch of 300 rows in ~40 chunks, through every port.
        let rows: String = (0..300).map(|i| format!("pid-{i:04}|age={}\n", if i % 2 == 0 { "18-24" } else { "25-34" })).collect();
        let up = call(&app, "POST", &format!("/v1/audience/batch?providerId={a}-ap-dmp"), "text/csv", &rows, "b1").await;
        up.expect(202);
        let link = up.json()["link"].as_str().unwrap().to_string();
        // Until the batch ends, or no chunk has finished for 180 s (a stall). Under the injected
        // faults each chunk retries with backoff, and with four tests at a time on 2 cores and
        // clippy beside them, 57 chunks on moto took over 3 minutes while still progressing;
        // a chunk whose queue send failed twice waits out two 30 s visibility timeouts, and
        // with the browser tests beside it the last chunks once waited over 90 s.
        let id = up.json()["batchId"].as_str().unwrap().to_string();
        let batch_key = web::keys::record(&a, web::keys::BATCH, &id);
        let mut done = Value::Null;
        let (mut chunks_done, mut progressed) = (0u64, std::time::Instant::now());
        while progressed.elapsed() < std::time::Duration::from_secs(180) {
            let v = app.get(&link).await;
            if v.status == 200 && (v.json()["status"] == "PROCESSING_FINISHED" || v.json()["status"] == "CANCELLED") {
                done = v.json();
                break;
            }
            let stored = app.store.get(&batch_key).await.ok().flatten();
            let now_done = stored.and_then(|i| serde_json::from_str::<Value>(&i.body).ok()).and_then(|b| b["chunksDone"].as_u64()).unwrap_or(0);
            if now_done > chunks_done {
                (chunks_done, progressed) = (now_done, std::time::Instant::now());
            }
            tokio::time::sleep(std::time::Duration::from_millis(250)).await;
        }
        eprintln!("faults ({backend:?}): {}", faults.injected.report());
        // The checks, with the faults off.
        faults.on.store(false, std::sync::atomic::Ordering::Relaxed);
        if done.is_null() {
            let b = app.store.get(&batch_key).await.unwrap().map(|i| i.body);
            panic!("batch did not end (no chunk finished for 180 s): {b:?}");
        }
        assert_eq!(done["status"], "PROCESSING_FINISHED", "{done}");
        assert_eq!(done["details"]["invalidRows"], 0);
        let b = app.store.get(&web::keys::record(&a, web::keys::BATCH, done["batchId"].as_str().unwrap())).await.unwrap().unwrap();
        let b: web::model::audience::Batch = serde_json::from_str(&b.body).unwrap();
        assert_eq!(b.stats.rows, 300, "every row counted once");
        for i in [0, 1, 150, 299] {
            let page =
                app.store.query(web::store::Query::partition(web::keys::viewer_partition(&a, &format!("pid-{i:04}")))).await.unwrap();
            assert_eq!(page.items.len(), 1, "pid-{i:04} stored");
        }
        // No duplicates from retried creates; nothing half-written.
        let clients = xml_texts(&app.get("/api/1.0/client").await.body, "clientBean");
        assert_eq!(clients.len(), 4, "one client per create");
        assert_eq!(app.get("/api/2.0/targeting-template/usage").await.json()["active"], 4, "the template counter matches");
        assert_eq!(app.get("/api/2.0/targeting-template").await.json().as_array().map(Vec::len), Some(4));
        for (i, (adv, c, g)) in campaigns.iter().enumerate() {
            let cr = app.get(&format!("/api/1.0/campaign/by_campaign_id;id={c}")).await;
            if i == 3 {
                cr.expect(404);
                // The deleted campaign released its advertiser: it can go now.
                app.delete(&format!("/api/1.0/client/by_client_id;id={adv}")).await.expect(204);
                continue;
            }
            cr.expect(200);
            assert!(cr.body.contains(&format!("<name>Renamed {i}</name>")), "{}", cr.body);
            // The campaign still holds its advertiser: the client cannot be deleted.
            app.delete(&format!("/api/1.0/client/by_client_id;id={adv}")).await.expect(409);
            let goals = app.get(&format!("/api/1.0.cpvext/goal/by_campaign_id;id={c}")).await;
            assert_eq!(xml_texts(&goals.body, "goalBean").len(), 1, "the goal is on its campaign once");
            assert!(goals.body.contains(g.as_str()));
        }
        let ads = app.get("/v1/ads").await.json();
        assert_eq!(ads.as_array().map(Vec::len), Some(3), "one ad per create (the deleted campaign's left out): {ads}");
    }
}
