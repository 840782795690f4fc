//! Two-factor sign-in (docs/people-and-roles.md, "Two-factor") as a browser sees it, on both
//! stores: a person sets up TOTP on their account page (the secret as text and as an inline
//! SVG QR code, confirmed with a code, ten recovery codes shown once); signing in then asks
//! for `Code` after the password; a code is good once; a recovery code signs in once; an
//! ADMIN can require two-factor of everyone, and a person without it sets it up before
//! anything else.

use api_tests::serde_json::json;
use api_tests::{both_stores, csrf_of, form, location, set_cookie, Browser, Res, TestApp, CONSOLE_HOST, CONSOLE_ORIGIN};
use web::model::two_factor::TwoFactor;

const PASSWORD: &str = "a long enough password";

/// The code an authenticator app shows now for `secret`.
fn code_now(app: &TestApp, secret: &str, later_steps: u64) -> String {
    let tf = TwoFactor { secret: secret.to_string(), confirmed: true, recovery: Vec::new(), last_step: 0 };
    let now = app.state.clock.now().timestamp() as u64 + later_steps * web::model::two_factor::STEP;
    tf.code_at(now).expect("a code")
}

/// The text of the element with `id`.
fn text_of(body: &str, id: &str) -> String {
    let at = body.find(&format!("id=\"{id}\"")).unwrap_or_else(|| panic!("#{id} in {body}"));
    let start = at + body[at..].find('>').unwrap() + 1;
    body[start..start + body[start..].find('<').unwrap()].to_string()
}

/// Sets up two-factor for a signed-in person: (the secret, the recovery codes).
async fn enrol(app: &TestApp, b: &Browser<'_>) -> (String, Vec<String>) {
    let page = b.get("/console/account").await;
    page.expect(200);
    assert!(page.body.contains("Set up two-factor"), "{}", page.body);
    let r = b.post("/console/account/two-factor/begin", &[]).await;
    r.expect(200);
    let secret = text_of(&r.body, "secret");
    assert_eq!(secret.len(), 32, "a base32 secret of 160 bits: {secret}");
    assert!(r.body.contains("<svg role=\"img\" aria-label=\"QR code of the secret\""), "an inline SVG QR code: {}", r.body);
    // A wrong first code turns nothing on.
    let r = b.post("/console/account/two-factor/confirm", &[("code", "000000")]).await;
    r.expect(422);
    assert!(r.body.contains("not the one your authenticator app shows"), "{}", r.body);
    let r = b.post("/console/account/two-factor/confirm", &[("code", &code_now(app, &secret, 0))]).await;
    r.expect(200);
    let list = &r.body[r.body.find("<ol class=\"recovery\"").expect("the recovery codes")..];
    let list = &list[..list.find("</ol>").unwrap()];
    let recovery: Vec<String> = list.split("<code>").skip(1).map(|c| c[..c.find("</code>").unwrap()].to_string()).collect();
    assert_eq!(recovery.len(), 10, "ten recovery codes: {}", r.body);
    assert!(b.get("/console/account").await.body.contains("10 recovery codes left"));
    (secret, recovery)
}

/// The password step: (its answer, the waiting sign-in's cookie, the sign-in forms' token and its cookie).
async fn password_step(app: &TestApp, email: &str) -> (Res, Option<String>, String, String) {
    let page = app.send_with_headers("GET", "/console/sign-in", None, None, "", &[("host", CONSOLE_HOST)]).await;
    let csrf_cookie = set_cookie(&page, "o_csrf").unwrap_or_default();
    let csrf = csrf_of(&page.body);
    let cookies = format!("o_csrf={csrf_cookie}");
    let headers = [("host", CONSOLE_HOST), ("origin", CONSOLE_ORIGIN), ("cookie", cookies.as_str())];
    let body = form(&[("email", email), ("password", PASSWORD), ("csrf", &csrf)]);
    let r = app.send_with_headers("POST", "/console/sign-in", None, Some("application/x-www-form-urlencoded"), &body, &headers).await;
    let pending = set_cookie(&r, "o_pending");
    (r, pending, csrf, csrf_cookie)
}

/// The code step: (its answer, the session's cookie when it started one).
async fn code_step(app: &TestApp, pending: &str, csrf: &str, csrf_cookie: &str, code: &str) -> (Res, Option<String>) {
    let cookies = format!("o_csrf={csrf_cookie}; o_pending={pending}");
    let headers = [("host", CONSOLE_HOST), ("origin", CONSOLE_ORIGIN), ("cookie", cookies.as_str())];
    let body = form(&[("code", code), ("csrf", csrf)]);
    let r = app.send_with_headers("POST", "/console/sign-in/code", None, Some("application/x-www-form-urlencoded"), &body, &headers).await;
    let session = set_cookie(&r, "o_session").filter(|s| !s.is_empty());
    (r, session)
}

both_stores! {
    async fn a_person_sets_up_two_factor_and_signs_in_with_a_code(app: TestApp) {
        app.post_json("/v1/users", &json!({"email": "tia@example.com", "name": "Tia", "role": "TRAFFICKER", "password": PASSWORD})).await.expect(201);
        let b = Browser::sign_in(&app, "tia@example.com", PASSWORD).await;
        let (secret, recovery) = enrol(&app, &b).await;
        // Sign in again: the password alone starts no session; the code step does.
        let (r, pending, csrf, csrf_cookie) = password_step(&app, "tia@example.com").await;
        assert_eq!(location(&r), "/console/sign-in/code");
        assert!(set_cookie(&r, "o_session").is_none(), "no session before the code");
        let pending = pending.expect("the waiting sign-in's cookie");
        let cookie = format!("o_pending={pending}; o_csrf={csrf_cookie}");
        let page = app.send_with_headers("GET", "/console/sign-in/code", None, None, "", &[("host", CONSOLE_HOST), ("cookie", cookie.as_str())]).await;
        page.expect(200);
        assert!(page.body.contains("<label for=\"code\">Code</label>"), "{}", page.body);
        // The waiting sign-in's cookie is no session.
        let as_pending = format!("o_session={pending}");
        let r = app.send_with_headers("GET", "/console/campaigns", None, None, "", &[("host", CONSOLE_HOST), ("cookie", as_pending.as_str())]).await;
        assert_eq!(location(&r), "/console/sign-in");
        let (r, session) = code_step(&app, &pending, &csrf, &csrf_cookie, "123456").await;
        assert_eq!((r.status, session.is_none()), (401, true), "a wrong code: {}", r.body);
        let code = code_now(&app, &secret, 1);
        let (r, session) = code_step(&app, &pending, &csrf, &csrf_cookie, &code).await;
        assert_eq!(location(&r), "/console/");
        let session = session.expect("a session");
        let cookie = format!("o_session={session}");
        app.send_with_headers("GET", "/console/campaigns", None, None, "", &[("host", CONSOLE_HOST), ("cookie", cookie.as_str())]).await.expect(200);
        // The same code again: refused (a code is good once), and the waiting sign-in is gone.
        let (_, pending2, csrf2, csrf_cookie2) = password_step(&app, "tia@example.com").await;
        let pending2 = pending2.unwrap();
        let (r, _) = code_step(&app, &pending2, &csrf2, &csrf_cookie2, &code).await;
        r.expect(401);
        let (r, _) = code_step(&app, &pending, &csrf, &csrf_cookie, &code_now(&app, &secret, 0)).await;
        r.expect(401);
        // A recovery code signs in once.
        let (r, s) = code_step(&app, &pending2, &csrf2, &csrf_cookie2, &recovery[0].to_uppercase()).await;
        assert_eq!((location(&r), s.is_some()), ("/console/".to_string(), true));
        let (_, pending3, csrf3, csrf_cookie3) = password_step(&app, "tia@example.com").await;
        code_step(&app, &pending3.unwrap(), &csrf3, &csrf_cookie3, &recovery[0]).await.0.expect(401);
        // Turning it off needs the password; the history says it was on, never its secret.
        let b = Browser { app: &app, session, csrf: b.csrf.clone() };
        let home = b.get("/console/").await;
        let b = Browser { csrf: csrf_of(&home.body), ..b };
        b.post("/console/account/two-factor/off", &[("currentPassword", "not my password")]).await.expect(422);
        api_tests::location(&b.post("/console/account/two-factor/off", &[("currentPassword", PASSWORD)]).await);
        let history = app.get("/v1/changes?kind=user&limit=200").await;
        assert!(history.body.contains("\"path\":\"twoFactor\",\"old\":false,\"new\":true"), "{}", history.body);
        assert!(!history.body.contains(&secret) && !history.body.contains(&recovery[1]), "no secret in the history");
    }

    async fn an_admin_requires_two_factor_and_a_person_without_sets_it_up_first(app: TestApp) {
        app.post_json("/v1/users", &json!({"email": "root@example.com", "name": "Root", "role": "ADMIN", "password": PASSWORD})).await.expect(201);
        app.post_json("/v1/users", &json!({"email": "una@example.com", "name": "Una", "role": "VIEWER", "password": PASSWORD})).await.expect(201);
        let admin = Browser::sign_in(&app, "root@example.com", PASSWORD).await;
        // A VIEWER may not change the sign-in settings.
        let una = Browser::sign_in(&app, "una@example.com", PASSWORD).await;
        una.post("/console/account/sign-in-settings", &[("requireTwoFactor", "on")]).await.expect(403);
        api_tests::location(&admin.post("/console/account/sign-in-settings", &[("requireTwoFactor", "on")]).await);
        assert!(admin.get("/console/account").await.body.contains("requires two-factor sign-in"));
        // Every function knows within the 4 s its cache keeps a session.
        app.clock.skip(web::model::access::AUTH_CACHE_TTL);
        // Una (no second factor) is sent to her account page, and the API refuses her session.
        let r = una.get("/console/campaigns").await;
        assert_eq!(location(&r), "/console/account");
        let cookie = format!("o_session={}", una.session);
        let r = app.send_with_headers("GET", "/api/1.0/campaign", None, None, "", &[("host", CONSOLE_HOST), ("cookie", cookie.as_str())]).await;
        r.expect(403);
        assert!(r.body.contains("requires two-factor"), "{}", r.body);
        // Set up, she goes on; she cannot turn it off while the account requires it.
        enrol(&app, &una).await;
        una.get("/console/campaigns").await.expect(200);
        assert!(!una.get("/console/account").await.body.contains("Turn off two-factor"));
        let r = una.post("/console/account/two-factor/off", &[("currentPassword", PASSWORD)]).await;
        r.expect(422);
        assert!(r.body.contains("requires two-factor sign-in"), "{}", r.body);
        // The settings' change is in the history, an ADMIN's to read.
        let history = app.get("/v1/changes?kind=signInSettings").await;
        assert!(history.body.contains("\"path\":\"requireTwoFactor\",\"old\":false,\"new\":true"), "{}", history.body);
    }
}
