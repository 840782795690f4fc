//! Deleting and listing ads and assets: `DELETE /v1/ads/{id}` stops the
//! ad serving and keeps what it delivered in its goal's metrics; `GET /v1/assets/video`
//! pages the account's assets; `DELETE /v1/assets/video/{id}` refuses an asset an ad names.

use api_tests::serde_json::json;
use api_tests::{both_stores, clip};

use crate::serving::{ad, ad_ids, link};

both_stores! {
    async fn a_deleted_ad_stops_serving_and_its_delivery_stays_counted(app: TestApp) {
        let (_, g) = app.live_goal().await;
        let id = ad(&app, &g, "preroll", json!({})).await;
        let doc = app.ad_request("format=preroll").await.body;
        assert_eq!(ad_ids(&doc), vec![id.clone()]);
        app.fire(&link(&doc, "impression")).await.expect(204);
        app.wait_metric(&id, "impression", 1).await;

        let path = format!("/v1/ads/{id}");
        let etag = app.get(&path).await.header("etag").unwrap().to_string();
        // A stale If-Match, another account, then the delete.
        app.send_with_headers("DELETE", &path, Some(&app.a.key), None, "", &[("if-match", "\"999\"")]).await.expect(412);
        app.send("DELETE", &path, Some(&app.b.key), None, "").await.expect(404);
        app.send_with_headers("DELETE", &path, Some(&app.a.key), None, "", &[("if-match", etag.as_str())]).await.expect(204);
        app.get(&path).await.expect(404);
        app.delete(&path).await.expect(404);
        assert!(ad_ids(&app.ad_request("format=preroll").await.body).is_empty(), "a deleted ad is not served");
        let listed = app.get("/v1/ads").await.json();
        assert!(!listed.to_string().contains(&id), "{listed}");
        let goal = app.get(&format!("/v3/goals/{g}?embed=metrics")).await.json();
        assert_eq!(goal["metrics"]["impression"], 1, "what it delivered stays with its goal: {goal}");
        assert!(!goal["ads"].to_string().contains(&id), "{goal}");
        // The events of a document served before the delete still count.
        app.fire(&link(&doc, "start")).await.expect(204);
    }

    async fn assets_are_listed_a_page_at_a_time_and_deleted_when_no_ad_names_them(app: TestApp) {
        let first = app.upload_asset("first.mp4", clip()).await;
        let second = app.upload_asset("second.mp4", clip()).await;
        app.wait_asset(&format!("/v1/assets/video/{first}")).await;
        app.wait_asset(&format!("/v1/assets/video/{second}")).await;
        let page = app.get("/v1/assets/video").await;
        page.expect(200);
        let ids: Vec<String> = page.json()["assets"].as_array().unwrap().iter().map(|a| a["id"].as_str().unwrap().to_string()).collect();
        let mut want = vec![first.clone(), second.clone()];
        want.sort();
        assert_eq!(ids, want, "id order");
        let one = app.get("/v1/assets/video?limit=1").await.json();
        assert_eq!(one["assets"].as_array().unwrap().len(), 1);
        let after = one["nextAfter"].as_str().expect("a next page").to_string();
        let rest = app.get(&format!("/v1/assets/video?limit=1&after={after}")).await.json();
        assert_eq!(rest["assets"][0]["id"], want[1].as_str(), "{rest}");
        assert_eq!(app.get("/v1/assets/video?status=FAILED").await.json()["assets"], json!([]));
        // An empty `after` is the first page (on DynamoDB too, which refuses empty key values).
        assert_eq!(app.get("/v1/assets/video?after=&limit=1").await.json()["assets"][0]["id"], want[0].as_str());
        for bad in ["status=BOGUS", "limit=0", "limit=201", "after=aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"] {
            let r = app.get(&format!("/v1/assets/video?{bad}")).await;
            r.expect(400);
            assert_eq!(r.json()["errors"][0]["field"], bad.split('=').next().unwrap(), "{}", r.body);
        }
        // The other account sees none of them and cannot delete them.
        assert_eq!(app.get_as(&app.b.key, "/v1/assets/video").await.json()["assets"], json!([]));
        app.send("DELETE", &format!("/v1/assets/video/{first}"), Some(&app.b.key), None, "").await.expect(404);

        // An asset an ad names: 409 naming the ad; after the ad is gone, deleted.
        let (_, g) = app.live_goal().await;
        let r = app.post_json("/v1/ads", &json!({"name": "Spot", "goalId": g,
            "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": first}})).await;
        r.expect(201);
        let ad_id = r.json()["id"].as_str().unwrap().to_string();
        let refused = app.delete(&format!("/v1/assets/video/{first}")).await;
        refused.expect(409);
        assert!(refused.body.contains(&ad_id), "{}", refused.body);
        app.get(&format!("/v1/assets/video/{first}")).await.expect(200);
        app.delete(&format!("/v1/ads/{ad_id}")).await.expect(204);
        app.delete(&format!("/v1/assets/video/{first}")).await.expect(204);
        app.get(&format!("/v1/assets/video/{first}")).await.expect(404);
        app.delete(&format!("/v1/assets/video/{first}")).await.expect(404);
        let ids = app.get("/v1/assets/video").await.json()["assets"].to_string();
        assert!(!ids.contains(&first) && ids.contains(&second), "{ids}");
        // An ad can no longer link it.
        let r = app.post_json("/v1/ads", &json!({"name": "Spot", "goalId": g,
            "creative": {"type": "standard", "insertionPoint": "preroll", "assetId": first}})).await;
        r.expect(400);
        assert_eq!(r.json()["errors"][0]["field"], "creative.assetId");
    }
}
