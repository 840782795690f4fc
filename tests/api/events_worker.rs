//! The events worker in process, where a test needs fault control:
//! failures are reported per message (another tenant's events are not redelivered with a
//! failing one's), a redelivered or redriven batch counts nothing twice, and the once-only
//! markers outlive every copy of a message the template's queues can keep.

use std::sync::Arc;

use web::model::enums::Counter;
use web::repo::metrics::{read, Level};
use web::workers::events::process_messages;

use api_tests::{both_stores, TestApp, Unavailable};

fn event(account: &str, impression: &str, at: i64) -> String {
    api_tests::serde_json::json!({"account": account, "campaign": "c-1", "goal": "g-1", "ad": "ad-1", "impression": impression,
        "counter": "impression", "delivered": true, "at": at, "id": format!("call-{impression}")})
    .to_string()
}

async fn impressions(app: &TestApp, account: &str) -> i64 {
    read(app.store.as_ref(), account, Level::Ad, &["ad-1".to_string()]).await.unwrap()["ad-1"].get(Counter::Impression)
}

both_stores! {
    async fn a_failing_tenant_fails_only_its_own_messages(app: TestApp) {
        let now = web::clock::Clock::now(app.clock.as_ref()).timestamp();
        let (a, b) = (app.a.id.clone(), app.b.id.clone());
        let batch = [event(&a, "i-1", now), event(&b, "i-2", now), event(&a, "i-3", now)];
        let bodies: Vec<&str> = batch.iter().map(String::as_str).collect();
        let prefix = web::keys::account_prefix(&b);
        let failing = app.state.clone().with_store(Arc::new(Unavailable::transactions_on(app.store.clone(), move |k| k.pk.starts_with(&prefix))));
        let failed = process_messages(&failing, &bodies).await;
        assert_eq!(failed.into_iter().collect::<Vec<_>>(), vec![1], "only b's message comes back");
        assert_eq!(impressions(&app, &a).await, 2);
        assert_eq!(impressions(&app, &b).await, 0);
        // SQS redelivers the failed message; a redrive from the DLQ later sends all three
        // again: each counts once.
        assert!(process_messages(&app.state, &bodies[1..2]).await.is_empty());
        assert!(process_messages(&app.state, &bodies).await.is_empty());
        assert_eq!((impressions(&app, &a).await, impressions(&app, &b).await), (2, 1));
        let m = app.get("/v3/ads/ad-1?embed=metrics").await;
        assert_eq!(m.status, 404, "no such ad of a; the counters are read above");
    }
}

/// The retention of a queue of template.yaml (`MessageRetentionPeriod`, SQS's default
/// 4 days when absent).
fn retention(template: &str, queue: &str) -> i64 {
    let header = format!("  {queue}:");
    template
        .lines()
        .skip_while(|l| *l != header)
        .skip(1)
        // The resource ends where the next one starts (two spaces and a name).
        .take_while(|l| l.is_empty() || l.starts_with("   "))
        .find_map(|l| l.trim().strip_prefix("MessageRetentionPeriod:"))
        .map_or(4 * 86_400, |v| v.trim().parse().expect("a number of seconds"))
}

#[test]
fn once_only_markers_outlive_every_copy_of_a_message() {
    let template = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../template.yaml")).unwrap();
    let queue = retention(&template, "EventsQueue");
    let dlq = retention(&template, "EventsDeadLetterQueue");
    assert_eq!((queue, dlq), (web::repo::delivery::EVENTS_RETENTION_SECS, web::repo::delivery::EVENTS_DLQ_RETENTION_SECS));
    assert!(
        web::repo::delivery::MARKER_TTL_SECS > queue + dlq,
        "markers ({} s) must outlive the queue ({queue} s) plus its DLQ ({dlq} s)",
        web::repo::delivery::MARKER_TTL_SECS
    );
}
