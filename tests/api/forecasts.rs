//! Forecast jobs through HTTP (seed 002 §2.4-§2.7, §4.2; docs/forecasts.md): the lifecycle
//! to both reports, every validation rule, reproducibility, competition, cancel and
//! isolation.

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, TestApp};

fn day(app: &TestApp, days: i64) -> String {
    let now = web::clock::Clock::now(app.clock.as_ref());
    (now + chrono::Duration::days(days)).format("%Y-%m-%dT00:00:00.000Z").to_string()
}

pub(crate) fn inventory_body(app: &TestApp) -> Value {
    let a = &app.a.id;
    json!({"name": "Sports inventory", "variant": "NORMAL", "startDate": day(app, 2), "endDate": day(app, 9),
        "formatTypes": ["PREROLL", "MIDROLL"], "deviceContainers": [format!("{a}-dc-desktop")],
        "targeting": {"targetingTemplates": null, "targetingRules": {"categoryRules": [{"categoryId": format!("{a}-cat-sports"), "ruleType": "AT_LEAST_ONE_OF"}]}}})
}

pub(crate) fn campaign_body(app: &TestApp, priority: u8) -> Value {
    let a = &app.a.id;
    json!({"campaign": {"name": "Spring", "advertiser": "Acme", "priority": priority, "goals": [{
        "name": "News pre-rolls", "startDate": day(app, 2), "endDate": day(app, 9), "variant": "NORMAL",
        "priority": priority, "deliveryGoal": {"type": "IMPRESSION", "value": 1_000_000},
        "targeting": {"targetingRules": {"categoryRules": [{"categoryId": format!("{a}-cat-news"), "ruleType": "AT_LEAST_ONE_OF"}]}},
        "ads": [{"name": "Spot", "format": "preroll_standard", "deviceContainers": [format!("{a}-dc-desktop")]}]}]}})
}

/// Creates a job; returns its status path.
pub(crate) async fn create(app: &TestApp, kind: &str, body: &Value) -> String {
    let r = app.post_json(&format!("/api/2.0/forecast/{kind}"), body).await;
    assert_eq!(r.status, 202, "{}", r.body);
    assert!(r.body.is_empty());
    let loc = r.header("location").expect("Location").to_string();
    assert!(loc.starts_with("/api/2.0/forecast/job/"), "{loc}");
    loc
}

/// Polls a job until it finishes (201); returns the report's path.
pub(crate) async fn finished(app: &TestApp, job: &str) -> String {
    api_tests::eventually(&format!("forecast {job} to finish"), std::time::Duration::from_secs(120), || async {
        let r = app.get(job).await;
        if r.status == 201 {
            assert_eq!(r.json()["status"], "FINISHED");
            return Some(r.header("location").expect("report Location").to_string());
        }
        assert_eq!(r.status, 200, "{}", r.body);
        let s = r.json()["status"].as_str().unwrap_or("").to_string();
        assert!(["QUEUED", "PREPARING_SIMULATION", "PROCESSING"].contains(&s.as_str()), "{}", r.body);
        None
    })
    .await
}

/// A change to a valid body and the `field rule` it must be refused with.
type Case = (Box<dyn Fn(&mut Value)>, &'static str);

fn errors(r: &api_tests::Res) -> Vec<String> {
    r.json()["errors"]
        .as_array()
        .map(|a| a.iter().map(|e| format!("{} {}", e["field"].as_str().unwrap_or(""), e["rule"].as_str().unwrap_or(""))).collect())
        .unwrap_or_default()
}

both_stores! {
    async fn the_lifecycle_to_both_reports(app: TestApp) {
        let job = create(&app, "inventory", &inventory_body(&app)).await;
        let report = finished(&app, &job).await;
        assert!(report.starts_with("/api/2.0/forecast/report/inventory/"), "{report}");
        let inv = app.get(&report).await.json();
        assert_eq!(inv["name"], "Sports inventory");
        assert_eq!(inv["jobId"].as_str(), job.rsplit('/').next());
        for side in ["totalInventory", "unusedInventory"] {
            let by_date = inv[side]["inventoryByDate"].as_object().unwrap();
            assert_eq!(by_date.len(), 8, "{side}: a partial first local day and seven more");
            let mut sum = 0.0;
            for (k, d) in by_date {
                assert!(k.contains('T') && (k.ends_with("+01:00") || k.ends_with("+02:00")), "{k}");
                let formats: f64 = d["inventoryByFormat"].as_object().unwrap().values().map(|f| f["total"].as_f64().unwrap()).sum();
                assert_eq!(d["total"].as_f64().unwrap(), formats, "formats sum to the day");
                assert!(d["low"].as_f64().unwrap() <= d["total"].as_f64().unwrap() && d["total"].as_f64().unwrap() <= d["high"].as_f64().unwrap());
                for f in d["inventoryByFormat"].as_object().unwrap().keys() {
                    assert!(f == "PREROLL" || f == "MIDROLL", "{f}");
                }
                sum += d["total"].as_f64().unwrap();
            }
            assert_eq!(inv[side]["total"].as_f64().unwrap(), sum);
            // UTC midnights are 01:00 in the account's zone: the window's edge days say how
            // much of them it covers; whole days say nothing.
            let hours: Vec<Option<u64>> = by_date.values().map(|d| d["hours"].as_u64()).collect();
            assert_eq!((hours[0], hours[7]), (Some(23), Some(1)), "{side}: {hours:?}");
            assert!(hours[1..7].iter().all(Option::is_none), "{side}: {hours:?}");
        }
        assert!(inv["totalInventory"]["total"].as_f64().unwrap() > 0.0);
        // The report is what the OpenAPI document describes (unknown fields refused).
        serde_json::from_value::<web::forecast::report_schema::InventoryReport>(inv.clone()).expect("the inventory report's documented shape");
        let svg = app.get(&format!("{report}/chart.svg")).await;
        svg.expect(200);
        assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
        assert!(svg.body.starts_with("<svg") && svg.body.contains("PREROLL"), "{}", &svg.body[..200.min(svg.body.len())]);
        // Readable: dates on the x axis, gridlines, a low-high range per day;
        // and it renders (rsvg-convert) to a PNG of the chart's size.
        assert!(svg.body.contains("class=\"date\"") && !svg.body.contains(">day 1<"), "dates, not day numbers");
        assert!(svg.body.contains("class=\"grid\"") && svg.body.contains("class=\"band\""));
        assert!(svg.body.contains(" (1 h)</text>") && svg.body.contains(" (23 h)</text>"), "the edge days are labelled as partial");
        let png = api_tests::render_png(&svg.body);
        assert_eq!((png.0, png.1), (760, 340), "the PNG's size");

        let job = create(&app, "campaign", &campaign_body(&app, 5)).await;
        let report = finished(&app, &job).await;
        let c = app.get(&report).await.json();
        // The echo: unset values null, every rule array present.
        assert_eq!((c["name"].as_str(), c["advertiser"].as_str(), c["agency"].clone(), c["customId"].clone()), (Some("Spring"), Some("Acme"), Value::Null, Value::Null));
        assert_eq!(c["targeting"]["targetingRules"]["ipRules"], json!([]));
        assert_eq!(c["targeting"]["targetingTemplates"], Value::Null);
        let g = &c["goals"][0];
        assert_eq!(g["name"], "News pre-rolls");
        for k in ["ipRules", "userAgentRules", "timeRules", "locationRules"] {
            assert_eq!(g["targeting"]["targetingRules"][k], json!([]), "{k}");
        }
        assert_eq!(g["targeting"]["targetingTemplates"], Value::Null);
        assert_eq!(g["ads"][0]["customId"], Value::Null);
        let f = &g["forecast"];
        let units = f["forecastedUnits"].as_f64().unwrap();
        assert!(units > 0.0, "{f}");
        let by_day: f64 = f["deliveryByDate"].as_object().unwrap().values().map(|d| d["units"].as_f64().unwrap()).sum();
        assert!((by_day - units).abs() <= 8.0, "{by_day} vs {units}");
        let (m, p, av) = (f["matchedUnits"].as_f64().unwrap(), f["possibleUnits"].as_f64().unwrap(), f["availableUnits"].as_f64().unwrap());
        assert!(av <= p && p <= m && units <= m, "{f}");
        assert_eq!(f["target"], 1_000_000.0);
        assert!(f.get("competingGoals").is_some());
        serde_json::from_value::<web::forecast::report_schema::CampaignReport>(c.clone()).expect("the campaign report's documented shape");
        let without = app.get(&format!("{report}?exclude-competing-goals=true")).await.json();
        serde_json::from_value::<web::forecast::report_schema::CampaignReport>(without.clone()).expect("documented without competing goals");
        assert!(without["goals"][0]["forecast"].get("competingGoals").is_none());
        app.get(&format!("{report}?exclude-competing-goals=maybe")).await.expect(400);
        let chart = app.get(&format!("{report}/chart.svg")).await;
        chart.expect(200);
        assert!(chart.body.contains(">target 1M<"), "the target, labelled");
        assert!(chart.body.contains(">shortfall ") || chart.body.contains(">over by "), "the gap at the end");
        api_tests::render_png(&chart.body);
        // A campaign job's report is not an inventory report.
        app.get(&report.replace("/campaign/", "/inventory/")).await.expect(404);
    }

    async fn every_validation_rule_names_its_field(app: TestApp) {
        let a = app.a.id.clone();
        let base = campaign_body(&app, 5);
        let cases: Vec<Case> = vec![
            (Box::new(|b| { b["campaign"]["goals"] = json!([]); }), "campaign.goals required"),
            (Box::new(|b| { b["campaign"].as_object_mut().unwrap().remove("goals"); }), "campaign.goals required"),
            (Box::new(|b| { b["campaign"]["goals"][0].as_object_mut().unwrap().remove("name"); }), "campaign.goals[0].name required"),
            (Box::new(|b| { b["campaign"]["goals"][0].as_object_mut().unwrap().remove("startDate"); }), "campaign.goals[0].startDate required"),
            (Box::new(|b| { b["campaign"]["goals"][0]["startDate"] = json!("tomorrow"); }), "campaign.goals[0].startDate date"),
            (Box::new(|b| { b["campaign"]["priority"] = json!(11); }), "campaign.priority range"),
            (Box::new(|b| { b["campaign"]["frontload"] = json!(15); }), "campaign.frontload step"),
            (Box::new(|b| { b["campaign"]["goals"][0]["priority"] = json!(0); }), "campaign.goals[0].priority range"),
            (Box::new(|b| { b["campaign"]["goals"][0]["variant"] = json!("SPONSOR"); }), "campaign.goals[0].variant enum"),
            (Box::new(|b| { b["campaign"]["goals"][0].as_object_mut().unwrap().remove("variant"); }), "campaign.goals[0].variant required"),
            (Box::new(|b| { b["campaign"]["goals"][0]["positionRestriction"] = json!("MIDDLE"); }), "campaign.goals[0].positionRestriction enum"),
            (Box::new(|b| { b["campaign"]["goals"][0]["deliveryGoal"]["type"] = json!("CLICKS"); }), "campaign.goals[0].deliveryGoal.type enum"),
            (Box::new(|b| { b["campaign"]["goals"][0].as_object_mut().unwrap().remove("deliveryGoal"); }), "campaign.goals[0].deliveryGoal required"),
            (Box::new(|b| { b["campaign"]["goals"][0]["deliveryGoal"]["value"] = json!(-5); }), "campaign.goals[0].deliveryGoal.value positive"),
            (Box::new(|b| { b["campaign"]["goals"][0]["dailyCap"] = json!(-1); }), "campaign.goals[0].dailyCap range"),
            (Box::new(|b| { b["campaign"]["goals"][0]["ads"] = json!([]); }), "campaign.goals[0].ads required"),
            (Box::new(|b| { b["campaign"]["goals"][0]["ads"][0]["format"] = json!("preroll_giant"); }), "campaign.goals[0].ads[0].format enum"),
            (Box::new(|b| { b["campaign"]["goals"][0]["ads"][0].as_object_mut().unwrap().remove("deviceContainers"); }), "campaign.goals[0].ads[0].deviceContainers required"),
            (Box::new(|b| { b["campaign"]["goals"][0]["ads"][0]["deviceContainers"] = json!(["nope"]); }), "campaign.goals[0].ads[0].deviceContainers[0] reference"),
            (Box::new(|b| { b["campaign"]["goals"][0]["ads"][0].as_object_mut().unwrap().remove("name"); }), "campaign.goals[0].ads[0].name required"),
            (Box::new(|b| { b["campaign"]["targeting"] = json!({"targetingTemplates": ["nope"]}); }), "campaign.targeting.targetingTemplates[0] reference"),
            (Box::new(|b| { b["campaign"]["goals"][0]["targeting"]["targetingRules"]["ipRules"] = json!([{"ipMatcher": "10.0.0.*", "access": "DENY"}]); }), "campaign.goals[0].targeting.targetingRules.ipRules unsupported"),
            (Box::new(|b| { b["campaign"]["targeting"] = json!({"targetingRules": {"timeRules": [{"active": true, "days": ["MONDAY"], "fromHour": 1, "fromMinute": 0, "toHour": 2, "toMinute": 0}]}}); }), "campaign.targeting.targetingRules.timeRules unsupported"),
            (Box::new(|b| { b["campaign"]["targeting"] = json!({"targetingRules": {"userAgentRules": [{"browsers": ["IE"], "access": "DENY"}]}}); }), "campaign.targeting.targetingRules.userAgentRules unsupported"),
            (Box::new(|b| { b["campaign"]["goals"][0]["targeting"]["targetingRules"]["categoryRules"][0]["categoryId"] = json!("nope"); }), "campaign.goals[0].targeting.targetingRules.categoryRules[0].categoryId reference"),
            (Box::new(|b| { b["campaign"]["goals"][0]["marketplaceId"] = json!("m1"); b["campaign"]["goals"][0]["deliveryGoal"]["type"] = json!("COMPLETE"); }), "campaign.goals[0].marketplaceId notAllowed"),
            (Box::new(|b| { b["campaign"]["goals"][0]["endDate"] = json!(null); }), "campaign.goals[0].endDate required"),
            (Box::new(|b| { b["campaign"]["goals"][0].as_object_mut().unwrap().remove("endDate"); b["campaign"]["goals"][0]["deliveryGoal"] = json!({"type": "RTB"}); }), "campaign.goals[0].endDate required"),
            (Box::new(|b| { b["campaign"]["goals"][0]["unknownField"] = json!(1); }), "campaign.goals[0].unknownField unknown"),
        ];
        let now = web::clock::Clock::now(app.clock.as_ref());
        let ms = |d: chrono::Duration| json!((now + d).timestamp_millis());
        let mut dated: Vec<(Value, &str)> = vec![
            (ms(chrono::Duration::hours(12)), "campaign.goals[0].startDate atLeastOneDayAhead"),
        ];
        for (mutate, expected) in &cases {
            let mut b = base.clone();
            mutate(&mut b);
            let r = app.post_json("/api/2.0/forecast/campaign", &b).await;
            assert_eq!(r.status, 400, "{expected}: {}", r.body);
            assert!(errors(&r).contains(&expected.to_string()), "{expected} in {:?}", errors(&r));
        }
        for (start, expected) in dated.drain(..) {
            let mut b = base.clone();
            b["campaign"]["goals"][0]["startDate"] = start;
            let r = app.post_json("/api/2.0/forecast/campaign", &b).await;
            assert!(errors(&r).contains(&expected.to_string()), "{expected} in {:?}", errors(&r));
        }
        let mut b = base.clone();
        b["campaign"]["goals"][0]["endDate"] = b["campaign"]["goals"][0]["startDate"].clone();
        assert!(errors(&app.post_json("/api/2.0/forecast/campaign", &b).await).contains(&"campaign.goals[0].endDate afterStart".to_string()));
        let mut b = base.clone();
        b["campaign"]["goals"][0]["endDate"] = json!(day(&app, 101));
        assert!(errors(&app.post_json("/api/2.0/forecast/campaign", &b).await).contains(&"campaign.goals[0].endDate maxDaysAhead".to_string()));
        // Accepted: epoch milliseconds, and an RTB goal with a blank end (100 days from today).
        let mut b = base.clone();
        b["campaign"]["goals"][0]["startDate"] = ms(chrono::Duration::days(3));
        b["campaign"]["goals"][0]["endDate"] = ms(chrono::Duration::days(5));
        create(&app, "campaign", &b).await;
        let mut b = base.clone();
        b["campaign"]["goals"][0]["deliveryGoal"] = json!({"type": "RTB"});
        b["campaign"]["goals"][0]["endDate"] = json!("");
        b["campaign"]["goals"][0]["marketplaceId"] = json!("m-1");
        create(&app, "campaign", &b).await;

        let inv = inventory_body(&app);
        let inv_cases: Vec<Case> = vec![
            (Box::new(|b| { b.as_object_mut().unwrap().remove("targeting"); }), "targeting required"),
            (Box::new(|b| { b.as_object_mut().unwrap().remove("variant"); }), "variant required"),
            (Box::new(|b| { b["variant"] = json!("X"); }), "variant enum"),
            (Box::new(|b| { b.as_object_mut().unwrap().remove("endDate"); }), "endDate required"),
            (Box::new(|b| { b["formatTypes"] = json!(["PREROLL", "BILLBOARD"]); }), "formatTypes[1] enum"),
            (Box::new(|b| { b["deviceContainers"] = json!(["nope"]); }), "deviceContainers[0] reference"),
            (Box::new(|b| { b["targeting"]["targetingRules"]["frequencyRules"] = json!([{"impressions": 3, "timeUnit": "DAY"}]); }), "targeting.targetingRules.frequencyRules unsupported"),
            (Box::new(|b| { b["trafficEstimate"] = json!(-3); }), "trafficEstimate range"),
        ];
        for (mutate, expected) in &inv_cases {
            let mut b = inv.clone();
            mutate(&mut b);
            let r = app.post_json("/api/2.0/forecast/inventory", &b).await;
            assert_eq!(r.status, 400, "{expected}: {}", r.body);
            assert!(errors(&r).contains(&expected.to_string()), "{expected} in {:?}", errors(&r));
        }
        let _ = a;
    }

    async fn the_same_inputs_give_the_same_report(app: TestApp) {
        let one = finished(&app, &create(&app, "campaign", &campaign_body(&app, 5)).await).await;
        let two = finished(&app, &create(&app, "campaign", &campaign_body(&app, 5)).await).await;
        let (mut a, mut b) = (app.get(&one).await.json(), app.get(&two).await.json());
        a["jobId"] = Value::Null;
        b["jobId"] = Value::Null;
        assert_eq!(a, b);
        let i1 = finished(&app, &create(&app, "inventory", &inventory_body(&app)).await).await;
        let i2 = finished(&app, &create(&app, "inventory", &inventory_body(&app)).await).await;
        let (mut a, mut b) = (app.get(&i1).await.json(), app.get(&i2).await.json());
        a["jobId"] = Value::Null;
        b["jobId"] = Value::Null;
        assert_eq!(a, b);
    }

    async fn a_higher_priority_goal_on_the_same_targeting_takes_inventory(app: TestApp) {
        let alone = app.get(&finished(&app, &create(&app, "campaign", &campaign_body(&app, 3)).await).await).await.json();
        let alone_units = alone["goals"][0]["forecast"]["forecastedUnits"].as_f64().unwrap();
        // Book a priority-9 goal on the same targeting through the API.
        let a = app.a.id.clone();
        let adv = app.client("Rival", "ADVERTISER").await;
        let c = app.create_xml("/api/1.0/campaign", &format!("<campaignBean><name>Rival</name><advertiserId>{adv}</advertiserId><enabled>true</enabled></campaignBean>")).await;
        let g = app.create_xml("/api/1.0.cpvext/goal", &format!(
            "<goalBean><campaignId>{c}</campaignId><type>IMPRESSION</type><variant>NORMAL</variant><goalValue>10000000</goalValue><start>{}</start><end>{}</end><priority>9</priority></goalBean>",
            day(&app, 1).replace(".000", ""), day(&app, 20).replace(".000", ""))).await;
        app.put_xml(&format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={g}"), &format!(
            "<rulesBean><content><resourceId>{a}-cat-news</resourceId><ruleType>AT_LEAST_ONE_OF</ruleType><variableType>SITE</variableType></content></rulesBean>")).await.expect(204);
        let r = app.post_json("/v1/ads", &json!({"name": "Rival spot", "goalId": g, "enabled": true,
            "creative": {"type": "iptv", "insertionPoint": "preroll", "videoCreativeId": "r-1"}})).await;
        r.expect(201);
        let with = app.get(&finished(&app, &create(&app, "campaign", &campaign_body(&app, 3)).await).await).await.json();
        let f = &with["goals"][0]["forecast"];
        let units = f["forecastedUnits"].as_f64().unwrap();
        assert!(units < alone_units, "with a higher-priority rival {units} < alone {alone_units}");
        let comp = f["competingGoals"].as_array().unwrap();
        assert_eq!(comp[0]["goalId"], g.as_str(), "{comp:?}");
        assert_eq!(comp[0]["campaignId"], c.as_str());
        assert_eq!(comp[0]["priority"], 9);
        assert!(comp[0]["units"].as_f64().unwrap() > 0.0);
        // The rival is higher: the inventory is matched but not possible nor available.
        assert!(f["possibleUnits"].as_f64().unwrap() < f["matchedUnits"].as_f64().unwrap(), "{f}");
    }

    async fn cancel_isolation_and_redelivery(app: TestApp) {
        let job = create(&app, "inventory", &inventory_body(&app)).await;
        let id = job.rsplit('/').next().unwrap().to_string();
        // Another account can neither read nor cancel it, nor read its report.
        app.get_as(&app.b.key, &job).await.expect(404);
        app.send("POST", &format!("{job}/cancel"), Some(&app.b.key), None, "").await.expect(404);
        app.get_as(&app.b.key, &format!("/api/2.0/forecast/report/inventory/{id}")).await.expect(404);
        app.get("/api/2.0/forecast/job/00000000-0000-0000-0000-000000000000").await.expect(404);
        let report = finished(&app, &job).await;
        // Finished: cancel is refused, the report stays.
        app.send("POST", &format!("{job}/cancel"), Some(&app.a.key), None, "").await.expect(409);
        app.get(&report).await.expect(200);
        // A redelivered message of a finished job changes nothing.
        let key = web::keys::record(&app.a.id, "FORECAST", &id);
        let before = app.store.get(&key).await.unwrap().unwrap();
        let msg = web::workers::forecast::ForecastMessage { account: app.a.id.clone(), job: id.clone() };
        web::workers::forecast::process(&app.state, &msg).await.unwrap();
        assert_eq!(app.store.get(&key).await.unwrap().unwrap().version, before.version);
        // A job cancelled before the worker ran is never simulated.
        let job2 = create(&app, "inventory", &inventory_body(&app)).await;
        let id2 = job2.rsplit('/').next().unwrap().to_string();
        let r = app.send("POST", &format!("{job2}/cancel"), Some(&app.a.key), None, "").await;
        if r.status == 200 {
            let st = app.get(&job2).await;
            assert_eq!((st.status, st.json()["status"].as_str()), (200, Some("CANCELLED")), "{}", st.body);
            let msg = web::workers::forecast::ForecastMessage { account: app.a.id.clone(), job: id2.clone() };
            web::workers::forecast::process(&app.state, &msg).await.unwrap();
            assert_eq!(app.get(&job2).await.json()["status"], "CANCELLED");
            app.get(&format!("/api/2.0/forecast/report/inventory/{id2}")).await.expect(404);
        } else {
            // The in-process worker was faster: the job finished first.
            assert_eq!(r.status, 409, "{}", r.body);
        }
    }

    async fn recorded_traffic_is_sampled_by_serving_and_drives_forecasts(app: TestApp) {
        use web::forecast::traffic::{local_day, Sample};
        let a = app.a.id.clone();
        let account = web::repo::accounts::get(app.store.as_ref(), &a).await.unwrap().unwrap();
        let now = web::clock::Clock::now(app.clock.as_ref());
        let (today, _) = local_day(&account.zone, now);
        let partition = |d: chrono::NaiveDate| web::keys::traffic_day(&a, d);
        // One request in 100 is kept, drawn by the server: a seed that the caller's draw
        // would always sample (before: every request with it was a sample) makes no
        // difference. 1,000 requests: about 10 samples (0 or over 40 has odds below 1e-4).
        let always = (0..100_000u64).find(|s| Sample::chosen(*s)).unwrap();
        let queries = vec![format!("format=preroll&category={a}-cat-sports&tags=x,y&pid=v1&seed={always}"); 1000];
        let statuses: Vec<u16> = app.ad_requests(&queries).await.iter().map(|r| r.status).collect();
        assert!(statuses.iter().all(|s| *s == 200), "{statuses:?}");
        // Written off the response path, in batches of up to 25 within a second: what is
        // still buffered is written now, then the samples are read back.
        app.flush_samples().await;
        let items = api_tests::eventually("the traffic samples", std::time::Duration::from_secs(120), || async {
            let items = app.store.query(web::store::Query::partition(partition(today))).await.unwrap().items;
            (!items.is_empty()).then_some(items)
        })
        .await;
        assert!((1..=40).contains(&items.len()), "{} samples of 1,000 requests", items.len());
        let s: Sample = serde_json::from_str(&items[0].body).unwrap();
        assert_eq!((s.format.as_str(), s.category.clone(), s.tags.clone(), s.viewer), ("preroll", Some(format!("{a}-cat-sports")), vec!["x".to_string(), "y".to_string()], true));
        // A parameter name is bounded like a value.
        let long = app.ad_request(&format!("format=preroll&acp.{}=1", "n".repeat(3000))).await;
        long.expect(400);
        assert!(long.body.contains("maxLength"), "{}", long.body);
        assert!(items[0].expires_at.is_some(), "samples expire");

        // Two weeks of samples: ten sports pre-rolls at 09:00 every day, each standing for
        // 100 requests; the two-week average gives each day 1,000 at 09:00.
        let sample = Sample { format: "preroll".into(), category: Some(format!("{a}-cat-sports")), viewer: true, ..Sample::default() };
        for d in 1..=14 {
            for _ in 0..10 {
                web::repo::forecasts::record_sample(app.store.as_ref(), &a, today - chrono::Duration::days(d), 9, &sample, now).await.unwrap();
            }
        }
        let report = finished(&app, &create(&app, "inventory", &inventory_body(&app)).await).await;
        let inv = app.get(&report).await.json();
        assert_eq!(inv["trafficSource"], "recorded");
        // Seven 09:00 hours in the window, 1,000 sports pre-rolls each; mid-rolls: none recorded.
        assert_eq!(inv["totalInventory"]["total"], 7000.0, "{}", inv["totalInventory"]);
    }
}
