//! Single sign-on (docs/single-sign-on.md) through HTTP, on both stores, against the tests'
//! OpenID provider (tests/harness/oidc.rs): an ADMIN sets the account's provider (the
//! client secret write-only); the account's sign-in page offers "Sign in with <name>"; the
//! person is provisioned at their first sign-in with the role their groups map to, and is
//! the same user the next time; a replayed callback, a forged nonce and a person with no
//! role are refused.

use api_tests::oidc::{Person, Provider, CLIENT_ID, CLIENT_SECRET};
use api_tests::serde_json::json;
use api_tests::{both_stores, location, set_cookie, Browser, Res, TestApp, CONSOLE_HOST};

const PASSWORD: &str = "a long enough password";

fn person(email: &str, groups: &[&str]) -> Person {
    Person { email: email.into(), name: "Sam Single".into(), groups: groups.iter().map(|g| g.to_string()).collect() }
}

/// The browser's sign-in through the provider: (the callback's answer, the session cookie).
async fn sign_in_through(app: &TestApp, provider: &Provider) -> (Res, Option<String>) {
    let headers = [("host", CONSOLE_HOST)];
    let r = app.send_with_headers("GET", &format!("/console/sign-in/sso/{}", app.a.id), None, None, "", &headers).await;
    let to = location(&r);
    assert!(to.starts_with(&format!("{}/authorize?", provider.issuer)), "to the provider: {to}");
    let state = set_cookie(&r, "o_sso").expect("the state's cookie");
    let back = provider.visit(&to).await;
    let path = back.strip_prefix(&format!("http://{CONSOLE_HOST}")).expect("back to this site").to_string();
    let cookie = format!("o_sso={state}");
    let r = app.send_with_headers("GET", &path, None, None, "", &[("host", CONSOLE_HOST), ("cookie", cookie.as_str())]).await;
    let session = set_cookie(&r, "o_session").filter(|s| !s.is_empty());
    (r, session)
}

async fn set_provider(admin: &Browser<'_>, provider: &Provider, secret: &str) -> Res {
    admin
        .post(
            "/console/account/single-sign-on",
            &[
                ("name", "Test IdP"),
                ("issuer", &provider.issuer),
                ("clientId", CLIENT_ID),
                ("clientSecret", secret),
                ("roleClaim", "groups"),
                ("roles", "ad-admins=ADMIN\nad-ops=TRAFFICKER"),
                ("defaultRole", ""),
            ],
        )
        .await
}

both_stores! {
    async fn people_sign_in_through_the_accounts_provider(app: TestApp) {
        let provider = Provider::start(person("sam@corp.example", &["ad-ops", "staff"])).await;
        app.post_json("/v1/users", &json!({"email": "root@a.example", "name": "Root", "role": "ADMIN", "password": PASSWORD})).await.expect(201);
        let admin = Browser::sign_in(&app, "root@a.example", PASSWORD).await;
        // Every rule broken is named; nothing saved.
        let r = admin.post("/console/account/single-sign-on", &[("name", ""), ("issuer", "ftp://x"), ("clientId", CLIENT_ID)]).await;
        r.expect(422);
        assert!(r.body.contains("name is required") && r.body.contains("clientSecret is required"), "{}", r.body);
        location(&set_provider(&admin, &provider, CLIENT_SECRET).await);
        let page = admin.get("/console/account").await;
        assert!(page.body.contains(&provider.issuer) && !page.body.contains(CLIENT_SECRET), "the secret is never shown again");
        // A VIEWER cannot set it.
        app.post_json("/v1/users", &json!({"email": "vi@a.example", "name": "Vi", "role": "VIEWER", "password": PASSWORD})).await.expect(201);
        let viewer = Browser::sign_in(&app, "vi@a.example", PASSWORD).await;
        set_provider(&viewer, &provider, "another").await.expect(403);
        // The account's sign-in page offers the provider; the plain one names no account.
        let r = app.send_with_headers("GET", &format!("/console/sign-in?account={}", app.a.id), None, None, "", &[("host", CONSOLE_HOST)]).await;
        assert!(r.body.contains("Sign in with Test IdP"), "{}", r.body);
        let r = app.send_with_headers("GET", "/console/sign-in", None, None, "", &[("host", CONSOLE_HOST)]).await;
        assert!(!r.body.contains("Sign in with"));
        // First sign-in: provisioned as a TRAFFICKER (their group ad-ops).
        let (r, session) = sign_in_through(&app, &provider).await;
        assert_eq!(location(&r), "/console/");
        let session = session.expect("a session");
        let cookie = format!("o_session={session}");
        let home = app.send_with_headers("GET", "/console/", None, None, "", &[("host", CONSOLE_HOST), ("cookie", cookie.as_str())]).await;
        assert!(home.body.contains("sam@corp.example") && home.body.contains("TRAFFICKER"), "{}", home.body);
        let users = app.get("/v1/users").await.json();
        let sams: Vec<&api_tests::serde_json::Value> = users["users"].as_array().unwrap().iter().filter(|u| u["email"] == "sam@corp.example").collect();
        assert_eq!(sams.len(), 1);
        let sam = sams[0]["id"].as_str().unwrap().to_string();
        // The next sign-in is the same user.
        let (r, _) = sign_in_through(&app, &provider).await;
        assert_eq!(location(&r), "/console/");
        let users = app.get("/v1/users").await.json();
        assert_eq!(users["users"].as_array().unwrap().iter().filter(|u| u["email"] == "sam@corp.example").count(), 1);
        // A forged nonce is refused; so is a person whose groups map to no role (not provisioned).
        provider.forge_nonce(Some("not the one sent"));
        let (r, s) = sign_in_through(&app, &provider).await;
        assert_eq!((r.status, s.is_none()), (401, true), "{}", r.body);
        assert!(r.body.contains("nonce"), "{}", r.body);
        provider.forge_nonce(None);
        provider.sign_in_as(person("fin@corp.example", &["finance"]));
        let (r, s) = sign_in_through(&app, &provider).await;
        assert_eq!((r.status, s.is_none()), (401, true), "{}", r.body);
        assert!(r.body.contains("no role here"), "{}", r.body);
        assert!(!app.get("/v1/users").await.body.contains("fin@corp.example"));
        // A disabled user is refused.
        let got = app.get(&format!("/v1/users/{sam}")).await;
        let etag = got.header("etag").unwrap().to_string();
        let mut body = got.json();
        body["disabled"] = json!(true);
        app.send_with_headers("PUT", &format!("/v1/users/{sam}"), Some(&app.a.key), Some("application/json"), &body.to_string(), &[("if-match", &etag)]).await.expect(200);
        provider.sign_in_as(person("sam@corp.example", &["ad-ops"]));
        let (r, _) = sign_in_through(&app, &provider).await;
        r.expect(401);
        // The settings are in the history, never the secret.
        let history = app.get("/v1/changes?kind=signInSettings").await;
        assert!(history.body.contains("singleSignOn") && history.body.contains("Test IdP") && !history.body.contains(CLIENT_SECRET), "{}", history.body);
    }

    async fn a_callback_is_good_once_and_only_in_the_browser_that_started_it(app: TestApp) {
        let provider = Provider::start(person("sam@corp.example", &["ad-admins"])).await;
        app.post_json("/v1/users", &json!({"email": "root@a.example", "name": "Root", "role": "ADMIN", "password": PASSWORD})).await.expect(201);
        let admin = Browser::sign_in(&app, "root@a.example", PASSWORD).await;
        location(&set_provider(&admin, &provider, CLIENT_SECRET).await);
        let headers = [("host", CONSOLE_HOST)];
        let r = app.send_with_headers("GET", &format!("/console/sign-in/sso/{}", app.a.id), None, None, "", &headers).await;
        let state = set_cookie(&r, "o_sso").unwrap();
        let back = provider.visit(&location(&r)).await;
        let path = back.strip_prefix(&format!("http://{CONSOLE_HOST}")).unwrap().to_string();
        // Another browser (no state cookie) is refused, and that costs the real one nothing.
        app.send_with_headers("GET", &path, None, None, "", &headers).await.expect(401);
        let cookie = format!("o_sso={state}");
        let with = [("host", CONSOLE_HOST), ("cookie", cookie.as_str())];
        let r = app.send_with_headers("GET", &path, None, None, "", &with).await;
        assert_eq!(location(&r), "/console/");
        // The same callback again: the state was used.
        let r = app.send_with_headers("GET", &path, None, None, "", &with).await;
        r.expect(401);
        assert!(r.body.contains("start again"), "{}", r.body);
        // A wrong client secret: the provider refuses the code, and so does the sign-in.
        location(&set_provider(&admin, &provider, "not the secret").await);
        let (r, s) = sign_in_through(&app, &provider).await;
        assert_eq!((r.status, s.is_none()), (401, true), "{}", r.body);
    }
}
