//! What a person would see: headless Chromium loads a small web player page
//! (tests/node/player/index.html, driven by tests/node/play.mjs with puppeteer-core) that
//! fetches the exported VAST URL with the IAB player-side client, picks a MediaFile the
//! browser can play, plays it muted to the end and fires the tracking. On both stores, for
//! an H.264 MP4 and for a ProRes master uploaded by URL.

use api_tests::player::path_of;
use api_tests::serde_json::{json, Value};
use api_tests::{spawn_file_server, Backend, TestApp};

/// Runs the browser on `vast_url`; the player page's result.
fn play(vast_url: &str) -> Value {
    api_tests::player::in_browser("play.mjs", vast_url)
}

async fn plays_to_the_end(backend: Backend, file: &str, name: &str) {
    let (app, _) = TestApp::spawn_listening(backend).await;
    let files = spawn_file_server().await;
    let (loc, asset) = app.asset_from(&format!("{files}/{file}"), name).await;
    assert_eq!(asset["status"], "READY", "{asset}");
    let (_, g) = app.live_goal().await;
    let r = app
        .post_json("/v1/ads", &json!({"name": "Spot", "goalId": g, "enabled": true,
            "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": asset["id"], "clickDestinationUri": "https://example.com/buy"}}))
        .await;
    r.expect(201);
    let ad = r.json()["id"].as_str().unwrap().to_string();
    let asset = app.wait_transcoded(&loc).await;
    assert_eq!(asset["status"], "TRANSCODED", "{asset}");
    let a = &app.a.id;
    let url =
        app.get(&format!("/v3/ads/{ad}/vasturl/category/{a}-cat-sports?rt=VAST_3_0")).await.json()["vastUrl"].as_str().unwrap().to_string();
    let url = url.replace("[RANDOM_NUMBER]", "4242");
    assert!(url.starts_with("http://127.0.0.1:"), "the exported URL points at this server: {url}");

    let seen = tokio::task::spawn_blocking(move || play(&url)).await.unwrap();
    eprintln!("the browser saw: {seen}");
    assert_eq!(seen["ended"], true, "{seen}");
    // The document's Duration is the length the browser measured.
    let (declared, measured) = (seen["declaredDuration"].as_f64().unwrap(), seen["measuredDuration"].as_f64().unwrap());
    assert!((declared - measured).abs() < 0.1, "Duration {declared} s, the browser measured {measured} s: {seen}");
    // The chosen MediaFile's size is the picture's.
    assert_eq!(
        (seen["chosen"]["width"].as_u64(), seen["chosen"]["height"].as_u64()),
        (seen["videoWidth"].as_u64(), seen["videoHeight"].as_u64()),
        "{seen}"
    );
    assert!(path_of(seen["chosen"]["url"].as_str().unwrap()).starts_with("/media/"), "{seen}");
    assert_eq!(seen["fired"], json!(["start", "firstQuartile", "midpoint", "thirdQuartile", "complete"]), "{seen}");
    // The /v3 metrics count what the player fired, once each.
    // The queue keeps no order: each counter is waited for (an event before its impression
    // comes back later), then none is over 1.
    for counter in ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"] {
        app.wait_metric(&ad, counter, 1).await;
    }
    let m = app.get(&format!("/v3/ads/{ad}?embed=metrics")).await.json()["metrics"].clone();
    for counter in ["impression", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete"] {
        assert_eq!(m[counter], 1, "{counter}: {m}");
    }
}

api_tests::both_backends! {
    async fn an_h264_mp4_plays_in_chromium_to_the_end(backend: Backend) {
        plays_to_the_end(backend, "clip.mp4", "clip.mp4").await
    }
    async fn a_prores_master_plays_in_chromium_to_the_end(backend: Backend) {
        plays_to_the_end(backend, "master.mov", "master.mov").await
    }
}

// An RTB goal's winning bid (the stub bidder's InLine, its clip served by the stub) plays
// to the end in Chromium, and `/v3` then shows its impression and revenue; the bidder's
// own impression tracker and its billing notice arrive.
api_tests::both_backends! {
    async fn an_rtb_won_ad_plays_in_chromium_to_the_end(backend: Backend) {
        let (app, base) = TestApp::spawn_listening(backend).await;
        let bidder = api_tests::Bidder::spawn().await;
        let p = crate::demand::partner(&app, &bidder.endpoint("inline", "price=8&name=won"), json!({"name": "Stub DSP"})).await;
        let m = crate::demand::marketplace(&app, &[p], "SECOND_PRICE", 2.0, json!({})).await;
        let g = crate::rtb::rtb_goal(&app, &m, 10).await;
        let url = format!("{base}/v1/adrequest?account={}&format=preroll&rt=vast_3_0&url=https://news.example/a", app.a.id);
        let seen = tokio::task::spawn_blocking(move || play(&url)).await.unwrap();
        eprintln!("the browser saw: {seen}");
        assert_eq!(seen["ended"], true, "{seen}");
        assert!(seen["chosen"]["url"].as_str().is_some_and(|u| u.starts_with(&bidder.base)), "the bidder's media: {seen}");
        let metrics = crate::rtb::wait_goal_metric(&app, &g, "complete", 1.0).await;
        assert_eq!(
            (metrics["impression"].as_f64(), metrics["revenue"].as_f64()),
            (Some(1.0), Some(0.00201)),
            "second price alone: 2.01: {metrics}"
        );
        let burl = bidder.wait_notices("burl", 1).await;
        assert!(burl[0].contains("p=2.01"), "{burl:?}");
        assert!(!bidder.notices("dsp-impression").is_empty(), "the bidder's own impression tracker fired");
    }
}
