//! A user's standing (docs/people-and-roles.md, "Changing a user"): disabling or demoting
//! an ADMIN stops their ADMIN writes at once (no cached role) and revokes the keys they
//! made and their sessions; a key without a role is refused; a password changed through a
//! session needs the person's current password, and wrong guesses of it are throttled as
//! sign-ins are.

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, Res, TestApp, CONSOLE_HOST as HOST, CONSOLE_ORIGIN as ORIGIN};

async fn as_session(app: &TestApp, method: &str, path: &str, session: &str, body: &str) -> Res {
    let cookie = format!("o_session={session}");
    app.send_with_headers(method, path, None, Some("application/json"), body, &[("host", HOST), ("origin", ORIGIN), ("cookie", &cookie)])
        .await
}

/// A user of account A, signed in: (id, session).
async fn signed_in(app: &TestApp, email: &str, role: &str, password: &str) -> (String, String) {
    let r = app.post_json("/v1/users", &json!({"email": email, "name": "Ann Lee", "role": role, "password": password})).await;
    r.expect(201);
    let id = r.json()["id"].as_str().unwrap().to_string();
    let (r, session) = app.console_sign_in(email, password).await;
    assert_eq!(r.status, 303, "{email} signs in: {}", r.body);
    (id, session.expect("a session"))
}

/// Changes a user with the account's ADMIN key (`f` edits the body read).
async fn change_user(app: &TestApp, id: &str, f: impl FnOnce(&mut Value)) {
    let got = app.get(&format!("/v1/users/{id}")).await;
    let etag = got.header("etag").unwrap().to_string();
    let mut body: Value = got.json();
    f(&mut body);
    app.send_with_headers(
        "PUT",
        &format!("/v1/users/{id}"),
        Some(&app.a.key),
        Some("application/json"),
        &body.to_string(),
        &[("if-match", &etag)],
    )
    .await
    .expect(200);
}

/// An ADMIN write anyone with the role can make and see refused: a new key.
async fn make_key(app: &TestApp, session: &str, name: &str) -> Res {
    as_session(app, "POST", "/v1/api-keys", session, &json!({"name": name, "role": "ADMIN"}).to_string()).await
}

both_stores! {
    async fn a_demoted_or_disabled_admin_is_refused_at_once_and_their_keys_go_with_them(app: TestApp) {
        let password = "ada's long password";
        let (ada, session) = signed_in(&app, "ada@example.com", "ADMIN", password).await;
        // Ada makes a key while an ADMIN, and uses her session (the process caches both).
        let r = make_key(&app, &session, "ada's key").await;
        r.expect(201);
        let ada_key = r.json()["key"].as_str().unwrap().to_string();
        app.get_as(&ada_key, "/v1/users").await.expect(200);
        as_session(&app, "GET", "/v1/users", &session, "").await.expect(200);
        // A key made with a key belongs to no user: it stays.
        let r = app.post_json("/v1/api-keys", &json!({"name": "service key", "role": "VIEWER"})).await;
        r.expect(201);
        let service_key = r.json()["key"].as_str().unwrap().to_string();
        // Demoted to VIEWER: the very next ADMIN write is refused, by her session and by her key.
        change_user(&app, &ada, |u| u["role"] = json!("VIEWER")).await;
        let r = make_key(&app, &session, "after demotion").await;
        assert!(r.status == 401 || r.status == 403, "a demoted ADMIN's session makes no key: {} {}", r.status, r.body);
        let r = app.send("POST", "/v1/api-keys", Some(&ada_key), Some("application/json"), &json!({"name": "x", "role": "ADMIN"}).to_string()).await;
        r.expect(401);
        // The key she made is revoked (gone from the list) and her sessions ended.
        let keys = app.get("/v1/api-keys").await.json();
        let names: Vec<&str> = keys["apiKeys"].as_array().unwrap().iter().map(|k| k["name"].as_str().unwrap()).collect();
        assert!(!names.contains(&"ada's key") && names.contains(&"service key"), "{names:?}");
        app.get_as(&service_key, "/api/1.0/campaign").await.expect(200);
        let (r, session) = app.console_sign_in("ada@example.com", password).await;
        r.expect(303);
        let session = session.unwrap();
        // Made ADMIN again she may at once (her session signed in as a VIEWER); disabled, her
        // next ADMIN write is refused at once.
        change_user(&app, &ada, |u| u["role"] = json!("ADMIN")).await;
        make_key(&app, &session, "ada's second key").await.expect(201);
        change_user(&app, &ada, |u| u["disabled"] = json!(true)).await;
        make_key(&app, &session, "after disabling").await.expect(401);
        let keys = app.get("/v1/api-keys").await.json();
        assert!(!keys.to_string().contains("ada's second key"), "{keys}");
    }

    async fn a_key_stored_without_a_role_is_refused(app: TestApp) {
        use web::store::Cond;
        let key = "k-without-a-role-0123456789abcdef";
        let hash = web::ids::hash_key(key);
        let rec = web::model::account::KeyRecord { account_id: app.a.id.clone(), label: Some("old".into()), created: None, role: None };
        app.store.put(web::repo::accounts::key_item(&hash, &rec).unwrap(), Cond::NotExists).await.unwrap();
        let r = app.get_as(key, "/api/1.0/campaign").await;
        r.expect(401);
        // The same key with a role works: it is the role that is missing.
        let rec = web::model::account::KeyRecord { role: Some(web::model::access::Role::Viewer), ..rec };
        let item = app.store.get(&web::keys::api_key(&hash)).await.unwrap().unwrap();
        let mut next = web::repo::accounts::key_item(&hash, &rec).unwrap();
        next.version = item.version + 1;
        app.store.put(next, Cond::Version(item.version)).await.unwrap();
        app.get_as(key, "/api/1.0/campaign").await.expect(200);
    }

    async fn a_password_change_through_a_session_needs_the_current_password(app: TestApp) {
        let password = "val's long password";
        let (val, session) = signed_in(&app, "val@example.com", "VIEWER", password).await;
        let path = format!("/v1/users/{val}/password");
        let new = "val's brand new password";
        // None given: 400 naming it; a wrong one: 400 with rule `credential`; nothing changed.
        let r = as_session(&app, "POST", &path, &session, &json!({"password": new}).to_string()).await;
        r.expect(400);
        assert_eq!(r.json()["errors"][0]["field"], "currentPassword", "{}", r.body);
        let r = as_session(&app, "POST", &path, &session, &json!({"password": new, "currentPassword": "not it at all"}).to_string()).await;
        r.expect(400);
        assert_eq!(r.json()["errors"][0]["rule"], "credential", "{}", r.body);
        app.console_sign_in("val@example.com", password).await.0.expect(303);
        // The right one: changed; the session that asked stays.
        let r = as_session(&app, "POST", &path, &session, &json!({"password": new, "currentPassword": password}).to_string()).await;
        r.expect(204);
        as_session(&app, "GET", "/api/1.0/campaign", &session, "").await.expect(200);
        app.console_sign_in("val@example.com", new).await.0.expect(303);
        // Guessing it through a stolen session is throttled: 5 wrong in all (the one above and
        // 4 of these 8, from any address), then 429.
        let statuses = futures_util::future::join_all((0..8).map(|i| {
            let (app, path, session) = (&app, &path, &session);
            async move {
                as_session(app, "POST", path, session, &json!({"password": "a takeover password", "currentPassword": format!("guess {i} of it")}).to_string())
                    .await
                    .status
            }
        }))
        .await;
        assert_eq!(statuses.iter().filter(|s| **s == 400).count(), 4, "{statuses:?}");
        assert!(statuses.iter().all(|s| *s == 400 || *s == 429 || *s == 503), "{statuses:?}");
        // An ADMIN's API key sets a password without one (a key is no person).
        app.post_json(&path, &json!({"password": "set by the service key"})).await.expect(204);
    }

    async fn users_and_keys_are_in_the_history_without_a_secret(app: TestApp) {
        let password = "kim's long password";
        let (kim, session) = signed_in(&app, "kim@example.com", "TRAFFICKER", password).await;
        change_user(&app, &kim, |u| u["role"] = json!("VIEWER")).await;
        app.post_json(&format!("/v1/users/{kim}/password"), &json!({"password": "kim's other long password"})).await.expect(204);
        let r = app.post_json("/v1/api-keys", &json!({"name": "reporting", "role": "VIEWER"})).await;
        r.expect(201);
        let key = r.json()["key"].as_str().unwrap().to_string();
        let key_id = r.json()["id"].as_str().unwrap().to_string();
        app.delete(&format!("/v1/api-keys/{key_id}")).await.expect(204);
        // An ADMIN reads them: who, what, when; never a password, its hash, a session or a key.
        let r = app.get("/v1/changes?kind=user").await;
        r.expect(200);
        let of_kim: Vec<Value> = r.json()["changes"].as_array().unwrap().iter().filter(|c| c["recordId"] == kim.as_str()).cloned().collect();
        let ops: Vec<&str> = of_kim.iter().map(|c| c["operation"].as_str().unwrap()).collect();
        assert_eq!(ops, ["UPDATE", "UPDATE", "CREATE"], "{}", r.body);
        assert_eq!(of_kim[1]["fields"], json!([{"path": "role", "old": "TRAFFICKER", "new": "VIEWER"}]), "{}", r.body);
        assert_eq!(of_kim[0]["fields"], json!([{"path": "password", "old": null, "new": null, "writeOnly": true}]), "{}", r.body);
        let all = app.get("/v1/changes?limit=200").await.body;
        for secret in ["argon2", &session, &key, &web::ids::hash_key(&key), password] {
            assert!(!all.contains(secret), "the history shows a secret ({secret})");
        }
        let keys = app.get("/v1/changes?kind=apiKey").await.json();
        let ops: Vec<&str> = keys["changes"].as_array().unwrap().iter().filter(|c| c["recordId"] == key_id.as_str()).map(|c| c["operation"].as_str().unwrap()).collect();
        assert_eq!(ops, ["DELETE", "CREATE"], "{keys}");
        // Signing in is no change of the user.
        app.console_sign_in("kim@example.com", "kim's other long password").await.0.expect(303);
        assert_eq!(app.get("/v1/changes?kind=user").await.json()["changes"].as_array().unwrap().iter().filter(|c| c["recordId"] == kim.as_str()).count(), 3);
        // A TRAFFICKER reads the history of records, not of people; nobody reverts a user's change.
        let r = app.post_json("/v1/api-keys", &json!({"name": "trafficking", "role": "TRAFFICKER"})).await;
        let trafficker = r.json()["key"].as_str().unwrap().to_string();
        let theirs = app.get_as(&trafficker, "/v1/changes?limit=200").await;
        theirs.expect(200);
        assert!(!theirs.body.contains("\"kind\":\"user\"") && !theirs.body.contains("\"kind\":\"apiKey\""), "{}", theirs.body);
        let role_change = of_kim[1]["id"].as_str().unwrap();
        app.post_json(&format!("/v1/changes/{role_change}/revert"), &json!({})).await.expect(409);
    }
}
