//! The admin command's key lifecycle (issue 12 item 5): create (shown once), list (never
//! the key), revoke and rotate, on both stores, checked through the HTTP interface.

use api_tests::{both_stores, TestApp};
use shared::repo::accounts as acc;

/// A request as a client with `key`, through a router with a fresh key cache (a cold
/// function), so a revoked key shows at once.
async fn status_with(app: &TestApp, key: &str) -> u16 {
    let st = shared::state::AppState::new(app.store.clone(), app.state.blobs.clone(), app.state.queue.clone());
    let router = shared::api::app(st);
    let req = axum::http::Request::builder().uri("/api/1.0/client").header("x-o-api-key", key).body(axum::body::Body::empty()).unwrap();
    tower::ServiceExt::oneshot(router, req).await.unwrap().status().as_u16()
}

both_stores! {
    async fn keys_are_created_listed_revoked_and_rotated(app: TestApp) {
        let now = chrono::Utc::now();
        let store = app.store.as_ref();
        let a = app.a.id.clone();
        let seeded = acc::list_keys(store, &a).await.unwrap();
        assert_eq!(seeded.len(), 1, "{seeded:?}");
        assert_eq!(seeded[0].fingerprint.len(), acc::FINGERPRINT_LEN);
        assert!(!seeded[0].fingerprint.is_empty() && !app.a.key.contains(&seeded[0].fingerprint), "a fingerprint is not the key");

        let k2 = acc::create_key(store, &a, Some("reporting".into()), now).await.unwrap();
        assert_eq!(status_with(&app, &k2).await, 200);
        let listed = acc::list_keys(store, &a).await.unwrap();
        assert_eq!(listed.len(), 2);
        let fp2 = listed.iter().find(|k| k.label.as_deref() == Some("reporting")).unwrap().fingerprint.clone();
        assert!(listed.iter().all(|k| !k2.contains(&k.fingerprint)), "the list never shows a key");

        // Another account cannot revoke it; too short a fingerprint is refused.
        assert!(acc::revoke_key(store, &app.b.id, &fp2).await.is_err());
        assert!(acc::revoke_key(store, &a, &fp2[..4]).await.is_err());
        assert_eq!(status_with(&app, &k2).await, 200);
        acc::revoke_key(store, &a, &fp2).await.unwrap();
        assert_eq!(status_with(&app, &k2).await, 401);
        assert_eq!(acc::list_keys(store, &a).await.unwrap().len(), 1);

        // Rotating the seeded key (named by the key itself): the new one works, the old not.
        let k3 = acc::rotate_key(store, &a, &app.a.key, now).await.unwrap();
        assert_eq!(status_with(&app, &k3).await, 200);
        assert_eq!(status_with(&app, &app.a.key).await, 401);
        assert_eq!(acc::list_keys(store, &a).await.unwrap().len(), 1);
        // An unknown account gets no key.
        assert!(acc::create_key(store, "no-such-account", None, now).await.is_err());
    }
}
