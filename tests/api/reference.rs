//! Reference data: seed 002 §2.10, §4.4 (loaded by the seed file).

use api_tests::both_stores;
use api_tests::serde_json::json;

both_stores! {
    async fn categories_form_one_tree(app: TestApp) {
        let a = &app.a.id;
        let r = app.get("/v0/categories").await;
        r.expect(200);
        let list = r.json();
        let list = list.as_array().unwrap();
        assert_eq!(list.len(), 5);
        assert_eq!(list[0]["id"], json!(format!("{a}-cat-root")), "the root first");
        assert_eq!(list[0]["parents"], json!([]));
        assert!(list[1..].iter().all(|c| !c["parents"].as_array().unwrap().is_empty()));
        let one = app.get(&format!("/v0/categories/{a}-cat-sports")).await;
        one.expect(200);
        assert_eq!(one.json(), json!({"id": format!("{a}-cat-sports"), "name": "Sports", "enabled": true, "aliases": ["sport"], "parents": [format!("{a}-cat-root")]}));
        assert_eq!(app.get(&format!("/v0/categories/{a}-cat-kids")).await.json()["enabled"], false);
        app.get("/v0/categories/nope").await.expect(404);
    }

    async fn content_partners_and_banner_areas(app: TestApp) {
        let a = &app.a.id;
        let partners = app.get("/v0/content-partners").await.json();
        assert_eq!(partners.as_array().unwrap().iter().map(|p| p["name"].as_str().unwrap()).collect::<Vec<_>>(), vec!["Northern Studio", "SportsNet"]);
        let p = app.get(&format!("/v0/content-partners/{a}-cp-studio")).await.json();
        assert_eq!(p, json!({"id": format!("{a}-cp-studio"), "name": "Northern Studio", "description": "Drama and film", "enabled": true, "aliases": ["nstudio"]}));
        app.get("/v0/content-partners/nope").await.expect(404);
        let areas = app.get("/v3/banner-areas").await.json();
        assert_eq!(areas.as_array().unwrap().len(), 2);
        let b = app.get(&format!("/v3/banner-areas/{a}-ba-300x250")).await.json();
        assert_eq!(b, json!({"id": format!("{a}-ba-300x250"), "name": "Medium rectangle", "description": "Companion next to the player",
            "type": "companion_banner_javascript", "height": 250, "width": 300}));
        app.get("/v3/banner-areas/nope").await.expect(404);
        // Device containers: what ads and forecasts name, listed without creating an ad.
        let dcs = app.get("/v0/device-containers").await.json();
        let ids: Vec<&str> = dcs.as_array().unwrap().iter().map(|d| d["id"].as_str().unwrap()).collect();
        assert!(!ids.is_empty() && ids.iter().all(|i| i.starts_with(a.as_str())), "{dcs}");
        app.get(&format!("/v0/device-containers/{}", ids[0])).await.expect(200);
        app.get("/v0/device-containers/nope").await.expect(404);
        let b = app.b.key.clone();
        assert!(!app.get_as(&b, "/v0/device-containers").await.body.contains(a.as_str()));
    }

    async fn another_accounts_reference_data_is_not_found(app: TestApp) {
        let b = &app.b.id;
        for p in [format!("/v0/categories/{b}-cat-root"), format!("/v0/content-partners/{b}-cp-studio"), format!("/v3/banner-areas/{b}-ba-728x90")] {
            app.get(&p).await.expect(404);
        }
        let list = app.get("/v0/categories").await.body;
        assert!(!list.contains(b.as_str()));
        app.send("GET", "/v0/categories", None, None, "").await.expect(401);
    }
}
