//! `GET /media/<key>` (docs/media.md, "Delivery"): the local server serves the objects of
//! TRANSCODED assets itself, with byte ranges and `nosniff`, so the documents' MediaFiles
//! play with no CDN.

use api_tests::{both_stores, Res, TestApp};
use axum::body::Body;
use axum::http::Request;
use http_body_util::BodyExt;
use tower::ServiceExt;

async fn media(app: &TestApp, path: &str, headers: &[(&str, &str)]) -> Res {
    let mut req = Request::builder().uri(path);
    for (n, v) in headers {
        req = req.header(*n, *v);
    }
    let res = web::api::media::router(app.state.clone()).oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let bytes = res.into_body().collect().await.unwrap().to_bytes();
    Res { status, headers, body: String::from_utf8_lossy(&bytes).into_owned() }
}

both_stores! {
    async fn asset_objects_are_served_with_byte_ranges(app: TestApp) {
        // An object of 36 known bytes where an asset's master goes (the ranges are checked
        // against them; real media plays in tests/api/player_browser.rs).
        let body = "0123456789abcdefghijklmnopqrstuvwxyz";
        let id = uuid::Uuid::new_v4().to_string();
        let key = web::model::asset::Asset::object_key(&app.a.id, &id, "spot.mp4");
        app.state.blobs.put_bytes(&key, body.as_bytes().to_vec(), "video/mp4").await.unwrap();
        let path = format!("/media/{key}");
        // Served only once its asset is TRANSCODED: never a READY (unlinked) or FAILED upload.
        let now = web::clock::Clock::now(app.clock.as_ref());
        let mut asset = web::model::asset::Asset::new(&id, "spot.mp4", web::model::enums::AssetSource::Upload, now);
        asset.object_key = Some(key.clone());
        asset.status = web::model::asset::READY;
        web::repo::assets::create(app.store.as_ref(), &app.a.id, &asset).await.unwrap();
        media(&app, &path, &[]).await.expect(404);
        for (status, want) in [(web::model::asset::FAILED, 404), (web::model::asset::TRANSCODED, 200)] {
            web::repo::assets::update(app.store.as_ref(), &app.a.id, &id, |a| a.status = status).await.unwrap();
            media(&app, &path, &[]).await.expect(want);
        }

        let full = media(&app, &path, &[]).await;
        full.expect(200);
        assert_eq!(full.body, body);
        assert_eq!(full.header("content-type"), Some("video/mp4"));
        assert_eq!(full.header("x-content-type-options"), Some("nosniff"));
        assert_eq!(full.header("content-length"), Some("36"));
        assert_eq!(full.header("accept-ranges"), Some("bytes"));
        assert_eq!(full.header("access-control-allow-origin"), Some("*"));
        assert!(full.header("cache-control").unwrap().contains("immutable"));
        let etag = full.header("etag").unwrap().to_string();

        let part = media(&app, &path, &[("range", "bytes=10-19")]).await;
        part.expect(206);
        assert_eq!(part.body, "abcdefghij");
        assert_eq!(part.header("content-range"), Some("bytes 10-19/36"));
        assert_eq!(part.header("content-length"), Some("10"));
        let tail = media(&app, &path, &[("range", "bytes=-6")]).await;
        tail.expect(206);
        assert_eq!(tail.body, "uvwxyz");
        let open = media(&app, &path, &[("range", "bytes=30-")]).await;
        assert_eq!((open.status, open.body.as_str()), (206, "uvwxyz"));
        let bad = media(&app, &path, &[("range", "bytes=36-")]).await;
        bad.expect(416);
        assert_eq!(bad.header("content-range"), Some("bytes */36"));
        // A range of another version (If-Range) gets the whole object; a known ETag, 304.
        media(&app, &path, &[("range", "bytes=0-1"), ("if-range", "\"other\"")]).await.expect(200);
        media(&app, &path, &[("if-none-match", &etag)]).await.expect(304);

        // Only asset objects: never an audience file, a missing object or a path escape.
        media(&app, &format!("/media/audience/{}/p/b.csv", app.a.id), &[]).await.expect(404);
        media(&app, &format!("/media/{}/assets/{id}/missing.mp4", app.a.id), &[]).await.expect(404);
        media(&app, &format!("/media/{}/assets/../x", app.a.id), &[]).await.expect(404);
    }
}
