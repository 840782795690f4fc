//! The route table: every resource group's routes (one group per Lambda), the OpenAPI
//! operations of each, and what every function's router shares (the request span, the
//! fallbacks, XML error bodies on the XML interfaces, idempotency).

use axum::body::Body;
use axum::extract::Request;
use axum::http::{header, HeaderValue};
use axum::response::Response;
use axum::Router;
use tracing::Instrument;

use crate::api::error::{AppError, ErrorBody};
use crate::api::roles::{Access, Declared, Surface};
use crate::api::{
    ads, assets, audience, campaigns, clients, contacts, demand, docs_page, forecasts, goals, idempotency, policies, queries, reference,
    rules, serving, stitchers, templates,
};
use crate::state::AppState;
use crate::xml::XmlOut;

/// The resource groups, one per Lambda: each function's `main` names its own, so nothing
/// chooses a group at run time and the linker keeps only that group's code.
pub mod groups {
    use super::Routes;
    use crate::api::{
        ads, assets, audience, campaigns, clients, contacts, docs_page, forecasts, goals, policies, queries, reference, rules, serving,
        stitchers, templates,
    };

    pub fn clients() -> Routes {
        clients::router()
    }
    pub fn contacts() -> Routes {
        contacts::router()
    }
    /// Campaigns with the campaign rules routes.
    pub fn campaigns() -> Routes {
        campaigns::router().merge(rules::campaign_router())
    }
    /// Goals with the goal rules routes.
    pub fn goals() -> Routes {
        goals::router().merge(rules::goal_router())
    }
    pub fn assets() -> Routes {
        assets::router()
    }
    pub fn ads() -> Routes {
        ads::router().merge(crate::api::bulk::ads_router())
    }
    pub fn insertion_policy() -> Routes {
        policies::router()
    }
    /// The /v3 queries, reports, the inspector and preview links; with the console's "Why
    /// not serving" page, which runs the same inspector.
    pub fn queries() -> Routes {
        queries::router().merge(crate::api::preview::links_router()).merge(crate::api::console::queries_router())
    }
    pub fn reference() -> Routes {
        reference::router()
    }
    /// The API's own documentation (public, stateless: the docs function builds no store).
    pub fn docs() -> Routes {
        docs_page::router()
    }
    pub fn audience() -> Routes {
        audience::router().merge(crate::api::console::audience_router())
    }
    pub fn targeting_template() -> Routes {
        templates::router()
    }
    /// Forecast jobs and reports, and the console's Forecasts pages.
    pub fn forecast() -> Routes {
        forecasts::router().merge(crate::api::console::forecast_router())
    }
    /// Ad requests (no API key: the account is in the URL).
    pub fn serving() -> Routes {
        serving::serving_router().merge(crate::api::preview::public_router())
    }
    /// Server-side ad insertion stitchers (JSON, API key).
    pub fn stitchers() -> Routes {
        stitchers::router().merge(crate::api::console::stitchers_router())
    }
    /// Programmatic demand: demand partners and marketplaces (JSON, API key).
    pub fn demand() -> Routes {
        crate::api::demand::router().merge(crate::api::console::demand_router())
    }
    /// Ad operations across record kinds: change history and revert.
    pub fn operations() -> Routes {
        crate::api::changes::router().merge(crate::api::bulk::goals_router())
    }
    /// Signed tracking links of served documents.
    pub fn tracking() -> Routes {
        serving::tracking_router()
    }
    /// Users and API keys (JSON, ADMIN), and the console's pages of them: only this
    /// function writes API-key records (docs/people-and-roles.md, "Permissions").
    pub fn access() -> Routes {
        crate::api::access::router().merge(crate::api::console::admin_router())
    }
    /// The console's pages (HTML, a user's session).
    pub fn console() -> Routes {
        crate::api::console::router()
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
        ("docs", docs),
        ("audience", audience),
        ("targeting-template", targeting_template),
        ("forecast", forecast),
        ("serving", serving),
        ("tracking", tracking),
        ("stitchers", stitchers),
        ("demand", demand),
        ("operations", operations),
        ("access", access),
        ("console", console),
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
        stitchers::Doc::openapi(),
        demand::Doc::openapi(),
        crate::api::changes::Doc::openapi(),
        crate::api::bulk::Doc::openapi(),
        crate::api::preview::Doc::openapi(),
        crate::api::preview::PublicDoc::openapi(),
        crate::api::access::Doc::openapi(),
    ]
}

/// A group's routes: its router, the path patterns it serves and who may call each
/// (`Access`, declared with the route: a route cannot be added without one), so the route
/// table can be walked (the tenant and role sweeps try every route of every group) and the
/// gate (`api::gate`) knows every route's declaration.
pub struct Routes {
    router: Router<AppState>,
    declared: Vec<(&'static str, Declared)>,
    surface: Surface,
}

impl Default for Routes {
    fn default() -> Self {
        Routes { router: Router::new(), declared: Vec::new(), surface: Surface::Api }
    }
}

impl Routes {
    /// API routes.
    pub fn new() -> Self {
        Routes::default()
    }

    /// Console pages (a session only; the session's idle end pushed on).
    pub fn console() -> Self {
        Routes { surface: Surface::Console { keep_alive: true }, ..Routes::default() }
    }

    /// Console pages served by a function that writes nothing (the session is not touched).
    pub fn console_reading() -> Self {
        Routes { surface: Surface::Console { keep_alive: false }, ..Routes::default() }
    }

    /// Routes `path` to `handlers`, callable as `access` says.
    pub fn route(mut self, path: &'static str, access: Access, handlers: axum::routing::MethodRouter<AppState>) -> Self {
        self.router = self.router.route(path, handlers);
        self.declare(path, Declared { access, surface: self.surface });
        self
    }

    pub fn merge(mut self, other: Routes) -> Self {
        self.router = self.router.merge(other.router);
        for (path, d) in other.declared {
            self.declare(path, d);
        }
        self
    }

    /// Each route's group state (the tests give each group the store its Lambda's
    /// permissions allow).
    pub fn with_state(mut self, st: AppState) -> Self {
        self.router = self.router.with_state::<AppState>(st);
        self
    }

    /// Every path pattern, in the order routed.
    pub fn paths(&self) -> Vec<&'static str> {
        self.declared.iter().map(|(p, _)| *p).collect()
    }

    /// Every route's declaration, in the order routed.
    pub fn declared(&self) -> &[(&'static str, Declared)] {
        &self.declared
    }

    /// One declaration a path: a path declared twice two ways is a bug, found when the
    /// router is built (at start), never at a request.
    fn declare(&mut self, path: &'static str, d: Declared) {
        match self.declared.iter().find(|(p, _)| *p == path) {
            Some((_, before)) => assert_eq!(*before, d, "{path} is declared twice, two ways"),
            None => self.declared.push((path, d)),
        }
    }
}

/// Every group on one router (the local server), with the shared fallbacks.
pub fn app(state: AppState) -> Router {
    let r = groups::ALL.iter().fold(Routes::new(), |r, (_, group)| r.merge(group()));
    finish(r, state)
}

/// Every group on one router, each group with the state `state_of(group name)` gives it
/// (the tests give each group the store its Lambda's permissions allow).
pub fn app_per_group(state: AppState, state_of: impl Fn(&str) -> AppState) -> Router {
    let r = groups::ALL.iter().fold(Routes::new(), |r, (name, group)| r.merge(group().with_state(state_of(name))));
    finish(r, state)
}

/// A stateless router (the docs function) with the fallbacks, the error rendering and the
/// request span every function shares; no Idempotency-Key records (it writes nothing).
pub fn finish_public(r: Router) -> Router {
    r.fallback(no_route)
        .method_not_allowed_fallback(|| async { AppError::MethodNotAllowed })
        .layer(axum::middleware::map_response(render_errors))
        .layer(axum::middleware::from_fn(request_span))
}

/// A group's routes with the fallbacks and error rendering every function shares, behind
/// the gate: every route's caller is admitted as it declares (`api::gate`) before any other
/// layer or the handler reads the request.
pub fn finish(r: Routes, state: AppState) -> Router {
    let gate = crate::api::gate::Gate::new(state.clone(), r.declared());
    r.router
        .fallback(no_route)
        .method_not_allowed_fallback(|| async { AppError::MethodNotAllowed })
        .layer(axum::middleware::from_fn(crate::api::known_params::layer))
        .layer(axum::middleware::from_fn_with_state(state.clone(), record_changes))
        .layer(axum::middleware::from_fn_with_state(state.clone(), idempotency::layer))
        .layer(axum::middleware::from_fn_with_state(gate, crate::api::gate::layer))
        .layer(axum::middleware::map_response(render_errors))
        .layer(axum::middleware::from_fn(request_span))
        .with_state(state)
}

/// One span per request: method, route (the matched pattern, not the raw path), the
/// request id (API Gateway's, or one made here) and the account, recorded by `Auth` once
/// the key is known. Every log line of the request carries them; the response logs status
/// and latency.
async fn request_span(req: Request, next: axum::middleware::Next) -> Response {
    // Nothing to log at this level (RUST_LOG=warn): no span (a write's change record still
    // takes its request id, see `record_changes`).
    if !tracing::enabled!(tracing::Level::INFO) {
        return next.run(req).await;
    }
    let route = req.extensions().get::<axum::extract::MatchedPath>().map(|p| p.as_str().to_string()).unwrap_or_else(|| "-".into());
    let request_id = request_id(&req);
    let mut req = req;
    req.extensions_mut().insert(RequestId(request_id.clone()));
    let span =
        tracing::info_span!("request", method = %req.method(), route = %route, request_id = %request_id, account = tracing::field::Empty);
    let started = std::time::Instant::now();
    let res = next.run(req).instrument(span.clone()).await;
    span.in_scope(|| tracing::info!(status = res.status().as_u16(), ms = started.elapsed().as_millis() as u64, "request"));
    res
}

/// The request's id, as its log lines carry it.
#[derive(Clone)]
struct RequestId(String);

/// API Gateway's request id (or the client's `x-request-id`), or one made here.
fn request_id(req: &Request) -> String {
    req.headers()
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
        .unwrap_or_else(crate::ids::fast_id)
}

/// A request that may write runs within a unit of work with change history
/// (`repo::changes::Work`): its writes of records carry their change records.
async fn record_changes(
    axum::extract::State(st): axum::extract::State<AppState>,
    mut req: Request,
    next: axum::middleware::Next,
) -> Response {
    if req.method() == axum::http::Method::GET || req.method() == axum::http::Method::HEAD {
        return next.run(req).await;
    }
    let id = req.extensions().get::<RequestId>().map(|r| r.0.clone()).unwrap_or_else(|| request_id(&req));
    // The request's unit of work: the handler's state (`Ctx`) writes within it.
    let work = crate::repo::changes::Work::recorded(id, st.clock.now());
    // Its change records name who made it (never a key's secret) and the role the route
    // needed, so a revert can ask for the same (the gate admitted the caller).
    if let Some(admitted) = req.extensions().get::<crate::api::roles::Admitted>() {
        work.set_actor(admitted.principal.actor.clone());
        work.set_role(admitted.needed);
    }
    req.extensions_mut().insert(work.clone());
    let res = next.run(req).await;
    // Its changes to what an account serves queue one compile of the account.
    crate::usecases::compile::requested_by(&st, &work).await;
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
            o.open("fieldError").leaf("field", &e.field).leaf("rule", e.rule).leaf("message", &e.message).close("fieldError");
        }
        o.close("errors");
    }
    o.close("error");
    let (mut parts, _) = res.into_parts();
    parts.headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/xml"));
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(o.finish()))
}
