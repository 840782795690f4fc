//! Targeting templates `/api/2.0/targeting-template` (seed 002 §2.1-§2.3, §4.1, §7;
//! docs/targeting-templates.md), JSON. Linking (designed here: the seeds name it without an
//! endpoint) is `PUT|DELETE /api/2.0/targeting-template/{id}/link?campaignId=|goalId=`.

use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde_json::{json, Value};

use super::*;
use crate::error::AppResult;
use crate::json::ObjReader;
use crate::model::account::{Account, AudienceProvider, CustomParameter};
use crate::model::rules::Parent;
use crate::model::template::{self, Template};
use crate::repo::Versioned;
use crate::store::{Cond, Item, Key, Query, StoreError, TxOp};

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/2.0/targeting-template", get(list).post(create))
        .route("/api/2.0/targeting-template/usage", get(usage))
        .route("/api/2.0/targeting-template/{id}", get(get_one).put(update).delete(remove))
        .route("/api/2.0/targeting-template/{id}/rules", get(get_rules).put(put_rules))
        .route("/api/2.0/targeting-template/{id}/import", post(import))
        .route("/api/2.0/targeting-template/{id}/link", put(link).delete(unlink))
}

const COUNT: &str = "n";

fn template_key(account: &str, id: &str) -> Key {
    keys::record(account, keys::TEMPLATE, id)
}

async fn load(st: &AppState, account: &str, id: &str) -> AppResult<Versioned<Template>> {
    if !crate::ids::plausible_id(id) {
        return Err(AppError::not_found("targeting template", id));
    }
    repo::get(st.store.as_ref(), &template_key(account, id)).await?.ok_or_else(|| AppError::not_found("targeting template", id))
}

async fn active_count(st: &AppState, account: &str) -> AppResult<i64> {
    Ok(st.store.get(&keys::template_count(account)).await?.map_or(0, |i| i.counter(COUNT)).max(0))
}

fn limit_message(active: i64, max: u32) -> String {
    format!("You are using {active} of {max} allowed targeting templates. Remove obsolete templates before creating new ones.")
}

/// `{active, max, messageTitle, messageBody}`; the messages are filled once the limit is reached.
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn usage(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    let active = active_count(&st, &a.id).await?;
    let max = a.limits.targeting_templates;
    let reached = active >= i64::from(max);
    let (title, body) =
        if reached { ("Targeting template limit reached".to_string(), limit_message(active, max)) } else { (String::new(), String::new()) };
    Ok(Json(json!({"active": active, "max": max, "messageTitle": title, "messageBody": body})).into_response())
}

/// The target of `campaignId` / `goalId` (exactly one), checked to exist in the account.
async fn target(st: &AppState, a: &Account, pairs: &[(String, String)], required: bool) -> AppResult<Option<(Parent, String)>> {
    if let Some((k, _)) = pairs.iter().find(|(k, _)| k != "campaignId" && k != "goalId") {
        return Err(AppError::field(k, "unknown", format!("unknown query parameter {k}; expected campaignId or goalId")));
    }
    let c = single(pairs, "campaignId")?.filter(|v| !v.is_empty());
    let g = single(pairs, "goalId")?.filter(|v| !v.is_empty());
    match (c, g) {
        (Some(_), Some(_)) => Err(AppError::field("goalId", "exclusive", "give campaignId or goalId, not both")),
        (Some(c), None) => {
            super::campaigns::load(st, &a.id, c).await?;
            Ok(Some((Parent::Campaign, c.to_string())))
        }
        (None, Some(g)) => {
            super::goals::load(st, &a.id, g).await?;
            Ok(Some((Parent::Goal, g.to_string())))
        }
        (None, None) if required => Err(AppError::field("campaignId", "required", "query parameter campaignId or goalId is required")),
        (None, None) => Ok(None),
    }
}

fn kind(p: Parent) -> &'static str {
    match p {
        Parent::Campaign => "CAMPAIGN",
        Parent::Goal => "GOAL",
    }
}

/// GET: the account's templates by name; `campaignId` / `goalId`: only those linked to it.
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let mut templates: Vec<Template> = match target(&st, &a, &pairs, false).await? {
        None => repo::query_all(st.store.as_ref(), Query::partition(keys::partition(&a.id, keys::TEMPLATE)))
            .await?
            .into_iter()
            .map(|v| v.value)
            .collect(),
        Some((parent, id)) => {
            let links = st.store.query(Query::gsi1(keys::linked_templates(&a.id, kind(parent), &id))).await?;
            let ids: Vec<Key> = links.items.iter().filter_map(|i| i.gsi1.as_ref().map(|(_, t)| template_key(&a.id, t))).collect();
            let mut out = Vec::new();
            for chunk in ids.chunks(100) {
                for item in st.store.batch_get(chunk).await? {
                    out.push(repo::decode::<Template>(item)?.value);
                }
            }
            out
        }
    };
    templates.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    let tz = a.tz();
    Ok(Json(Value::Array(templates.iter().map(|t| t.to_json(tz)).collect())).into_response())
}

#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    Ok(Json(load(&st, &a.id, &id).await?.value.to_json(a.tz())).into_response())
}

fn name_of(r: &mut ObjReader) -> Option<String> {
    let name = r.str_req("name", template::MAX_NAME);
    if let Some(n) = &name {
        if n.chars().any(char::is_control) {
            r.err("name", "format", "name may not hold control characters");
            return None;
        }
    }
    name.map(|n| n.trim().to_string())
}

/// POST `{name}` → 200 with the (empty) template; at the limit 403 `{type, message}`.
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn create(State(st): State<AppState>, Auth(a): Auth, JsonBody(body): JsonBody) -> AppResult<Response> {
    let mut r = ObjReader::new(&body, "", &["name", "id", "siteId", "created"]);
    let name = name_of(&mut r);
    if r.present("id") {
        r.err("id", "notOnCreate", "id is set by the service");
    }
    if let Some(site) = r.get("siteId") {
        if site.as_str() != Some(a.id.as_str()) {
            r.err("siteId", "matchesAccount", format!("siteId must be this account's id ({}) or left out", a.id));
        }
    }
    let Some(name) = name.filter(|_| r.errors.is_empty()) else { return Err(AppError::Validation(r.errors)) };
    let max = a.limits.targeting_templates;
    let id = crate::ids::new_id();
    let t = Template { rules: crate::model::rules::Rules::empty(&id), id, name, site_id: a.id.clone(), created: st.clock.now() };
    for _ in 0..WRITE_ATTEMPTS {
        let ops = vec![
            TxOp::Add(keys::template_count(&a.id), vec![(COUNT.into(), 1)], Cond::CounterBelow(COUNT.into(), i64::from(max))),
            TxOp::Put(repo::item(template_key(&a.id, &t.id), &t, 1)?, Cond::NotExists),
        ];
        match st.store.transact(ops).await {
            Ok(()) => {
                tracing::info!(template = %t.id, "targeting template created");
                return Ok(Json(t.to_json(a.tz())).into_response());
            }
            Err(StoreError::TransactionCanceled { .. }) => {
                let active = active_count(&st, &a.id).await?;
                if active >= i64::from(max) {
                    // Exactly {type, message} (seed 002 §4.1, §7).
                    let body = json!({"type": "ForbiddenError", "message": limit_message(active, max)});
                    return Ok((StatusCode::FORBIDDEN, Json(body)).into_response());
                }
            }
            Err(e) => return Err(e.into()),
        }
    }
    Err(conflict())
}

/// PUT `{id, name, siteId}`: only the name changes; 204.
#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn update(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, JsonBody(body): JsonBody) -> AppResult<Response> {
    // Found in the caller's account first (404), then the body is validated.
    load(&st, &a.id, &id).await?;
    let mut r = ObjReader::new(&body, "", &["id", "name", "siteId", "created"]);
    let name = name_of(&mut r);
    if let Some(v) = r.get("id") {
        if v.as_str() != Some(id.as_str()) {
            r.err("id", "matchesPath", format!("id must equal the id in the path ({id})"));
        }
    }
    if let Some(v) = r.get("siteId") {
        if v.as_str() != Some(a.id.as_str()) {
            r.err("siteId", "immutable", format!("siteId cannot be changed (it is {})", a.id));
        }
    }
    let Some(name) = name.filter(|_| r.errors.is_empty()) else { return Err(AppError::Validation(r.errors)) };
    change(&st, &a.id, &id, |t| {
        t.name = name.clone();
        Ok(())
    })
    .await?;
    Ok(no_content())
}

/// A conditional read-modify-write of a template.
async fn change(st: &AppState, account: &str, id: &str, f: impl Fn(&mut Template) -> AppResult<()>) -> AppResult<Template> {
    let mut tries = Attempts::new("targeting template", id, None);
    loop {
        let cur = load(st, account, id).await?;
        tries.check(cur.version())?;
        let mut next = cur.value.clone();
        f(&mut next)?;
        let ops = vec![TxOp::Put(repo::next(&cur.item, &next)?, Cond::Version(cur.version()))];
        if tries.commit(st.store.as_ref(), ops).await? {
            return Ok(next);
        }
    }
}

/// DELETE: 204; the template's links to campaigns and goals go with it.
#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    load(&st, &a.id, &id).await?;
    let ops = vec![
        TxOp::Delete(template_key(&a.id, &id), Cond::Exists),
        TxOp::Add(keys::template_count(&a.id), vec![(COUNT.into(), -1)], Cond::None),
    ];
    match st.store.transact(ops).await {
        Ok(()) => {}
        Err(StoreError::TransactionCanceled { .. }) => return Err(AppError::not_found("targeting template", &id)),
        Err(e) => return Err(e.into()),
    }
    // Links are written only while the template exists (a transaction checks it), so after
    // the delete no new one can appear: this sweep leaves none behind.
    let mut cursor = None;
    loop {
        let page = st.store.query(Query::partition(keys::template_links(&a.id, &id)).limit(500).after(cursor)).await?;
        let dead: Vec<Key> = page.items.iter().map(Item::key).collect();
        if !dead.is_empty() {
            st.store.batch_write(Vec::new(), dead).await?;
        }
        match page.next {
            Some(c) => cursor = Some(c),
            None => break,
        }
    }
    tracing::info!(template = %id, "targeting template deleted and unlinked");
    Ok(no_content())
}

async fn names(st: &AppState, account: &str) -> AppResult<(Vec<String>, Vec<String>)> {
    let providers: Vec<Versioned<AudienceProvider>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(account, keys::PROVIDER))).await?;
    let acps: Vec<Versioned<CustomParameter>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(account, keys::ACP))).await?;
    Ok((providers.into_iter().map(|p| p.value.id).collect(), acps.into_iter().map(|c| c.value.name).collect()))
}

#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn get_rules(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let t = load(&st, &a.id, &id).await?;
    let (providers, acps) = names(&st, &a.id).await?;
    Ok(Json(template::rules_json(&t.value.rules, &providers, &acps)).into_response())
}

/// PUT the rules body (§2.3), every bean validated; replaces the template's rules; 204.
#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn put_rules(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, JsonBody(body): JsonBody) -> AppResult<Response> {
    load(&st, &a.id, &id).await?;
    let known = super::rules::known(&st, &a.id).await?;
    let rules = template::parse_rules(&body, &known, &id)?;
    change(&st, &a.id, &id, |t| {
        t.rules = rules.clone();
        Ok(())
    })
    .await?;
    Ok(no_content())
}

/// POST `?campaignId=|goalId=`: copies the rules into the target's rules; 204.
#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn import(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let t = load(&st, &a.id, &id).await?;
    let Some((parent, target_id)) = target(&st, &a, &query_pairs(q.as_deref())?, true).await? else {
        return Err(AppError::field("campaignId", "required", "query parameter campaignId or goalId is required"));
    };
    super::rules::update(&st, &a.id, parent, &target_id, |r| r.merge(&t.value.rules, parent)).await?;
    tracing::info!(template = %id, target = %target_id, "template rules imported");
    Ok(no_content())
}

/// PUT `?campaignId=|goalId=`: links the template (its rules apply to the target for as
/// long as it is linked, and follow later edits); 204, also when already linked.
#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn link(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    load(&st, &a.id, &id).await?;
    let Some((parent, target_id)) = target(&st, &a, &query_pairs(q.as_deref())?, true).await? else {
        return Err(AppError::field("campaignId", "required", "query parameter campaignId or goalId is required"));
    };
    let k = kind(parent);
    let mut item =
        Item { pk: keys::template_links(&a.id, &id), sk: format!("{k}#{target_id}"), version: 1, body: "{}".into(), ..Item::default() };
    item.gsi1 = Some((keys::linked_templates(&a.id, k, &target_id), id.clone()));
    let ops = vec![TxOp::Check(template_key(&a.id, &id), Cond::Exists), TxOp::Put(item, Cond::None)];
    match st.store.transact(ops).await {
        Ok(()) => Ok(no_content()),
        Err(StoreError::TransactionCanceled { .. }) => Err(AppError::not_found("targeting template", &id)),
        Err(e) => Err(e.into()),
    }
}

/// DELETE `?campaignId=|goalId=`: removes the link; 204 (also when there was none).
#[tracing::instrument(skip_all, fields(account = %a.id, id = %id))]
async fn unlink(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    load(&st, &a.id, &id).await?;
    let Some((parent, target_id)) = target(&st, &a, &query_pairs(q.as_deref())?, true).await? else {
        return Err(AppError::field("campaignId", "required", "query parameter campaignId or goalId is required"));
    };
    let key = Key::new(keys::template_links(&a.id, &id), format!("{}#{target_id}", kind(parent)));
    st.store.delete(&key, Cond::None).await?;
    Ok(no_content())
}
