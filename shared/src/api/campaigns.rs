//! Campaigns (seed 001 §4.1, §2.1, §2.5, §3), XML.

use std::collections::BTreeSet;

use axum::extract::{Path, RawQuery, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;
use chrono::{DateTime, Datelike, Utc};

use super::clients::{load_typed, REFS};
use super::*;
use crate::error::{AppResult, FieldError};
use crate::ids::{new_id, plausible_id};
use crate::model::campaign::{parse_bean, Campaign, CampaignInput};
use crate::model::notification::{notifications, write_map, GoalSummary};
use crate::repo::Versioned;
use crate::store::{Cond, Item, Query, StoreError, TxOp};
use crate::xml::expect_root;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/1.0/campaign", get(list).post(create))
        .route("/api/1.0/campaign/archived", get(archived))
        .route("/api/1.0/campaign/notification/{seg}", get(notification))
        .route("/api/1.0/campaign/{seg}", get(get_one).put(update).delete(remove))
}

/// A live (not deleted) campaign of the account, else 404.
pub async fn load(st: &AppState, account: &str, id: &str) -> AppResult<Versioned<Campaign>> {
    if !plausible_id(id) {
        return Err(AppError::not_found("campaign", id));
    }
    match repo::get::<Campaign>(st.store.as_ref(), &keys::record(account, keys::CAMPAIGN, id)).await? {
        Some(c) if c.value.deleted_at.is_none() => Ok(c),
        _ => Err(AppError::not_found("campaign", id)),
    }
}

fn campaign_id(seg: &str) -> AppResult<String> {
    let m = Matrix::parse(seg);
    if m.name != "by_campaign_id" {
        return Err(AppError::NoRoute(format!("/api/1.0/campaign/{seg}")));
    }
    m.id()
}

fn collection(list: &[Campaign], a: &crate::model::account::Account, now: DateTime<Utc>) -> String {
    let mut o = XmlOut::new();
    o.open("collection");
    for c in list {
        c.write(&mut o, a, now);
    }
    o.close("collection");
    o.finish()
}

/// Whether the bean's `status` archives the campaign; any other move is refused (§2.1, §3).
fn status_move(status: Option<&str>, current: &Campaign, now: DateTime<Utc>) -> AppResult<bool> {
    match status {
        None => Ok(false),
        Some("ARCHIVED") => Ok(!current.is_archived()),
        Some(s) if current.is_archived() => Err(AppError::field(
            "campaignBean/status",
            "archived",
            format!("campaignBean/status: the campaign is archived and cannot be set back to {s}"),
        )),
        Some(s) if s == current.status(now) => Ok(false),
        Some(s) => Err(AppError::field(
            "campaignBean/status",
            "readOnly",
            format!("campaignBean/status {s} is derived from the goals' flight and cannot be set; only ARCHIVED can be set"),
        )),
    }
}

fn archive(c: &mut Campaign, a: &crate::model::account::Account, now: DateTime<Utc>) {
    let local = now.with_timezone(&a.tz());
    c.archived_at = Some(now);
    c.archive_month = Some(format!("{:04}-{:02}", local.year(), local.month()));
}

fn campaign_item(a: &str, c: &Campaign, base: Item) -> AppResult<Item> {
    let mut item = Item { body: serde_json::to_string(c)?, ..base };
    item.gsi1 = match (&c.archive_month, c.deleted_at) {
        (Some(m), None) => Some((keys::archived_month(a, m), c.id.clone())),
        _ => None,
    };
    Ok(item)
}

/// The clients a bean names, each checked for its type; every bad reference reported.
async fn resolve_refs(
    st: &AppState,
    account: &str,
    i: &CampaignInput,
    only: &BTreeSet<String>,
) -> AppResult<Vec<Versioned<crate::model::client::Client>>> {
    let mut wanted = vec![(i.advertiser_id.clone(), "ADVERTISER", "advertiserId")];
    if let Some(x) = &i.agency_id {
        wanted.push((x.clone(), "AGENCY", "agencyId"));
    }
    if let Some(x) = &i.brand_id {
        wanted.push((x.clone(), "BRAND", "brandId"));
    }
    let mut out = Vec::new();
    let mut errors: Vec<FieldError> = Vec::new();
    for (id, kind, field) in wanted {
        if !only.contains(&id) {
            continue;
        }
        match load_typed(st, account, &id, kind, field).await {
            Ok(c) => out.push(c),
            Err(AppError::Validation(mut e)) => errors.append(&mut e),
            Err(e) => return Err(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(AppError::Validation(errors))
    }
}

fn ref_adds(account: &str, refs: &[Versioned<crate::model::client::Client>], delta: i64) -> Vec<TxOp> {
    refs.iter()
        .map(|c| TxOp::Add(keys::record(account, keys::CLIENT, &c.value.id), vec![(REFS.to_string(), delta)], Cond::Version(c.version())))
        .collect()
}

fn ref_drops(account: &str, ids: &BTreeSet<String>) -> Vec<TxOp> {
    ids.iter().map(|id| TxOp::Add(keys::record(account, keys::CLIENT, id), vec![(REFS.to_string(), -1)], Cond::Exists)).collect()
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn create(State(st): State<AppState>, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "campaignBean")?)?;
    reject_id_on_create("campaignBean", &input.id)?;
    let id = new_id();
    for _ in 0..WRITE_ATTEMPTS {
        let now = st.clock.now();
        let mut c = Campaign::from_input(id.clone(), &input, now);
        let archive_now = status_move(input.status.as_deref(), &c, now)?;
        let all: BTreeSet<String> = c.client_ids().into_iter().collect();
        let refs = resolve_refs(&st, &a.id, &input, &all).await?;
        if archive_now {
            archive(&mut c, &a, now);
        }
        let item =
            campaign_item(&a.id, &c, Item { pk: keys::partition(&a.id, keys::CAMPAIGN), sk: id.clone(), version: 1, ..Item::default() })?;
        let mut tx = vec![TxOp::Put(item, Cond::NotExists)];
        tx.extend(ref_adds(&a.id, &refs, 1));
        match st.store.transact(tx).await {
            Ok(()) => {
                tracing::info!(campaign = %id, "campaign created");
                return Ok(text_response(StatusCode::OK, id));
            }
            // A named client changed meanwhile: check the references again.
            Err(StoreError::TransactionCanceled { .. }) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(conflict())
}

#[derive(Default)]
struct ListFilter {
    status: Option<String>,
    state: Option<String>,
}

fn list_filter(raw: Option<&str>) -> AppResult<ListFilter> {
    let pairs = query_pairs(raw)?;
    let mut errors = Vec::new();
    let mut f = ListFilter::default();
    if let Some(s) = single(&pairs, "status")? {
        let s = s.to_ascii_lowercase();
        if ["active", "recent", "upcoming"].contains(&s.as_str()) {
            f.status = Some(s.to_ascii_uppercase());
        } else {
            errors.push(FieldError::new(
                "status",
                "enum",
                format!("query parameter status must be active, recent or upcoming (got {s:?})"),
            ));
        }
    }
    if let Some(s) = single(&pairs, "state")? {
        let s = s.to_ascii_lowercase();
        if ["archived", "disabled", "enabled"].contains(&s.as_str()) {
            f.state = Some(s);
        } else {
            errors.push(FieldError::new(
                "state",
                "enum",
                format!("query parameter state must be archived, disabled or enabled (got {s:?})"),
            ));
        }
    }
    if errors.is_empty() {
        Ok(f)
    } else {
        Err(AppError::Validation(errors))
    }
}

fn sort_campaigns(list: &mut [Campaign]) {
    list.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
}

/// `GET /api/1.0/campaign`: live campaigns; archived ones only with `state=archived`.
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let f = list_filter(q.as_deref())?;
    let now = st.clock.now();
    let all: Vec<Versioned<Campaign>> =
        repo::query_all(st.store.as_ref(), Query::partition(keys::partition(&a.id, keys::CAMPAIGN))).await?;
    let mut list: Vec<Campaign> = all
        .into_iter()
        .map(|v| v.value)
        .filter(|c| c.deleted_at.is_none())
        .filter(|c| match &f.state {
            Some(s) => c.state() == s,
            None => !c.is_archived(),
        })
        .filter(|c| f.status.as_deref().is_none_or(|s| c.status(now) == s))
        .collect();
    sort_campaigns(&mut list);
    Ok(xml_response(StatusCode::OK, collection(&list, &a, now)))
}

/// `GET /api/1.0/campaign/archived?year=&month=`: campaigns archived in that month of the
/// account's time zone; default the current month.
#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn archived(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let now = st.clock.now();
    let local = now.with_timezone(&a.tz());
    let mut errors = Vec::new();
    let year = match single(&pairs, "year")? {
        None => Some(local.year()),
        Some(y) if y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()) => y.parse::<i32>().ok(),
        Some(y) => {
            errors.push(FieldError::new("year", "format", format!("query parameter year must be a 4-digit year (got {y:?})")));
            None
        }
    };
    let month = match single(&pairs, "month")? {
        None => Some(local.month()),
        Some(m) => match m.parse::<u32>() {
            Ok(v) if (1..=12).contains(&v) => Some(v),
            _ => {
                errors.push(FieldError::new("month", "range", format!("query parameter month must be an integer 1 to 12 (got {m:?})")));
                None
            }
        },
    };
    let (Some(year), Some(month)) = (year, month) else {
        return Err(AppError::Validation(errors));
    };
    let ym = format!("{year:04}-{month:02}");
    let found: Vec<Versioned<Campaign>> = repo::query_all(st.store.as_ref(), Query::gsi1(keys::archived_month(&a.id, &ym))).await?;
    let mut list: Vec<Campaign> =
        found.into_iter().map(|v| v.value).filter(|c| c.deleted_at.is_none() && c.archive_month.as_deref() == Some(ym.as_str())).collect();
    sort_campaigns(&mut list);
    Ok(xml_response(StatusCode::OK, collection(&list, &a, now)))
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let c = load(&st, &a.id, &campaign_id(&seg)?).await?;
    let body = collection(std::slice::from_ref(&c.value), &a, st.clock.now());
    Ok(with_etag(xml_response(StatusCode::OK, body), c.version()))
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn update(
    State(st): State<AppState>,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = campaign_id(&seg)?;
    let expected = if_match(&headers)?;
    let input = parse_bean(expect_root(&doc, "campaignBean")?)?;
    check_body_id("campaignBean", &input.id, &id)?;
    let mut tries = Attempts::new("campaign", &id, expected);
    loop {
        let cur = load(&st, &a.id, &id).await?;
        tries.check(cur.version())?;
        let now = st.clock.now();
        let archive_now = status_move(input.status.as_deref(), &cur.value, now)?;
        let mut c = cur.value.clone();
        c.replace(&input, now);
        if archive_now {
            archive(&mut c, &a, now);
        }
        let old: BTreeSet<String> = cur.value.client_ids().into_iter().collect();
        let new: BTreeSet<String> = c.client_ids().into_iter().collect();
        let added: BTreeSet<String> = new.difference(&old).cloned().collect();
        let dropped: BTreeSet<String> = old.difference(&new).cloned().collect();
        let refs = resolve_refs(&st, &a.id, &input, &added).await?;
        let item = campaign_item(&a.id, &c, Item { version: cur.version() + 1, ..cur.item.clone() })?;
        let mut tx = vec![TxOp::Put(item, Cond::Version(cur.version()))];
        tx.extend(ref_adds(&a.id, &refs, 1));
        tx.extend(ref_drops(&a.id, &dropped));
        let ops = tx;
        if tries.commit(st.store.as_ref(), ops).await? {
            break;
        }
    }
    Ok(no_content())
}

/// Deleting keeps a tombstone (the /v3 queries can show deleted campaigns) and releases the
/// campaign's clients.
#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = campaign_id(&seg)?;
    let mut tries = Attempts::new("campaign", &id, None);
    loop {
        let cur = load(&st, &a.id, &id).await?;
        tries.check(cur.version())?;
        let mut c = cur.value.clone();
        c.deleted_at = Some(st.clock.now());
        let item = campaign_item(&a.id, &c, Item { version: cur.version() + 1, ..cur.item.clone() })?;
        let mut tx = vec![TxOp::Put(item, Cond::Version(cur.version()))];
        tx.extend(ref_drops(&a.id, &cur.value.client_ids().into_iter().collect()));
        let ops = tx;
        if tries.commit(st.store.as_ref(), ops).await? {
            break;
        }
    }
    tracing::info!(campaign = %id, "campaign deleted");
    Ok(no_content())
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn notification(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let c = load(&st, &a.id, &campaign_id(&seg)?).await?.value;
    let goals = super::goals::load_many(&st, &a.id, &c.live_goal_ids()).await?;
    let summaries: Vec<GoalSummary> = goals
        .into_iter()
        .map(|g| GoalSummary {
            name: g.name.clone().unwrap_or_else(|| g.id.clone()),
            start: Some(g.start),
            end: g.end,
            ads_total: g.ads.len(),
            ads_enabled: g.ads.iter().filter(|x| x.enabled).count(),
            id: g.id,
        })
        .collect();
    let list = notifications(&c, &summaries, st.clock.now());
    let mut o = XmlOut::new();
    write_map(&mut o, &[(c.id.clone(), list)]);
    Ok(xml_response(StatusCode::OK, o.finish()))
}
