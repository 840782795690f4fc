//! Goals, extended interface (seed 001 §2.2, §4.2), XML.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use super::*;
use crate::error::AppResult;
use crate::ids::{new_id, plausible_id};
use crate::model::account::Account;
use crate::model::campaign::{Campaign, GoalFlight};
use crate::model::goal::{check_start_update, parse_bean, start_on_create, Goal, GoalInput};
use crate::repo::Versioned;
use crate::store::{Cond, Item, TxOp};
use crate::xml::expect_root;

pub fn router() -> Router<AppState> {
    Router::new().route("/api/1.0.cpvext/goal", post(create)).route("/api/1.0.cpvext/goal/{seg}", get(get_by).put(update).delete(remove))
}

/// A live goal of the account with its (live) campaign; else 404.
pub async fn load(st: &AppState, account: &str, id: &str) -> AppResult<(Versioned<Goal>, Versioned<Campaign>)> {
    if !plausible_id(id) {
        return Err(AppError::not_found("goal", id));
    }
    let goal: Versioned<Goal> = match repo::get::<Goal>(st.store.as_ref(), &keys::record(account, keys::GOAL, id)).await? {
        Some(g) if g.value.deleted_at.is_none() => g,
        _ => return Err(AppError::not_found("goal", id)),
    };
    // A deleted campaign takes its goals with it.
    let campaign = super::campaigns::load(st, account, &goal.value.campaign_id).await.map_err(|_| AppError::not_found("goal", id))?;
    Ok((goal, campaign))
}

/// Live goals by id (one batch get), in the order of `ids`.
pub async fn load_many(st: &AppState, account: &str, ids: &[String]) -> AppResult<Vec<Goal>> {
    let keys: Vec<_> = ids.iter().map(|id| keys::record(account, keys::GOAL, id)).collect();
    let mut found: Vec<Goal> = Vec::new();
    for item in st.store.batch_get(&keys).await? {
        let g: Goal = repo::decode(item)?.value;
        if g.deleted_at.is_none() {
            found.push(g);
        }
    }
    found.sort_by_key(|g| ids.iter().position(|i| i == &g.id));
    Ok(found)
}

fn flight(g: &Goal) -> GoalFlight {
    GoalFlight { id: g.id.clone(), start: g.start, end: g.end, deleted: g.deleted_at.is_some() }
}

fn goal_item(account: &str, g: &Goal, version: u64) -> AppResult<Item> {
    Ok(repo::item(keys::record(account, keys::GOAL, &g.id), g, version)?)
}

/// The campaign's next version with the goal's flight recorded.
fn campaign_with(c: &Versioned<Campaign>, g: &Goal) -> AppResult<TxOp> {
    let mut next = c.value.clone();
    next.set_goal(flight(g));
    Ok(TxOp::Put(repo::next(&c.item, &next)?, Cond::Version(c.version())))
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

fn campaign_ref(st_err: AppError, id: &str) -> AppError {
    match st_err {
        AppError::NotFound { .. } => {
            AppError::field("goalBean/campaignId", "reference", format!("goalBean/campaignId: no campaign with id {id} in this account"))
        }
        other => other,
    }
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn create(State(st): State<AppState>, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "goalBean")?)?;
    reject_id_on_create("goalBean", &input.id)?;
    let id = new_id();
    let mut tries = Attempts::new("campaign", &input.campaign_id, None);
    loop {
        let campaign = super::campaigns::load(&st, &a.id, &input.campaign_id).await.map_err(|e| campaign_ref(e, &input.campaign_id))?;
        tries.check(campaign.version())?;
        let now = st.clock.now();
        let mut g = Goal::from_input(id.clone(), &input, now);
        g.start = start_on_create(input.start, input.end, now);
        let ops = vec![TxOp::Put(goal_item(&a.id, &g, 1)?, Cond::NotExists), campaign_with(&campaign, &g)?];
        if tries.commit(st.store.as_ref(), ops).await? {
            break;
        }
    }
    tracing::info!(goal = %id, campaign = %input.campaign_id, "goal created");
    Ok(text_response(StatusCode::OK, id))
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn get_by(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    match m.name.as_str() {
        "by_goal_id" => {
            let (g, c) = load(&st, &a.id, &m.id()?).await?;
            Ok(with_etag(xml_response(StatusCode::OK, collection(std::slice::from_ref(&g.value), &c.value, &a)), g.version()))
        }
        "by_campaign_id" => {
            let c = super::campaigns::load(&st, &a.id, &m.id()?).await?;
            let mut goals = load_many(&st, &a.id, &c.value.live_goal_ids()).await?;
            goals.sort_by(|x, y| x.start.cmp(&y.start).then(x.name.cmp(&y.name)).then(x.id.cmp(&y.id)));
            Ok(xml_response(StatusCode::OK, collection(&goals, &c.value, &a)))
        }
        _ => Err(AppError::NoRoute(format!("/api/1.0.cpvext/goal/{seg}"))),
    }
}

pub fn goal_id(seg: &str) -> AppResult<String> {
    let m = Matrix::parse(seg);
    if m.name != "by_goal_id" {
        return Err(AppError::NoRoute(format!("/api/1.0.cpvext/goal/{seg}")));
    }
    m.id()
}

fn check_update(input: &GoalInput, stored: &Goal, now: chrono::DateTime<chrono::Utc>) -> AppResult<()> {
    if input.campaign_id != stored.campaign_id {
        return Err(AppError::field("goalBean/campaignId", "immutable", "goalBean/campaignId cannot change: a goal stays in its campaign"));
    }
    check_start_update(stored, input.start, now)
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn update(
    State(st): State<AppState>,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = goal_id(&seg)?;
    let expected = if_match(&headers)?;
    let input: GoalInput = parse_bean(expect_root(&doc, "goalBean")?)?;
    check_body_id("goalBean", &input.id, &id)?;
    let mut tries = Attempts::new("goal", &id, expected);
    loop {
        let (cur, campaign) = load(&st, &a.id, &id).await?;
        tries.check(cur.version())?;
        let now = st.clock.now();
        check_update(&input, &cur.value, now)?;
        let mut g = cur.value.clone();
        g.replace(&input, now);
        let ops = vec![TxOp::Put(repo::next(&cur.item, &g)?, Cond::Version(cur.version())), campaign_with(&campaign, &g)?];
        if tries.commit(st.store.as_ref(), ops).await? {
            break;
        }
    }
    Ok(no_content())
}

/// Deleting keeps a tombstone (for `/v3 includeDeletedGoals`); the campaign's flight no
/// longer counts it.
#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = goal_id(&seg)?;
    let mut tries = Attempts::new("goal", &id, None);
    loop {
        let (cur, campaign) = load(&st, &a.id, &id).await?;
        tries.check(cur.version())?;
        let mut g = cur.value.clone();
        g.deleted_at = Some(st.clock.now());
        let ops = vec![TxOp::Put(repo::next(&cur.item, &g)?, Cond::Version(cur.version())), campaign_with(&campaign, &g)?];
        if tries.commit(st.store.as_ref(), ops).await? {
            break;
        }
    }
    tracing::info!(goal = %id, "goal deleted");
    Ok(no_content())
}
