//! Goals, extended interface (seed 001 §2.2, §4.2), XML.

use crate::api::Access;
use crate::api::Within;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{if_match, no_content, text_response, with_etag, xml_response, Auth, Matrix, Selector, XmlBody};
use crate::model::account::Account;
use crate::model::campaign::Campaign;
use crate::model::goal::{parse_bean, Goal};
use crate::usecases::goals;
use crate::xml::expect_root;
use crate::xml::XmlOut;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(create, get_by, update, remove), tags((name = "goals", description = "Goals (XML)")))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new().route("/api/1.0.cpvext/goal", Access::RECORDS, post(create)).route(
        "/api/1.0.cpvext/goal/{seg}",
        Access::RECORDS,
        get(get_by).put(update).delete(remove),
    )
}

fn collection(goals: &[Goal], c: &Campaign, a: &Account) -> String {
    let mut o = XmlOut::new();
    o.open("collection");
    for g in goals {
        g.write(&mut o, c, a);
    }
    o.close("collection");
    o.finish()
}

#[utoipa::path(post, path = "/api/1.0.cpvext/goal", tag = "goals", summary = "Create a goal in a campaign", request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::GOAL_IN)), responses((status = 200, description = "Created: the new id", content_type = "text/plain", body = String, example = json!(super::xml_examples::ID_OUT))))]
async fn create(Within(st): Within, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "goalBean")?)?;
    let g = goals::create(&st, &a.id, input).await?;
    Ok(text_response(StatusCode::OK, g.id))
}

#[utoipa::path(get, path = "/api/1.0.cpvext/goal/{seg}", tag = "goals", summary = "Read a goal, or a campaign's goals", params(("seg" = String, Path, description = "by_goal_id;id=<id> (one, with ETag) or by_campaign_id;id=<id> (its goals)")), responses((status = 200, description = "The goal(s)", headers(("ETag" = String)), content_type = "application/xml", body = String, example = json!(super::xml_examples::GOALS_OUT))))]
async fn get_by(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    match m.selector() {
        Some(Selector::ByGoalId) => {
            let (g, c) = goals::get(&st, &a.id, &m.id()?).await?;
            Ok(with_etag(xml_response(StatusCode::OK, collection(std::slice::from_ref(&g.value), &c.value, &a)), g.version()))
        }
        Some(Selector::ByCampaignId) => {
            let (c, found) = goals::of_campaign(&st, &a.id, &m.id()?).await?;
            Ok(xml_response(StatusCode::OK, collection(&found, &c, &a)))
        }
        Some(Selector::ByClientId | Selector::ByContactId) | None => Err(AppError::NoRoute(format!("/api/1.0.cpvext/goal/{seg}"))),
    }
}

pub fn goal_id(seg: &str) -> AppResult<String> {
    Matrix::id_of(seg, Selector::ByGoalId, "/api/1.0.cpvext/goal")
}

#[utoipa::path(put, path = "/api/1.0.cpvext/goal/{seg}", tag = "goals", summary = "Update a goal", params(("seg" = String, Path, description = "by_goal_id;id=<id>"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the record changed since")), request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::GOAL_IN)), responses((status = 204, description = "Done")))]
async fn update(
    Within(st): Within,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = goal_id(&seg)?;
    let expected = if_match(&headers)?;
    let input = expect_root(&doc, "goalBean").and_then(parse_bean);
    goals::update(&st, &a.id, &id, expected, input).await?;
    Ok(no_content())
}

/// Deleting keeps a tombstone (for `/v3 includeDeletedGoals`); the campaign's flight no
/// longer counts it.
#[utoipa::path(delete, path = "/api/1.0.cpvext/goal/{seg}", tag = "goals", summary = "Delete a goal", params(("seg" = String, Path, description = "by_goal_id;id=<id>")), responses((status = 204, description = "Done")))]
async fn remove(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = goal_id(&seg)?;
    goals::remove(&st, &a.id, &id).await?;
    Ok(no_content())
}
