//! Contacts (seed 001 §4.4), XML.

use crate::rule::Rule;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{post, put};

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{
    check_body_id, if_match, no_content, reject_id_on_create, text_response, with_etag, xml_response, Auth, FormPairs, Matrix, Selector,
    XmlBody,
};
use crate::ids::new_id;
use crate::model::contact::{parse_bean, Contact};
use crate::repo;
use crate::state::AppState;
use crate::xml::expect_root;
use crate::xml::XmlOut;

/// The fields of the associate form.
pub const ASSOCIATE_FIELDS: &[&str] = &["contactId", "clientId"];

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(create, get_by, update, associate, remove), tags((name = "contacts", description = "Contacts (XML, seed 001 §2.4)")))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/api/1.0/contact", post(create))
        .route("/api/1.0/contact/associate/{seg}", put(associate))
        .route("/api/1.0/contact/{seg}", axum::routing::get(get_by).put(update).delete(remove))
}

fn contact_id(seg: &str) -> AppResult<String> {
    Matrix::id_of(seg, Selector::ByContactId, "/api/1.0/contact")
}

#[utoipa::path(post, path = "/api/1.0/contact", tag = "contacts", summary = "Create a contact", request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::CONTACT_IN)), responses((status = 200, description = "Created: the new id", content_type = "text/plain", body = String, example = json!(super::xml_examples::ID_OUT))))]
async fn create(State(st): State<AppState>, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "contactBean")?)?;
    reject_id_on_create("contactBean", &input.id)?;
    let c = Contact::from_input(new_id(), input, st.clock.now());
    repo::contacts::create(st.store.as_ref(), &a.id, &c).await?;
    tracing::info!(contact = %c.id, "contact created");
    Ok(text_response(StatusCode::OK, c.id))
}

#[utoipa::path(get, path = "/api/1.0/contact/{seg}", tag = "contacts", summary = "Read a contact, or a client's contacts", params(("seg" = String, Path, description = "by_contact_id;id=<id> or by_client_id;id=<id>")), responses((status = 200, description = "The contact(s)", headers(("ETag" = String)), content_type = "application/xml", body = String, example = json!(super::xml_examples::CONTACTS_OUT))))]
async fn get_by(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    match m.selector() {
        Some(Selector::ByContactId) => {
            let c = repo::contacts::load(st.store.as_ref(), &a.id, &m.id()?).await?;
            let mut o = XmlOut::new();
            o.open("collection");
            c.value.write_as(&mut o, "contactBean");
            o.close("collection");
            Ok(with_etag(xml_response(StatusCode::OK, o.finish()), c.version()))
        }
        Some(Selector::ByClientId) => {
            let client = repo::clients::load(st.store.as_ref(), &a.id, &m.id()?).await?.value;
            let mut list = repo::contacts::of_client(st.store.as_ref(), &a.id, &client.id).await?;
            list.sort_by(|x, y| x.first_name.to_lowercase().cmp(&y.first_name.to_lowercase()).then(x.id.cmp(&y.id)));
            let mut o = XmlOut::new();
            o.open("contacts").open_attr("contacts", "clientId", &client.id).open("contactList");
            for c in &list {
                c.write_as(&mut o, "contacts");
            }
            o.close("contactList").close("contacts").close("contacts");
            Ok(xml_response(StatusCode::OK, o.finish()))
        }
        Some(Selector::ByCampaignId | Selector::ByGoalId) | None => Err(AppError::NoRoute(format!("/api/1.0/contact/{seg}"))),
    }
}

#[utoipa::path(put, path = "/api/1.0/contact/{seg}", tag = "contacts", summary = "Update a contact", params(("seg" = String, Path, description = "by_contact_id;id=<id>"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the record changed since")), request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::CONTACT_IN)), responses((status = 204, description = "Done")))]
async fn update(
    State(st): State<AppState>,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = contact_id(&seg)?;
    let expected = if_match(&headers)?;
    let cur = repo::contacts::load(st.store.as_ref(), &a.id, &id).await?;
    let input = parse_bean(expect_root(&doc, "contactBean")?)?;
    check_body_id("contactBean", &input.id, &id)?;
    let now = st.clock.now();
    repo::contacts::update(st.store.as_ref(), &a.id, cur, expected, |c| c.replace(input.clone(), now)).await?;
    Ok(no_content())
}

/// `PUT /api/1.0/contact/associate/by_contact_id`, form body `contactId=..;clientId=..`.
/// A contact is associated with one client at a time; associating it again moves it.
#[utoipa::path(put, path = "/api/1.0/contact/associate/{seg}", tag = "contacts", summary = "Associate a contact with a client", params(("seg" = String, Path, description = "by_contact_id;id=<id>")), request_body(content = super::bodies::AssociateForm, content_type = "application/x-www-form-urlencoded", example = json!("contactId=<contact id>;clientId=<client id>")), responses((status = 204, description = "Done")))]
async fn associate(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>, FormPairs(pairs): FormPairs) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    if m.selector() != Some(Selector::ByContactId) {
        return Err(AppError::NoRoute(format!("/api/1.0/contact/associate/{seg}")));
    }
    let field = |k: &str| pairs.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.clone()).filter(|v| !v.is_empty());
    let mut errors = Vec::new();
    for (k, _) in &pairs {
        if !ASSOCIATE_FIELDS.contains(&k.as_str()) {
            errors.push(crate::api::error::FieldError::new(
                k.clone(),
                Rule::Unknown,
                format!("unknown form field {k:?} (expected contactId and clientId)"),
            ));
        }
    }
    let contact_id = field("contactId").or_else(|| m.get("id").map(str::to_string).filter(|v| !v.is_empty()));
    let client_id = field("clientId");
    if contact_id.is_none() {
        errors.push(crate::api::error::FieldError::new("contactId", Rule::Required, "form field contactId is required"));
    }
    if client_id.is_none() {
        errors.push(crate::api::error::FieldError::new("clientId", Rule::Required, "form field clientId is required"));
    }
    if let (Some(path_id), Some(body_id)) = (m.get("id"), field("contactId")) {
        if let Some(e) = (!path_id.is_empty()).then(|| crate::domain_error::matches_path("contactId", &body_id, path_id)).flatten() {
            errors.push(e);
        }
    }
    let (Some(contact_id), Some(client_id)) = (contact_id, client_id) else {
        return Err(AppError::Validation(errors));
    };
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    repo::contacts::associate(st.store.as_ref(), &a.id, &contact_id, &client_id, st.clock.now()).await?;
    tracing::info!(contact = %contact_id, client = %client_id, "contact associated");
    Ok(no_content())
}

#[utoipa::path(delete, path = "/api/1.0/contact/{seg}", tag = "contacts", summary = "Delete a contact", params(("seg" = String, Path, description = "by_contact_id;id=<id>")), responses((status = 204, description = "Done")))]
async fn remove(State(st): State<AppState>, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = contact_id(&seg)?;
    repo::contacts::remove(st.store.as_ref(), &a.id, &id).await?;
    Ok(no_content())
}
