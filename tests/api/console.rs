//! The console (docs/console.md) through HTTP as a browser without scripts uses it: forms
//! posted from its pages, redirects followed, on both stores. What a person sees in a real
//! browser (axe-core, the upload's progress, the preview playing) is console_browser.rs.

use api_tests::serde_json::json;
use api_tests::{both_stores, location, version_of, Browser, TestApp, CONSOLE_ORIGIN};

const PASSWORD: &str = "a long enough password";

/// A user of account A with `role`, signed in.
pub(crate) async fn person<'a>(app: &'a TestApp, email: &str, role: &str) -> Browser<'a> {
    let r = app.post_json("/v1/users", &json!({"email": email, "name": "Ann Lee", "role": role, "password": PASSWORD})).await;
    r.expect(201);
    Browser::sign_in(app, email, PASSWORD).await
}

/// A campaign made through the console (a new advertiser with it): its id.
pub(crate) async fn campaign(b: &Browser<'_>, name: &str) -> String {
    let r = b.post("/console/campaigns", &[("name", name), ("new_advertiser", "Acme"), ("state", "live")]).await;
    location(&r).rsplit('/').next().unwrap_or("").to_string()
}

/// A goal of `campaign` made through the console: its id.
pub(crate) async fn goal(b: &Browser<'_>, campaign: &str, name: &str, start: &str, end: &str) -> String {
    let r = b
        .post(
            &format!("/console/campaigns/{campaign}/goals"),
            &[("name", name), ("type", "IMPRESSION"), ("start", start), ("end", end), ("value", "10000"), ("priority", "")],
        )
        .await;
    location(&r).rsplit('/').next().unwrap_or("").to_string()
}

both_stores! {
    async fn a_trafficker_sets_up_a_campaign_and_finds_it(app: TestApp) {
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        // Signed out, a console page sends the browser to sign in.
        let r = app.send_with_headers("GET", "/console/campaigns", None, None, "", &[("host", api_tests::CONSOLE_HOST)]).await;
        assert_eq!(location(&r), "/console/sign-in");
        let c = campaign(&b, "Winter sports").await;
        campaign(&b, "Spring news").await;
        let g = goal(&b, &c, "Morning", "2030-01-01T06:00", "2030-01-31T23:00").await;
        // The list: each name a link, the advertiser, delivered against booked, the zone named.
        let list = b.get("/console/campaigns").await;
        list.expect(200);
        assert!(list.body.contains(&format!("<a href=\"/console/campaigns/{c}\">Winter sports</a>")), "{}", list.body);
        assert!(list.body.contains("Acme") && list.body.contains("0 / 10,000") && list.body.contains("Dates in"), "{}", list.body);
        // Search by name, and the state filter.
        let found = b.get("/console/campaigns?q=winter").await;
        assert!(found.body.contains("Winter sports") && !found.body.contains("Spring news"), "{}", found.body);
        let paused = b.get("/console/campaigns?status=paused").await;
        assert!(!paused.body.contains("Winter sports"), "{}", paused.body);
        // The campaign's page: its name the heading, its goal a link; the goal's dates in the account's zone.
        let page = b.get(&format!("/console/campaigns/{c}")).await;
        assert!(page.body.contains("<h1>Winter sports</h1>") && page.body.contains(&format!("href=\"/console/goals/{g}\">Morning</a>")), "{}", page.body);
        let goal_page = b.get(&format!("/console/goals/{g}")).await;
        assert!(goal_page.body.contains("<h1>Morning</h1>") && goal_page.body.contains("value=\"2030-01-01T06:00\""), "{}", goal_page.body);
        // The API sees the same goal, its start at 06:00 in the account's zone.
        let v = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={g}")).await.body;
        assert!(v.contains("<name>Morning</name>"), "{v}");
        // Another account's goal is not found, and its name never shown.
        let theirs = app.send("POST", "/api/1.0/client", Some(&app.b.key), Some("application/xml"),
            "<clientBean><name>Secret B</name><type>ADVERTISER</type></clientBean>").await;
        theirs.expect(200);
        let r = b.get(&format!("/console/campaigns/{}", theirs.body.trim())).await;
        r.expect(404);
        assert!(!r.body.contains("Secret B"));
    }

    async fn a_refused_field_shows_its_message_next_to_it_and_keeps_the_input(app: TestApp) {
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        let c = campaign(&b, "Winter sports").await;
        let r = b.post(&format!("/console/campaigns/{c}/goals"),
            &[("name", "Backwards"), ("type", "IMPRESSION"), ("start", "2030-02-01T00:00"), ("end", "2030-01-01T00:00"), ("value", "-5")]).await;
        r.expect(422);
        // Each message sits in its field's error element, the field marked invalid; the input is kept.
        assert!(r.body.contains("id=\"end\" name=\"end\" type=\"datetime-local\" value=\"2030-01-01T00:00\""), "{}", r.body);
        assert!(r.body.contains("<span class=\"field-error\" id=\"end-error\">end must be after start"), "{}", r.body);
        assert!(r.body.contains("<span class=\"field-error\" id=\"value-error\">goalValue of a IMPRESSION goal must be a positive number"), "{}", r.body);
        assert!(r.body.contains("value=\"Backwards\""), "{}", r.body);
        let v = app.get(&format!("/api/1.0.cpvext/goal/by_campaign_id;id={c}")).await.body;
        assert!(!v.contains("Backwards"), "nothing was made: {v}");
    }

    async fn a_stale_goal_form_says_who_changed_it_and_overwrites_nothing(app: TestApp) {
        let ann = person(&app, "ann@a.example", "TRAFFICKER").await;
        let bob = person(&app, "bob@a.example", "TRAFFICKER").await;
        let c = campaign(&ann, "Winter sports").await;
        let g = goal(&ann, &c, "Morning", "2030-01-01T00:00", "2030-01-31T00:00").await;
        let path = format!("/console/goals/{g}");
        let form_of = |end: &'static str, version: String| {
            vec![("name", "Morning".to_string()), ("type", "IMPRESSION".into()), ("start", "2030-01-01T00:00".into()),
                ("end", end.into()), ("value", "10000".into()), ("version", version)]
        };
        // Both open the goal; Bob saves first.
        let seen = version_of(&ann.get(&path).await.body);
        let bobs = version_of(&bob.get(&path).await.body);
        let pairs = form_of("2030-02-15T00:00", bobs);
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        assert_eq!(location(&bob.post(&path, &pairs).await), format!("{path}?saved=1"));
        // Ann's save at the version she read is refused: who changed it, her input kept.
        let pairs = form_of("2030-03-01T00:00", seen);
        let pairs: Vec<(&str, &str)> = pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let r = ann.post(&path, &pairs).await;
        r.expect(422);
        assert!(r.body.contains("changed after you opened the form") && r.body.contains("bob@a.example"), "{}", r.body);
        assert!(r.body.contains("value=\"2030-03-01T00:00\"") && r.body.contains("reload the record"), "{}", r.body);
        let end = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={g}")).await.body;
        assert!(end.contains("<end>2030-02-1"), "Bob's end stands: {end}");
        // Caps from the form: a daily and an hourly one, as the goal bean holds them.
        let v = version_of(&ann.get(&path).await.body);
        let r = ann.post(&path, &[("name", "Morning"), ("type", "IMPRESSION"), ("start", "2030-01-01T00:00"), ("end", "2030-02-15T00:00"),
            ("value", "10000"), ("daily_cap", "500"), ("hourly_cap", "40"), ("version", &v)]).await;
        location(&r);
        let bean = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={g}")).await.body;
        assert!(bean.contains("<cap><type>dailyCap</type><value>500</value></cap>") && bean.contains("<cap><type>hourlyCap</type><value>40</value></cap>"), "{bean}");
    }

    async fn every_edit_form_refuses_a_blank_or_missing_version(app: TestApp) {
        // A form that does not say which version it was read at would overwrite whatever
        // is stored: every edit form refuses it, and the record is unchanged.
        let ann = person(&app, "ann@a.example", "TRAFFICKER").await;
        let ada = person(&app, "ada@a.example", "ADMIN").await;
        let c = campaign(&ann, "Winter sports").await;
        let g = goal(&ann, &c, "Morning", "2030-01-01T00:00", "2030-01-31T00:00").await;
        let bean = app.get(&format!("/api/1.0/campaign/by_campaign_id;id={c}")).await.body;
        let adv = api_tests::xml_text(&bean, "advertiserId").unwrap_or_default();
        let users = app.get("/v1/users").await.json();
        let ann_id = users["users"].as_array().and_then(|l| l.iter().find(|u| u["email"] == "ann@a.example")).map(|u| u["id"].as_str().unwrap_or("").to_string()).unwrap_or_default();
        ada.post("/console/demand/partners", &[("name", "Acme DSP"), ("endpoint", "http://127.0.0.1:9/openrtb2"), ("timeoutMs", "150"), ("currency", "USD"), ("enabled", "true")]).await.expect(303);
        let dp = app.get("/v1/demand-partners").await.json()["demandPartners"][0]["id"].as_str().unwrap_or("").to_string();
        ada.post("/console/demand/marketplaces", &[("name", "Premium"), ("demandPartnerIds", &dp), ("auctionType", "SECOND_PRICE"), ("floorCpm", "4.5"), ("currency", "USD")]).await.expect(303);
        let mp = app.get("/v1/marketplaces").await.json()["marketplaces"][0]["id"].as_str().unwrap_or("").to_string();
        ada.post("/console/stitchers", &[("name", "Tailor"), ("sourceCidrs", "203.0.113.0/24")]).await.expect(303);
        let sti = app.get("/v1/stitchers").await.json()["stitchers"][0]["id"].as_str().unwrap_or("").to_string();
        // (who posts, the form's path, its fields, the record in the API, its name as stored)
        type EditForm<'a> = (&'a Browser<'a>, String, Vec<(&'a str, &'a str)>, String, &'a str);
        let forms: Vec<EditForm> = vec![
            (&ann, format!("/console/goals/{g}"), vec![("name", "Changed"), ("type", "IMPRESSION"), ("start", "2030-01-01T00:00"), ("end", "2030-01-31T00:00"), ("value", "10000")],
                format!("/api/1.0.cpvext/goal/by_goal_id;id={g}"), "Morning"),
            (&ann, format!("/console/campaigns/{c}"), vec![("name", "Changed"), ("advertiser", &adv), ("state", "live")],
                format!("/api/1.0/campaign/by_campaign_id;id={c}"), "Winter sports"),
            (&ada, format!("/console/users/{ann_id}"), vec![("email", "ann@a.example"), ("name", "Changed"), ("role", "TRAFFICKER")],
                format!("/v1/users/{ann_id}"), "Ann Lee"),
            (&ada, format!("/console/demand/partners/{dp}"), vec![("name", "Changed"), ("endpoint", "http://127.0.0.1:9/openrtb2"), ("timeoutMs", "150"), ("currency", "USD"), ("enabled", "true")],
                format!("/v1/demand-partners/{dp}"), "Acme DSP"),
            (&ada, format!("/console/demand/marketplaces/{mp}"), vec![("name", "Changed"), ("demandPartnerIds", &dp), ("auctionType", "SECOND_PRICE"), ("floorCpm", "4.5"), ("currency", "USD")],
                format!("/v1/marketplaces/{mp}"), "Premium"),
            (&ada, format!("/console/stitchers/{sti}"), vec![("name", "Changed"), ("sourceCidrs", "203.0.113.0/24")],
                format!("/v1/stitchers/{sti}"), "Tailor"),
        ];
        for (who, path, fields, api, name) in &forms {
            for version in [None, Some(""), Some(" ")] {
                let mut pairs = fields.clone();
                pairs.extend(version.map(|v| ("version", v)));
                let r = who.post(path, &pairs).await;
                r.expect(422);
                assert!(r.body.contains("did not say which version"), "{path} {version:?}: {}", r.body);
                let stored = app.get(api).await.body;
                assert!(stored.contains(name) && !stored.contains("Changed"), "{path} {version:?} changed the record: {stored}");
            }
        }
    }

    async fn a_change_shows_its_author_and_is_reverted_from_the_changes_page(app: TestApp) {
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        let c = campaign(&b, "Winter sports").await;
        let g = goal(&b, &c, "Morning", "2030-01-01T00:00", "2030-01-31T00:00").await;
        let path = format!("/console/goals/{g}");
        let v = version_of(&b.get(&path).await.body);
        let r = b.post(&path, &[("name", "Morning"), ("type", "IMPRESSION"), ("start", "2030-01-01T00:00"), ("end", "2030-02-28T00:00"), ("value", "10000"), ("version", &v)]).await;
        location(&r);
        let changes = b.get(&format!("/console/changes?record={g}")).await;
        changes.expect(200);
        assert!(changes.body.contains("ann@a.example") && changes.body.contains(">Revert</button>"), "{}", changes.body);
        // The newest change first: the update, with its revert form.
        let at = changes.body.find("/revert?csrf=").expect("a revert form");
        let id: String = changes.body[..at].rsplit("/console/changes/").next().unwrap_or("").to_string();
        let r = b.post(&format!("/console/changes/{id}/revert"), &[]).await;
        assert_eq!(location(&r), "/console/changes?reverted=1");
        let page = b.get(&path).await;
        assert!(page.body.contains("value=\"2030-01-31T00:00\""), "the old end is back: {}", page.body);
        // Filtered by person: Ann's changes; nobody else's.
        let mine = b.get("/console/changes?actor=nobody").await;
        assert!(mine.body.contains("No changes."), "{}", mine.body);
    }

    async fn a_bulk_edit_that_fails_on_one_goal_changes_none(app: TestApp) {
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        let c = campaign(&b, "Winter sports").await;
        let early = goal(&b, &c, "Early", "2030-01-01T00:00", "2030-01-31T00:00").await;
        let late = goal(&b, &c, "Late", "2030-03-01T00:00", "2030-03-31T00:00").await;
        let bulk = format!("/console/campaigns/{c}/bulk");
        // An end before Late's start: refused for Late alone, named; neither goal changed.
        let r = b.post(&bulk, &[("goal", &early), ("goal", &late), ("end", "2030-02-15T00:00"), ("priority", ""), ("enabled", "")]).await;
        r.expect(422);
        assert!(r.body.contains("Goal “Late”") && !r.body.contains("Goal “Early”"), "{}", r.body);
        let e = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={early}")).await.body;
        assert!(e.contains("<end>2030-01-3"), "Early kept its end: {e}");
        // A priority for both: one step.
        let r = b.post(&bulk, &[("goal", &early), ("goal", &late), ("end", ""), ("priority", "3"), ("enabled", "false")]).await;
        assert_eq!(location(&r), format!("/console/campaigns/{c}?edited=2"));
        for g in [&early, &late] {
            let v = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={g}")).await;
            assert!(v.body.contains("<priority>3</priority>") && v.body.contains("<enabled>false</enabled>"), "{}", v.body);
        }
        // Duplicated with a date shift: the copy's goals move by the days given.
        let r = b.post(&format!("/console/campaigns/{c}/duplicate"), &[("name", "Winter sports 2031"), ("shift", "365")]).await;
        let copy = location(&r).trim_end_matches("?saved=1").rsplit('/').next().unwrap_or("").to_string();
        let page = b.get(&format!("/console/campaigns/{copy}")).await;
        assert!(page.body.contains("<h1>Winter sports 2031</h1>") && page.body.contains("2031-01-01"), "{}", page.body);
    }

    async fn a_viewer_sees_no_write_control_and_a_forged_post_changes_nothing(app: TestApp) {
        let ann = person(&app, "ann@a.example", "TRAFFICKER").await;
        let c = campaign(&ann, "<img src=x onerror=alert(1)>").await;
        let g = goal(&ann, &c, "Morning", "2030-01-01T00:00", "2030-01-31T00:00").await;
        // The name is text wherever it appears.
        for path in ["/console/campaigns".to_string(), format!("/console/campaigns/{c}"), format!("/console/goals/{g}"), "/console/changes".into()] {
            let r = ann.get(&path).await;
            assert!(!r.body.contains("<img src=x") && r.body.contains("&lt;img src=x onerror=alert(1)&gt;"), "{path}: {}", r.body);
            assert!(r.header("content-security-policy").is_some_and(|c| c.contains("default-src 'self'")), "{path}");
        }
        let viewer = person(&app, "vic@a.example", "VIEWER").await;
        for path in ["/console/campaigns".to_string(), format!("/console/campaigns/{c}"), format!("/console/goals/{g}"), "/console/changes".into()] {
            let r = viewer.get(&path).await;
            r.expect(200);
            for control in ["New campaign", "New goal", "New ad", ">Save<", ">Revert<", "Apply to selected goals", "Edit targeting", "method=\"post\" action=\"/console/c"] {
                assert!(!r.body.contains(control), "{path} shows {control} to a VIEWER");
            }
        }
        let before = app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={g}")).await.body;
        let edit = [("name", "Hacked"), ("type", "IMPRESSION"), ("start", "2030-01-01T00:00"), ("end", "2030-01-31T00:00"), ("value", "1")];
        // A VIEWER's post with a good token: 403.
        viewer.post(&format!("/console/goals/{g}"), &edit).await.expect(403);
        // Another site's form: without the token, or with it from another origin: 403.
        let body = api_tests::form(&edit);
        ann.post_raw(&format!("/console/goals/{g}"), &body, CONSOLE_ORIGIN).await.expect(403);
        let with_token = format!("{body}&csrf={}", ann.csrf);
        ann.post_raw(&format!("/console/goals/{g}?csrf={}", ann.csrf), &with_token, "http://evil.example").await.expect(403);
        // The token in the form's field alone is not enough: the gate reads it from the
        // action's query string, before a byte of the body.
        ann.post_raw(&format!("/console/goals/{g}"), &with_token, CONSOLE_ORIGIN).await.expect(403);
        assert_eq!(app.get(&format!("/api/1.0.cpvext/goal/by_goal_id;id={g}")).await.body, before, "nothing changed");
        // Signed out, the old cookie opens nothing.
        let out = ann.post("/console/sign-out", &[]).await;
        assert_eq!(location(&out), "/console/sign-in");
        assert_eq!(location(&ann.get("/console/campaigns").await), "/console/sign-in");
    }

    async fn an_ad_with_an_uploaded_video_becomes_playable(app: TestApp) {
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        let c = campaign(&b, "Winter sports").await;
        let g = goal(&b, &c, "Morning", "2030-01-01T00:00", "2030-01-31T00:00").await;
        let path = format!("/console/goals/{g}/ads");
        // A bad URL: the message by its field, nothing stored.
        let r = b.post_multipart(&path, &[("name", "Spot"), ("click", "not a url")], ("video", "clip.mp4", api_tests::clip())).await;
        r.expect(422);
        assert!(r.body.contains("id=\"click-error\""), "{}", r.body);
        let assets = app.get("/v1/assets/video").await.json();
        assert_eq!(assets["assets"].as_array().map_or(0, Vec::len), 0, "{assets}");
        let r = b.post_multipart(&path, &[("name", "Spot"), ("click", "https://example.com/buy")], ("video", "clip.mp4", api_tests::clip())).await;
        let ad_page = location(&r);
        let id = ad_page.rsplit('/').next().unwrap_or("").to_string();
        // The page says where the media is until it can serve, then plays it and gives the VAST URL.
        let status = format!("/console/ads/{id}/status");
        let mut done = api_tests::serde_json::Value::Null;
        for _ in 0..600 {
            done = b.get(&status).await.json();
            if done["done"] == true {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert_eq!(done["done"], true, "{done}");
        assert!(done["words"].as_str().unwrap_or("").starts_with("Playable"), "{done}");
        let page = b.get(&ad_page).await;
        assert!(page.body.contains("<video controls") && page.body.contains("id=\"vast-url\""), "{}", page.body);
        assert!(page.header("content-security-policy").is_some_and(|c| c.contains("media-src 'self'")), "{:?}", page.header("content-security-policy"));
        // A file that is no video: the page says why the ad cannot serve.
        let r = b.post_multipart(&path, &[("name", "Broken"), ("click", "https://example.com/buy")], ("video", "broken.mp4", api_tests::NOT_A_VIDEO)).await;
        let broken = location(&r);
        let status = format!("{broken}/status");
        for _ in 0..600 {
            done = b.get(&status).await.json();
            if done["done"] == true {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
        assert!(done["words"].as_str().unwrap_or("").starts_with("The video cannot be used: "), "{done}");
        let page = b.get(&broken).await;
        assert!(page.body.contains("The video cannot be used") && !page.body.contains("<video"), "{}", page.body);
    }

    async fn targeting_reads_in_words_and_takes_categories_or_xml(app: TestApp) {
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        let c = campaign(&b, "Winter sports").await;
        let g = goal(&b, &c, "Morning", "2030-01-01T00:00", "2030-01-31T00:00").await;
        let path = format!("/console/goals/{g}/targeting");
        let page = b.get(&path).await;
        page.expect(200);
        assert!(page.body.contains("No targeting rules"), "{}", page.body);
        let sports = format!("{}-cat-sports", app.a.id);
        assert_eq!(location(&b.post(&path, &[("mode", "categories"), ("include", &sports)]).await), format!("/console/goals/{g}?saved=1"));
        let goal_page = b.get(&format!("/console/goals/{g}")).await;
        assert!(goal_page.body.contains("Category is Sports"), "{}", goal_page.body);
        // The XML form: a rule naming a category the account lacks is refused with the
        // rules use case's message, the XML kept.
        let bad = "<rulesBean><content><resourceId>no-such-category</resourceId><ruleType>AT_LEAST_ONE_OF</ruleType><variableType>SITE</variableType></content></rulesBean>";
        let r = b.post(&path, &[("mode", "xml"), ("xml", bad)]).await;
        r.expect(422);
        assert!(r.body.contains("no-such-category") && r.body.contains("role=\"alert\""), "{}", r.body);
        let rules = app.get(&format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={g}")).await.body;
        assert!(rules.contains(&sports), "unchanged: {rules}");
    }
}

both_stores! {
    async fn an_admin_makes_a_viewer_and_a_key_that_is_shown_once_and_revoked(app: TestApp) {
        let admin = person(&app, "ada@a.example", "ADMIN").await;
        let home = admin.get("/console/").await;
        assert!(home.body.contains("href=\"/console/users\"") && home.body.contains("href=\"/console/api-keys\""), "{}", home.body);
        // A user made in the console, refused first for a short password (kept input, no user).
        let r = admin.post("/console/users", &[("email", "vic@a.example"), ("name", "Vic"), ("role", "VIEWER"), ("password", "short")]).await;
        r.expect(422);
        assert!(r.body.contains("id=\"password-error\"") && r.body.contains("value=\"vic@a.example\""), "{}", r.body);
        let r = admin.post("/console/users", &[("email", "vic@a.example"), ("name", "Vic"), ("role", "VIEWER"), ("password", PASSWORD)]).await;
        assert!(location(&r).starts_with("/console/users/"), "{}", r.body);
        // The viewer signs in, sees no administration and cannot reach it.
        let vic = Browser::sign_in(&app, "vic@a.example", PASSWORD).await;
        let home = vic.get("/console/").await;
        assert!(!home.body.contains("/console/users") && !home.body.contains("/console/api-keys"), "{}", home.body);
        vic.get("/console/users").await.expect(403);
        vic.get("/console/api-keys").await.expect(403);
        vic.post("/console/api-keys", &[("name", "mine"), ("role", "ADMIN")]).await.expect(403);
        // A key: shown once, with no-store; it works; revoked, it is refused within 5 s.
        let r = admin.post("/console/api-keys", &[("name", "reporting"), ("role", "VIEWER")]).await;
        r.expect(200);
        assert_eq!(r.header("cache-control"), Some("no-store"));
        let at = r.body.find("id=\"new-key\">").expect("the key is shown") + "id=\"new-key\">".len();
        let key: String = r.body[at..].chars().take_while(|c| *c != '<').collect();
        app.get_as(&key, "/v3/campaigns").await.expect(200);
        let list = admin.get("/console/api-keys").await;
        assert!(list.body.contains("reporting") && !list.body.contains(&key), "the key is never shown again");
        // The row of the key made here (the account's own ADMIN key is listed too).
        let row = list.body.find("<td>reporting</td>").expect("the key's row");
        let at = row + list.body[row..].find("/revoke?csrf=").expect("its revoke form");
        let id: String = list.body[..at].rsplit("/console/api-keys/").next().unwrap_or("").to_string();
        assert_eq!(location(&admin.post(&format!("/console/api-keys/{id}/revoke"), &[]).await), "/console/api-keys");
        let started = std::time::Instant::now();
        while app.get_as(&key, "/v3/campaigns").await.status != 401 {
            assert!(started.elapsed() < std::time::Duration::from_secs(5), "refused within 5 s of Revoke");
            tokio::time::sleep(std::time::Duration::from_millis(100)).await;
        }
    }
}

both_stores! {
    async fn why_not_serving_explains_a_goal_whose_flight_has_not_started(app: TestApp) {
        let b = person(&app, "ann@a.example", "TRAFFICKER").await;
        let c = campaign(&b, "Winter sports").await;
        let g = goal(&b, &c, "Next year", "2031-06-01T00:00", "2031-06-30T00:00").await;
        let page = b.get("/console/why-not-serving").await;
        page.expect(200);
        assert!(page.body.contains(">Check</button>") && page.body.contains("<label for=\"category\">Category</label>"), "{}", page.body);
        let sports = format!("{}-cat-sports", app.a.id);
        let r = api_tests::eventually("the goal in the snapshot", std::time::Duration::from_secs(60), || async {
            let r = b.get(&format!("/console/why-not-serving?category={sports}&format=preroll&device=")).await;
            (r.status == 200 && r.body.contains(&format!("/console/goals/{g}\""))).then_some(r)
        })
        .await;
        assert!(r.body.contains("Nothing would serve") || r.body.contains("Would serve"), "{}", r.body);
        let row = r.body.find(&format!("/console/goals/{g}\"")).expect("the goal's row");
        let rest = &r.body[row..r.body[row..].find("</tr>").map_or(r.body.len(), |e| row + e)];
        assert!(rest.contains("Excluded") && rest.contains("2031-06-01"), "the flight's start is the reason: {rest}");
    }
}

/// An account rate of 20 requests, then one per 100 s.
fn tight_rate() -> web::settings::Settings {
    let mut s = TestApp::settings();
    s.account_rate_per_sec = 0.01;
    s.account_burst = 20.0;
    s
}

api_tests::both_stores_with! { super::tight_rate();
    async fn the_console_takes_the_account_rate_as_the_api_does(app: TestApp) {
        // The console's person is resolved like the API's caller, and takes the account's
        // rate: past its burst a page answers 429 with Retry-After, as a page.
        let ann = person(&app, "ann@a.example", "TRAFFICKER").await;
        let mut last = None;
        for _ in 0..30 {
            let r = ann.get("/console/campaigns").await;
            if r.status == 429 {
                last = Some(r);
                break;
            }
            r.expect(200);
        }
        let r = last.expect("the console's pages were refused past the account's burst");
        assert!(r.header("retry-after").is_some_and(|s| s.parse::<u64>().is_ok_and(|s| s >= 1)), "{:?}", r.headers);
        assert!(r.header("content-type").is_some_and(|c| c.starts_with("text/html")), "a page: {:?}", r.headers);
        // The API with the account's key is refused as well: one budget for the account.
        app.get("/api/1.0/client").await.expect(429);
    }
}

/// The names of the account's clients.
async fn client_names(app: &TestApp) -> Vec<String> {
    api_tests::xml_texts(&app.get("/api/1.0/client").await.body, "name")
}

both_stores! {
    async fn a_new_campaign_with_a_new_advertiser_is_both_records_or_neither(app: TestApp) {
        let ann = person(&app, "ann@a.example", "TRAFFICKER").await;
        let before = client_names(&app).await;
        // Refused (a priority out of range): no advertiser is left behind.
        let r = ann.post("/console/campaigns", &[("name", "Winter sports"), ("new_advertiser", "Acme"), ("state", "live"), ("priority", "11")]).await;
        r.expect(422);
        assert_eq!(client_names(&app).await, before, "a refused campaign made no advertiser");
        let r = ann.post("/console/campaigns", &[("name", ""), ("new_advertiser", "Acme"), ("state", "live")]).await;
        r.expect(422);
        assert_eq!(client_names(&app).await, before, "a refused campaign made no advertiser");
        // Made: both, the advertiser named by the campaign (so it cannot be deleted under it).
        let c = campaign(&ann, "Winter sports").await;
        let bean = app.get(&format!("/api/1.0/campaign/by_campaign_id;id={c}")).await.body;
        let adv = api_tests::xml_text(&bean, "advertiserId").expect("an advertiser");
        assert!(client_names(&app).await.contains(&"Acme".to_string()));
        let del = app.send("DELETE", &format!("/api/1.0/client/by_client_id;id={adv}"), Some(&app.a.key), None, "").await;
        assert_eq!(del.status, 409, "the campaign names it: {}", del.body);
    }
}
