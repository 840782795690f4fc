//! Clients (seed 001 §4.3), XML.

use crate::api::Access;
use crate::api::Within;
use axum::extract::Path;
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;

use crate::api::error::AppError;
use crate::api::error::AppResult;
use crate::api::{if_match, no_content, query_pairs, text_response, with_etag, xml_response, Auth, Matrix, Selector, XmlBody};
use crate::model::client::{parse_bean, Client};
use crate::usecases::clients;
use crate::xml::expect_root;
use crate::xml::XmlOut;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(create, list, get_by, update, remove), tags((name = "clients", description = "Clients (XML): advertisers, agencies, brands")))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new().route("/api/1.0/client", Access::RECORDS, get(list).post(create)).route(
        "/api/1.0/client/{seg}",
        Access::RECORDS,
        get(get_by).put(update).delete(remove),
    )
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

#[utoipa::path(post, path = "/api/1.0/client", tag = "clients", summary = "Create a client (advertiser, agency or brand)", request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::CLIENT_IN)), responses((status = 200, description = "Created: the new id", content_type = "text/plain", body = String, example = json!(super::xml_examples::ID_OUT))))]
async fn create(Within(st): Within, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "clientBean")?)?;
    let c = clients::create(&st, &a.id, input).await?;
    Ok(text_response(StatusCode::OK, c.id))
}

#[utoipa::path(get, path = "/api/1.0/client", tag = "clients", summary = "List the account's clients (paged)", params(("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000), ("pageNumber" = Option<u32>, Query, minimum = 1)), responses((status = 200, description = "A page of clients (X-Total-Count)", content_type = "application/xml", body = String, example = json!(super::xml_examples::CLIENTS_OUT))))]
async fn list(Within(st): Within, Auth(a): Auth, axum::extract::RawQuery(q): axum::extract::RawQuery) -> AppResult<Response> {
    let paging = super::paging::Paging::parse(&query_pairs(q.as_deref())?)?;
    let (page, total) = paging.apply(clients::list(&st, &a.id).await?);
    Ok(paging.headers(xml_response(StatusCode::OK, collection(&page)), total))
}

#[utoipa::path(get, path = "/api/1.0/client/{seg}", tag = "clients", summary = "Read a client, or a campaign's clients", params(("seg" = String, Path, description = "by_client_id;id=<id> (one, with ETag) or by_campaign_id;id=<id> (its clients)")), responses((status = 200, description = "The client(s)", headers(("ETag" = String)), content_type = "application/xml", body = String, example = json!(super::xml_examples::CLIENTS_OUT))))]
async fn get_by(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let m = Matrix::parse(&seg);
    match m.selector() {
        Some(Selector::ByClientId) => {
            let c = clients::get(&st, &a.id, &m.id()?).await?;
            Ok(with_etag(xml_response(StatusCode::OK, collection(std::slice::from_ref(&c.value))), c.version()))
        }
        Some(Selector::ByCampaignId) => {
            let found = clients::of_campaign(&st, &a.id, &m.id()?).await?;
            Ok(xml_response(StatusCode::OK, collection(&found)))
        }
        Some(Selector::ByContactId | Selector::ByGoalId) | None => Err(AppError::NoRoute(format!("/api/1.0/client/{seg}"))),
    }
}

fn client_id(seg: &str) -> AppResult<String> {
    Matrix::id_of(seg, Selector::ByClientId, "/api/1.0/client")
}

#[utoipa::path(put, path = "/api/1.0/client/{seg}", tag = "clients", summary = "Update a client", params(("seg" = String, Path, description = "by_client_id;id=<id>"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the record changed since")), request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::CLIENT_IN)), responses((status = 204, description = "Done")))]
async fn update(
    Within(st): Within,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = client_id(&seg)?;
    let expected = if_match(&headers)?;
    let input = expect_root(&doc, "clientBean").and_then(parse_bean);
    clients::update(&st, &a.id, &id, expected, input).await?;
    Ok(no_content())
}

#[utoipa::path(delete, path = "/api/1.0/client/{seg}", tag = "clients", summary = "Delete a client", params(("seg" = String, Path, description = "by_client_id;id=<id>")), responses((status = 204, description = "Done")))]
async fn remove(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = client_id(&seg)?;
    clients::remove(&st, &a.id, &id).await?;
    Ok(no_content())
}
