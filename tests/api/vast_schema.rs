//! Every served document is valid under the IAB's schema of its version (VAST 2.0.1, 3.0
//! and 4.2, and VMAP 1.0, `tests/fixtures/iab-vast`), checked with `xmllint --schema`: direct video ads
//! (their renditions, and the master as Mezzanine in 4.2), third-party wrappers, pause ads,
//! and programmatic ads (a bidder's InLine merged, or its Wrapper), skippable pods with
//! every tracker event. A VMAP answer is validated against `vmap.xsd` (its VAST reference
//! read as any element, `vmap_xsd`) and each `VASTAdData` against the VAST 3.0 schema.

use std::io::Write;
use std::process::{Command, Stdio};

use api_tests::serde_json::json;
use api_tests::{one_store, spawn_file_server, Bidder};

use crate::demand::{marketplace, partner};

pub(crate) fn xsd(version: &str) -> String {
    format!("{}/fixtures/iab-vast/vast_{version}.xsd", env!("CARGO_MANIFEST_DIR"))
}

/// Validates `doc` against `schema`; panics with xmllint's words when it is not valid.
pub(crate) fn validate(doc: &str, schema: &str, what: &str) {
    let mut child = Command::new("xmllint")
        .args(["--noout", "--nonet", "--schema", schema, "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("xmllint runs (Debian libxml2-utils; scripts/test.sh installs it)");
    child.stdin.take().expect("stdin").write_all(doc.as_bytes()).expect("write the document");
    let out = child.wait_with_output().expect("xmllint finishes");
    assert!(out.status.success(), "{what} is not valid under {schema}: {}\n{doc}", String::from_utf8_lossy(&out.stderr));
}

/// `vmap.xsd` as a validator can load it: its `VASTAdData_type` (which refers to a VAST
/// element in a namespace VAST documents do not have, and does not compile) read as any one
/// element; each embedded VAST is validated against its own schema apart. Written to a
/// scratch file; the fixture stays as published.
pub(crate) fn vmap_xsd() -> String {
    let published = std::fs::read_to_string(xsd_path("vmap")).expect("vmap.xsd");
    let patched = published.replace(
        r#"<xs:element ref="vast:VAST" minOccurs="1" maxOccurs="1"/>"#,
        r#"<xs:any minOccurs="1" maxOccurs="1" processContents="skip"/>"#,
    );
    assert_ne!(patched, published, "vmap.xsd changed: the VASTAdData_type line was not found");
    let patched = patched.lines().filter(|l| !l.contains("<xs:import")).collect::<Vec<_>>().join("\n");
    let path = std::env::temp_dir().join(format!("vmap-{}.xsd", std::process::id()));
    std::fs::write(&path, patched).expect("write the scratch schema");
    path.to_string_lossy().into_owned()
}

fn xsd_path(name: &str) -> String {
    format!("{}/fixtures/iab-vast/{name}.xsd", env!("CARGO_MANIFEST_DIR"))
}

/// The VAST documents inside a VMAP answer (each `VASTAdData`'s child).
fn vmap_vasts(doc: &str) -> Vec<String> {
    doc.split("<vmap:VASTAdData>").skip(1).filter_map(|s| s.split("</vmap:VASTAdData>").next()).map(str::to_string).collect()
}

one_store! {
    async fn every_served_document_is_valid_under_the_iab_schema_of_its_version(app: TestApp) {
        // A transcoded video ad (renditions and a master), a third-party ad and a pause ad.
        let files = spawn_file_server().await;
        let (loc, asset) = app.asset_from(&format!("{files}/clip.mp4"), "clip.mp4").await;
        let (c, g) = app.live_goal().await;
        let video = app.post_json("/v1/ads", &json!({"name": "Spot & <more>", "description": "A \"quoted\" ad", "goalId": g, "enabled": true,
            "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": asset["id"], "clickDestinationUri": "https://example.com/buy?a=1&b=2"}})).await;
        video.expect(201);
        app.wait_transcoded(&loc).await;
        let third = app.post_json("/v1/ads", &json!({"name": "Partner", "goalId": g, "enabled": true,
            "creative": {"type": "thirdparty", "insertionPoint": "midroll", "vastUri": "https://partner.example/vast?x=1&y=2"}})).await;
        third.expect(201);
        let pause = app.post_json("/v1/ads", &json!({"name": "Pause", "goalId": g, "enabled": true,
            "creative": {"type": "iptv", "insertionPoint": "postroll", "videoCreativeId": "vc-1"}})).await;
        pause.expect(201);
        let _ = c;
        for (rt, version) in [("vast_2_0", "2.0.1"), ("vast_3_0", "3.0"), ("vast_4_2", "4.2")] {
            for format in ["preroll", "midroll", "postroll"] {
                let doc = app.ad_request(&format!("format={format}&rt={rt}")).await.body;
                assert!(doc.contains("<Ad "), "{rt} {format}: {doc}");
                validate(&doc, &xsd(version), &format!("{rt} {format}"));
            }
        }
        let vmap = app.ad_request("rt=vmap_1_0").await.body;
        assert!(vmap.starts_with("<?xml") && vmap.contains("<vmap:VMAP xmlns:vmap=\"http://www.iab.net/videosuite/vmap\" version=\"1.0\">"), "{vmap}");
        validate(&vmap, &vmap_xsd(), "a VMAP answer's envelope");
        let inner = vmap_vasts(&vmap);
        assert_eq!(inner.len(), 3, "three breaks: {vmap}");
        for v in inner {
            validate(&v, &xsd("3.0"), "a VMAP break's VAST");
        }
        // An empty answer is valid too.
        let empty = app.ad_request("format=pause&rt=vast_4_2").await.body;
        validate(&empty, &xsd("4.2"), "an empty VAST 4.2");

        // Programmatic: the bidder's InLine merged, and its Wrapper, in every version.
        let bidder = Bidder::in_process(&app);
        let p = partner(&app, &bidder.endpoint("inline", "price=5&name=merged"), json!({"name": "DSP & Co"})).await;
        let m = marketplace(&app, &[p], "FIRST_PRICE", 1.0, json!({})).await;
        let rtb = crate::rtb::rtb_goal(&app, &m, 10).await;
        for (rt, version) in [("vast_2_0", "2.0.1"), ("vast_3_0", "3.0"), ("vast_4_2", "4.2")] {
            let doc = app.ad_request(&format!("format=preroll&rt={rt}")).await.body;
            assert!(doc.contains("cr-merged"), "{doc}");
            validate(&doc, &xsd(version), &format!("a programmatic InLine in {rt}"));
        }
        app.delete(&format!("/v1/marketplaces/{m}")).await.expect(204);
        let w = partner(&app, &bidder.endpoint("wrapper", "price=5&name=wrapped"), json!({})).await;
        let m = marketplace(&app, &[w], "FIRST_PRICE", 1.0, json!({})).await;
        crate::rtb::rtb_goal(&app, &m, 10).await;
        for (rt, version) in [("vast_2_0", "2.0.1"), ("vast_3_0", "3.0"), ("vast_4_2", "4.2")] {
            let doc = app.ad_request(&format!("format=preroll&rt={rt}")).await.body;
            assert!(doc.contains("<Wrapper>"), "{doc}");
            validate(&doc, &xsd(version), &format!("a programmatic Wrapper in {rt}"));
        }
        let _ = rtb;
    }

    async fn trackers_skip_and_pods_are_valid_under_each_schema(app: TestApp) {
        // Two spots in one break (a pod), skippable after 5 s, with third-party trackers of
        // every event a spot takes (fullscreen included) and click trackers.
        let policy = app.post_json("/v1/insertion-policy", &json!({"name": "Pods",
            "globalSettings": {"skipButton": {"showWhen": "ALWAYS", "skipOffset": {"value": 5}}},
            "adBreakSettings": {"preroll": {"enabled": true, "adsPerBreak": 2}}})).await;
        policy.expect(201);
        let events = ["IMPRESSION", "CLICK_THROUGH", "AD_START", "AD_FIRST_QUARTILE", "AD_MIDPOINT", "AD_THIRD_QUARTILE", "AD_COMPLETE",
            "CLOSE", "MUTE", "UNMUTE", "PAUSE", "RESUME", "REWIND", "FULLSCREEN", "SKIP"];
        let trackers: Vec<_> = events.iter().map(|e| json!({"event": e, "url": format!("https://t.example/{e}?a=1&b=2")})).collect();
        // A pod holds one ad of each goal.
        for name in ["One", "Two"] {
            let (_, g) = app.live_goal().await;
            app.post_json("/v1/ads", &json!({"name": name, "goalId": g, "enabled": true, "externalTrackers": trackers,
                "creative": {"type": "iptv", "insertionPoint": "preroll", "videoCreativeId": format!("vc-{name}"), "clickDestinationUri": "https://brand.example/?x=1"}}))
                .await
                .expect(201);
        }
        for (rt, version) in [("vast_2_0", "2.0.1"), ("vast_3_0", "3.0"), ("vast_4_2", "4.2")] {
            let doc = api_tests::eventually("the pod served", std::time::Duration::from_secs(60), || async {
                let doc = app.ad_request(&format!("format=preroll&rt={rt}")).await.body;
                (doc.matches("<Ad ").count() == 2).then_some(doc)
            })
            .await;
            assert!(doc.contains("t.example/FULLSCREEN") && doc.contains("t.example/CLICK_THROUGH"), "{rt}: {doc}");
            if rt != "vast_2_0" {
                assert!(doc.contains("skipoffset=") && doc.contains("sequence=\"2\""), "{rt}: skippable, a pod: {doc}");
            }
            if rt == "vast_4_2" {
                assert!(doc.contains("event=\"playerExpand\"") && !doc.contains("event=\"fullscreen\""), "{doc}");
            }
            validate(&doc, &xsd(version), &format!("a skippable pod with trackers in {rt}"));
        }
    }
}
