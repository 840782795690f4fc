//! Is it on pace? (docs/reports.md "Pacing"): a goal's projection comes
//! from the account's traffic model replayed through the delivery engine, bounded by the
//! goal's last 24 hours, with its basis, band and shortfall; in `/v3` (`embed=projections`),
//! in the pacing view with the plan and delivered by day, in the SVG chart and in the
//! campaign notifications, all with the same figures.

use api_tests::chrono::Duration;
use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, xml_texts, TestApp};

use crate::serving::{ad, ad_ids, enabled_campaign, goal, link};

async fn deliver(app: &TestApp, ad_id: &str, query: &str, from: i64, n: i64) {
    for i in from + 1..=from + n {
        let doc = app.ad_request(&format!("{query}&pid=p{i}")).await.body;
        assert_eq!(ad_ids(&doc), vec![ad_id.to_string()], "impression {i}");
        app.fire(&link(&doc, "impression")).await.expect(204);
        app.wait_metric(ad_id, "impression", i).await;
    }
}

/// The projection of a goal, once the traffic samples (one request in 100, drawn by the
/// server) are written: the traffic model cannot change between this read and the next.
async fn projection(app: &TestApp, g: &str) -> (Value, Value) {
    app.flush_samples().await;
    let r = app.get(&format!("/v3/goals/{g}?embed=projections")).await;
    r.expect(200);
    let goal = r.json();
    (goal["projectedDelivery"].clone(), goal["projection"].clone())
}

fn num(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

both_stores! {
    async fn projections_come_from_the_traffic_model_with_basis_band_and_shortfall(app: TestApp) {
        let c = enabled_campaign(&app).await;
        // More than the account's traffic (its profile in the demo seed: 250k requests a day,
        // 55 % preroll, about 1.4M preroll in ten days) can give, and a target it gives easily.
        let big = goal(&app, &c, "IMPRESSION", "10000000", 0, "").await;
        ad(&app, &big, "preroll", json!({})).await;
        // 100: the model's midroll share for a random account can be about 100 a day, so 1,000
        // in the flight's ten days was not always easy (a run projected 998).
        let small = goal(&app, &c, "IMPRESSION", "100", 0, "").await;
        let small_ad = ad(&app, &small, "midroll", json!({})).await;
        // One impression in the first minute (read as 100 % with no basis, it misleads).
        deliver(&app, &small_ad, "format=midroll", 0, 1).await;

        let (expected, p) = projection(&app, &big).await;
        assert_eq!((p["basis"].as_str(), p["traffic"].as_str()), (Some("trafficModel"), Some("profile")), "{p}");
        assert!(num(&expected) < 3_000_000.0 && num(&expected) > 500_000.0, "{p}");
        assert_eq!(expected, p["expected"]);
        assert_eq!(num(&p["shortfall"]), 10_000_000.0 - num(&expected));
        assert!(num(&p["low"]) <= num(&expected) && num(&expected) <= num(&p["high"]) && num(&p["low"]) < num(&p["high"]), "{p}");
        assert!((50_000.0..250_000.0).contains(&num(&p["modelDaily"])), "{p}");
        assert!(p.get("recentDaily").is_none(), "less than a day old: {p}");

        let (expected, p) = projection(&app, &small).await;
        assert_eq!((num(&expected), num(&p["delivered"])), (100.0, 1.0), "{p}");
        assert!(p.get("shortfall").is_none() && p.get("overage").is_none(), "{p}");
        assert_eq!(p["target"], 100.0);

        // The page of the campaign's goals carries the same.
        let page = app.get(&format!("/v3/goals?campaign.id={c}&embed=projections")).await.json();
        let goals = page["goals"].as_array().cloned().unwrap_or_default();
        assert_eq!(goals.len(), 2);
        assert!(goals.iter().all(|g| g["projection"]["basis"] == "trafficModel"), "{page}");
        // Without the embed, nothing is replayed or shown.
        assert!(app.get(&format!("/v3/goals/{big}")).await.json().get("projection").is_none());
    }

    async fn a_goal_behind_is_projected_at_its_recent_rate_charted_and_notified(app: TestApp) {
        let c = enabled_campaign(&app).await;
        let g = goal(&app, &c, "IMPRESSION", "100000", 0, "").await;
        let spot = ad(&app, &g, "preroll", json!({})).await;
        deliver(&app, &spot, "format=preroll", 0, 3).await;
        app.advance(Duration::days(2));
        deliver(&app, &spot, "format=preroll", 3, 2).await;

        let (expected, p) = projection(&app, &g).await;
        assert_eq!((p["basis"].as_str(), num(&p["recentDaily"]), num(&p["delivered"])), (Some("recentDelivery"), 2.0, 5.0), "{p}");
        // Eight days left at 2 a day.
        assert!((19.0..=23.0).contains(&num(&expected)), "{p}");
        assert_eq!(num(&p["shortfall"]), 100_000.0 - num(&expected));

        // The pacing view: the flight's days, plan, delivered by day, projection from today.
        let r = app.get(&format!("/v3/goals/{g}/pacing")).await;
        r.expect(200);
        let view = r.json();
        assert_eq!(view["projection"], p);
        let days = view["days"].as_array().cloned().unwrap_or_default();
        assert!((10..=11).contains(&days.len()), "{view}");
        assert!(days.windows(2).all(|w| num(&w[0]["plan"]) <= num(&w[1]["plan"])), "{view}");
        assert_eq!(num(&days[days.len() - 1]["plan"]), 100_000.0);
        assert_eq!((num(&days[0]["delivered"]), days[0].get("expected")), (3.0, None), "{view}");
        assert_eq!((num(&days[2]["delivered"]), num(&days[2]["expected"]) >= 5.0), (5.0, true), "{view}");
        assert!(days[3].get("delivered").is_none());
        assert_eq!(days[days.len() - 1]["expected"], expected);

        // The chart: the same figures, readable.
        let svg = app.get(&format!("/v3/goals/{g}/pacing.svg")).await;
        svg.expect(200);
        assert_eq!(svg.header("content-type"), Some("image/svg+xml"));
        // Inert when opened directly: never sniffed, nothing loaded or run.
        assert_eq!(svg.header("x-content-type-options"), Some("nosniff"));
        assert!(svg.header("content-security-policy").is_some_and(|c| c.contains("default-src 'none'")), "{:?}", svg.headers);
        for label in ["target 100k", "shortfall", "class=\"plan\"", "class=\"delivered\"", "class=\"expected\"", "class=\"band\""] {
            assert!(svg.body.contains(label), "{label} not in the chart");
        }
        let (w, h) = api_tests::render_png(&svg.body);
        assert!(w > 500 && h > 200);

        // The campaign's notification names the same projection and its basis.
        let n = app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={c}")).await;
        let messages = xml_texts(&n.body, "message");
        let short = messages.iter().find(|m| m.contains("projected to deliver")).unwrap_or_else(|| panic!("{messages:?}"));
        assert!(short.contains(&format!("deliver {} of its target 100000", num(&expected))) && short.contains("last 24 hours"), "{short}");

        // Another account's goal is not there; the view takes no parameter.
        app.get_as(&app.b.key, &format!("/v3/goals/{g}/pacing")).await.expect(404);
        app.get_as(&app.b.key, &format!("/v3/goals/{g}/pacing.svg")).await.expect(404);
        app.get(&format!("/v3/goals/{g}/pacing?days=3")).await.expect(400);
    }
}
