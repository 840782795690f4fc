//! The API's own documentation, public (no API key): `GET /openapi.json` (the OpenAPI 3.1
//! document, docs/openapi.md) and `GET /docs`, an interactive reference (Swagger UI over
//! that document, "try it out" with the account's key, kept for the page's life only: never
//! persisted in the browser's storage). The UI's script and stylesheet are
//! the `swagger-ui-dist` crate's (a registry package: no CDN); the page is this module's own
//! static HTML with a static script, so nothing of a request is ever written into it (the
//! crate's index page writes the request's URI unescaped; it is not mounted).

use axum::body::Body;
use axum::extract::Path;
use axum::http::{header, Request, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, MethodRouter};
use bytes::Bytes;
use http_body_util::BodyExt;
use tokio::sync::OnceCell;
use tower::ServiceExt;

const PAGE: &str = r#"<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Video advertising campaigns API - reference</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/docs/swagger-ui.css">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
"#;

const INIT: &str = "window.onload = function () {\n  window.ui = SwaggerUIBundle({ url: '/openapi.json', dom_id: '#swagger-ui', \
deepLinking: true, persistAuthorization: false, tryItOutEnabled: false });\n};\n";

/// The page's policy: only this origin's scripts and styles (Swagger UI sets inline styles).
const CSP: &str = "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'";

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(openapi, page, file), tags((name = "documentation", description = "This API's own documentation: the OpenAPI document and the interactive reference (public)")))]
pub struct Doc;

/// The documentation's routes: stateless, so the same table makes the group's routes (the
/// local server, the tests) and the docs function's router, which builds no store.
pub const PATHS: [&str; 3] = ["/openapi.json", "/docs", "/docs/{file}"];

fn methods<S: Clone + Send + Sync + 'static>() -> [MethodRouter<S>; 3] {
    [get(openapi), get(page), get(file)]
}

/// The group's routes, merged with the others on one router.
pub fn router() -> super::Routes {
    PATHS.into_iter().zip(methods()).fold(super::Routes::new(), |r, (path, m)| r.route(path, crate::api::Access::Public, m))
}

/// The docs function's router: the same routes with no state.
pub fn public_router() -> axum::Router {
    PATHS.into_iter().zip(methods()).fold(axum::Router::new(), |r, (path, m)| r.route(path, m))
}

/// The OpenAPI document, as committed (`openapi::json` writes it; a unit test keeps the file
/// current), so no function links the document's generation.
pub const DOCUMENT: &str = include_str!("../../../../docs/openapi.json");

#[utoipa::path(get, path = "/openapi.json", tag = "documentation", summary = "This API's OpenAPI 3.1 document",
    description = "Every operation, parameter and schema of the API (docs/openapi.md), generated from the handlers. Public; \
        served with `Access-Control-Allow-Origin: *` so other tools can load it.",
    responses((status = 200, description = "The document", content_type = "application/json", body = Object)))]
async fn openapi() -> Response {
    ([(header::CONTENT_TYPE, "application/json"), (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*")], DOCUMENT).into_response()
}

#[utoipa::path(get, path = "/docs", tag = "documentation", summary = "The interactive API reference (Swagger UI)",
    description = "A page that draws `/openapi.json` with Swagger UI: every operation with its parameters, bodies, examples and \
        responses; *Authorize* with the account's API key to try calls. Public; no script or style from another origin.",
    responses((status = 200, description = "The page", content_type = "text/html", body = String)))]
async fn page() -> Response {
    (
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        PAGE,
    )
        .into_response()
}

fn static_file(content_type: &'static str, body: Bytes) -> Response {
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "public, max-age=86400"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        body,
    )
        .into_response()
}

#[utoipa::path(get, path = "/docs/{file}", tag = "documentation", summary = "A file of the reference page (script or stylesheet)",
    params(("file" = String, Path, description = "swagger-ui-bundle.js, swagger-ui.css or init.js")),
    responses((status = 200, description = "The file (cached for a day)", content((String = "text/javascript"), (String = "text/css"))),
        (status = 404, description = "No such file", body = crate::api::error::ErrorBody)))]
async fn file(Path(name): Path<String>) -> Response {
    match name.as_str() {
        "init.js" => static_file("text/javascript; charset=utf-8", Bytes::from_static(INIT.as_bytes())),
        "swagger-ui.css" => asset("swagger-ui.css", "text/css; charset=utf-8").await,
        "swagger-ui-bundle.js" => asset("swagger-ui-bundle.js", "text/javascript; charset=utf-8").await,
        _ => crate::api::error::AppError::not_found("file", name).into_response(),
    }
}

/// One of the crate's assets, read once through its router (its only public interface).
async fn asset(name: &'static str, content_type: &'static str) -> Response {
    static CSS: OnceCell<Option<Bytes>> = OnceCell::const_new();
    static JS: OnceCell<Option<Bytes>> = OnceCell::const_new();
    let cell = if name.ends_with(".css") { &CSS } else { &JS };
    let body = cell
        .get_or_init(|| async move {
            let ui = swagger_ui_dist::generate_routes(swagger_ui_dist::ApiDefinition {
                uri_prefix: "/ui",
                api_definition: swagger_ui_dist::OpenApiSource::Uri("/openapi.json"),
                title: None,
            });
            let req = Request::get(format!("/ui/{name}")).body(Body::empty()).ok()?;
            let res = ui.oneshot(req).await.ok()?;
            if res.status() != StatusCode::OK {
                return None;
            }
            res.into_body().collect().await.ok().map(|b| b.to_bytes())
        })
        .await
        .clone();
    match body {
        Some(b) => static_file(content_type, b),
        None => crate::api::error::AppError::internal(std::io::Error::other(format!("the reference page's {name} could not be read")))
            .into_response(),
    }
}
