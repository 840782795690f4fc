//! The /v3 query interfaces: seed 000 §2.5, §4.5-§4.9.

use api_tests::chrono::Duration;
use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, TestApp};
use web::clock::Clock;

struct World {
    campaign: String,
    goals: Vec<String>,
    ads: Vec<String>,
}

/// A campaign "Alpha Launch" (priority 7) with two goals (one CPM) and three ads.
async fn world(app: &TestApp) -> World {
    let adv = app.client("Adv", "ADVERTISER").await;
    let campaign = app.create_xml("/api/1.0/campaign", &format!(
        "<campaignBean><name>Alpha Launch</name><advertiserId>{adv}</advertiserId><priority>7</priority><enabled>true</enabled></campaignBean>")).await;
    let g1 = app
        .goal(
            &campaign,
            "IMPRESSION",
            -1,
            Some(9),
            "<name>Goal B</name><pricingModel>CPM</pricingModel><pricingValue><value>10</value></pricingValue><priority>3</priority>",
        )
        .await;
    let g2 = app
        .goal(
            &campaign,
            "SHARE_OF_VOICE",
            2,
            Some(20),
            "<name>goal a</name><caps><cap><type>dailyCap</type><value>100</value></cap></caps>",
        )
        .await;
    let mut ads = Vec::new();
    for (goal, name, weight) in [(&g1, "ad one", Some(50.0)), (&g1, "ad two", None), (&g2, "ad three", None)] {
        let mut body = json!({"name": name, "goalId": goal, "creative": {"type": "spotPlaceholder", "insertionPoint": "preroll"},
            "externalTrackers": [{"url": "https://t.example/q", "event": "AD_FIRST_QUARTILE"}]});
        if let Some(w) = weight {
            body["weight"] = json!(w);
        }
        let r = app.post_json("/v1/ads", &body).await;
        r.expect(201);
        ads.push(r.json()["id"].as_str().unwrap().to_string());
        app.clock.set(app.clock.now() + Duration::seconds(1));
    }
    World { campaign, goals: vec![g1, g2], ads }
}

/// Counts playback events of an ad through the events worker (the path tracking links
/// take): `imps` impressions (the goal's delivery), then clicks, starts and completes of
/// the first of them, a day ago (so nothing is in the last 24 hours' delivery).
async fn record(app: &TestApp, w: &World, ad: usize, imps: usize, clicks: usize, starts: usize, completes: usize) {
    let goal = if ad < 2 { &w.goals[0] } else { &w.goals[1] };
    let at = app.clock.now().timestamp() - 86_400;
    let tag = &w.ads[ad];
    let event = |counter: &str, i: usize| {
        json!({"account": app.a.id, "campaign": w.campaign, "goal": goal, "ad": w.ads[ad], "impression": format!("{tag}-{i}"),
            "counter": counter, "delivered": counter == "impression", "at": at, "id": format!("{tag}-{counter}-{i}")})
        .to_string()
    };
    let mut bodies: Vec<String> = (0..imps).map(|i| event("impression", i)).collect();
    for (counter, n) in [("clickThrough", clicks), ("start", starts), ("complete", completes)] {
        bodies.extend((0..n).map(|i| event(counter, i)));
    }
    for batch in bodies.chunks(web::workers::events::IN_PROCESS_BATCH) {
        let refs: Vec<&str> = batch.iter().map(String::as_str).collect();
        assert!(web::workers::events::process_messages(&app.state, &refs).await.is_empty(), "every event counted");
    }
}

fn ids(list: &Value) -> Vec<String> {
    list.as_array().unwrap().iter().map(|v| v["id"].as_str().unwrap().to_string()).collect()
}

fn err(r: &api_tests::Res) -> (String, String) {
    let e = &r.json()["errors"][0];
    (e["field"].as_str().unwrap_or("").to_string(), e["rule"].as_str().unwrap_or("").to_string())
}

both_stores! {
    async fn campaigns_shape_expand_and_metrics(app: TestApp) {
        let w = world(&app).await;
        let r = app.get("/v3/campaigns").await;
        r.expect(200);
        let v = r.json();
        assert_eq!(v["pagination"], json!({"totalCount": 1, "pageSize": 10, "pageNumber": 1}));
        let c = &v["campaigns"][0];
        assert_eq!(c["id"], json!(w.campaign));
        assert_eq!(c["state"], "enabled");
        assert_eq!(c["deleted"], false);
        assert_eq!(c["includedInForecast"], true);
        assert_eq!(c["sequenceScope"], "session");
        assert_eq!(c["priority"], json!({"value": 7, "origin": {"id": w.campaign, "href": format!("/v3/campaigns/{}", w.campaign), "entity": "campaign"}}));
        assert_eq!(c["frontload"]["origin"]["entity"], "site");
        assert!(c["frontload"]["origin"].get("href").is_none(), "no href for the site origin");
        assert_eq!(c["goals"][0], json!({"id": w.goals[0], "href": format!("/v3/goals/{}", w.goals[0])}));
        assert!(c.get("metrics").is_none());
        // expand=goals&expand=ads: full goals with full ads, no campaign/goal links nor metrics on them.
        record(&app, &w, 0, 100, 1, 80, 40).await;
        let v = app.get("/v3/campaigns?expand=goals&expand=ads&embed=metrics").await.json();
        let c = &v["campaigns"][0];
        assert_eq!(c["metrics"]["impression"], 100);
        assert!(c["metrics"].get("delivered").is_none(), "campaign metrics are the seven counters");
        let g = &c["goals"][0];
        assert_eq!(g["name"], "Goal B");
        assert!(g.get("metrics").is_none());
        let ad = &g["ads"][0];
        assert_eq!(ad["name"], "ad one");
        assert!(ad.get("campaign").is_none() && ad.get("goal").is_none() && ad.get("metrics").is_none());
        let v = app.get("/v3/campaigns?embed=metrics&metrics=impression&metrics=clickThrough").await.json();
        assert_eq!(v["campaigns"][0]["metrics"], json!({"impression": 100, "clickThrough": 1}));
        let one = app.get(&format!("/v3/campaigns/{}?expand=goals", w.campaign)).await;
        one.expect(200);
        assert_eq!(one.json()["goals"].as_array().unwrap().len(), 2);
        assert!(one.json().get("pagination").is_none());
    }

    async fn campaign_filters_paging_and_tombstones(app: TestApp) {
        let w = world(&app).await;
        let adv = app.client("Adv2", "ADVERTISER").await;
        let mut others = Vec::new();
        for i in 0..11 {
            others.push(app.campaign(&format!("Beta {i:02}"), &adv).await);
        }
        let v = app.get("/v3/campaigns").await.json();
        assert_eq!(v["pagination"]["totalCount"], 12);
        assert_eq!(v["campaigns"].as_array().unwrap().len(), 10);
        assert_eq!(app.get("/v3/campaigns?pageNumber=2").await.json()["campaigns"].as_array().unwrap().len(), 2);
        assert_eq!(ids(&app.get("/v3/campaigns?campaign.name=ALPHA").await.json()["campaigns"]), vec![w.campaign.clone()]);
        assert_eq!(ids(&app.get("/v3/campaigns?campaign.state=enabled").await.json()["campaigns"]), vec![w.campaign.clone()]);
        assert_eq!(app.get("/v3/campaigns?campaign.state=disabled&campaign.state=enabled").await.json()["pagination"]["totalCount"], 12);
        let q = format!("/v3/campaigns?ids={}&ids={}", others[0], others[1]);
        assert_eq!(app.get(&q).await.json()["pagination"]["totalCount"], 2);
        let now = app.clock.now();
        let at = |d: i64| (now + Duration::days(d)).to_rfc3339_opts(api_tests::chrono::SecondsFormat::Secs, true);
        // Alpha's first goal started at its creation (start rule 1); the others have no goals.
        assert_eq!(ids(&app.get(&format!("/v3/campaigns?campaigns.started.before={}", at(1))).await.json()["campaigns"]), vec![w.campaign.clone()]);
        assert_eq!(app.get(&format!("/v3/campaigns?campaigns.started.after={}", at(1))).await.json()["pagination"]["totalCount"], 0);
        assert_eq!(app.get(&format!("/v3/campaigns?campaigns.ended.after={}", at(30))).await.json()["pagination"]["totalCount"], 0);
        assert_eq!(ids(&app.get(&format!("/v3/campaigns?campaigns.ended.before={}", at(30))).await.json()["campaigns"]), vec![w.campaign.clone()]);
        assert_eq!(app.get(&format!("/v3/campaigns?campaigns.ended.before={}", at(5))).await.json()["pagination"]["totalCount"], 0);
        // Deleted: hidden, or shown with deleted: true.
        app.delete(&format!("/api/1.0/campaign/by_campaign_id;id={}", others[0])).await.expect(204);
        assert_eq!(app.get("/v3/campaigns").await.json()["pagination"]["totalCount"], 11);
        let v = app.get(&format!("/v3/campaigns?includeDeletedCampaigns&ids={}", others[0])).await.json();
        assert_eq!(v["campaigns"][0]["deleted"], true);
        app.delete(&format!("/api/1.0.cpvext/goal/by_goal_id;id={}", w.goals[1])).await.expect(204);
        let c = app.get(&format!("/v3/campaigns/{}", w.campaign)).await.json();
        assert_eq!(ids(&c["goals"]), vec![w.goals[0].clone()]);
        let c = app.get(&format!("/v3/campaigns/{}?includeDeletedGoals=true&expand=goals", w.campaign)).await.json();
        assert_eq!(c["goals"][1]["deleted"], true);
    }

    async fn goals_shape_sorting_metrics_projections(app: TestApp) {
        let w = world(&app).await;
        let v = app.get("/v3/goals").await.json();
        assert_eq!(v["pagination"]["totalCount"], 2);
        // Default sorting goalName, case-insensitive: "goal a" before "Goal B".
        assert_eq!(ids(&v["goals"]), vec![w.goals[1].clone(), w.goals[0].clone()]);
        let g = &v["goals"][1];
        assert_eq!(g["type"], "impression");
        assert_eq!(g["target"], json!({"value": 100000.0, "unit": "impression"}));
        assert_eq!(g["pricing"], json!({"value": 10.0, "pricingModel": "cpm"}));
        assert_eq!(g["priority"]["origin"]["entity"], "goal");
        assert_eq!(g["frontload"]["origin"]["entity"], "site");
        assert_eq!(g["campaign"]["href"], json!(format!("/v3/campaigns/{}", w.campaign)));
        assert_eq!(g["goalMode"], "normal");
        assert_eq!(g["adPosition"], "any");
        assert_eq!(v["goals"][0]["type"], "shareOfVoice");
        assert_eq!(v["goals"][0]["target"]["unit"], "percent");
        assert_eq!(v["goals"][0]["cap"], json!({"capType": "dailyCap", "capValue": 100.0}));
        assert_eq!(v["goals"][0]["priority"]["origin"]["entity"], "campaign", "inherited from the campaign's override");
        for (sorting, first) in [("priority", 0), ("type", 0), ("booked", 1), ("start", 0), ("end", 0), ("goalName", 1)] {
            let v = app.get(&format!("/v3/goals?sorting={sorting}")).await.json();
            assert_eq!(v["goals"][0]["id"], json!(w.goals[first]), "{sorting}");
            let d = app.get(&format!("/v3/goals?sorting={sorting}&sortingOrder=descending")).await.json();
            assert_eq!(d["goals"][0]["id"], json!(w.goals[1 - first]), "{sorting} descending");
        }
        let adv = app.client("Z", "ADVERTISER").await;
        let zeta = app.campaign("Zeta", &adv).await;
        let zg = app.goal(&zeta, "RTB", 1, Some(3), "").await;
        assert_eq!(app.get("/v3/goals?sorting=campaignName").await.json()["goals"][2]["id"], json!(zg));
        assert_eq!(app.get("/v3/goals?sorting=campaignName&sortingOrder=descending").await.json()["goals"][0]["id"], json!(zg));
        // One day into the goal's ten-day flight (it started at its creation).
        app.clock.set(app.clock.now() + Duration::days(1));
        record(&app, &w, 0, 200, 2, 100, 25).await;
        record(&app, &w, 1, 200, 0, 0, 0).await;
        let v = app.get(&format!("/v3/goals/{}?embed=metrics&embed=projections", w.goals[0])).await.json();
        assert_eq!(v["metrics"]["impression"], 400);
        assert_eq!(v["metrics"]["ctr"], 0.005);
        assert_eq!(v["metrics"]["completionRate"], 0.25);
        assert_eq!(v["metrics"]["ecpm"], 10.0, "CPM pricing: eCPM is the price");
        // The projection (docs/reports.md "Pacing"): this goal has no ad, so the traffic
        // model gives it nothing more and it ends where it is, 99,600 short.
        let p = &v["projection"];
        assert_eq!(v["projectedDelivery"], 400.0, "{p}");
        assert_eq!((p["basis"].as_str(), p["modelDaily"].as_f64(), p["shortfall"].as_f64()), (Some("trafficModel"), Some(0.0), Some(99_600.0)), "{p}");
        assert_eq!(p["recentDaily"].to_string(), "0.0", "counted a day ago: nothing in the last 24 hours");
        let v = app.get(&format!("/v3/goals?campaign.id={}&embed=metrics&metrics=ctr", w.campaign)).await.json();
        assert_eq!(v["pagination"]["totalCount"], 2);
        assert_eq!(v["goals"][1]["metrics"], json!({"ctr": 0.005}));
        // Date filters: goal 0 runs from creation (a day ago now) to day 9 of the original
        // clock, goal 1 from day 2 to day 20.
        let at = |d: i64| (app.clock.now() + Duration::days(d)).to_rfc3339_opts(api_tests::chrono::SecondsFormat::Secs, true);
        assert_eq!(ids(&app.get(&format!("/v3/goals?campaign.id={}&goals.started.before={}", w.campaign, at(0))).await.json()["goals"]), vec![w.goals[0].clone()]);
        assert_eq!(ids(&app.get(&format!("/v3/goals?campaign.id={}&goals.started.after={}", w.campaign, at(0))).await.json()["goals"]), vec![w.goals[1].clone()]);
        assert_eq!(ids(&app.get(&format!("/v3/goals?campaign.id={}&goals.ended.before={}", w.campaign, at(10))).await.json()["goals"]), vec![w.goals[0].clone()]);
        assert_eq!(ids(&app.get(&format!("/v3/goals?campaign.id={}&goals.ended.after={}", w.campaign, at(10))).await.json()["goals"]), vec![w.goals[1].clone()]);
        assert_eq!(app.get("/v3/goals?campaign.name=alpha&campaign.state=enabled").await.json()["pagination"]["totalCount"], 2);
        assert_eq!(app.get("/v3/goals?campaign.name=ZETA").await.json()["pagination"]["totalCount"], 1);
        assert_eq!(app.get("/v3/goals?campaign.state=archived").await.json()["pagination"]["totalCount"], 0);
        assert_eq!(app.get("/v3/goals?campaign.name=nomatch").await.json()["pagination"]["totalCount"], 0);
        let v = app.get("/v3/goals?goal.name=B&expand=ads").await.json();
        assert_eq!(v["pagination"]["totalCount"], 1);
        assert_eq!(v["goals"][0]["ads"][0]["name"], "ad one");
    }

    async fn ads_shape_weights_and_metrics(app: TestApp) {
        let w = world(&app).await;
        let v = app.get(&format!("/v3/ads?goal.id={}", w.goals[0])).await.json();
        assert_eq!(v["pagination"]["totalCount"], 2);
        let a = &v["ads"][0];
        assert_eq!(a["id"], json!(w.ads[0]));
        assert_eq!(a["weight"], json!({"proportional": false, "totalOverridden": 50.0, "value": 50.0}));
        assert_eq!(v["ads"][1]["weight"], json!({"proportional": true, "totalOverridden": 50.0, "value": 50.0}));
        assert_eq!(a["creative"], json!({"insertionPoint": "preroll", "type": "standardPlaceholder"}));
        assert_eq!(a["campaign"]["id"], json!(w.campaign));
        assert_eq!(a["goal"]["href"], json!(format!("/v3/goals/{}", w.goals[0])));
        assert_eq!(a["start"]["origin"], json!({"id": w.goals[0], "href": format!("/v3/goals/{}", w.goals[0]), "entity": "goal"}));
        assert_eq!(a["externalTrackers"][0]["event"], "firstQuartile");
        assert!(a["externalTrackers"][0]["id"].is_string());
        record(&app, &w, 0, 7, 0, 0, 0).await;
        let one = app.get(&format!("/v3/ads/{}?embed=metrics&metrics=impression&metrics=delivered", w.ads[0])).await;
        one.expect(200);
        assert_eq!(one.json()["metrics"], json!({"impression": 7, "delivered": 7}));
        let all = app.get("/v3/ads?pageSize=2").await.json();
        assert_eq!(all["pagination"], json!({"totalCount": 3, "pageSize": 2, "pageNumber": 1}));
        assert_eq!(ids(&all["ads"]), vec![w.ads[2].clone(), w.ads[1].clone()], "newest first");
        let future = (app.clock.now() + Duration::days(1)).to_rfc3339_opts(api_tests::chrono::SecondsFormat::Secs, true);
        assert_eq!(app.get(&format!("/v3/ads?ads.created.after={future}")).await.json()["pagination"]["totalCount"], 0);
        assert_eq!(app.get(&format!("/v3/ads?ads.created.before={future}")).await.json()["pagination"]["totalCount"], 3);
    }

    async fn bad_parameters_are_400(app: TestApp) {
        for (q, field, rule) in [
            ("/v3/campaigns?pageSize=0", "pageSize", "range"),
            ("/v3/campaigns?pageSize=101", "pageSize", "range"),
            ("/v3/goals?pageNumber=0", "pageNumber", "range"),
            ("/v3/goals?sorting=budget", "sorting", "enum"),
            ("/v3/goals?sortingOrder=up", "sortingOrder", "enum"),
            ("/v3/goals?goals.started.before=yesterday", "goals.started.before", "dateTime"),
            ("/v3/campaigns?campaign.state=paused", "campaign.state", "enum"),
            ("/v3/campaigns?expand=ads", "expand", "expand"),
            ("/v3/campaigns?expand=creatives", "expand", "enum"),
            ("/v3/campaigns?embed=metrics&metrics=delivered", "metrics", "enum"),
            ("/v3/ads?embed=projections", "embed", "enum"),
            ("/v3/ads?colour=red", "colour", "unknown"),
            ("/v3/ads?goal.id=a&goal.id=b", "goal.id", "single"),
        ] {
            let r = app.get(q).await;
            r.expect(400);
            assert_eq!(err(&r), (field.to_string(), rule.to_string()), "{q}: {}", r.body);
        }
    }

    async fn another_account_sees_nothing(app: TestApp) {
        let w = world(&app).await;
        let b = app.b.key.clone();
        assert_eq!(app.get_as(&b, "/v3/campaigns").await.json()["pagination"]["totalCount"], 0);
        assert_eq!(app.get_as(&b, "/v3/goals").await.json()["pagination"]["totalCount"], 0);
        assert_eq!(app.get_as(&b, "/v3/ads").await.json()["pagination"]["totalCount"], 0);
        assert_eq!(app.get_as(&b, &format!("/v3/ads?goal.id={}", w.goals[0])).await.json()["pagination"]["totalCount"], 0);
        app.get_as(&b, &format!("/v3/campaigns/{}", w.campaign)).await.expect(404);
        app.get_as(&b, &format!("/v3/goals/{}", w.goals[0])).await.expect(404);
        app.get_as(&b, &format!("/v3/ads/{}", w.ads[0])).await.expect(404);
    }
}
