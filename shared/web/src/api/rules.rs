//! Campaign rules and goal rules (seed 001 §2.6; paths: docs/goals-ads-assets.md), XML.

use crate::api::Access;
use crate::api::Within;
use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;

use crate::api::error::AppResult;
use crate::api::{no_content, xml_response, Auth, Matrix, Selector, XmlBody};
use crate::model::rules::{Parent, Rules};
use crate::usecases::rules;
use crate::xml::XmlOut;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(get_campaign_rules, put_campaign_rules, get_goal_rules, put_goal_rules), tags((name = "rules", description = "Campaign and goal rules (XML)")))]
pub struct Doc;

/// `/api/1.0/campaign/rules/by_campaign_id;id=` (merged into the campaigns group).
pub fn campaign_router() -> super::Routes {
    super::Routes::new().route("/api/1.0/campaign/rules/{seg}", Access::RECORDS, get(get_campaign_rules).put(put_campaign_rules))
}

/// `/api/1.0.cpvext/goal/rules/by_goal_id;id=` (merged into the goals group).
pub fn goal_router() -> super::Routes {
    super::Routes::new().route("/api/1.0.cpvext/goal/rules/{seg}", Access::RECORDS, get(get_goal_rules).put(put_goal_rules))
}

fn render(rules: &Rules) -> Response {
    let mut o = XmlOut::new();
    rules.write(&mut o);
    xml_response(StatusCode::OK, o.finish())
}

fn matrix_id(seg: &str, name: Selector, prefix: &str) -> AppResult<String> {
    Matrix::id_of(seg, name, prefix)
}

#[utoipa::path(get, path = "/api/1.0/campaign/rules/{seg}", tag = "rules", summary = "Read a campaign's targeting rules", params(("seg" = String, Path, description = "by_campaign_id;id=<id>")), responses((status = 200, description = "The campaign rules", content_type = "application/xml", body = String, example = json!(super::xml_examples::RULES_OUT))))]
async fn get_campaign_rules(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = matrix_id(&seg, Selector::ByCampaignId, "/api/1.0/campaign/rules")?;
    Ok(render(&rules::read(&st, &a.id, Parent::Campaign, &id).await?))
}

#[utoipa::path(put, path = "/api/1.0/campaign/rules/{seg}", tag = "rules", summary = "Replace a campaign's targeting rules", params(("seg" = String, Path, description = "by_campaign_id;id=<id>")), request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::RULES_IN)), responses((status = 204, description = "Done")))]
async fn put_campaign_rules(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let id = matrix_id(&seg, Selector::ByCampaignId, "/api/1.0/campaign/rules")?;
    rules::replace(&st, &a.id, Parent::Campaign, &id, &doc).await?;
    Ok(no_content())
}

#[utoipa::path(get, path = "/api/1.0.cpvext/goal/rules/{seg}", tag = "rules", summary = "Read a goal's targeting rules", params(("seg" = String, Path, description = "by_goal_id;id=<id>")), responses((status = 200, description = "The goal rules", content_type = "application/xml", body = String, example = json!(super::xml_examples::RULES_OUT))))]
async fn get_goal_rules(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = matrix_id(&seg, Selector::ByGoalId, "/api/1.0.cpvext/goal/rules")?;
    Ok(render(&rules::read(&st, &a.id, Parent::Goal, &id).await?))
}

#[utoipa::path(put, path = "/api/1.0.cpvext/goal/rules/{seg}", tag = "rules", summary = "Replace a goal's targeting rules", params(("seg" = String, Path, description = "by_goal_id;id=<id>")), request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::RULES_IN)), responses((status = 204, description = "Done")))]
async fn put_goal_rules(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let id = matrix_id(&seg, Selector::ByGoalId, "/api/1.0.cpvext/goal/rules")?;
    rules::replace(&st, &a.id, Parent::Goal, &id, &doc).await?;
    Ok(no_content())
}
