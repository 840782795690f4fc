//! Targeting templates `/api/2.0/targeting-template` (seed 002 §2.1-§2.3, §4.1, §7;
//! docs/targeting-templates.md), JSON. Linking (designed here: the seeds name it without an
//! endpoint) is `PUT|DELETE /api/2.0/targeting-template/{id}/link?campaignId=|goalId=`.

use crate::rule::Rule;
use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::Json;

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{if_match, no_content, query_pairs, single, with_etag, Auth, JsonBody};
use crate::json::ObjReader;
use crate::model::account::{Account, AudienceProvider, CustomParameter};
use crate::model::rules::Parent;
use crate::model::template::{self, Template};
use crate::repo;
use crate::repo::reference::Kind;
use crate::state::AppState;
use axum::http::StatusCode;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, create, usage, get_one, update, remove, get_rules, put_rules, import, link, unlink),
    tags((name = "targeting-template", description = "Targeting templates (seed 002 §2.1-§2.3)"))
)]
pub struct Doc;

/// `GET .../usage`.
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub active: i64,
    pub max: u32,
    /// Empty until the limit is reached.
    pub message_title: String,
    pub message_body: String,
}

/// The answer of a create at the account's limit (seed 002 §4.1): exactly `{type, message}`.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct LimitReached {
    /// ForbiddenError.
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub message: String,
}

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/api/2.0/targeting-template", get(list).post(create))
        .route("/api/2.0/targeting-template/usage", get(usage))
        .route("/api/2.0/targeting-template/{id}", get(get_one).put(update).delete(remove))
        .route("/api/2.0/targeting-template/{id}/rules", get(get_rules).put(put_rules))
        .route("/api/2.0/targeting-template/{id}/import", post(import))
        .route("/api/2.0/targeting-template/{id}/link", put(link).delete(unlink))
}

fn limit_message(active: i64, max: u32) -> String {
    format!("You are using {active} of {max} allowed targeting templates. Remove obsolete templates before creating new ones.")
}

/// `{active, max, messageTitle, messageBody}`; the messages are filled once the limit is reached.
#[utoipa::path(get, path = "/api/2.0/targeting-template/usage", tag = "targeting-template", summary = "How many targeting templates the account has, and may have", description = "`{active, max, messageTitle, messageBody}`; the messages are filled once the limit is reached.",
    responses((status = 200, description = "Templates in use and the account's limit", body = Usage)))]
async fn usage(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    let active = repo::templates::count(st.store.as_ref(), &a.id).await?;
    let max = a.limits.targeting_templates;
    let reached = active >= i64::from(max);
    let (title, body) =
        if reached { ("Targeting template limit reached".to_string(), limit_message(active, max)) } else { (String::new(), String::new()) };
    Ok(Json(Usage { active, max, message_title: title, message_body: body }).into_response())
}

/// The target of `campaignId` / `goalId` (exactly one), checked to exist in the account.
async fn target(st: &AppState, a: &Account, pairs: &[(String, String)], required: bool) -> AppResult<Option<(Parent, String)>> {
    if let Some((k, _)) = pairs.iter().find(|(k, _)| k != "campaignId" && k != "goalId") {
        return Err(AppError::field(k, Rule::Unknown, format!("unknown query parameter {k}; expected campaignId or goalId")));
    }
    let c = single(pairs, "campaignId")?.filter(|v| !v.is_empty());
    let g = single(pairs, "goalId")?.filter(|v| !v.is_empty());
    match (c, g) {
        (Some(_), Some(_)) => Err(AppError::field("goalId", Rule::Exclusive, "give campaignId or goalId, not both")),
        (Some(c), None) => {
            repo::campaigns::load(st.store.as_ref(), &a.id, c).await?;
            Ok(Some((Parent::Campaign, c.to_string())))
        }
        (None, Some(g)) => {
            repo::goals::load(st.store.as_ref(), &a.id, g).await?;
            Ok(Some((Parent::Goal, g.to_string())))
        }
        (None, None) if required => Err(AppError::field("campaignId", Rule::Required, "query parameter campaignId or goalId is required")),
        (None, None) => Ok(None),
    }
}

/// GET: the account's templates by name; `campaignId` / `goalId`: only those linked to it.
#[utoipa::path(get, path = "/api/2.0/targeting-template", tag = "targeting-template", summary = "List the account's targeting templates", params(("campaignId" = Option<String>, Query, description = "A campaign of the account (or goalId)"), ("goalId" = Option<String>, Query)),
    responses((status = 200, description = "The templates by name (only those linked to the target, when given)", body = Vec<crate::model::template::TemplateView>)))]
async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let mut templates: Vec<Template> = match target(&st, &a, &pairs, false).await? {
        None => repo::templates::all(st.store.as_ref(), &a.id).await?,
        Some((parent, id)) => repo::templates::linked_to(st.store.as_ref(), &a.id, parent, &id).await?,
    };
    templates.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    let tz = a.tz();
    Ok(Json(templates.iter().map(|t| t.view(tz)).collect::<Vec<_>>()).into_response())
}

#[utoipa::path(get, path = "/api/2.0/targeting-template/{id}", tag = "targeting-template", summary = "Read a targeting template", params(("id" = String, Path)),
    responses((status = 200, description = "The template", body = crate::model::template::TemplateView, headers(("ETag" = String)))))]
async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let t = repo::templates::load(st.store.as_ref(), &a.id, &id).await?;
    Ok(with_etag(Json(t.value.view(a.tz())).into_response(), t.version()))
}

fn name_of(r: &mut ObjReader) -> Option<String> {
    let name = r.str_req("name", template::MAX_NAME);
    if let Some(n) = &name {
        if n.chars().any(char::is_control) {
            r.err("name", Rule::Format, "name may not hold control characters");
            return None;
        }
    }
    name.map(|n| n.trim().to_string())
}

/// What a create or update body may hold.
pub const TEMPLATE_FIELDS: &[&str] = &["id", "name", "siteId", "created"];

/// POST `{name}` → 200 with the (empty) template; at the limit 403 `{type, message}`.
#[utoipa::path(post, path = "/api/2.0/targeting-template", tag = "targeting-template", summary = "Create a targeting template", description = "POST `{name}` → 200 with the (empty) template; at the limit 403 `{type, message}`.", request_body(content = super::bodies::TemplateWrite, example = json!({"name": "Sports, desktop"})),
    responses((status = 200, description = "Created, with empty rules", body = crate::model::template::TemplateView),
        (status = 403, description = "The account's limit is reached", body = LimitReached)))]
async fn create(State(st): State<AppState>, Auth(a): Auth, JsonBody(body): JsonBody) -> AppResult<Response> {
    let mut r = ObjReader::new(&body, "", TEMPLATE_FIELDS);
    let name = name_of(&mut r);
    if r.present("id") {
        r.err("id", Rule::NotOnCreate, "id is set by the service");
    }
    if let Some(site) = r.get("siteId") {
        if site.as_str() != Some(a.id.as_str()) {
            r.err("siteId", Rule::MatchesAccount, format!("siteId must be this account's id ({}) or left out", a.id));
        }
    }
    let Some(name) = name.filter(|_| r.errors.is_empty()) else { return Err(AppError::Validation(r.errors)) };
    let max = a.limits.targeting_templates;
    let id = crate::ids::new_id();
    let t = Template { rules: crate::model::rules::Rules::empty(&id), id, name, site_id: a.id.clone(), created: st.clock.now() };
    match repo::templates::create(st.store.as_ref(), &a.id, &t, max).await? {
        repo::templates::Created::Done => {
            tracing::info!(template = %t.id, "targeting template created");
            Ok(Json(t.view(a.tz())).into_response())
        }
        repo::templates::Created::AtLimit(active) => {
            // Exactly {type, message} (seed 002 §4.1, §7).
            let body = LimitReached { kind: "ForbiddenError", message: limit_message(active, max) };
            Ok((StatusCode::FORBIDDEN, Json(body)).into_response())
        }
    }
}

/// PUT `{id, name, siteId}`: only the name changes; 204.
#[utoipa::path(put, path = "/api/2.0/targeting-template/{id}", tag = "targeting-template", request_body(content = super::bodies::TemplateWrite, example = json!({"name": "Sports, desktop"})),
    params(("id" = String, Path), ("If-Match" = Option<String>, Header)),
    responses((status = 204, description = "Renamed")))]
async fn update(
    State(st): State<AppState>,
    Auth(a): Auth,
    Path(id): Path<String>,
    headers: axum::http::HeaderMap,
    JsonBody(body): JsonBody,
) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    // Found in the caller's account first (404), then the body is validated.
    let cur = repo::templates::load(st.store.as_ref(), &a.id, &id).await?;
    let mut r = ObjReader::new(&body, "", TEMPLATE_FIELDS);
    let name = name_of(&mut r);
    if let Some(v) = r.get("id") {
        let body_id = v.as_str().map_or_else(|| format!("{v} (not a string)"), str::to_string);
        if let Some(e) = crate::domain_error::matches_path("id", &body_id, &id) {
            r.errors.push(e);
        }
    }
    if let Some(v) = r.get("siteId") {
        if v.as_str() != Some(a.id.as_str()) {
            r.err("siteId", Rule::Immutable, format!("siteId cannot be changed (it is {})", a.id));
        }
    }
    let Some(name) = name.filter(|_| r.errors.is_empty()) else { return Err(AppError::Validation(r.errors)) };
    repo::templates::update(st.store.as_ref(), &a.id, cur, expected, |t| {
        t.name = name.clone();
        Ok(())
    })
    .await?;
    Ok(no_content())
}

/// DELETE: 204; the template's links to campaigns and goals go with it.
#[utoipa::path(delete, path = "/api/2.0/targeting-template/{id}", tag = "targeting-template", params(("id" = String, Path)),
    responses((status = 204, description = "Deleted and unlinked")))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    repo::templates::remove(st.store.as_ref(), &a.id, &id).await?;
    tracing::info!(template = %id, "targeting template deleted and unlinked");
    Ok(no_content())
}

async fn names(st: &AppState, account: &str) -> AppResult<(Vec<String>, Vec<String>)> {
    let providers: Vec<AudienceProvider> = repo::reference::all(st.store.as_ref(), account, Kind::AudienceProvider).await?;
    let acps: Vec<CustomParameter> = repo::reference::all(st.store.as_ref(), account, Kind::CustomParameter).await?;
    Ok((providers.into_iter().map(|p| p.id).collect(), acps.into_iter().map(|c| c.name).collect()))
}

#[utoipa::path(get, path = "/api/2.0/targeting-template/{id}/rules", tag = "targeting-template", summary = "Read a targeting template's rules", params(("id" = String, Path)),
    responses((status = 200, description = "Every rule key, provider and custom parameter", body = crate::model::rules_view::RulesView)))]
async fn get_rules(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let t = repo::templates::load(st.store.as_ref(), &a.id, &id).await?;
    let (providers, acps) = names(&st, &a.id).await?;
    Ok(Json(crate::model::rules_view::rules_view(&t.value.rules, &providers, &acps)).into_response())
}

/// PUT the rules body (§2.3), every bean validated; replaces the template's rules; 204.
#[utoipa::path(put, path = "/api/2.0/targeting-template/{id}/rules", tag = "targeting-template", summary = "Replace a targeting template's rules", description = "PUT the rules body (§2.3), every bean validated; replaces the template's rules; 204.", params(("id" = String, Path)),
    request_body(content = crate::model::rules_view::RulesView, description = "The rules (any key may be left out)", example = json!({"categoryRules": [{"categoryId": "demo-alpha-cat-sports", "ruleType": "AT_LEAST_ONE_OF"}], "ipRules": [], "timeRules": []})),
    responses((status = 204, description = "Replaced")))]
async fn put_rules(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, JsonBody(body): JsonBody) -> AppResult<Response> {
    let cur = repo::templates::load(st.store.as_ref(), &a.id, &id).await?;
    let known = repo::rules::known(st.store.as_ref(), &a.id).await?;
    let rules = template::parse_rules(&body, &known, &id)?;
    repo::templates::update(st.store.as_ref(), &a.id, cur, None, |t| {
        t.rules = rules.clone();
        Ok(())
    })
    .await?;
    Ok(no_content())
}

/// POST `?campaignId=|goalId=`: copies the rules into the target's rules; 204.
#[utoipa::path(post, path = "/api/2.0/targeting-template/{id}/import", tag = "targeting-template", params(("id" = String, Path), ("campaignId" = Option<String>, Query, description = "A campaign of the account (or goalId)"), ("goalId" = Option<String>, Query)),
    responses((status = 204, description = "Copied into the target's rules")))]
async fn import(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let t = repo::templates::load(st.store.as_ref(), &a.id, &id).await?;
    let Some((parent, target_id)) = target(&st, &a, &query_pairs(q.as_deref())?, true).await? else {
        return Err(AppError::field("campaignId", Rule::Required, "query parameter campaignId or goalId is required"));
    };
    repo::rules::update(st.store.as_ref(), &a.id, parent, &target_id, |r| Ok(r.merge(&t.value.rules, parent)?)).await?;
    tracing::info!(template = %id, target = %target_id, "template rules imported");
    Ok(no_content())
}

/// PUT `?campaignId=|goalId=`: links the template (its rules apply to the target for as
/// long as it is linked, and follow later edits); 204, also when already linked.
#[utoipa::path(put, path = "/api/2.0/targeting-template/{id}/link", tag = "targeting-template", summary = "Link a targeting template to a campaign or goal", params(("id" = String, Path), ("campaignId" = Option<String>, Query, description = "A campaign of the account (or goalId)"), ("goalId" = Option<String>, Query)),
    responses((status = 204, description = "Linked (also when it already was)")))]
async fn link(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    repo::templates::load(st.store.as_ref(), &a.id, &id).await?;
    let Some((parent, target_id)) = target(&st, &a, &query_pairs(q.as_deref())?, true).await? else {
        return Err(AppError::field("campaignId", Rule::Required, "query parameter campaignId or goalId is required"));
    };
    repo::templates::link(st.store.as_ref(), &a.id, &id, parent, &target_id).await?;
    Ok(no_content())
}

/// DELETE `?campaignId=|goalId=`: removes the link; 204 (also when there was none).
#[utoipa::path(delete, path = "/api/2.0/targeting-template/{id}/link", tag = "targeting-template", params(("id" = String, Path), ("campaignId" = Option<String>, Query, description = "A campaign of the account (or goalId)"), ("goalId" = Option<String>, Query)),
    responses((status = 204, description = "Unlinked (also when it was not)")))]
async fn unlink(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    repo::templates::load(st.store.as_ref(), &a.id, &id).await?;
    let Some((parent, target_id)) = target(&st, &a, &query_pairs(q.as_deref())?, true).await? else {
        return Err(AppError::field("campaignId", Rule::Required, "query parameter campaignId or goalId is required"));
    };
    repo::templates::unlink(st.store.as_ref(), &a.id, &id, parent, &target_id).await?;
    Ok(no_content())
}
