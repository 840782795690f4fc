//! Contacts (seed 001 §4.4), XML.

use crate::api::Access;
use crate::api::Within;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::{post, put};

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{if_match, no_content, text_response, with_etag, xml_response, Auth, FormPairs, Matrix, Selector, XmlBody};
use crate::model::contact::{parse_association, parse_bean};
use crate::usecases::contacts;
use crate::xml::expect_root;
use crate::xml::XmlOut;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(create, get_by, update, associate, remove), tags((name = "contacts", description = "Contacts (XML)")))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/api/1.0/contact", Access::RECORDS, post(create))
        .route("/api/1.0/contact/associate/{seg}", Access::RECORDS, put(associate))
        .route("/api/1.0/contact/{seg}", Access::RECORDS, axum::routing::get(get_by).put(update).delete(remove))
}

fn contact_id(seg: &str) -> AppResult<String> {
    Matrix::id_of(seg, Selector::ByContactId, "/api/1.0/contact")
}

#[utoipa::path(post, path = "/api/1.0/contact", tag = "contacts", summary = "Create a contact", request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::CONTACT_IN)), responses((status = 200, description = "Created: the new id", content_type = "text/plain", body = String, example = json!(super::xml_examples::ID_OUT))))]
async fn create(Within(st): Within, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "contactBean")?)?;
    let c = contacts::create(&st, &a.id, input).await?;
    Ok(text_response(StatusCode::OK, c.id))
}

#[utoipa::path(get, path = "/api/1.0/contact/{seg}", tag = "contacts", summary = "Read a contact, or a client's contacts", params(("seg" = String, Path, description = "by_contact_id;id=<id> or by_client_id;id=<id>")), responses((status = 200, description = "The contact(s)", headers(("ETag" = String)), content_type = "application/xml", body = String, example = json!(super::xml_examples::CONTACTS_OUT))))]
async fn get_by(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    match m.selector() {
        Some(Selector::ByContactId) => {
            let c = contacts::get(&st, &a.id, &m.id()?).await?;
            let mut o = XmlOut::new();
            o.open("collection");
            c.value.write_as(&mut o, "contactBean");
            o.close("collection");
            Ok(with_etag(xml_response(StatusCode::OK, o.finish()), c.version()))
        }
        Some(Selector::ByClientId) => {
            let client_id = m.id()?;
            let list = contacts::of_client(&st, &a.id, &client_id).await?;
            let mut o = XmlOut::new();
            o.open("contacts").open_attr("contacts", "clientId", &client_id).open("contactList");
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
    Within(st): Within,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = contact_id(&seg)?;
    let expected = if_match(&headers)?;
    let input = expect_root(&doc, "contactBean").and_then(parse_bean);
    contacts::update(&st, &a.id, &id, expected, input).await?;
    Ok(no_content())
}

/// `PUT /api/1.0/contact/associate/by_contact_id`, form body `contactId=..;clientId=..`.
/// A contact is associated with one client at a time; associating it again moves it.
#[utoipa::path(put, path = "/api/1.0/contact/associate/{seg}", tag = "contacts", summary = "Associate a contact with a client", params(("seg" = String, Path, description = "by_contact_id;id=<id>")), request_body(content = crate::model::contact::Association, content_type = "application/x-www-form-urlencoded", example = json!("contactId=<contact id>;clientId=<client id>")), responses((status = 204, description = "Done")))]
async fn associate(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>, FormPairs(pairs): FormPairs) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    if m.selector() != Some(Selector::ByContactId) {
        return Err(AppError::NoRoute(format!("/api/1.0/contact/associate/{seg}")));
    }
    let association = parse_association(&pairs, m.get("id"))?;
    contacts::associate(&st, &a.id, &association).await?;
    Ok(no_content())
}

#[utoipa::path(delete, path = "/api/1.0/contact/{seg}", tag = "contacts", summary = "Delete a contact", params(("seg" = String, Path, description = "by_contact_id;id=<id>")), responses((status = 204, description = "Done")))]
async fn remove(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = contact_id(&seg)?;
    contacts::remove(&st, &a.id, &id).await?;
    Ok(no_content())
}
