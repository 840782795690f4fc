//! Access by construction, swept over the router itself: every route every group routes
//! (`web::api::groups::ALL`, the table the Lambdas and the local server are built from) ×
//! every method × every caller (nobody; a VIEWER's, a TRAFFICKER's and an ADMIN's API key;
//! the same three roles' console sessions) gets the answer the route declares
//! (`web::api::Access`): refused before the handler when the caller may not call it, and
//! past the gate when they may.

use futures_util::StreamExt;

use api_tests::serde_json::json;
use api_tests::{both_stores, Res};
use api_tests::{CONSOLE_HOST, CONSOLE_ORIGIN};
use axum::http::Method;
use web::api::{Declared, Surface};
use web::model::access::Role;

const METHODS: [&str; 5] = ["GET", "POST", "PUT", "PATCH", "DELETE"];
const ROLES: [Role; 3] = [Role::Viewer, Role::Trafficker, Role::Admin];

#[derive(Clone, Debug)]
enum Via {
    Nobody,
    Key(Role, String),
    Session(Role, String),
}

/// A concrete path of a pattern: each `{…}` filled with an id of nothing (the gate answers
/// before any record is read; a caller it admits then finds nothing).
fn concrete(pattern: &str) -> String {
    pattern
        .split('/')
        .map(|part| match part {
            "{seg}" => "by_campaign_id;id=nothing0".to_string(),
            "{kind}" => "category".to_string(),
            "{event}" => "impression".to_string(),
            p if p.starts_with('{') => "nothing0".to_string(),
            p => p.to_string(),
        })
        .collect::<Vec<_>>()
        .join("/")
}

/// What the answer must be, or why it is not.
fn check(d: Declared, method: &str, via: &Via, r: &Res) -> Result<(), String> {
    let needed = d.access.required(&Method::from_bytes(method.as_bytes()).unwrap());
    let signed_in_page = r.status == 303 && r.header("location") == Some("/console/sign-in");
    let Some(needed) = needed else {
        // Public: the gate lets everybody through (the code step's page may still send a
        // browser with no sign-in under way to the sign-in page).
        // (A page's own 401, such as a sign-in callback with no sign-in under way, is no refusal of the gate.)
        let refused =
            (r.status == 401 && r.body.contains("x-o-api-key")) || (r.status == 403 && r.body.to_lowercase().contains("needs the"));
        return if refused { Err("a public route refused its caller".into()) } else { Ok(()) };
    };
    let role_refusal = |r: &Res| r.status == 403 && r.body.contains(needed.as_str()) && r.body.to_lowercase().contains("needs the");
    match (d.surface, via) {
        (Surface::Console { .. }, Via::Nobody | Via::Key(..)) => {
            if signed_in_page {
                Ok(())
            } else {
                Err("a console page without a session is the sign-in page".into())
            }
        }
        (Surface::Api, Via::Nobody) => {
            if r.status == 401 {
                Ok(())
            } else {
                Err("an API route without a caller is 401".into())
            }
        }
        (_, Via::Key(role, _) | Via::Session(role, _)) if role.allows(needed) => {
            if r.status == 401 || signed_in_page || role_refusal(r) {
                Err(format!("{} may call it ({} needed)", role.as_str(), needed.as_str()))
            } else {
                Ok(())
            }
        }
        (_, Via::Key(role, _) | Via::Session(role, _)) => {
            if role_refusal(r) {
                Ok(())
            } else {
                Err(format!("{} is refused with 403 naming {}", role.as_str(), needed.as_str()))
            }
        }
    }
}

both_stores! {
    async fn every_route_answers_every_caller_as_it_declares(app: TestApp) {
        let mut callers = vec![Via::Nobody];
        for role in ROLES {
            let r = app.post_json("/v1/api-keys", &json!({"name": format!("sweep {}", role.as_str()), "role": role.as_str()})).await;
            r.expect(201);
            callers.push(Via::Key(role, r.json()["key"].as_str().unwrap().to_string()));
            let email = format!("{}@sweep.example", role.as_str().to_lowercase());
            let password = "a long enough password";
            app.post_json("/v1/users", &json!({"email": email, "name": role.as_str(), "role": role.as_str(), "password": password}))
                .await
                .expect(201);
            let (r, session) = app.console_sign_in(&email, password).await;
            assert_eq!(r.status, 303, "{email} signs in: {}", r.body);
            callers.push(Via::Session(role, session.expect("a session")));
        }
        let declared: Vec<(&'static str, Declared)> =
            web::api::groups::ALL.iter().flat_map(|(_, group)| group().declared().to_vec()).collect();
        assert!(declared.len() >= 120, "the router declares {} routes", declared.len());
        let mut attempts = Vec::new();
        for (pattern, d) in &declared {
            for m in METHODS {
                for via in &callers {
                    // Signing out would end the sweep's session.
                    if *pattern == "/console/sign-out" && matches!(via, Via::Session(..)) {
                        continue;
                    }
                    attempts.push((*pattern, *d, m, via.clone()));
                }
            }
        }
        let total = attempts.len();
        let app_ref = &app;
        let answers: Vec<_> = futures_util::stream::iter(attempts)
            .map(|(pattern, d, m, via)| async move {
                let path = concrete(pattern);
                let ct = if path.starts_with("/api/1.0") { "application/xml" } else { "application/json" };
                // Every request as a browser on the console's site sends it (the same-origin
                // check is not what is swept here).
                let cookie = match &via {
                    Via::Session(_, s) => format!("o_session={s}"),
                    _ => String::new(),
                };
                let key = match &via {
                    Via::Key(_, key) => Some(key.as_str()),
                    _ => None,
                };
                let headers = [("host", CONSOLE_HOST), ("origin", CONSOLE_ORIGIN), ("cookie", cookie.as_str())];
                let r = app_ref.send_with_headers(m, &path, key, Some(ct), "", &headers).await;
                (pattern, d, m, via, r)
            })
            .buffer_unordered(16)
            .collect()
            .await;
        let mut wrong = Vec::new();
        let (mut refused, mut admitted) = (0, 0);
        for (pattern, d, m, via, r) in &answers {
            assert!(r.status < 500, "{m} {pattern} as {via:?}: {} {}", r.status, r.body);
            match check(*d, m, via, r) {
                Ok(()) if matches!(r.status, 401 | 403) || r.header("location") == Some("/console/sign-in") => refused += 1,
                Ok(()) => admitted += 1,
                Err(why) => wrong.push(format!("{m} {pattern} as {via:?}: {} ({why}) {}", r.status, r.body.chars().take(200).collect::<String>())),
            }
        }
        assert!(wrong.is_empty(), "{} of {total} answers are not as declared:\n{}", wrong.len(), wrong.join("\n"));
        assert!(refused > 1000 && admitted > 1000, "{refused} refused, {admitted} admitted");
        eprintln!("role sweep: {} routes x {} methods x {} callers = {total} requests: {refused} refused as declared, {admitted} admitted", declared.len(), METHODS.len(), callers.len());
    }
}

/// The declarations the product's security rests on, read off the router.
#[test]
fn the_router_declares_what_the_roles_table_of_the_docs_says() {
    let declared: Vec<(&'static str, Declared)> = web::api::groups::ALL.iter().flat_map(|(_, group)| group().declared().to_vec()).collect();
    let of = |p: &str| declared.iter().find(|(q, _)| *q == p).map(|(_, d)| d.access).unwrap_or_else(|| panic!("{p} is routed"));
    use web::api::Access;
    for public in ["/v1/adrequest", "/v1/track/{event}", "/console/sign-in", "/openapi.json", "/v1/preview/{token}/vast.xml"] {
        assert_eq!(of(public), Access::Public, "{public}");
    }
    for admin in ["/v1/users", "/v1/api-keys", "/console/users", "/console/api-keys", "/console/demand"] {
        assert_eq!(of(admin), Access::ADMIN, "{admin}");
    }
    assert_eq!(of("/v1/demand-partners/{id}"), Access::ADMIN_WRITES);
    assert_eq!(of("/api/2.0/forecast/campaign"), Access::VIEWER);
    assert_eq!(of("/v1/changes/{id}/revert"), Access::RECORDS);
    // Nothing else is public.
    let public: Vec<_> = declared.iter().filter(|(_, d)| d.access == Access::Public).map(|(p, _)| *p).collect();
    for p in &public {
        let known = p.starts_with("/v1/preview/")
            || [
                "/v1/adrequest",
                "/v1/track/{event}",
                "/console",
                "/console/sign-in",
                "/console/sign-in/code",
                "/console/sign-in/sso/{account}",
                "/console/sign-in/sso/callback",
                "/console/console.css",
                "/console/console.js",
            ]
            .contains(p)
            || web::api::docs_page::PATHS.contains(p);
        assert!(known, "{p} is public");
    }
}
