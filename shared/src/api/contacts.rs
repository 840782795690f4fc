//! Contacts (seed 001 §4.4), XML.

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{post, put};
use axum::Router;

use super::*;
use crate::error::AppResult;
use crate::ids::{new_id, plausible_id};
use crate::model::contact::{parse_bean, Contact};
use crate::repo::Versioned;
use crate::store::{Cond, Query, StoreError, TxOp};
use crate::xml::expect_root;

pub fn router() -> Router<AppState> {
    Router::new()
        .route("/api/1.0/contact", post(create))
        .route("/api/1.0/contact/associate/{seg}", put(associate))
        .route("/api/1.0/contact/{seg}", axum::routing::get(get_by).put(update).delete(remove))
}

async fn load(st: &AppState, account: &str, id: &str) -> AppResult<Versioned<Contact>> {
    if !plausible_id(id) {
        return Err(AppError::not_found("contact", id));
    }
    repo::get(st.store.as_ref(), &keys::record(account, keys::CONTACT, id)).await?.ok_or_else(|| AppError::not_found("contact", id))
}

fn contact_id(seg: &str) -> AppResult<String> {
    let m = Matrix::parse(seg);
    if m.name != "by_contact_id" {
        return Err(AppError::NoRoute(format!("/api/1.0/contact/{seg}")));
    }
    m.id()
}

#[tracing::instrument(skip_all, fields(account = %a.id))]
async fn create(State(st): State<AppState>, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "contactBean")?)?;
    reject_id_on_create("contactBean", &input.id)?;
    let c = Contact::from_input(new_id(), input, st.clock.now());
    st.store.put(repo::item(keys::record(&a.id, keys::CONTACT, &c.id), &c, 1)?, Cond::NotExists).await?;
    tracing::info!(contact = %c.id, "contact created");
    Ok(text_response(StatusCode::OK, c.id))
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn get_by(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    match m.name.as_str() {
        "by_contact_id" => {
            let c = load(&st, &a.id, &m.id()?).await?;
            let mut o = XmlOut::new();
            o.open("collection");
            c.value.write_as(&mut o, "contactBean");
            o.close("collection");
            Ok(with_etag(xml_response(StatusCode::OK, o.finish()), c.version()))
        }
        "by_client_id" => {
            let client = super::clients::load(&st, &a.id, &m.id()?).await?.value;
            let linked: Vec<Versioned<Contact>> =
                repo::query_all(st.store.as_ref(), Query::gsi1(keys::client_contacts(&a.id, &client.id))).await?;
            let mut list: Vec<Contact> =
                linked.into_iter().map(|v| v.value).filter(|c| c.client_id.as_deref() == Some(client.id.as_str())).collect();
            list.sort_by(|x, y| x.first_name.to_lowercase().cmp(&y.first_name.to_lowercase()).then(x.id.cmp(&y.id)));
            let mut o = XmlOut::new();
            o.open("contacts").open_attr("contacts", "clientId", &client.id).open("contactList");
            for c in &list {
                c.write_as(&mut o, "contacts");
            }
            o.close("contactList").close("contacts").close("contacts");
            Ok(xml_response(StatusCode::OK, o.finish()))
        }
        _ => Err(AppError::NoRoute(format!("/api/1.0/contact/{seg}"))),
    }
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn update(
    State(st): State<AppState>,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = contact_id(&seg)?;
    let expected = if_match(&headers)?;
    let input = parse_bean(expect_root(&doc, "contactBean")?)?;
    check_body_id("contactBean", &input.id, &id)?;
    let now = st.clock.now();
    let mut tries = Attempts::new("contact", &id, expected);
    loop {
        let cur = load(&st, &a.id, &id).await?;
        tries.check(cur.version())?;
        let mut c = cur.value.clone();
        c.replace(input.clone(), now);
        let ops = vec![TxOp::Put(repo::next(&cur.item, &c)?, Cond::Version(cur.version()))];
        if tries.commit(st.store.as_ref(), ops).await? {
            break;
        }
    }
    Ok(no_content())
}

/// `PUT /api/1.0/contact/associate/by_contact_id`, form body `contactId=..;clientId=..`.
/// A contact is associated with one client at a time; associating it again moves it.
#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn associate(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>, FormPairs(pairs): FormPairs) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    if m.name != "by_contact_id" {
        return Err(AppError::NoRoute(format!("/api/1.0/contact/associate/{seg}")));
    }
    let field = |k: &str| pairs.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.clone()).filter(|v| !v.is_empty());
    let mut errors = Vec::new();
    for (k, _) in &pairs {
        if k != "contactId" && k != "clientId" {
            errors.push(crate::error::FieldError::new(
                k.clone(),
                "unknown",
                format!("unknown form field {k:?} (expected contactId and clientId)"),
            ));
        }
    }
    let contact_id = field("contactId").or_else(|| m.get("id").map(str::to_string).filter(|v| !v.is_empty()));
    let client_id = field("clientId");
    if contact_id.is_none() {
        errors.push(crate::error::FieldError::new("contactId", "required", "form field contactId is required"));
    }
    if client_id.is_none() {
        errors.push(crate::error::FieldError::new("clientId", "required", "form field clientId is required"));
    }
    if let (Some(path_id), Some(body_id)) = (m.get("id"), field("contactId")) {
        if !path_id.is_empty() && path_id != body_id {
            errors.push(crate::error::FieldError::new("contactId", "matchesPath", "contactId must equal the ;id= of the path"));
        }
    }
    let (Some(contact_id), Some(client_id)) = (contact_id, client_id) else {
        return Err(AppError::Validation(errors));
    };
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    let client_key = keys::record(&a.id, keys::CLIENT, &client_id);
    let now = st.clock.now();
    // Either record may change or vanish meanwhile: the write checks both, and a retry
    // reads them again (a vanished one answers 404).
    let mut tries = Attempts::new("contact", &contact_id, None);
    loop {
        let contact = load(&st, &a.id, &contact_id).await?;
        tries.check(contact.version())?;
        super::clients::load(&st, &a.id, &client_id).await?;
        let mut c = contact.value.clone();
        c.client_id = Some(client_id.clone());
        c.modified = now;
        let mut item = repo::next(&contact.item, &c)?;
        item.gsi1 = Some((keys::client_contacts(&a.id, &client_id), c.id.clone()));
        let ops = vec![TxOp::Put(item, Cond::Version(contact.version())), TxOp::Check(client_key.clone(), Cond::Exists)];
        if tries.commit(st.store.as_ref(), ops).await? {
            break;
        }
    }
    tracing::info!(contact = %contact_id, client = %client_id, "contact associated");
    Ok(no_content())
}

#[tracing::instrument(skip_all, fields(account = %a.id, seg = %seg))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = contact_id(&seg)?;
    load(&st, &a.id, &id).await?;
    match st.store.delete(&keys::record(&a.id, keys::CONTACT, &id), Cond::Exists).await {
        Ok(()) => Ok(no_content()),
        Err(StoreError::ConditionFailed) => Err(AppError::not_found("contact", &id)),
        Err(e) => Err(e.into()),
    }
}
