//! VAST URL export: seed 000 §4.10.

use api_tests::serde_json::json;
use api_tests::{both_stores, TestApp};

async fn ad(app: &TestApp, insertion: &str) -> String {
    let (_, c) = app.advertiser_campaign().await;
    let g = app.goal(&c, "IMPRESSION", 1, Some(9), "").await;
    let r = app
        .post_json("/v1/ads", &json!({"name": "A", "goalId": g, "creative": {"type": "spotPlaceholder", "insertionPoint": insertion}}))
        .await;
    r.expect(201);
    r.json()["id"].as_str().unwrap().to_string()
}

both_stores! {
    async fn vast_urls_for_a_category_and_a_content_partner(app: TestApp) {
        let id = ad(&app, "midroll").await;
        let cat = format!("{}-cat-sports", app.a.id);
        let r = app.get(&format!("/v3/ads/{id}/vasturl/category/{cat}")).await;
        r.expect(200);
        let v = r.json();
        assert_eq!(v["formatType"], "midroll");
        let url = v["vastUrl"].as_str().unwrap();
        assert!(url.starts_with("http://127.0.0.1:3000/v1/adrequest?"), "{url}");
        for part in [format!("account={}", app.a.id), format!("ad={id}"),
            format!("category={cat}"), "format=midroll".into(), "rt=vast_3_0".into(), "rnd=[RANDOM_NUMBER]".into()] {
            assert!(url.contains(&part), "{part} in {url}");
        }
        let cp = format!("{}-cp-studio", app.a.id);
        // Every response type the engine serves, VAST 4.2 included; the URL answers it.
        for (rt, root) in [("VAST_2_0", "<VAST version=\"2.0\""), ("VAST_2_0_1", "<VAST version=\"2.0\""), ("VAST_3_0", "<VAST version=\"3.0\""),
            ("VAST_4_2", "<VAST version=\"4.2\""), ("VMAP_1_0", "<vmap:VMAP")]
        {
            let v = app.get(&format!("/v3/ads/{id}/vasturl/content-partner/{cp}?rt={rt}")).await.json();
            let url = v["vastUrl"].as_str().unwrap().to_string();
            assert!(url.contains(&format!("rt={}", rt.to_lowercase())) && url.contains("contentPartner="), "{url}");
            let path = &url[url.find("/v1/adrequest").unwrap()..];
            let doc = app.get(&path.replace("[RANDOM_NUMBER]", "42")).await;
            doc.expect(200);
            assert!(doc.body.contains(root), "{rt}: {}", doc.body);
        }
    }

    async fn bad_response_types_and_unknown_ids(app: TestApp) {
        let id = ad(&app, "preroll").await;
        let cat = format!("{}-cat-sports", app.a.id);
        let r = app.get(&format!("/v3/ads/{id}/vasturl/category/{cat}?rt=VAST_4_0")).await;
        r.expect(400);
        assert_eq!(r.json()["errors"][0]["field"], "rt");
        assert_eq!(r.json()["errors"][0]["rule"], "enum");
        app.get(&format!("/v3/ads/{id}/vasturl/category/nope")).await.expect(404);
        app.get(&format!("/v3/ads/{id}/vasturl/content-partner/nope")).await.expect(404);
        app.get(&format!("/v3/ads/00000000-0000-0000-0000-000000000000/vasturl/category/{cat}")).await.expect(404);
        app.get(&format!("/v3/ads/{id}/vasturl/site/{cat}")).await.expect(404);
        // Another account's ad, or another account's category.
        app.get_as(&app.b.key, &format!("/v3/ads/{id}/vasturl/category/{}-cat-sports", app.b.id)).await.expect(404);
        app.get(&format!("/v3/ads/{id}/vasturl/category/{}-cat-sports", app.b.id)).await.expect(404);
    }
}
