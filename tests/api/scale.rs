//! Publisher scale (docs/publisher-scale.md): an account past the serving bound is not
//! compiled (an operator error names the bound), never compiled into memory, and never
//! refused: the snapshot compiled last keeps serving, and the campaigns' notifications and
//! the inspector say why. The bound counts what can serve, never the account's history.

use api_tests::serde_json::json;
use api_tests::{both_stores, both_stores_with, TestApp};
use web::settings::Settings;

use super::serving::{ad, enabled_campaign, goal, served};

/// At most two stored ads an account's snapshot is compiled from.
fn two_ads() -> Settings {
    Settings { delivery_max_ads: 2, ..TestApp::settings() }
}

/// At most two goals that can serve.
fn two_goals() -> Settings {
    Settings { delivery_max_goals: 2, ..TestApp::settings() }
}

both_stores_with! { super::two_goals();
    async fn an_accounts_history_does_not_count_against_the_serving_bound(app: TestApp) {
        // History: an archived campaign of three goals with ads, and a goal that has ended.
        let old = enabled_campaign(&app).await;
        for _ in 0..3 {
            let g = goal(&app, &old, "IMPRESSION", "1000", 0, "").await;
            ad(&app, &g, "preroll", json!({})).await;
        }
        let adv = app.client("Adv 2", "ADVERTISER").await;
        app.put_xml(&format!("/api/1.0/campaign/by_campaign_id;id={old}"),
            &format!("<campaignBean><id>{old}</id><name>C</name><advertiserId>{adv}</advertiserId><status>ARCHIVED</status></campaignBean>")).await.expect(204);
        let c = enabled_campaign(&app).await;
        let ended = app.goal(&c, "IMPRESSION", -30, Some(-20), "").await;
        ad(&app, &ended, "preroll", json!({})).await;
        // Five goals stored, two allowed: the two that can serve are served.
        let live = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let first = ad(&app, &live, "midroll", json!({})).await;
        assert_eq!(served(&app, "format=midroll").await, vec![first]);
        let second = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let next = ad(&app, &second, "postroll", json!({})).await;
        assert_eq!(served(&app, "format=postroll").await, vec![next.clone()]);
        let r = app.get("/v3/inspect?format=preroll&seed=1").await;
        r.expect(200);
        assert!(!r.body.contains("DELIVERY_MAX_GOALS"), "{}", r.body);
        // A third goal that can serve is one too many: the last snapshot serves, and says why.
        let third = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let late = ad(&app, &third, "preroll", json!({})).await;
        assert_eq!(served(&app, "format=postroll").await, vec![next]);
        assert!(!served(&app, "format=preroll").await.contains(&late), "a version past the bound was compiled");
        let r = app.get("/v3/inspect?format=postroll&seed=1").await;
        assert!(r.body.contains("3 live goals") && r.body.contains("DELIVERY_MAX_GOALS"), "{}", r.body);
    }
}

both_stores_with! { super::two_ads();
    async fn an_account_past_the_serving_bound_serves_its_last_snapshot_and_says_why(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let first = ad(&app, &g, "preroll", json!({})).await;
        let second = ad(&app, &g, "preroll", json!({})).await;
        let (last_good, _) = compiled(&app).await;
        let third = ad(&app, &g, "midroll", json!({})).await;

        // Three ads in live goals, two allowed: not compiled, never refused. The snapshot
        // compiled last serves (its preroll ads; the new midroll ad is not in it).
        let picked = served(&app, "format=preroll").await;
        assert!(picked.len() == 1 && (picked[0] == first || picked[0] == second), "{picked:?}");
        assert!(served(&app, "format=midroll").await.is_empty(), "the version past the bound was compiled");
        let (version, pointer) = web::repo::delivery::version_and_compiled(app.store.as_ref(), &app.a.id).await.expect("read");
        assert!(version > last_good && pointer.is_some_and(|(p, _)| p.version == last_good), "the pointer stays on the last good version");
        // The inspector and the campaign's notifications say why, naming the bound.
        let r = app.get("/v3/inspect?format=preroll&seed=1").await;
        r.expect(200);
        assert!(r.json()["notes"][0].as_str().is_some_and(|n| n.contains("3 ads in live goals") && n.contains("DELIVERY_MAX_ADS")), "{}", r.body);
        let n = app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={c}")).await;
        n.expect(200);
        assert!(n.body.contains("DELIVERY_MAX_ADS") && n.body.contains("Changes are not served"), "{}", n.body);
        app.delete(&format!("/v1/ads/{third}")).await.expect(204);

        // Within the bound again: served, and nothing more to say.
        let picked = served(&app, "format=preroll").await;
        assert_eq!(picked.len(), 1, "{picked:?}");
        assert!(picked[0] == first || picked[0] == second, "{picked:?}");

        // Past it again while this process serves the account: the previous snapshot
        // keeps serving (the new midroll ad is not in it), nothing is compiled.
        let builds = app.state.delivery.builds();
        let midroll = ad(&app, &g, "midroll", json!({})).await;
        assert!(served(&app, "format=midroll").await.is_empty(), "the refused version was compiled");
        assert_eq!(served(&app, "format=preroll").await.len(), 1);
        assert_eq!(app.state.delivery.builds(), builds, "a snapshot past the bound was compiled");

        // Back within it: the new version is compiled and its midroll ad served.
        app.delete(&format!("/v1/ads/{first}")).await.expect(204);
        assert_eq!(served(&app, "format=midroll").await, vec![midroll]);
        let n = app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={c}")).await;
        assert!(!n.body.contains("Changes are not served"), "{}", n.body);
    }
}

/// The delivery version and the compiled pointer's version, once the compile worker has
/// caught up with the version (the writes queue it; the in-process or emulator worker runs it).
async fn compiled(app: &TestApp) -> (u64, web::repo::delivery::Compiled) {
    api_tests::eventually("the compile of the delivery version", std::time::Duration::from_secs(120), || async {
        let (version, pointer) = web::repo::delivery::version_and_compiled(app.store.as_ref(), &app.a.id).await.expect("read");
        pointer.filter(|(c, _)| c.version == version).map(|(c, _)| (version, c))
    })
    .await
}

/// A serving process that has not seen the account yet: what it reads, and whether it
/// compiled the records itself.
async fn fresh_process(app: &TestApp) -> (std::sync::Arc<web::delivery::snapshot::Snapshot>, u64, u64) {
    let cache = std::sync::Arc::new(web::caches::snapshots::DeliveryCache::default());
    let now = web::clock::Clock::now(app.clock.as_ref());
    let (snapshot, _) = cache.current(&app.state.store, &app.state.blobs, &app.a.id, &app.state.settings, now).await.expect("snapshot");
    (snapshot, cache.builds(), cache.loads())
}

both_stores! {
    async fn a_change_is_compiled_once_and_serving_processes_read_the_compiled_form(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let first = ad(&app, &g, "preroll", json!({})).await;
        let (version, pointer) = compiled(&app).await;
        assert_eq!((pointer.goals, pointer.ads, pointer.format), (1, 1, web::delivery::compiled::FORMAT));
        // A new process reads it (one GET), compiles nothing, and has the ad.
        let (snapshot, builds, loads) = fresh_process(&app).await;
        assert_eq!((builds, loads), (0, 1));
        assert_eq!(snapshot.version, version);
        assert!(snapshot.ad_index.contains_key(&first));
        // Redelivered (or a burst already compiled): nothing is compiled again.
        let again = web::usecases::compile::run(&app.state, &app.a.id.as_str().into()).await.expect("compile");
        assert_eq!(again, web::usecases::compile::Outcome::Current);

        // The next change: compiled again, the old version's object deleted, and ads
        // served from the new one.
        let second = ad(&app, &g, "midroll", json!({})).await;
        let (next, pointer2) = compiled(&app).await;
        assert!(next > version);
        assert_ne!(pointer2.object, pointer.object);
        api_tests::eventually("the replaced snapshot's removal", std::time::Duration::from_secs(120), || async {
            app.state.blobs.get(&pointer.object).await.expect("get").is_none().then_some(())
        })
        .await;
        let (snapshot, builds, loads) = fresh_process(&app).await;
        assert_eq!((builds, loads, snapshot.version), (0, 1, next));
        assert!(snapshot.ad_index.contains_key(&second));
        assert_eq!(served(&app, "format=midroll").await, vec![second]);
    }

    async fn a_damaged_or_missing_compiled_form_is_compiled_on_demand(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let id = ad(&app, &g, "preroll", json!({})).await;
        let (_, pointer) = compiled(&app).await;
        app.state.blobs.put_bytes(&pointer.object, b"not a snapshot".to_vec(), "application/octet-stream").await.expect("put");
        let (snapshot, builds, loads) = fresh_process(&app).await;
        assert_eq!((builds, loads), (1, 0));
        assert!(snapshot.ad_index.contains_key(&id));
        app.state.blobs.delete(&pointer.object).await.expect("delete");
        let (snapshot, builds, loads) = fresh_process(&app).await;
        assert_eq!((builds, loads), (1, 0));
        assert!(snapshot.ad_index.contains_key(&id));
    }

    // On AWS the table's stream (filtered to the delivery version) feeds the worker.
    async fn the_tables_stream_of_a_version_change_compiles_the_account(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        ad(&app, &g, "preroll", json!({})).await;
        let (version, _) = compiled(&app).await;
        // Another change, compiled here from its stream record instead of the queue.
        let version_key = web::keys::delivery_version(&app.a.id);
        app.store.add(&version_key, &[("v".into(), 1)], web::store::Cond::None).await.expect("bump");
        let record = |sk: &str, seq: &str| json!({
            "eventID": seq, "eventName": "MODIFY", "eventSource": "aws:dynamodb", "awsRegion": "eu-west-1",
            "dynamodb": {"Keys": {"pk": {"S": version_key.pk}, "sk": {"S": sk}}, "SequenceNumber": seq, "SizeBytes": 60,
                "StreamViewType": "OLD_IMAGE"}
        });
        let event: aws_lambda_events::dynamodb::Event =
            api_tests::serde_json::from_value(json!({"Records": [record("PACE#x", "1"), record("VERSION", "2"), record("VERSION", "3")]})).unwrap();
        let res = web::workers::compile::handle_stream(&app.state, &event).await;
        assert!(res.batch_item_failures.is_empty());
        let (now, pointer) = compiled(&app).await;
        assert_eq!((now, pointer.version), (version + 1, version + 1));
    }
}

/// Every account's new versions come in off the request path; the process waits a minute
/// for the compile worker before compiling anything itself.
fn swapping() -> Settings {
    Settings { delivery_swap_goals: 1, delivery_compile_wait: std::time::Duration::from_secs(60), ..TestApp::settings() }
}

both_stores_with! { super::swapping();
    async fn a_large_accounts_change_is_swapped_in_off_the_request_path(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let first = ad(&app, &g, "preroll", json!({})).await;
        // The first snapshot of a process is read on the request (nothing to answer from).
        api_tests::eventually("the first ad served", std::time::Duration::from_secs(120), || async {
            (served(&app, "format=preroll").await == vec![first.clone()]).then_some(())
        })
        .await;
        let builds = app.state.delivery.builds();
        // A change: the next request is answered from the snapshot held (no midroll ad
        // yet), and the new version serves once it is read, without a compile here.
        let second = ad(&app, &g, "midroll", json!({})).await;
        assert!(served(&app, "format=midroll").await.is_empty(), "the first request after a change waited for the new version");
        api_tests::eventually("the new version served", std::time::Duration::from_secs(120), || async {
            (served(&app, "format=midroll").await == vec![second.clone()]).then_some(())
        })
        .await;
        assert_eq!(app.state.delivery.builds(), builds, "the process compiled the records itself");
        // Management reads see every write at once (read on the request, not swapped).
        let third = ad(&app, &g, "postroll", json!({})).await;
        let r = app.get("/v3/inspect?format=postroll&seed=1").await;
        r.expect(200);
        assert!(r.body.contains(&third), "{}", r.body);
    }
}

both_stores_with! { super::swapping();
    async fn a_large_accounts_refresh_runs_behind_the_request(app: TestApp) {
        use web::store::Store;
        use std::sync::Arc;
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "1000", 0, "").await;
        let first = ad(&app, &g, "preroll", json!({})).await;
        let now = web::clock::Clock::now(app.clock.as_ref());
        let s = app.state.settings.clone();
        let (good, blobs) = (app.state.store.clone(), app.state.blobs.clone());
        let delivery = web::keys::delivery_version(&app.a.id).pk;
        let down: Arc<dyn Store> = Arc::new(api_tests::Unavailable::partition(good.clone(), delivery));
        let cache = Arc::new(web::caches::snapshots::DeliveryCache::default());
        // A process's first snapshot of the account is read on the request.
        let (held, _) = cache.current(&good, &blobs, &app.a.id, &s, now).await.expect("first read");
        assert!(held.ad_index.contains_key(&first));
        let second = ad(&app, &g, "midroll", json!({})).await;

        // The store cannot be read: the request is answered from the snapshot held, the
        // refresh behind it fails and is tried again by a later request.
        let (snapshot, _) = cache.current(&down, &blobs, &app.a.id, &s, now).await.expect("answered from the snapshot held");
        assert_eq!(snapshot.version, held.version);
        api_tests::eventually("the refresh's end", std::time::Duration::from_secs(120), || async { (!cache.refreshing(&app.a.id)).then_some(()) }).await;
        let (snapshot, _) = cache.current(&down, &blobs, &app.a.id, &s, now).await.expect("still answered");
        assert!(!snapshot.ad_index.contains_key(&second));
        // A small account (under DELIVERY_SWAP_GOALS) is refreshed on the request: the
        // store's error is the request's.
        let small = Settings { delivery_swap_goals: usize::MAX, ..(*s).clone() };
        assert!(cache.current(&down, &blobs, &app.a.id, &small, now).await.is_err(), "a small account's refresh ran behind");
        // Nor is a snapshot served unchecked past DELIVERY_MAX_AGE_SECS (an idle process).
        let idle = Settings { delivery_max_age: std::time::Duration::ZERO, ..(*s).clone() };
        assert!(cache.current(&down, &blobs, &app.a.id, &idle, now).await.is_err(), "a snapshot past the maximum age was served");

        // The store back: the change serves once the refresh and the new version's read,
        // both behind the requests, are done.
        api_tests::eventually("the change served", std::time::Duration::from_secs(180), || async {
            let (snapshot, _) = cache.current(&good, &blobs, &app.a.id, &s, now).await.expect("served");
            snapshot.ad_index.contains_key(&second).then_some(())
        })
        .await;
    }
}
