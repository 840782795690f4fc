//! People and roles (docs/people-and-roles.md), through HTTP as a client and a browser see
//! them: role-scoped keys, revocation within 5 s, users, console sessions, throttled
//! sign-ins, disabled users, and who made each change. The route-table sweep of roles is
//! in tenant_sweep.rs.

use std::time::{Duration, Instant};

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, csrf_of, form, set_cookie, Res, TestApp, CONSOLE_HOST as HOST, CONSOLE_ORIGIN as ORIGIN};

/// A key of account A with `role`: (id, key).
async fn key(app: &TestApp, role: &str) -> (String, String) {
    let r = app.post_json("/v1/api-keys", &json!({"name": format!("{role} key"), "role": role})).await;
    r.expect(201);
    let v = r.json();
    assert_eq!(r.header("cache-control"), Some("no-store"));
    (v["id"].as_str().unwrap().to_string(), v["key"].as_str().unwrap().to_string())
}

/// A user of account A: their id.
async fn user(app: &TestApp, email: &str, role: &str, password: &str) -> String {
    let r = app.post_json("/v1/users", &json!({"email": email, "name": "Ann Lee", "role": role, "password": password})).await;
    r.expect(201);
    r.json()["id"].as_str().unwrap().to_string()
}

/// Signs in as a browser would, checking the sign-in page's security headers.
async fn sign_in(app: &TestApp, email: &str, password: &str) -> (Res, Option<String>) {
    let page = app.send_with_headers("GET", "/console/sign-in", None, None, "", &[("host", HOST)]).await;
    page.expect(200);
    assert!(page
        .header("content-security-policy")
        .is_some_and(|c| c.contains("default-src 'self'") && c.contains("frame-ancestors 'none'")));
    assert!(set_cookie(&page, "o_csrf").is_some(), "the sign-in page sets its token's cookie");
    app.console_sign_in(email, password).await
}

async fn as_session(app: &TestApp, method: &str, path: &str, session: &str, ct: Option<&str>, body: &str) -> Res {
    let cookie = format!("o_session={session}");
    app.send_with_headers(method, path, None, ct, body, &[("host", HOST), ("origin", ORIGIN), ("cookie", &cookie)]).await
}

both_stores! {
    async fn concurrent_guesses_verify_at_most_the_allowance(app: TestApp) {
        // The attempt is counted before the password is verified: 30 wrong guesses sent at
        // once from one address verify at most 5, and the rest are held off (or told to
        // come back when the process is busy).
        user(&app, "dee@example.com", "VIEWER", "the right password!").await;
        let before = app.state.passwords.verified();
        let guesses = (0..30).map(|i| {
            let app = &app;
            async move {
                app.console_sign_in_from("dee@example.com", &format!("wrong guess {i}!"), Some("10.66.0.2")).await.0.status
            }
        });
        let statuses = futures_util::future::join_all(guesses).await;
        let verified = app.state.passwords.verified() - before;
        assert!(verified <= 5, "{verified} verified: {statuses:?}");
        assert!(statuses.iter().all(|s| [401, 429, 503].contains(s)), "{statuses:?}");
        assert!(statuses.iter().filter(|s| **s == 429).count() >= 25 - statuses.iter().filter(|s| **s == 503).count(), "{statuses:?}");
        // One address tries many emails: at most its allowance is verified.
        let before = app.state.passwords.verified();
        for i in 0..25 {
            let (r, _) = app.console_sign_in_from(&format!("nobody{i}@example.com"), "a wrong password", Some("10.66.0.3")).await;
            assert!([401, 429].contains(&r.status), "{}", r.status);
        }
        let verified = app.state.passwords.verified() - before;
        assert!(verified <= 20, "one address verified {verified} passwords");
    }

    async fn a_viewer_key_reads_and_changes_nothing(app: TestApp) {
        let (_, viewer) = key(&app, "VIEWER").await;
        let (_, trafficker) = key(&app, "TRAFFICKER").await;
        let adv = app.client("Adv", "ADVERTISER").await;
        let before = app.get("/api/1.0/campaign").await.body;
        // XML: 403 in the XML error shape, naming the role it needs; nothing written.
        let bean = format!("<campaignBean><name>Nope</name><advertiserId>{adv}</advertiserId></campaignBean>");
        let r = app.send("POST", "/api/1.0/campaign", Some(&viewer), Some("application/xml"), &bean).await;
        r.expect(403);
        assert!(r.body.contains("<type>Forbidden</type>") && r.body.contains("TRAFFICKER"), "{}", r.body);
        assert_eq!(app.get("/api/1.0/campaign").await.body, before, "nothing changed");
        // JSON: the same in JSON; reads are a VIEWER's.
        let r = app.send("POST", "/v1/insertion-policy", Some(&viewer), Some("application/json"), "{\"name\": \"p\"}").await;
        r.expect(403);
        assert_eq!(r.json()["type"], "Forbidden");
        app.get_as(&viewer, "/api/1.0/campaign").await.expect(200);
        app.get_as(&viewer, "/v1/changes").await.expect(200);
        // A forecast is a read.
        let f = app.send("POST", "/api/2.0/forecast/inventory", Some(&viewer), Some("application/json"),
            &json!({"startDate": "2030-01-01", "endDate": "2030-01-07"}).to_string()).await;
        assert_ne!(f.status, 403, "{}", f.body);
        // A TRAFFICKER writes campaigns, not demand partners, users or keys.
        app.send("POST", "/api/1.0/campaign", Some(&trafficker), Some("application/xml"), &bean).await.expect(200);
        let r = app.send("POST", "/v1/demand-partners", Some(&trafficker), Some("application/json"), "{}").await;
        r.expect(403);
        assert!(r.json()["message"].as_str().unwrap_or("").contains("ADMIN"));
        app.get_as(&trafficker, "/v1/users").await.expect(403);
        app.get_as(&trafficker, "/v1/demand-partners").await.expect(200);
        // Another account's record stays 404 whatever the role.
        let theirs = app.send("POST", "/api/1.0/client", Some(&app.b.key), Some("application/xml"),
            "<clientBean><name>B's</name><type>ADVERTISER</type></clientBean>").await;
        theirs.expect(200);
        app.get_as(&viewer, &format!("/api/1.0/client/by_client_id;id={}", theirs.body.trim())).await.expect(404);
    }

    async fn a_revoked_key_is_refused_within_five_seconds(app: TestApp) {
        let (id, k) = key(&app, "VIEWER").await;
        app.get_as(&k, "/api/1.0/client").await.expect(200);
        let listed = app.get("/v1/api-keys").await;
        listed.expect(200);
        let mine = listed.json()["apiKeys"].as_array().unwrap().iter().find(|x| x["id"] == id.as_str()).cloned().unwrap();
        assert_eq!((mine["role"].as_str(), mine["fingerprint"].as_str()), (Some("VIEWER"), Some(id.as_str())));
        assert!(!listed.body.contains(&k), "the list never shows a key");
        app.delete(&format!("/v1/api-keys/{id}")).await.expect(204);
        let revoked = Instant::now();
        while app.get_as(&k, "/api/1.0/client").await.status != 401 {
            assert!(revoked.elapsed() < Duration::from_secs(5), "the revoked key still works after 5 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        eprintln!("revocation delay: {} ms", revoked.elapsed().as_millis());
        app.delete(&format!("/v1/api-keys/{id}")).await.expect(404);
        // The account keeps an ADMIN: its last ADMIN key cannot go.
        let admin_id = app.get("/v1/api-keys").await.json()["apiKeys"][0]["id"].as_str().unwrap().to_string();
        let r = app.delete(&format!("/v1/api-keys/{admin_id}")).await;
        r.expect(409);
        assert!(r.body.contains("ADMIN"), "{}", r.body);
    }

    async fn a_user_signs_in_reads_and_signs_out(app: TestApp) {
        let password = "correct horse battery staple";
        let id = user(&app, "Ann@Example.com", "TRAFFICKER", password).await;
        let listed = app.get("/v1/users").await;
        listed.expect(200);
        assert!(listed.body.contains("ann@example.com") && !listed.body.contains(password) && !listed.body.contains("argon2"), "{}", listed.body);
        // Duplicate email (any case): 400 naming the field and rule.
        let dup = app.post_json("/v1/users", &json!({"email": "ANN@example.com", "name": "x", "role": "VIEWER", "password": password})).await;
        dup.expect(400);
        assert_eq!((dup.json()["errors"][0]["field"].as_str(), dup.json()["errors"][0]["rule"].as_str()), (Some("email"), Some("unique")));
        let short = app.post_json("/v1/users", &json!({"email": "b@example.com", "name": "x", "role": "VIEWER", "password": "short"})).await;
        short.expect(400);
        assert!(short.body.contains("password") && !short.body.contains("short\""), "{}", short.body);

        let (r, session) = sign_in(&app, "ann@example.com", password).await;
        r.expect(303);
        assert_eq!(r.header("location"), Some("/console/"));
        let raw = r.headers.get_all("set-cookie").iter().filter_map(|v| v.to_str().ok()).find(|c| c.starts_with("o_session=")).unwrap().to_string();
        assert!(raw.contains("HttpOnly") && raw.contains("SameSite=Lax") && !raw.contains("Secure"), "{raw}");
        let session = session.expect("a session cookie");
        let home = as_session(&app, "GET", "/console/", &session, None, "").await;
        home.expect(200);
        assert!(home.body.contains("ann@example.com") && home.body.contains("Sign out"), "{}", home.body);
        // The API takes the session too; a write needs the site's Origin.
        as_session(&app, "GET", "/api/1.0/campaign", &session, None, "").await.expect(200);
        let adv = app.client("Adv", "ADVERTISER").await;
        let bean = format!("<campaignBean><name>Ann's</name><advertiserId>{adv}</advertiserId></campaignBean>");
        let made = as_session(&app, "POST", "/api/1.0/campaign", &session, Some("application/xml"), &bean).await;
        made.expect(200);
        let cookie = format!("o_session={session}");
        let forged = app.send_with_headers("POST", "/api/1.0/campaign", None, Some("application/xml"), &bean,
            &[("host", HOST), ("origin", "https://evil.example"), ("cookie", &cookie)]).await;
        forged.expect(403);
        // Without an Origin, or with a forwarded host a client wrote, or over plain http
        // where the request came over https: refused all the same.
        app.send_with_headers("POST", "/api/1.0/campaign", None, Some("application/xml"), &bean, &[("host", HOST), ("cookie", &cookie)]).await.expect(403);
        app.send_with_headers("POST", "/api/1.0/campaign", None, Some("application/xml"), &bean,
            &[("host", HOST), ("x-forwarded-host", "evil.example"), ("origin", "http://evil.example"), ("cookie", &cookie)]).await.expect(403);
        app.send_with_headers("POST", "/api/1.0/campaign", None, Some("application/xml"), &bean,
            &[("host", HOST), ("x-forwarded-proto", "https"), ("origin", ORIGIN), ("cookie", &cookie)]).await.expect(403);
        // The change names the user.
        let changes = app.get(&format!("/v1/changes?actorId={id}")).await;
        changes.expect(200);
        let first = &changes.json()["changes"][0];
        assert_eq!((first["actor"]["kind"].as_str(), first["actor"]["name"].as_str(), first["kind"].as_str()), (Some("USER"), Some("ann@example.com"), Some("campaign")));
        assert!(first.get("keyId").is_none(), "{first}");
        let csv = app.get(&format!("/v1/changes?actorId={id}&output=csv")).await;
        assert!(csv.body.lines().skip(1).all(|l| l.ends_with(&format!("USER,{id},ann@example.com"))), "{}", csv.body);
        assert!(!csv.body.contains(password) && !changes.body.contains("argon2"));
        // Signing out: the form's token, then the old cookie no longer works anywhere.
        let out = as_session(&app, "POST", "/console/sign-out", &session, Some("application/x-www-form-urlencoded"), &form(&[("csrf", "wrong")])).await;
        out.expect(403);
        let token = csrf_of(&home.body);
        let out = as_session(&app, "POST", &format!("/console/sign-out?csrf={token}"), &session, Some("application/x-www-form-urlencoded"), &form(&[("csrf", &token)])).await;
        out.expect(303);
        assert_eq!(as_session(&app, "GET", "/console/", &session, None, "").await.header("location"), Some("/console/sign-in"));
        as_session(&app, "GET", "/api/1.0/campaign", &session, None, "").await.expect(401);
        // A signed-out visit goes to the sign-in page.
        let visit = app.send("GET", "/console/", None, None, "").await;
        visit.expect(303);
        assert_eq!(visit.header("location"), Some("/console/sign-in"));
    }

    async fn failed_sign_ins_hold_off_their_address_not_the_user(app: TestApp) {
        let password = "the right password!";
        user(&app, "cam@example.com", "VIEWER", password).await;
        let message = |r: &Res| r.body.split("role=\"alert\">").nth(1).and_then(|s| s.split('<').next()).unwrap_or("").to_string();
        let attacker = Some("10.66.0.1");
        let mut unknown_message = String::new();
        for _ in 0..5 {
            let (r, s) = app.console_sign_in_from("cam@example.com", "a wrong password", attacker).await;
            r.expect(401);
            assert!(s.is_none());
            let (u, _) = app.console_sign_in_from("nobody@example.com", "a wrong password", attacker).await;
            u.expect(401);
            unknown_message = message(&u);
            assert_eq!(message(&r), unknown_message, "the answer never says whether the email exists");
        }
        // From that address, even the right password waits.
        let (r, s) = app.console_sign_in_from("cam@example.com", password, attacker).await;
        r.expect(429);
        assert!(s.is_none());
        let wait: u64 = r.header("retry-after").and_then(|v| v.parse().ok()).expect("Retry-After");
        assert!((1..=900).contains(&wait), "{wait}");
        let (u, _) = app.console_sign_in_from("nobody@example.com", "a wrong password", attacker).await;
        u.expect(429);
        assert_eq!(message(&u), message(&r));
        assert_ne!(message(&r), unknown_message);
        // From anywhere else the user signs in: a stranger cannot lock them out.
        let (r, s) = app.console_sign_in_from("cam@example.com", password, Some("10.77.0.1")).await;
        r.expect(303);
        assert!(s.is_some());
        // A form posted without the page's token, or from another site, changes nothing.
        let bad = app.send_with_headers("POST", "/console/sign-in", None, Some("application/x-www-form-urlencoded"),
            &form(&[("email", "cam@example.com"), ("password", password), ("csrf", "x")]), &[("host", HOST), ("origin", ORIGIN)]).await;
        bad.expect(403);
    }

    async fn a_disabled_or_deleted_users_sessions_end(app: TestApp) {
        let password = "dee's long password";
        let id = user(&app, "dee@example.com", "TRAFFICKER", password).await;
        let (_, session) = sign_in(&app, "dee@example.com", password).await;
        let session = session.expect("signed in");
        as_session(&app, "GET", "/api/1.0/campaign", &session, None, "").await.expect(200);
        let got = app.get(&format!("/v1/users/{id}")).await;
        let etag = got.header("etag").unwrap().to_string();
        let mut body: Value = got.json();
        body["disabled"] = json!(true);
        let r = app.send_with_headers("PUT", &format!("/v1/users/{id}"), Some(&app.a.key), Some("application/json"), &body.to_string(), &[("if-match", &etag)]).await;
        r.expect(200);
        assert_eq!(r.json()["disabled"], true);
        let ended = Instant::now();
        while as_session(&app, "GET", "/api/1.0/campaign", &session, None, "").await.status != 401 {
            assert!(ended.elapsed() < Duration::from_secs(5), "a disabled user's session still works after 5 s");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(as_session(&app, "GET", "/console/", &session, None, "").await.status, 303);
        let (r, _) = sign_in(&app, "dee@example.com", password).await;
        r.expect(401);
        // Stale If-Match: 412; the user themself (a session) may change their own password only.
        app.send_with_headers("PUT", &format!("/v1/users/{id}"), Some(&app.a.key), Some("application/json"), &body.to_string(), &[("if-match", &etag)]).await.expect(412);
        let other = user(&app, "eve@example.com", "VIEWER", password).await;
        let (_, eve) = sign_in(&app, "eve@example.com", password).await;
        let eve = eve.expect("signed in");
        let pw = json!({"password": "eve's new password", "currentPassword": password}).to_string();
        as_session(&app, "POST", &format!("/v1/users/{id}/password"), &eve, Some("application/json"), &pw).await.expect(403);
        as_session(&app, "POST", &format!("/v1/users/{other}/password"), &eve, Some("application/json"), &pw).await.expect(204);
        sign_in(&app, "eve@example.com", "eve's new password").await.0.expect(303);
        // Deleting a user ends their sessions too.
        app.delete(&format!("/v1/users/{other}")).await.expect(204);
        app.get(&format!("/v1/users/{other}")).await.expect(404);
        let gone = Instant::now();
        while as_session(&app, "GET", "/api/1.0/campaign", &eve, None, "").await.status != 401 {
            assert!(gone.elapsed() < Duration::from_secs(5));
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        // Another account's users are 404.
        app.get_as(&app.b.key, &format!("/v1/users/{id}")).await.expect(404);
    }
}
