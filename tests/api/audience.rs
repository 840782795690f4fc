//! Audience providers: seed 002 §2.9, §4.3 (read-only; the segmentations endpoint is ours).

use api_tests::serde_json::json;
use api_tests::{both_stores, TestApp};
use web::model::account::AudienceProvider;

async fn add_provider(app: &TestApp, id: &str, name: &str) {
    let p = AudienceProvider { id: id.into(), name: name.into(), url_identifier: id.into(), enabled: true, segmentations: vec![] };
    let item = web::repo::item(web::keys::record(&app.a.id, web::keys::PROVIDER, id), &p, 1).unwrap();
    app.store.put(item, web::store::Cond::NotExists).await.unwrap();
}

both_stores! {
    async fn providers_list_get_and_segmentations(app: TestApp) {
        let a = &app.a.id;
        let r = app.get("/v1/audience/provider").await;
        r.expect(200);
        let v = r.json();
        assert_eq!(v["pagination"], json!({"totalCount": 1, "pageSize": 10, "pageNumber": 1, "links": {
            "first": "/v1/audience/provider?pageSize=10&pageNumber=1", "next": null, "previous": null,
            "last": "/v1/audience/provider?pageSize=10&pageNumber=1"}}));
        let p = &v["providers"][0];
        assert_eq!(p, &json!({"id": format!("{a}-ap-dmp"), "name": "Acme DMP", "urlIdentifier": "acme", "enabled": true,
            "segmentations": {"href": format!("/v1/audience/provider/{a}-ap-dmp/segmentations")}}));
        assert_eq!(&app.get(&format!("/v1/audience/provider/{a}-ap-dmp")).await.json(), p);
        let s = app.get(p["segmentations"]["href"].as_str().unwrap()).await;
        s.expect(200);
        let s = s.json();
        assert_eq!(s["segmentations"][0]["key"], "age");
        assert_eq!(s["segmentations"][0]["segments"][1], json!({"id": format!("{a}-s-age-25"), "key": "25-34", "name": "25 to 34"}));
        assert_eq!(s["segmentations"][1]["key"], "gender");
        app.get("/v1/audience/provider/nope").await.expect(404);
        app.get("/v1/audience/provider/nope/segmentations").await.expect(404);
    }

    async fn providers_are_paged_with_links(app: TestApp) {
        add_provider(&app, "p-b", "Beta data").await;
        add_provider(&app, "p-c", "Cyan data").await;
        let v = app.get("/v1/audience/provider?pageSize=2&pageNumber=2").await.json();
        assert_eq!(v["providers"].as_array().unwrap().len(), 1);
        assert_eq!(v["providers"][0]["name"], "Cyan data");
        assert_eq!(v["pagination"]["links"], json!({"first": "/v1/audience/provider?pageSize=2&pageNumber=1", "next": null,
            "previous": "/v1/audience/provider?pageSize=2&pageNumber=1", "last": "/v1/audience/provider?pageSize=2&pageNumber=2"}));
        let first = app.get("/v1/audience/provider?pageSize=2").await.json();
        assert_eq!(first["pagination"]["links"]["next"], "/v1/audience/provider?pageSize=2&pageNumber=2");
        assert_eq!(first["pagination"]["totalCount"], 3);
        let r = app.get("/v1/audience/provider?pageSize=0").await;
        r.expect(400);
        assert_eq!(r.json()["errors"][0]["field"], "pageSize");
    }

    async fn another_accounts_providers_are_not_found(app: TestApp) {
        let b = &app.b.id;
        app.get(&format!("/v1/audience/provider/{b}-ap-dmp")).await.expect(404);
        assert!(!app.get("/v1/audience/provider").await.body.contains(b.as_str()));
    }
}
