//! HTTP: one axum Router per resource group, the extractors they share, and the format
//! (JSON or XML) each group answers in.

use axum::body::Body;
use axum::extract::{FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Router;
use tracing::Instrument;

use crate::error::{AppError, ErrorBody};
use crate::ids::hash_key;
use crate::model::account::Account;
use crate::repo;
use crate::state::AppState;
use crate::xml::{self, Element, XmlOut};

pub mod ads;
pub mod assets;
pub mod audience;
pub mod bodies;
pub mod body_limit;
pub mod campaigns;
pub mod clients;
pub mod contacts;
pub mod docs_page;
pub mod forecasts;
pub mod goals;
pub mod idempotency;
pub mod media;
pub mod paging;
pub mod policies;
pub mod queries;
pub mod reference;
pub mod rules;
pub mod serving;
pub mod templates;
pub mod xml_examples;

/// Largest request body read (XML beans are a few KB).
pub const MAX_BODY: usize = 1 << 20;
pub const API_KEY_HEADER: &str = "x-o-api-key";

/// The resource groups, one per Lambda: each function's `main` names its own, so nothing
/// chooses a group at run time and the linker keeps only that group's code.
pub mod groups {
    use super::*;

    pub fn clients() -> Routes {
        super::clients::router()
    }
    pub fn contacts() -> Routes {
        super::contacts::router()
    }
    /// Campaigns with the campaign rules routes.
    pub fn campaigns() -> Routes {
        super::campaigns::router().merge(super::rules::campaign_router())
    }
    /// Goals with the goal rules routes.
    pub fn goals() -> Routes {
        super::goals::router().merge(super::rules::goal_router())
    }
    pub fn assets() -> Routes {
        super::assets::router()
    }
    pub fn ads() -> Routes {
        super::ads::router()
    }
    pub fn insertion_policy() -> Routes {
        super::policies::router()
    }
    pub fn queries() -> Routes {
        super::queries::router()
    }
    pub fn reference() -> Routes {
        super::reference::router().merge(super::docs_page::router())
    }
    pub fn audience() -> Routes {
        super::audience::router()
    }
    pub fn targeting_template() -> Routes {
        super::templates::router()
    }
    /// Forecast jobs and reports.
    pub fn forecast() -> Routes {
        super::forecasts::router()
    }
    /// Ad requests (no API key: the account is in the URL).
    pub fn serving() -> Routes {
        super::serving::serving_router()
    }
    /// Signed tracking links of served documents.
    pub fn tracking() -> Routes {
        super::serving::tracking_router()
    }

    /// A group's routes.
    pub type Group = fn() -> Routes;

    /// Every group by the name of its Lambda (the local server, the recorded-event tests).
    pub const ALL: &[(&str, Group)] = &[
        ("clients", clients),
        ("contacts", contacts),
        ("campaigns", campaigns),
        ("goals", goals),
        ("assets", assets),
        ("ads", ads),
        ("insertion-policy", insertion_policy),
        ("queries", queries),
        ("reference", reference),
        ("audience", audience),
        ("targeting-template", targeting_template),
        ("forecast", forecast),
        ("serving", serving),
        ("tracking", tracking),
    ];
}

/// Every group's operations for the OpenAPI document (`crate::openapi` merges them).
pub fn docs() -> Vec<utoipa::openapi::OpenApi> {
    use utoipa::OpenApi;
    vec![
        clients::Doc::openapi(),
        contacts::Doc::openapi(),
        campaigns::Doc::openapi(),
        goals::Doc::openapi(),
        rules::Doc::openapi(),
        ads::Doc::openapi(),
        assets::Doc::openapi(),
        audience::Doc::openapi(),
        policies::Doc::openapi(),
        queries::Doc::openapi(),
        reference::Doc::openapi(),
        docs_page::Doc::openapi(),
        templates::Doc::openapi(),
        forecasts::Doc::openapi(),
        serving::ServingDoc::openapi(),
        serving::TrackingDoc::openapi(),
    ]
}

/// A group's routes: its router and the path patterns it serves, so the route table can
/// be walked (the tenant-isolation sweep tries every route of every group).
#[derive(Default)]
pub struct Routes {
    pub router: Router<AppState>,
    pub paths: Vec<&'static str>,
}

impl Routes {
    pub fn new() -> Self {
        Routes::default()
    }

    pub fn route(mut self, path: &'static str, handlers: axum::routing::MethodRouter<AppState>) -> Self {
        self.router = self.router.route(path, handlers);
        self.paths.push(path);
        self
    }

    pub fn merge(mut self, other: Routes) -> Self {
        self.router = self.router.merge(other.router);
        self.paths.extend(other.paths);
        self
    }
}

/// Every group on one router (the local server), with the shared fallbacks.
pub fn app(state: AppState) -> Router {
    let r = groups::ALL.iter().fold(Router::new(), |r, (_, group)| r.merge(group().router));
    finish(r, state)
}

/// Every group on one router, each group with the state `state_of(group name)` gives it
/// (the tests give each group the store its Lambda's permissions allow).
pub fn app_per_group(state: AppState, state_of: impl Fn(&str) -> AppState) -> Router {
    let r = groups::ALL.iter().fold(Router::new(), |r, (name, group)| r.merge(group().router.with_state::<AppState>(state_of(name))));
    finish(r, state)
}

/// A group's routes with the fallbacks and error rendering every function shares.
pub fn finish(r: Router<AppState>, state: AppState) -> Router {
    r.fallback(no_route)
        .method_not_allowed_fallback(|| async { AppError::MethodNotAllowed })
        .layer(axum::middleware::from_fn_with_state(state.clone(), idempotency::layer))
        .layer(axum::middleware::map_response(render_errors))
        .layer(axum::middleware::from_fn(request_span))
        .with_state(state)
}

/// One span per request: method, route (the matched pattern, not the raw path), the
/// request id (API Gateway's, or one made here) and the account, recorded by `Auth` once
/// the key is known. Every log line of the request carries them; the response logs status
/// and latency.
async fn request_span(req: Request, next: axum::middleware::Next) -> Response {
    // Nothing to log at this level (RUST_LOG=warn): no span, no request id to make.
    if !tracing::enabled!(tracing::Level::INFO) {
        return next.run(req).await;
    }
    let route = req.extensions().get::<axum::extract::MatchedPath>().map(|p| p.as_str().to_string()).unwrap_or_else(|| "-".into());
    let request_id = req
        .headers()
        .get("x-amzn-requestid")
        .or_else(|| req.headers().get("x-request-id"))
        .and_then(|v| v.to_str().ok())
        .map(str::to_string)
        .or_else(|| {
            req.extensions().get::<lambda_http::request::RequestContext>().and_then(|c| match c {
                lambda_http::request::RequestContext::ApiGatewayV2(c) => c.request_id.clone(),
                lambda_http::request::RequestContext::ApiGatewayV1(c) => c.request_id.clone(),
                #[allow(unreachable_patterns)]
                _ => None,
            })
        })
        .unwrap_or_else(crate::ids::fast_id);
    let span =
        tracing::info_span!("request", method = %req.method(), route = %route, request_id = %request_id, account = tracing::field::Empty);
    let started = std::time::Instant::now();
    let res = next.run(req).instrument(span.clone()).await;
    span.in_scope(|| tracing::info!(status = res.status().as_u16(), ms = started.elapsed().as_millis() as u64, "request"));
    res
}

async fn no_route(req: Request) -> AppError {
    AppError::NoRoute(req.uri().path().to_string())
}

/// XML interfaces live under `/api/1.0` (and `/api/1.0.cpvext`); everything else is JSON.
pub fn is_xml_path(path: &str) -> bool {
    path.starts_with("/api/1.0/") || path.starts_with("/api/1.0.")
}

/// Re-renders error bodies as XML on the XML interfaces (the error travels in the
/// response's extensions; see `AppError::into_response`).
async fn render_errors(uri: axum::http::Uri, mut res: Response) -> Response {
    if !is_xml_path(uri.path()) {
        return res;
    }
    let Some(body) = res.extensions_mut().remove::<ErrorBody>() else {
        return res;
    };
    let mut o = XmlOut::new();
    o.open("error").leaf("status", body.status).leaf("type", &body.kind).leaf("message", &body.message);
    if !body.errors.is_empty() {
        o.open("errors");
        for e in &body.errors {
            o.open("fieldError").leaf("field", &e.field).leaf("rule", &e.rule).leaf("message", &e.message).close("fieldError");
        }
        o.close("errors");
    }
    o.close("error");
    let (mut parts, _) = res.into_parts();
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/xml"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(o.finish()))
}

/// The authenticated account (`x-o-api-key`).
pub struct Auth(pub Account);

impl FromRequestParts<AppState> for Auth {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, AppError> {
        let key = parts
            .headers
            .get(API_KEY_HEADER)
            .ok_or_else(|| AppError::Unauthorized(format!("the {API_KEY_HEADER} header is required")))?
            .to_str()
            .map_err(|_| AppError::Unauthorized("unknown API key".into()))?
            .trim();
        if key.is_empty() || key.len() > 256 {
            return Err(AppError::Unauthorized("unknown API key".into()));
        }
        let h = hash_key(key);
        let account = match st.auth_cache.get(&h) {
            Some(a) => a,
            None => {
                let a = repo::accounts::by_key_hash(st.store.as_ref(), &h)
                    .await?
                    .ok_or_else(|| AppError::Unauthorized("unknown API key".into()))?;
                st.auth_cache.put(h, a.clone());
                a
            }
        };
        // The request span (see `request_span`) carries the account from here on.
        tracing::Span::current().record("account", account.id.as_str());
        st.rate_limiter.take(&account.id, st.settings.account_rate_per_sec, st.settings.account_burst)?;
        Ok(Auth(account))
    }
}

pub(crate) fn content_type(headers: &HeaderMap) -> String {
    headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase()
}

pub(crate) fn media_type(headers: &HeaderMap) -> String {
    content_type(headers).split(';').next().unwrap_or("").trim().to_string()
}

async fn read_body(req: Request) -> Result<axum::body::Bytes, AppError> {
    axum::body::to_bytes(req.into_body(), MAX_BODY).await.map_err(|_| AppError::PayloadTooLarge(MAX_BODY))
}

/// An XML request body (`application/xml` or `text/xml`), parsed.
pub struct XmlBody(pub Element);

impl<S: Send + Sync> FromRequest<S> for XmlBody {
    type Rejection = AppError;

    async fn from_request(req: Request, _: &S) -> Result<Self, AppError> {
        let mt = media_type(req.headers());
        if mt != "application/xml" && mt != "text/xml" {
            return Err(AppError::UnsupportedMediaType { expected: "application/xml", got: content_type(req.headers()) });
        }
        let bytes = read_body(req).await?;
        Ok(XmlBody(xml::parse(&bytes)?))
    }
}

/// A form body (`application/x-www-form-urlencoded`), pairs separated by `&` or `;`.
pub struct FormPairs(pub Vec<(String, String)>);

impl<S: Send + Sync> FromRequest<S> for FormPairs {
    type Rejection = AppError;

    async fn from_request(req: Request, _: &S) -> Result<Self, AppError> {
        let mt = media_type(req.headers());
        if mt != "application/x-www-form-urlencoded" {
            return Err(AppError::UnsupportedMediaType { expected: "application/x-www-form-urlencoded", got: content_type(req.headers()) });
        }
        let bytes = read_body(req).await?;
        let text = std::str::from_utf8(&bytes).map_err(|_| AppError::Malformed("form body is not UTF-8".into()))?;
        let mut pairs = Vec::new();
        for part in text.split(['&', ';']).map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part.split_once('=').unwrap_or((part, ""));
            pairs.push((decode_form(k)?, decode_form(v)?));
        }
        Ok(FormPairs(pairs))
    }
}

fn decode_form(s: &str) -> Result<String, AppError> {
    let plus = s.replace('+', " ");
    percent_encoding::percent_decode_str(&plus)
        .decode_utf8()
        .map(|c| c.trim().to_string())
        .map_err(|_| AppError::Malformed("form body is not UTF-8".into()))
}

/// `If-Match: "<version>"` when the client sent one.
pub fn if_match(headers: &HeaderMap) -> Result<Option<u64>, AppError> {
    let Some(v) = headers.get(header::IF_MATCH) else { return Ok(None) };
    let s = v.to_str().unwrap_or("").trim().trim_start_matches("W/").trim_matches('"');
    s.parse::<u64>().map(Some).map_err(|_| AppError::field("If-Match", "etag", "If-Match must be an ETag returned by a GET of this record"))
}

/// A matrix path segment `name;k=v;...`: the value of `id` when the name matches.
pub struct Matrix {
    pub name: String,
    pub params: Vec<(String, String)>,
}

impl Matrix {
    pub fn parse(segment: &str) -> Matrix {
        let mut parts = segment.split(';');
        let name = parts.next().unwrap_or("").to_string();
        let params = parts
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.trim().to_string(), v.trim().to_string())
            })
            .collect();
        Matrix { name, params }
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.params.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.as_str())
    }

    /// The id of a path segment that must be `<name>;id=<id>` under `prefix`: another
    /// matrix name is no route (404), a missing id 400. The one reader of every group's
    /// `by_<kind>_id;id=` segments.
    pub fn id_of(segment: &str, name: &str, prefix: &str) -> Result<String, AppError> {
        let m = Matrix::parse(segment);
        if m.name != name {
            return Err(AppError::NoRoute(format!("{prefix}/{segment}")));
        }
        m.id()
    }

    /// The `id` matrix parameter; missing or empty: 400 naming it. Any other matrix
    /// parameter is 400 too (rule `unknown`): none is silently ignored.
    pub fn id(&self) -> Result<String, AppError> {
        if let Some((k, _)) = self.params.iter().find(|(k, _)| k != "id") {
            return Err(AppError::field(
                format!("{};{k}", self.name),
                "unknown",
                format!("{} takes only the matrix parameter id (got {k:?})", self.name),
            ));
        }
        match self.get("id") {
            Some(v) if !v.is_empty() => Ok(v.to_string()),
            _ => Err(AppError::field(
                format!("{};id", self.name),
                "required",
                format!("the matrix parameter ;id=<id> is required after {}", self.name),
            )),
        }
    }
}

pub fn xml_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/xml")], body).into_response()
}

pub fn text_response(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "text/plain; charset=utf-8")], body).into_response()
}

pub fn with_etag(mut res: Response, version: u64) -> Response {
    if let Ok(v) = HeaderValue::from_str(&format!("\"{version}\"")) {
        res.headers_mut().insert(header::ETAG, v);
    }
    res
}

pub fn no_content() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

/// Requires the update's body id (when sent) to be the path's id.
pub fn check_body_id(root: &str, body_id: &Option<String>, path_id: &str) -> Result<(), AppError> {
    match body_id.as_deref().and_then(|b| crate::domain_error::matches_path(&format!("{root}/id"), b, path_id)) {
        Some(e) => Err(AppError::Validation(vec![e])),
        None => Ok(()),
    }
}

pub fn reject_id_on_create(root: &str, body_id: &Option<String>) -> Result<(), AppError> {
    if body_id.is_some() {
        return Err(AppError::field(
            format!("{root}/id"),
            "notOnCreate",
            format!("{root}/id is set only when updating; the service assigns ids"),
        ));
    }
    Ok(())
}

/// Query-string pairs, in order, percent-decoded (repeatable keys are kept).
pub fn query_pairs(raw: Option<&str>) -> Result<Vec<(String, String)>, AppError> {
    let mut out = Vec::new();
    for part in raw.unwrap_or("").split('&').filter(|p| !p.is_empty()) {
        let (k, v) = part.split_once('=').unwrap_or((part, ""));
        out.push((decode_form(k)?, decode_form(v)?));
    }
    Ok(out)
}

/// The single value of a query parameter; given twice: 400.
pub fn single<'a>(pairs: &'a [(String, String)], name: &str) -> Result<Option<&'a str>, AppError> {
    let mut vals = pairs.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let first = vals.next();
    if vals.next().is_some() {
        return Err(AppError::field(name, "single", format!("query parameter {name} may be given only once")));
    }
    Ok(first)
}

/// A JSON request body (`application/json`), parsed.
pub struct JsonBody(pub serde_json::Value);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        let JsonBytes(bytes) = JsonBytes::from_request(req, state).await?;
        serde_json::from_slice(&bytes).map(JsonBody).map_err(|e| AppError::Malformed(format!("malformed JSON: {e}")))
    }
}

/// A JSON request body as raw bytes (for typed parsing with field paths).
pub struct JsonBytes(pub axum::body::Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBytes {
    type Rejection = AppError;

    async fn from_request(req: Request, _: &S) -> Result<Self, AppError> {
        let mt = media_type(req.headers());
        if mt != "application/json" {
            return Err(AppError::UnsupportedMediaType { expected: "application/json", got: content_type(req.headers()) });
        }
        let bytes = read_body(req).await?;
        serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).map_err(|e| AppError::Malformed(format!("malformed JSON: {e}")))?;
        Ok(JsonBytes(bytes))
    }
}

/// `pageSize` (1-100, default 10) and `pageNumber` (≥ 1, default 1): the seeds' paging.
pub fn paging(pairs: &[(String, String)]) -> Result<(usize, usize), AppError> {
    paging::Paging::parse_in(pairs, paging::SEED_PAGES).map(|p| (p.size, p.number))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matrix_segments() {
        let m = Matrix::parse("by_campaign_id;id=abc-1");
        assert_eq!(m.name, "by_campaign_id");
        assert_eq!(m.id().unwrap(), "abc-1");
        // Any other matrix parameter is refused, not ignored.
        match Matrix::parse("by_campaign_id;x=1;id=z").id() {
            Err(AppError::Validation(e)) => assert_eq!((e[0].field.as_str(), e[0].rule.as_str()), ("by_campaign_id;x", "unknown")),
            other => panic!("{other:?}"),
        }
        assert!(Matrix::parse("by_campaign_id").id().is_err());
        assert!(Matrix::parse("by_campaign_id;id=").id().is_err());
    }

    #[test]
    fn xml_paths() {
        assert!(is_xml_path("/api/1.0/campaign"));
        assert!(is_xml_path("/api/1.0.cpvext/goal"));
        assert!(!is_xml_path("/api/2.0/targeting-template"));
        assert!(!is_xml_path("/v1/ads"));
    }
}
