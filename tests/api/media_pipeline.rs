//! The video pipeline (docs/media.md): probe on arrival, transcode on first link, the
//! renditions in the documents, ads waiting for their media, on both stores.

use api_tests::player::parse;
use api_tests::serde_json::{json, Value};
use api_tests::{both_stores, clip, spawn_file_server, TestApp, NOT_A_VIDEO};

async fn standard_ad(app: &TestApp, goal: &str, asset: &str, kind: &str) -> String {
    let creative = if kind == "pause" {
        json!({"type": "pause", "assetId": asset, "clickDestinationUri": "https://example.com/buy"})
    } else {
        json!({"type": "standard", "insertionPoint": "preroll", "assetId": asset, "clickDestinationUri": "https://example.com/buy"})
    };
    let r = app.post_json("/v1/ads", &json!({"name": format!("{kind} spot"), "goalId": goal, "enabled": true, "creative": creative})).await;
    r.expect(201);
    r.json()["id"].as_str().unwrap().to_string()
}

fn id_of(location: &str) -> String {
    location.rsplit('/').next().unwrap().to_string()
}

async fn notifications(app: &TestApp, campaign: &str) -> String {
    let r = app.get(&format!("/api/1.0/campaign/notification/by_campaign_id;id={campaign}")).await;
    r.expect(200);
    r.body
}

/// An ad request for the account's sports category, polled until the snapshot shows what
/// `want` accepts (it is rebuilt after each change).
async fn served_until(app: &TestApp, query: &str, want: impl Fn(&Value) -> bool) -> Value {
    api_tests::eventually(&format!("{query} served as expected"), std::time::Duration::from_secs(120), || async {
        let r = app.ad_request(&format!("category={}-cat-sports&{query}", app.a.id)).await;
        r.expect(200);
        let doc = parse(if query.contains("VMAP") { "vmap" } else { "vast" }, &r.body);
        want(&doc).then_some(doc)
    })
    .await
}

both_stores! {
    async fn a_prores_master_becomes_renditions_with_true_figures(app: TestApp) {
        let files = spawn_file_server().await;
        let (loc, v) = app.asset_from(&format!("{files}/master.mov"), "master.mov").await;
        // Probed on arrival: what ffprobe read of the master.
        assert_eq!(v["status"], "READY", "{v}");
        let p = &v["probe"];
        assert_eq!((p["container"].as_str(), p["videoCodec"].as_str(), p["audioCodec"].as_str()), (Some("mov"), Some("prores"), Some("pcm_s16le")), "{v}");
        assert_eq!((p["width"].as_u64(), p["height"].as_u64(), p["frameRate"].as_f64()), (Some(640), Some(360), Some(25.0)), "{v}");
        assert_eq!(p["durationMs"], 2000, "{v}");
        assert_eq!(v["renditions"], json!([]), "not transcoded before a link (seed 000 §4.4a)");
        let (_, goal) = app.live_goal().await;
        standard_ad(&app, &goal, &id_of(&loc), "standard").await;
        let v = app.wait_transcoded(&loc).await;
        assert_eq!(v["status"], "TRANSCODED", "{v}");
        let r: Vec<(String, u64, u64)> = v["renditions"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| (r["mime"].as_str().unwrap().to_string(), r["width"].as_u64().unwrap(), r["height"].as_u64().unwrap()))
            .collect();
        // Never upscaled, aspect kept; H.264 MP4s best first, then one WebM.
        let want = [("video/mp4", 640, 360), ("video/mp4", 426, 240), ("video/webm", 640, 360)];
        assert_eq!(r, want.map(|(m, w, h)| (m.to_string(), w, h)).to_vec(), "{v}");
        for rendition in v["renditions"].as_array().unwrap() {
            let url = rendition["url"].as_str().unwrap();
            let key = url.strip_prefix(&format!("{}/", app.state.settings.media_base_url)).unwrap();
            let bytes = app.state.blobs.get(key).await.unwrap().expect("the rendition is in the bucket");
            assert_eq!(rendition["size"], bytes.len(), "{rendition}");
            // The bitrate is measured: size over the probed length.
            assert_eq!(rendition["bitrate"], bytes.len() as u64 * 8000 / 2000, "{rendition}");
            if rendition["mime"] == "video/mp4" {
                let moov = bytes.windows(4).position(|w| w == b"moov").unwrap();
                let mdat = bytes.windows(4).position(|w| w == b"mdat").unwrap();
                assert!(moov < mdat, "the index is at the front (+faststart)");
                assert_eq!(rendition["codecs"], "avc1.640028,mp4a.40.2");
            }
        }
        assert_eq!((v["still"]["width"].as_u64(), v["still"]["height"].as_u64()), (Some(640), Some(360)), "{v}");
        // Served: every rendition a MediaFile with its size and bitrate, the probe's length.
        let doc = served_until(&app, "rt=VAST_3_0", |d| d["ads"].as_array().is_some_and(|a| !a.is_empty())).await;
        let cr = &doc["ads"][0]["creatives"][0];
        assert_eq!(cr["duration"], 2.0, "{cr}");
        let files: Vec<(String, u64, u64)> = cr["mediaFiles"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| (m["mimeType"].as_str().unwrap().to_string(), m["width"].as_u64().unwrap(), m["height"].as_u64().unwrap()))
            .collect();
        assert_eq!(files, r, "{cr}");
        assert!(cr["mediaFiles"].as_array().unwrap().iter().all(|m| m["deliveryType"] == "progressive"));
    }

    async fn what_is_not_a_video_fails_with_a_reason_and_cannot_be_linked(app: TestApp) {
        let files = spawn_file_server().await;
        let (_, v) = app.asset_from(&format!("{files}/junk.mp4"), "junk.mp4").await;
        assert_eq!(v["status"], "FAILED", "{v}");
        assert_eq!(v["failureReason"], "not a video file: ffprobe could not read it", "{v}");
        let id = app.upload_asset("junk2.mp4", NOT_A_VIDEO).await;
        let v = app.wait_asset(&format!("/v1/assets/video/{id}")).await;
        assert_eq!((v["status"].as_str(), v["failureReason"].as_str()), (Some("FAILED"), Some("not a video file: ffprobe could not read it")));
        let (_, goal) = app.live_goal().await;
        let r = app
            .post_json("/v1/ads", &json!({"name": "A", "goalId": goal, "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": id}}))
            .await;
        r.expect(400);
        let e = &r.json()["errors"][0];
        assert_eq!((e["field"].as_str(), e["rule"].as_str()), (Some("creative.assetId"), Some("media")), "{}", r.body);
        assert!(e["message"].as_str().unwrap().contains("not a video file"), "{}", r.body);
        assert_eq!(app.get("/v1/ads").await.json(), json!([]), "nothing was written");
    }

    async fn an_ad_waiting_for_its_media_is_not_served_and_is_named(app: TestApp) {
        let (campaign, goal) = app.live_goal().await;
        // An asset whose file has not arrived (no job will run for it).
        let now = web::clock::Clock::now(app.clock.as_ref());
        let asset = web::model::asset::Asset {
            download_uri: Some("https://cdn.example/late.mp4".into()),
            expires: Some(now + chrono::Duration::hours(24)),
            ..web::model::asset::Asset::new(&uuid::Uuid::new_v4().to_string(), "late.mp4", web::model::enums::AssetSource::Url, now)
        };
        web::repo::assets::create(app.store.as_ref(), &app.a.id, &asset).await.unwrap();
        standard_ad(&app, &goal, &asset.id, "standard").await;
        let n = notifications(&app, &campaign).await;
        assert!(n.contains("Ad &apos;standard spot&apos; of goal") || n.contains("Ad 'standard spot' of goal"), "{n}");
        assert!(n.contains("is not served: waiting for its media: the file is still arriving"), "{n}");
        app.settle().await;
        let r = app.ad_request(&format!("category={}-cat-sports", app.a.id)).await;
        r.expect(200);
        assert_eq!(parse("vast", &r.body)["ads"], json!([]), "an empty slot, never a broken MediaFile: {}", r.body);
        // Its transcode failed later: the notification says so.
        web::repo::assets::update(app.store.as_ref(), &app.a.id, &asset.id, |a| {
            a.status = web::model::asset::FAILED;
            a.failure_reason = Some("transcode failed: ffmpeg failed".into());
        })
        .await
        .unwrap();
        let n = notifications(&app, &campaign).await;
        assert!(n.contains("is not served: media failed: transcode failed: ffmpeg failed"), "{n}");
    }

    async fn one_transcode_per_asset_and_redeliveries_change_nothing(app: TestApp) {
        let id = app.upload_asset("spot.mp4", clip()).await;
        let loc = format!("/v1/assets/video/{id}");
        let (_, goal) = app.live_goal().await;
        // Two ads link it at once; a third later.
        let (a, b) = tokio::join!(standard_ad(&app, &goal, &id, "standard"), standard_ad(&app, &goal, &id, "standard"));
        assert_ne!(a, b);
        let v = app.wait_transcoded(&loc).await;
        assert_eq!(v["status"], "TRANSCODED", "{v}");
        let etag = app.get(&loc).await.header("etag").unwrap().to_string();
        standard_ad(&app, &goal, &id, "pause").await;
        let job = json!({"account": app.a.id, "asset": id}).to_string();
        for _ in 0..3 {
            web::workers::dispatch(&app.state, web::queue::QueueName::Assets, &job).await.unwrap();
        }
        assert_eq!(app.get(&loc).await.header("etag").unwrap(), etag, "a transcoded asset is not touched again");
    }

    async fn pause_ads_show_the_still_and_vast_4_2_the_mezzanine(app: TestApp) {
        let id = app.upload_asset("spot.mp4", clip()).await;
        let loc = format!("/v1/assets/video/{id}");
        let (_, goal) = app.live_goal().await;
        let pause = standard_ad(&app, &goal, &id, "pause").await;
        let spot = standard_ad(&app, &goal, &id, "standard").await;
        let v = app.wait_transcoded(&loc).await;
        let still = v["still"]["url"].as_str().unwrap().to_string();
        let doc = served_until(&app, "format=pause", |d| d["ads"].as_array().is_some_and(|a| !a.is_empty())).await;
        // The NonLinear answer is valid under each version's schema.
        for (rt, version) in [("vast_2_0", "2.0.1"), ("vast_3_0", "3.0"), ("vast_4_2", "4.2")] {
            let xml = app.ad_request(&format!("category={}-cat-sports&format=pause&rt={rt}", app.a.id)).await.body;
            assert!(xml.contains("<NonLinear "), "{rt}: {xml}");
            crate::vast_schema::validate(&xml, &crate::vast_schema::xsd(version), &format!("a pause ad in {rt}"));
        }
        assert_eq!(doc["ads"][0]["id"], pause.as_str());
        let nl = &doc["ads"][0]["creatives"][0];
        assert_eq!(nl["type"], "nonlinear", "{doc}");
        assert_eq!(nl["variations"][0]["staticResource"], still.as_str(), "the still, not the video: {doc}");
        let image = app.send("GET", &api_tests::player::path_of(&still), None, None, "").await;
        image.expect(200);
        assert_eq!(image.header("content-type"), Some("image/jpeg"));
        // VAST 4.2: UniversalAdId, AdServingId, the renditions then the master as Mezzanine.
        let r = app.ad_request(&format!("category={}-cat-sports&format=preroll&rt=VAST_4_2", app.a.id)).await;
        r.expect(200);
        assert!(r.body.contains("<VAST version=\"4.2\" xmlns=\"http://www.iab.com/VAST\">"), "{}", r.body);
        assert!(r.body.contains(&format!("<UniversalAdId idRegistry=\"adserver\">{spot}</UniversalAdId>")), "{}", r.body);
        assert!(r.body.contains("<AdServingId>") && r.body.contains("</MediaFile><Mezzanine delivery=\"progressive\" type=\"video/mp4\" width=\"320\" height=\"180\">"), "{}", r.body);
        let parsed = parse("vast", &r.body);
        assert_eq!(parsed["version"], "4.2");
        assert_eq!(parsed["ads"][0]["creatives"][0]["mediaFiles"].as_array().unwrap().len(), 2, "{parsed}");
    }
}
