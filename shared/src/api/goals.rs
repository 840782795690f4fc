//! Goals, extended interface (seed 001 §2.2, §4.2), XML.

use crate::rule::Rule;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{
    check_body_id, if_match, no_content, reject_id_on_create, text_response, with_etag, xml_response, Auth, Matrix, Selector, XmlBody,
};
use crate::domain_error::DomainError;
use crate::ids::new_id;
use crate::model::account::Account;
use crate::model::campaign::Campaign;
use crate::model::goal::{check_start_update, parse_bean, start_on_create, Goal, GoalInput};
use crate::repo;
use crate::repo::RepoError;
use crate::state::AppState;
use crate::xml::expect_root;
use crate::xml::XmlOut;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(create, get_by, update, remove), tags((name = "goals", description = "Goals (XML, seed 001 §2.2)")))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/api/1.0.cpvext/goal", post(create))
        .route("/api/1.0.cpvext/goal/{seg}", get(get_by).put(update).delete(remove))
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

/// A goal's campaign that is not in the account is the body's fault (400 naming the field).
fn campaign_ref(e: RepoError, id: &str) -> RepoError {
    if e.is_not_found() {
        RepoError::field("goalBean/campaignId", Rule::Reference, format!("goalBean/campaignId: no campaign with id {id} in this account"))
    } else {
        e
    }
}

#[utoipa::path(post, path = "/api/1.0.cpvext/goal", tag = "goals", summary = "Create a goal in a campaign", request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::GOAL_IN)), responses((status = 200, description = "Created: the new id", content_type = "text/plain", body = String, example = json!(super::xml_examples::ID_OUT))))]
async fn create(State(st): State<AppState>, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "goalBean")?)?;
    reject_id_on_create("goalBean", &input.id)?;
    let id = new_id();
    let g = repo::goals::create(
        st.store.as_ref(),
        &a.id,
        &input.campaign_id,
        |e| campaign_ref(e, &input.campaign_id),
        || {
            let now = st.clock.now();
            let mut g = Goal::from_input(id.clone(), &input, now);
            g.start = start_on_create(input.start, input.end, now);
            g
        },
    )
    .await?;
    tracing::info!(goal = %g.id, campaign = %input.campaign_id, "goal created");
    Ok(text_response(StatusCode::OK, id))
}

#[utoipa::path(get, path = "/api/1.0.cpvext/goal/{seg}", tag = "goals", summary = "Read a goal, or a campaign's goals", params(("seg" = String, Path, description = "by_goal_id;id=<id> (one, with ETag) or by_campaign_id;id=<id> (its goals)")), responses((status = 200, description = "The goal(s)", headers(("ETag" = String)), content_type = "application/xml", body = String, example = json!(super::xml_examples::GOALS_OUT))))]
async fn get_by(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    match m.selector() {
        Some(Selector::ByGoalId) => {
            let (g, c) = repo::goals::load(st.store.as_ref(), &a.id, &m.id()?).await?;
            Ok(with_etag(xml_response(StatusCode::OK, collection(std::slice::from_ref(&g.value), &c.value, &a)), g.version()))
        }
        Some(Selector::ByCampaignId) => {
            let c = repo::campaigns::load(st.store.as_ref(), &a.id, &m.id()?).await?;
            let mut goals = repo::goals::load_many(st.store.as_ref(), &a.id, &c.value.live_goal_ids()).await?;
            goals.sort_by(|x, y| x.start.cmp(&y.start).then(x.name.cmp(&y.name)).then(x.id.cmp(&y.id)));
            Ok(xml_response(StatusCode::OK, collection(&goals, &c.value, &a)))
        }
        Some(Selector::ByClientId | Selector::ByContactId) | None => Err(AppError::NoRoute(format!("/api/1.0.cpvext/goal/{seg}"))),
    }
}

pub fn goal_id(seg: &str) -> AppResult<String> {
    Matrix::id_of(seg, Selector::ByGoalId, "/api/1.0.cpvext/goal")
}

fn check_update(input: &GoalInput, stored: &Goal, now: chrono::DateTime<chrono::Utc>) -> Result<(), DomainError> {
    if input.campaign_id != stored.campaign_id {
        return Err(DomainError::field(
            "goalBean/campaignId",
            Rule::Immutable,
            "goalBean/campaignId cannot change: a goal stays in its campaign",
        ));
    }
    check_start_update(stored, input.start, now)
}

#[utoipa::path(put, path = "/api/1.0.cpvext/goal/{seg}", tag = "goals", summary = "Update a goal", params(("seg" = String, Path, description = "by_goal_id;id=<id>"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the record changed since")), request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::GOAL_IN)), responses((status = 204, description = "Done")))]
async fn update(
    State(st): State<AppState>,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = goal_id(&seg)?;
    let expected = if_match(&headers)?;
    let cur = repo::goals::load(st.store.as_ref(), &a.id, &id).await?;
    let input: GoalInput = parse_bean(expect_root(&doc, "goalBean")?)?;
    check_body_id("goalBean", &input.id, &id)?;
    repo::goals::update(st.store.as_ref(), &a.id, cur, expected, |stored| {
        let now = st.clock.now();
        check_update(&input, stored, now)?;
        let mut g = stored.clone();
        g.replace(&input, now);
        Ok(g)
    })
    .await?;
    Ok(no_content())
}

/// Deleting keeps a tombstone (for `/v3 includeDeletedGoals`); the campaign's flight no
/// longer counts it.
#[utoipa::path(delete, path = "/api/1.0.cpvext/goal/{seg}", tag = "goals", summary = "Delete a goal", params(("seg" = String, Path, description = "by_goal_id;id=<id>")), responses((status = 204, description = "Done")))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = goal_id(&seg)?;
    repo::goals::remove(st.store.as_ref(), &a.id, &id, st.clock.now()).await?;
    tracing::info!(goal = %id, "goal deleted");
    Ok(no_content())
}
