//! A campaign forecast agrees with serving:
//! a paced goal is forecast to stop at its target, as pacing stops it, when the traffic
//! is enough; a goal the traffic cannot fill is forecast at what it can get.

use api_tests::serde_json::json;
use api_tests::{both_stores, TestApp};

use crate::forecasts::{campaign_body, create, finished};

fn day(app: &TestApp, days: i64) -> String {
    let now = web::clock::Clock::now(app.clock.as_ref());
    (now + chrono::Duration::days(days)).format("%Y-%m-%dT00:00:00.000Z").to_string()
}

/// The forecast of one untargeted impression goal of `target` over 28 days from the day after tomorrow.
async fn forecast(app: &TestApp, target: u64) -> api_tests::serde_json::Value {
    let mut b = campaign_body(app, 5);
    let g = &mut b["campaign"]["goals"][0];
    g["deliveryGoal"] = json!({"type": "IMPRESSION", "value": target});
    g["startDate"] = json!(day(app, 2));
    g["endDate"] = json!(day(app, 30));
    g["targeting"] = json!({"targetingRules": {}});
    let report = finished(app, &create(app, "campaign", &b).await).await;
    app.get(&report).await.json()["goals"][0]["forecast"].clone()
}

both_stores! {
    async fn a_paced_goal_is_forecast_at_its_target(app: TestApp) {
        let f = forecast(&app, 20_000).await;
        let units = f["forecastedUnits"].as_f64().unwrap_or(-1.0);
        assert!(f["matchedUnits"].as_f64().unwrap_or(0.0) > 40_000.0, "the traffic is enough for the target: {f}");
        assert!((19_400.0..=20_600.0).contains(&units), "forecast within 3 % of its target of 20,000, as serving paces it: {f}");
    }
}

both_stores! {
    async fn a_goal_the_traffic_cannot_fill_is_forecast_at_what_it_can_get(app: TestApp) {
        let f = forecast(&app, 100_000_000).await;
        let (units, matched) = (f["forecastedUnits"].as_f64().unwrap_or(-1.0), f["matchedUnits"].as_f64().unwrap_or(0.0));
        assert!(matched > 0.0 && matched < 100_000_000.0, "the traffic is short of the target: {f}");
        // Pacing never holds it back: it takes every matched opportunity it wins.
        assert!(units > 0.9 * matched && units <= matched * 1.0001, "forecast at what the traffic gives ({matched}): {f}");
    }
}
