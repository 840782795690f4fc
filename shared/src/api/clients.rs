//! Clients (seed 001 §4.3), XML.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use axum::Router;

use super::*;
use crate::error::AppResult;
use crate::ids::{new_id, plausible_id};
use crate::model::client::{parse_bean, Client};
use crate::model::contact::Contact;
use crate::repo::Versioned;
use crate::store::{Cond, Query, StoreError, TxOp};
use crate::xml::expect_root;

/// Counter on a client item: campaigns naming it as advertiser, agency or brand.
pub const REFS: &str = "campaigns";

pub fn router() -> Router<AppState> {
    Router::new().route("/api/1.0/client", get(list).post(create)).route("/api/1.0/client/{seg}", get(get_by).put(update).delete(remove))
}

pub async fn load(st: &AppState, account: &str, id: &str) -> AppResult<Versioned<Client>> {
    if !plausible_id(id) {
        return Err(AppError::not_found("client", id));
    }
    repo::get(st.store.as_ref(), &keys::record(account, keys::CLIENT, id)).await?.ok_or_else(|| AppError::not_found("client", id))
}

fn collection(clients: &[Client]) -> String {
    let mut o = XmlOut::new();
    o.open("collection");
    for c in clients {
        c.write(&mut o);
    }
    o.close("collection");
    o.finish()
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn create(State(st): State<AppState>, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "clientBean")?)?;
    reject_id_on_create("clientBean", &input.id)?;
    let c = Client::from_input(new_id(), input, st.clock.now());
    let item = repo::item(keys::record(&a.id, keys::CLIENT, &c.id), &c, 1)?;
    st.store.put(item, Cond::NotExists).await?;
    tracing::info!(client = %c.id, "client created");
    Ok(text_response(StatusCode::OK, c.id))
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn list(State(st): State<AppState>, Auth(a): Auth) -> AppResult<Response> {
    let all: Vec<Versioned<Client>> = repo::query_all(st.store.as_ref(), Query::partition(keys::partition(&a.id, keys::CLIENT))).await?;
    let mut clients: Vec<Client> = all.into_iter().map(|v| v.value).collect();
    clients.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(xml_response(StatusCode::OK, collection(&clients)))
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn get_by(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    match m.name.as_str() {
        "by_client_id" => {
            let c = load(&st, &a.id, &m.id()?).await?;
            Ok(with_etag(xml_response(StatusCode::OK, collection(std::slice::from_ref(&c.value))), c.version()))
        }
        "by_campaign_id" => {
            let campaign = super::campaigns::load(&st, &a.id, &m.id()?).await?.value;
            let ids = campaign.client_ids();
            let keys: Vec<_> = ids.iter().map(|id| keys::record(&a.id, keys::CLIENT, id)).collect();
            let found = st.store.batch_get(&keys).await?;
            let mut clients = Vec::new();
            for id in &ids {
                if let Some(item) = found.iter().find(|i| &i.sk == id) {
                    clients.push(repo::decode::<Client>(item.clone())?.value);
                }
            }
            Ok(xml_response(StatusCode::OK, collection(&clients)))
        }
        _ => Err(AppError::NoRoute(format!("/api/1.0/client/{seg}"))),
    }
}

fn client_id(seg: &str) -> AppResult<String> {
    let m = Matrix::parse(seg);
    if m.name != "by_client_id" {
        return Err(AppError::NoRoute(format!("/api/1.0/client/{seg}")));
    }
    m.id()
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn update(
    State(st): State<AppState>,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = client_id(&seg)?;
    let expected = if_match(&headers)?;
    let input = parse_bean(expect_root(&doc, "clientBean")?)?;
    check_body_id("clientBean", &input.id, &id)?;
    let now = st.clock.now();
    let mut tries = Attempts::new("client", &id, expected);
    loop {
        let cur = load(&st, &a.id, &id).await?;
        tries.check(cur.version())?;
        let refs = cur.item.counter(REFS);
        if refs > 0 && input.kind != cur.value.kind {
            return Err(AppError::Conflict(format!(
                "client {id} is named by {refs} campaign(s) as {}; its type cannot change while they do",
                cur.value.kind
            )));
        }
        let mut c = cur.value.clone();
        c.replace(input.clone(), now);
        // A type change must not race a campaign starting to name the client.
        let cond = if input.kind != cur.value.kind {
            Cond::VersionAndCounterZero(cur.version(), REFS.into())
        } else {
            Cond::Version(cur.version())
        };
        let ops = vec![TxOp::Put(repo::next(&cur.item, &c)?, cond)];
        if tries.commit(st.store.as_ref(), ops).await? {
            break;
        }
    }
    Ok(no_content())
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = client_id(&seg)?;
    let cur = load(&st, &a.id, &id).await?;
    let key = keys::record(&a.id, keys::CLIENT, &id);
    match st.store.delete(&key, Cond::CounterZero(REFS.into())).await {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => {
            return match repo::get::<Client>(st.store.as_ref(), &key).await? {
                None => Err(AppError::not_found("client", &id)),
                Some(c) => Err(AppError::Conflict(format!(
                    "client {id} is named by {} campaign(s); delete or change them first",
                    c.item.counter(REFS)
                ))),
            };
        }
        Err(e) => return Err(e.into()),
    }
    // The contacts associated with it are no longer associated (best effort: a contact
    // changed concurrently keeps a link to a client that no longer exists, which no
    // read shows).
    let linked: Vec<Versioned<Contact>> = repo::query_all(st.store.as_ref(), Query::gsi1(keys::client_contacts(&a.id, &id))).await?;
    for v in linked {
        let mut c = v.value.clone();
        c.client_id = None;
        let mut item = repo::next(&v.item, &c)?;
        item.gsi1 = None;
        let _ = st.store.put(item, Cond::Version(v.version())).await;
    }
    tracing::info!(client = %id, name = %cur.value.name, "client deleted");
    Ok(no_content())
}

/// Used by campaigns: the client of a reference must exist with the given type.
pub async fn load_typed(st: &AppState, account: &str, id: &str, kind: &str, field: &str) -> AppResult<Versioned<Client>> {
    let bad = || {
        AppError::field(
            format!("campaignBean/{field}"),
            "reference",
            format!("campaignBean/{field}: no {kind} client with id {id} in this account"),
        )
    };
    if !plausible_id(id) {
        return Err(bad());
    }
    match repo::get::<Client>(st.store.as_ref(), &keys::record(account, keys::CLIENT, id)).await? {
        Some(c) if c.value.kind == kind => Ok(c),
        _ => Err(bad()),
    }
}
