//! Campaign rules and goal rules (seed 001 §2.6; paths: docs/goals-ads-assets.md), XML.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::*;
use crate::error::AppResult;
use crate::model::account::{Category, ContentPartner, CustomParameter};
use crate::model::rules::{parse_bean, Known, Parent, Rules};
use crate::repo::Versioned;
use crate::store::{Cond, Key, Query, TxOp};
use crate::xml::expect_root;

/// `/api/1.0/campaign/rules/by_campaign_id;id=` (merged into the campaigns group).
pub fn campaign_router() -> Router<AppState> {
    Router::new().route("/api/1.0/campaign/rules/{seg}", get(get_campaign_rules).put(put_campaign_rules))
}

/// `/api/1.0.cpvext/goal/rules/by_goal_id;id=` (merged into the goals group).
pub fn goal_router() -> Router<AppState> {
    Router::new().route("/api/1.0.cpvext/goal/rules/{seg}", get(get_goal_rules).put(put_goal_rules))
}

fn rules_key(account: &str, parent: Parent, id: &str) -> Key {
    let kind = match parent {
        Parent::Campaign => "CAMPAIGN",
        Parent::Goal => "GOAL",
    };
    Key::new(keys::partition(account, keys::RULES), format!("{kind}#{id}"))
}

/// The rules of a parent, or its empty rule set.
pub async fn read(st: &AppState, account: &str, parent: Parent, id: &str) -> AppResult<Rules> {
    Ok(repo::get::<Rules>(st.store.as_ref(), &rules_key(account, parent, id)).await?.map(|v| v.value).unwrap_or_else(|| Rules::empty(id)))
}

/// The account's reference data that rules may name.
pub async fn known(st: &AppState, account: &str) -> AppResult<Known> {
    let cats: Vec<Versioned<Category>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(account, keys::CATEGORY))).await?;
    let partners: Vec<Versioned<ContentPartner>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(account, keys::PARTNER))).await?;
    let acps: Vec<Versioned<CustomParameter>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(account, keys::ACP))).await?;
    let providers: Vec<Versioned<crate::model::account::AudienceProvider>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(account, keys::PROVIDER))).await?;
    Ok(Known {
        categories: cats.into_iter().map(|c| c.value.id).collect(),
        partners: partners.into_iter().map(|c| c.value.id).collect(),
        custom_parameters: acps.into_iter().map(|c| c.value.name).collect(),
        providers: providers
            .into_iter()
            .map(|p| {
                let sgs = p.value.segmentations.iter().map(|s| (s.id.clone(), s.segments.iter().map(|g| g.id.clone()).collect())).collect();
                (p.value.id, sgs)
            })
            .collect(),
    })
}

fn render(rules: &Rules) -> Response {
    let mut o = XmlOut::new();
    rules.write(&mut o);
    xml_response(StatusCode::OK, o.finish())
}

async fn replace(st: &AppState, account: &str, parent: Parent, id: &str, doc: &crate::xml::Element) -> AppResult<Response> {
    let known = known(st, account).await?;
    let mut rules = parse_bean(expect_root(doc, "rulesBean")?, parent, &known)?;
    if !rules.parent_id.is_empty() && rules.parent_id != id {
        return Err(AppError::field(
            "rulesBean/parentId",
            "matchesPath",
            format!("rulesBean/parentId ({}) must equal the id in the path ({id})", rules.parent_id),
        ));
    }
    rules.parent_id = id.to_string();
    update(st, account, parent, id, |r| {
        *r = rules.clone();
        Ok(())
    })
    .await?;
    Ok(no_content())
}

/// Changes a parent's rules with a conditional write (re-read and re-applied on a lost race).
pub async fn update(st: &AppState, account: &str, parent: Parent, id: &str, change: impl Fn(&mut Rules) -> AppResult<()>) -> AppResult<()> {
    let key = rules_key(account, parent, id);
    let mut tries = Attempts::new("rules", id, None);
    loop {
        let cur = st.store.get(&key).await?;
        tries.check(cur.as_ref().map_or(0, |c| c.version))?;
        let (mut rules, version, cond) = match &cur {
            Some(c) => (repo::decode::<Rules>(c.clone())?.value, c.version + 1, Cond::Version(c.version)),
            None => (Rules::empty(id), 1, Cond::NotExists),
        };
        change(&mut rules)?;
        rules.parent_id = id.to_string();
        let ops = vec![TxOp::Put(repo::item(key.clone(), &rules, version)?, cond)];
        if tries.commit(st.store.as_ref(), ops).await? {
            return Ok(());
        }
    }
}

fn matrix_id(seg: &str, name: &str, prefix: &str) -> AppResult<String> {
    let m = Matrix::parse(seg);
    if m.name != name {
        return Err(AppError::NoRoute(format!("{prefix}/{seg}")));
    }
    m.id()
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn get_campaign_rules(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = matrix_id(&seg, "by_campaign_id", "/api/1.0/campaign/rules")?;
    super::campaigns::load(&st, &a.id, &id).await?;
    Ok(render(&read(&st, &a.id, Parent::Campaign, &id).await?))
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn put_campaign_rules(
    State(st): State<AppState>,
    Auth(a): Auth,
    Path(seg): Path<String>,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = matrix_id(&seg, "by_campaign_id", "/api/1.0/campaign/rules")?;
    super::campaigns::load(&st, &a.id, &id).await?;
    replace(&st, &a.id, Parent::Campaign, &id, &doc).await
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn get_goal_rules(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = matrix_id(&seg, "by_goal_id", "/api/1.0.cpvext/goal/rules")?;
    super::goals::load(&st, &a.id, &id).await?;
    Ok(render(&read(&st, &a.id, Parent::Goal, &id).await?))
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn put_goal_rules(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let id = matrix_id(&seg, "by_goal_id", "/api/1.0.cpvext/goal/rules")?;
    super::goals::load(&st, &a.id, &id).await?;
    replace(&st, &a.id, Parent::Goal, &id, &doc).await
}
