//! Forecasts of programmatic goals (docs/programmatic.md, "Forecasts"): no bidder is ever
//! asked; a marketplace without recorded auctions is unlimited, one with them fills at its
//! recorded rate, and the report says which.

use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, Bidder, TestApp};

use crate::demand::{marketplace, partner};
use crate::forecasts::{campaign_body, create, finished};

fn rtb_campaign(app: &TestApp, m: &str) -> Value {
    let mut b = campaign_body(app, 10);
    let g = &mut b["campaign"]["goals"][0];
    g["deliveryGoal"] = json!({"type": "RTB"});
    g["marketplaceId"] = json!(m);
    g["targeting"] = json!({"targetingRules": {}});
    b
}

both_stores! {
    async fn forecasts_never_ask_a_bidder_and_name_their_basis(app: TestApp) {
        let bidder = Bidder::in_process(&app);
        let p = partner(&app, &bidder.endpoint("nobid", ""), json!({})).await;
        let m = marketplace(&app, &[p], "FIRST_PRICE", 1.0, json!({})).await;
        // No auction recorded: unlimited, as before.
        let report = finished(&app, &create(&app, "campaign", &rtb_campaign(&app, &m)).await).await;
        let r = app.get(&report).await.json();
        assert_eq!(r["programmaticBasis"], json!([{"marketplaceId": m, "basis": "UNLIMITED", "auctions": 0}]), "{r}");
        let unlimited = r["goals"][0]["forecast"]["forecastedUnits"].as_f64().unwrap_or(0.0);
        assert!(unlimited > 0.0, "unlimited: every break it is picked for: {r}");
        assert!(bidder.requests().is_empty() && bidder.notices("nurl").is_empty(), "a forecast asks no bidder");
        // 100 live auctions without a bid: a recorded fill rate of 0.
        let c = crate::serving::enabled_campaign(&app).await;
        crate::serving::goal(&app, &c, "RTB", "1", 0, &format!("<marketplaceId>{m}</marketplaceId>")).await;
        app.ad_requests(&(0..100).map(|n| format!("format=preroll&pid=f-{n}")).collect::<Vec<_>>()).await;
        assert_eq!(bidder.requests().len(), 100);
        let r = api_tests::eventually("a forecast from the recorded fill rate", std::time::Duration::from_secs(180), || async {
            let report = finished(&app, &create(&app, "campaign", &rtb_campaign(&app, &m)).await).await;
            let r = app.get(&report).await.json();
            (r["programmaticBasis"][0]["basis"] == "FILL_RATE").then_some(r)
        })
        .await;
        let basis = &r["programmaticBasis"];
        assert_eq!((basis[0]["fillRate"].as_f64(), basis[0]["auctions"].as_i64()), (Some(0.0), Some(100)), "{basis}");
        assert_eq!(r["goals"][0]["forecast"]["forecastedUnits"].as_f64(), Some(0.0), "a fill rate of 0 fills nothing: {r}");
        assert_eq!(bidder.requests().len(), 100, "still no bid request from a forecast");
    }
}
