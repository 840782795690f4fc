//! Targeting templates `/api/2.0/targeting-template` (seed 002 §2.1-§2.3, §4.1, §7;
//! docs/targeting-templates.md), JSON. Linking (designed here: the seeds name it without an
//! endpoint) is `PUT|DELETE /api/2.0/targeting-template/{id}/link?campaignId=|goalId=`.

use crate::api::Access;
use crate::api::Within;
use crate::rule::Rule;
use axum::extract::{Path, RawQuery};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::Json;

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{if_match, no_content, query_pairs, single, with_etag, Auth, JsonBody};
use crate::domain_error::DomainError;
use crate::model::rules::Parent;
use crate::model::template_write::parse_write;
use crate::usecases::templates::{self, Created, Target};
use axum::http::StatusCode;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, create, usage, get_one, update, remove, get_rules, put_rules, import, link, unlink),
    tags((name = "targeting-template", description = "Targeting templates"))
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
        .route("/api/2.0/targeting-template", Access::RECORDS, get(list).post(create))
        .route("/api/2.0/targeting-template/usage", Access::RECORDS, get(usage))
        .route("/api/2.0/targeting-template/{id}", Access::RECORDS, get(get_one).put(update).delete(remove))
        .route("/api/2.0/targeting-template/{id}/rules", Access::RECORDS, get(get_rules).put(put_rules))
        .route("/api/2.0/targeting-template/{id}/import", Access::RECORDS, post(import))
        .route("/api/2.0/targeting-template/{id}/link", Access::RECORDS, put(link).delete(unlink))
}

/// `{active, max, messageTitle, messageBody}`; the messages are filled once the limit is reached.
#[utoipa::path(get, path = "/api/2.0/targeting-template/usage", tag = "targeting-template", summary = "How many targeting templates the account has, and may have", description = "`{active, max, messageTitle, messageBody}`; the messages are filled once the limit is reached.",
    responses((status = 200, description = "Templates in use and the account's limit", body = Usage)))]
async fn usage(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    let u = templates::usage(&st, &a).await?;
    let (title, body) =
        if u.reached() { ("Targeting template limit reached".to_string(), u.message()) } else { (String::new(), String::new()) };
    Ok(Json(Usage { active: u.active, max: u.max, message_title: title, message_body: body }).into_response())
}

/// The target the query names: `campaignId` or `goalId` (not both; no other parameter).
fn target_param(pairs: &[(String, String)]) -> Result<Option<Target>, DomainError> {
    if let Some((k, _)) = pairs.iter().find(|(k, _)| k != "campaignId" && k != "goalId") {
        return Err(DomainError::field(k, Rule::Unknown, format!("unknown query parameter {k}; expected campaignId or goalId")));
    }
    let c = single(pairs, "campaignId")?.filter(|v| !v.is_empty());
    let g = single(pairs, "goalId")?.filter(|v| !v.is_empty());
    match (c, g) {
        (Some(_), Some(_)) => Err(DomainError::field("goalId", Rule::Exclusive, "give campaignId or goalId, not both")),
        (Some(c), None) => Ok(Some((Parent::Campaign, c.to_string()))),
        (None, Some(g)) => Ok(Some((Parent::Goal, g.to_string()))),
        (None, None) => Ok(None),
    }
}

/// The target a link, an unlink or an import needs.
fn required_target(q: Option<&str>) -> Result<Target, DomainError> {
    target_param(&query_pairs(q)?)?
        .ok_or_else(|| DomainError::field("campaignId", Rule::Required, "query parameter campaignId or goalId is required"))
}

/// GET: the account's templates by name; `campaignId` / `goalId`: only those linked to it.
#[utoipa::path(get, path = "/api/2.0/targeting-template", tag = "targeting-template", summary = "List the account's targeting templates", params(("campaignId" = Option<String>, Query, description = "A campaign of the account (or goalId)"), ("goalId" = Option<String>, Query)),
    responses((status = 200, description = "The templates by name (only those linked to the target, when given)", body = Vec<crate::model::template::TemplateView>)))]
async fn list(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let target = target_param(&query_pairs(q.as_deref())?)?;
    let found = templates::list(&st, &a.id, target).await?;
    let tz = a.tz();
    Ok(Json(found.iter().map(|t| t.view(tz)).collect::<Vec<_>>()).into_response())
}

#[utoipa::path(get, path = "/api/2.0/targeting-template/{id}", tag = "targeting-template", summary = "Read a targeting template", params(("id" = String, Path)),
    responses((status = 200, description = "The template", body = crate::model::template::TemplateView, headers(("ETag" = String)))))]
async fn get_one(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let t = templates::get(&st, &a.id, &id).await?;
    Ok(with_etag(Json(t.value.view(a.tz())).into_response(), t.version()))
}

/// POST `{name}` → 200 with the (empty) template; at the limit 403 `{type, message}`.
#[utoipa::path(post, path = "/api/2.0/targeting-template", tag = "targeting-template", summary = "Create a targeting template", description = "POST `{name}` → 200 with the (empty) template; at the limit 403 `{type, message}`.", request_body(content = crate::model::template_write::TemplateInput, example = json!({"name": "Sports, desktop"})),
    responses((status = 200, description = "Created, with empty rules", body = crate::model::template::TemplateView),
        (status = 403, description = "The account's limit is reached", body = LimitReached)))]
async fn create(Within(st): Within, Auth(a): Auth, JsonBody(body): JsonBody) -> AppResult<Response> {
    let input = parse_write(&body, &a.id, None).map_err(AppError::Validation)?;
    match templates::create(&st, &a, input).await? {
        Created::Done(t) => Ok(Json(t.view(a.tz())).into_response()),
        // Exactly {type, message} (seed 002 §4.1, §7).
        Created::AtLimit(u) => {
            Ok((StatusCode::FORBIDDEN, Json(LimitReached { kind: "ForbiddenError", message: u.message() })).into_response())
        }
    }
}

/// PUT `{id, name, siteId}`: only the name changes; 204.
#[utoipa::path(put, path = "/api/2.0/targeting-template/{id}", tag = "targeting-template", request_body(content = crate::model::template_write::TemplateInput, example = json!({"name": "Sports, desktop"})),
    params(("id" = String, Path), ("If-Match" = Option<String>, Header)),
    responses((status = 204, description = "Renamed")))]
async fn update(
    Within(st): Within,
    Auth(a): Auth,
    Path(id): Path<String>,
    headers: axum::http::HeaderMap,
    JsonBody(body): JsonBody,
) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    let input = parse_write(&body, &a.id, Some(&id)).map_err(DomainError::Validation);
    templates::update(&st, &a.id, &id, expected, input).await?;
    Ok(no_content())
}

/// DELETE: 204; the template's links to campaigns and goals go with it.
#[utoipa::path(delete, path = "/api/2.0/targeting-template/{id}", tag = "targeting-template", params(("id" = String, Path)),
    responses((status = 204, description = "Deleted and unlinked")))]
async fn remove(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    templates::remove(&st, &a.id, &id).await?;
    Ok(no_content())
}

#[utoipa::path(get, path = "/api/2.0/targeting-template/{id}/rules", tag = "targeting-template", summary = "Read a targeting template's rules", params(("id" = String, Path)),
    responses((status = 200, description = "Every rule key, provider and custom parameter", body = crate::model::rules_view::RulesView)))]
async fn get_rules(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let r = templates::rules(&st, &a.id, &id).await?;
    Ok(Json(crate::model::rules_view::rules_view(&r.rules, &r.providers, &r.custom_parameters)).into_response())
}

/// PUT the rules body (§2.3), every bean validated; replaces the template's rules; 204.
#[utoipa::path(put, path = "/api/2.0/targeting-template/{id}/rules", tag = "targeting-template", summary = "Replace a targeting template's rules", description = "PUT the rules body, every bean validated; replaces the template's rules; 204.", params(("id" = String, Path)),
    request_body(content = crate::model::rules_view::RulesView, description = "The rules (any key may be left out)", example = json!({"categoryRules": [{"categoryId": "demo-alpha-cat-sports", "ruleType": "AT_LEAST_ONE_OF"}], "ipRules": [], "timeRules": []})),
    responses((status = 204, description = "Replaced")))]
async fn put_rules(Within(st): Within, Auth(a): Auth, Path(id): Path<String>, JsonBody(body): JsonBody) -> AppResult<Response> {
    templates::put_rules(&st, &a.id, &id, &body).await?;
    Ok(no_content())
}

/// POST `?campaignId=|goalId=`: copies the rules into the target's rules; 204.
#[utoipa::path(post, path = "/api/2.0/targeting-template/{id}/import", tag = "targeting-template", params(("id" = String, Path), ("campaignId" = Option<String>, Query, description = "A campaign of the account (or goalId)"), ("goalId" = Option<String>, Query)),
    responses((status = 204, description = "Copied into the target's rules")))]
async fn import(Within(st): Within, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    templates::import(&st, &a.id, &id, required_target(q.as_deref())).await?;
    Ok(no_content())
}

/// PUT `?campaignId=|goalId=`: links the template (its rules apply to the target for as
/// long as it is linked, and follow later edits); 204, also when already linked.
#[utoipa::path(put, path = "/api/2.0/targeting-template/{id}/link", tag = "targeting-template", summary = "Link a targeting template to a campaign or goal", params(("id" = String, Path), ("campaignId" = Option<String>, Query, description = "A campaign of the account (or goalId)"), ("goalId" = Option<String>, Query)),
    responses((status = 204, description = "Linked (also when it already was)")))]
async fn link(Within(st): Within, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    templates::link(&st, &a.id, &id, required_target(q.as_deref())).await?;
    Ok(no_content())
}

/// DELETE `?campaignId=|goalId=`: removes the link; 204 (also when there was none).
#[utoipa::path(delete, path = "/api/2.0/targeting-template/{id}/link", tag = "targeting-template", params(("id" = String, Path), ("campaignId" = Option<String>, Query, description = "A campaign of the account (or goalId)"), ("goalId" = Option<String>, Query)),
    responses((status = 204, description = "Unlinked (also when it was not)")))]
async fn unlink(Within(st): Within, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    templates::unlink(&st, &a.id, &id, required_target(q.as_deref())).await?;
    Ok(no_content())
}
