//! The admin command: the key lifecycle — create (shown once), list
//! (never the key), revoke and rotate — and reference data export, dry run and import, on
//! both stores, checked through the HTTP interface.

use api_tests::{both_stores, TestApp};
use web::repo::accounts as acc;

/// A request as a client with `key`, through a router with a fresh key cache (a cold
/// function), so a revoked key shows at once.
async fn status_with(app: &TestApp, key: &str) -> u16 {
    let st = web::state::AppState::new(app.store.clone(), app.state.blobs.clone(), app.state.queue.clone());
    let router = web::api::app(st);
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

        let k2 = acc::create_key(store, &a, "reporting".into(), web::model::access::Role::Viewer, None, now).await.unwrap().key;
        assert_eq!(status_with(&app, &k2).await, 200);
        let listed = acc::list_keys(store, &a).await.unwrap();
        assert_eq!(listed.len(), 2);
        let fp2 = listed.iter().find(|k| k.name == "reporting").unwrap().fingerprint.clone();
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
        assert!(acc::create_key(store, "no-such-account", "x".into(), web::model::access::Role::Admin, None, now).await.is_err());
    }
}

both_stores! {
    async fn reference_data_export_dry_run_and_import(app: TestApp) {
        use web::seed::{apply, SeedFile};
        use web::seed_plan::{export_account, plan};
        let store = app.store.as_ref();
        let a = app.a.id.clone();
        let exported = export_account(store, &a).await.unwrap();
        assert!(exported.api_keys.is_empty(), "keys are never exported");
        // The export is a valid seed file, and importing it changes nothing.
        let text = serde_json::to_string(&serde_json::json!({"accounts": [exported]})).unwrap();
        let file = SeedFile::parse(&text).unwrap();
        let p = plan(store, &file).await.unwrap();
        assert_eq!((p[0].settings, p[0].new_keys, p[0].writes()), ("same", 0, 0), "{}", p[0].line());
        assert!(p[0].records.iter().all(|(_, c)| c.new == 0 && c.changed == 0 && c.same > 0), "{}", p[0].line());

        // A new category and a renamed partner: the dry run says so and writes nothing.
        let mut changed = file.accounts[0].clone();
        let mut cat = changed.categories[1].clone();
        cat.id = format!("{a}-cat-music");
        cat.name = "Music".into();
        changed.categories.push(cat);
        changed.content_partners[0].name = "Renamed studio".into();
        let changed_file = SeedFile { accounts: vec![changed.clone()] };
        let p = plan(store, &changed_file).await.unwrap();
        let counts = |k: &str| p[0].records.iter().find(|(n, _)| *n == k).map(|(_, c)| (c.new, c.changed)).unwrap();
        assert_eq!((counts("categories"), counts("contentPartners"), p[0].writes()), ((1, 0), (0, 1), 2), "{}", p[0].line());
        app.get(&format!("/v0/categories/{a}-cat-music")).await.expect(404);
        assert_eq!(export_account(store, &a).await.unwrap().categories.len(), changed.categories.len() - 1, "the dry run wrote nothing");

        // The import: the records are there, no key was added, the export matches the file.
        let keys_before = web::repo::accounts::list_keys(store, &a).await.unwrap().len();
        apply(store, &changed_file).await.unwrap();
        app.get(&format!("/v0/categories/{a}-cat-music")).await.expect(200);
        assert_eq!(web::repo::accounts::list_keys(store, &a).await.unwrap().len(), keys_before);
        let again = export_account(store, &a).await.unwrap();
        let mut expected = changed.clone();
        expected.categories.sort_by(|x, y| x.id.cmp(&y.id));
        assert!(serde_json::to_value(&again).unwrap() == serde_json::to_value(&expected).unwrap(), "the export is the imported file (in id order)");
        assert!(export_account(store, "no-such-account").await.is_err());
    }
}

both_stores! {
    async fn an_account_stored_before_people_is_migrated(app: TestApp) {
        use web::store::Cond;
        let store = app.store.as_ref();
        let a = app.a.id.clone();
        // The account record where it was kept before, and no directory: as an old table has them.
        let item = store.get(&web::keys::account(&a)).await.unwrap().unwrap();
        store.put(web::store::Item { pk: web::keys::legacy_account(&a).pk, ..item }, Cond::None).await.unwrap();
        store.delete(&web::keys::account(&a), Cond::None).await.unwrap();
        store.delete(&web::keys::access(&a), Cond::None).await.unwrap();
        assert!(web::repo::accounts::migrate(store, &a).await.unwrap());
        assert!(store.get(&web::keys::legacy_account(&a)).await.unwrap().is_none());
        assert!(store.get(&web::keys::account(&a)).await.unwrap().is_some());
        let (dir, item) = web::repo::access::directory(store, &a).await.unwrap();
        assert!(item.is_some() && dir.keys.len() == 1 && dir.keys[0].role == web::model::access::Role::Admin, "{dir:?}");
        assert!(!web::repo::accounts::migrate(store, &a).await.unwrap(), "a second run changes nothing");
        // The old key still works, as ADMIN.
        app.get("/v1/users").await.expect(200);
    }
}
