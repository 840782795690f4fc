//! Campaigns (seed 001 §4.1, §2.1, §2.5, §3), XML.

use crate::api::Access;
use crate::api::Within;
use crate::rule::Rule;
use axum::extract::{Path, RawQuery};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use axum::routing::get;
use chrono::{DateTime, Utc};

use crate::api::error::AppError;
use crate::api::error::{AppResult, FieldError};
use crate::api::{if_match, no_content, query_pairs, single, text_response, with_etag, xml_response, Auth, Matrix, Selector, XmlBody};
use crate::model::campaign::{parse_bean, Campaign};
use crate::model::enums::{CampaignState, CampaignStatus};
use crate::model::notification::write_map;
use crate::usecases::campaigns::{self, ListFilter};
use crate::xml::expect_root;
use crate::xml::XmlOut;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(create, list, archived, notification, get_one, update, remove), tags((name = "campaigns", description = "Campaigns (XML)")))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/api/1.0/campaign", Access::RECORDS, get(list).post(create))
        .route("/api/1.0/campaign/archived", Access::RECORDS, get(archived))
        .route("/api/1.0/campaign/notification/{seg}", Access::RECORDS, get(notification))
        .route("/api/1.0/campaign/{seg}", Access::RECORDS, get(get_one).put(update).delete(remove))
}

fn campaign_id(seg: &str) -> AppResult<String> {
    Matrix::id_of(seg, Selector::ByCampaignId, "/api/1.0/campaign")
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

#[utoipa::path(post, path = "/api/1.0/campaign", tag = "campaigns", summary = "Create a campaign", request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::CAMPAIGN_IN)), responses((status = 200, description = "Created: the new id", content_type = "text/plain", body = String, example = json!(super::xml_examples::ID_OUT))))]
async fn create(Within(st): Within, Auth(a): Auth, XmlBody(doc): XmlBody) -> AppResult<Response> {
    let input = parse_bean(expect_root(&doc, "campaignBean")?)?;
    let c = campaigns::create(&st, &a, input).await?;
    Ok(text_response(StatusCode::OK, c.id))
}

fn list_filter(pairs: &[(String, String)]) -> AppResult<ListFilter> {
    let mut errors = Vec::new();
    let mut f = ListFilter::default();
    if let Some(s) = single(pairs, "status")? {
        let s = s.to_ascii_lowercase();
        if ["active", "recent", "upcoming"].contains(&s.as_str()) {
            f.status = CampaignStatus::parse(&s.to_ascii_uppercase());
        } else {
            errors.push(FieldError::new(
                "status",
                Rule::Enum,
                format!("query parameter status must be active, recent or upcoming (got {s:?})"),
            ));
        }
    }
    if let Some(s) = single(pairs, "state")? {
        let s = s.to_ascii_lowercase();
        if let Some(state) = CampaignState::parse(&s) {
            f.state = Some(state);
        } else {
            errors.push(FieldError::new(
                "state",
                Rule::Enum,
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

/// `GET /api/1.0/campaign`: live campaigns; archived ones only with `state=archived`.
#[utoipa::path(get, path = "/api/1.0/campaign", tag = "campaigns", summary = "List the account's campaigns (paged)", params(("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000), ("pageNumber" = Option<u32>, Query, minimum = 1)), responses((status = 200, description = "A page of live campaigns (X-Total-Count)", content_type = "application/xml", body = String, example = json!(super::xml_examples::CAMPAIGNS_OUT))))]
async fn list(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let paging = super::paging::Paging::parse(&pairs)?;
    let f = list_filter(&pairs)?;
    let (page, total) = paging.apply(campaigns::list(&st, &a.id, f).await?);
    Ok(paging.headers(xml_response(StatusCode::OK, collection(&page, &a, st.clock.now())), total))
}

/// `GET /api/1.0/campaign/archived?year=&month=`: campaigns archived in that month of the
/// account's time zone; default the current month.
#[utoipa::path(get, path = "/api/1.0/campaign/archived", tag = "campaigns", summary = "List the campaigns archived in a month", params(("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000), ("pageNumber" = Option<u32>, Query, minimum = 1)), responses((status = 200, description = "A page of archived campaigns", content_type = "application/xml", body = String, example = json!(super::xml_examples::CAMPAIGNS_OUT))))]
async fn archived(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let mut errors = Vec::new();
    let year = match single(&pairs, "year")? {
        None => None,
        Some(y) if y.len() == 4 && y.chars().all(|c| c.is_ascii_digit()) => y.parse::<i32>().ok(),
        Some(y) => {
            errors.push(FieldError::new("year", Rule::Format, format!("query parameter year must be a 4-digit year (got {y:?})")));
            None
        }
    };
    let month = match single(&pairs, "month")? {
        None => None,
        Some(m) => match m.parse::<u32>() {
            Ok(v) if (1..=12).contains(&v) => Some(v),
            _ => {
                errors.push(FieldError::new("month", Rule::Range, format!("query parameter month must be an integer 1 to 12 (got {m:?})")));
                None
            }
        },
    };
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    let paging = super::paging::Paging::parse(&pairs)?;
    let (page, total) = paging.apply(campaigns::archived(&st, &a, year, month).await?);
    Ok(paging.headers(xml_response(StatusCode::OK, collection(&page, &a, st.clock.now())), total))
}

#[utoipa::path(get, path = "/api/1.0/campaign/{seg}", tag = "campaigns", summary = "Read a campaign", params(("seg" = String, Path, description = "by_campaign_id;id=<id>")), responses((status = 200, description = "The campaign", headers(("ETag" = String)), content_type = "application/xml", body = String, example = json!(super::xml_examples::CAMPAIGNS_OUT))))]
async fn get_one(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let c = campaigns::get(&st, &a.id, &campaign_id(&seg)?).await?;
    let body = collection(std::slice::from_ref(&c.value), &a, st.clock.now());
    Ok(with_etag(xml_response(StatusCode::OK, body), c.version()))
}

#[utoipa::path(put, path = "/api/1.0/campaign/{seg}", tag = "campaigns", summary = "Update, archive or restore a campaign", params(("seg" = String, Path, description = "by_campaign_id;id=<id>"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: refused with 412 when the record changed since")), request_body(content = String, content_type = "application/xml", example = json!(super::xml_examples::CAMPAIGN_IN)), responses((status = 204, description = "Done")))]
async fn update(
    Within(st): Within,
    Auth(a): Auth,
    Path(seg): Path<String>,
    headers: HeaderMap,
    XmlBody(doc): XmlBody,
) -> AppResult<Response> {
    let id = campaign_id(&seg)?;
    let expected = if_match(&headers)?;
    let input = expect_root(&doc, "campaignBean").and_then(parse_bean);
    campaigns::update(&st, &a, &id, expected, input).await?;
    Ok(no_content())
}

/// Deleting keeps a tombstone (the /v3 queries can show deleted campaigns) and releases the
/// campaign's clients.
#[utoipa::path(delete, path = "/api/1.0/campaign/{seg}", tag = "campaigns", summary = "Delete a campaign", params(("seg" = String, Path, description = "by_campaign_id;id=<id>")), responses((status = 204, description = "Done")))]
async fn remove(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let id = campaign_id(&seg)?;
    campaigns::remove(&st, &a.id, &id).await?;
    Ok(no_content())
}

#[utoipa::path(get, path = "/api/1.0/campaign/notification/{seg}", tag = "campaigns", summary = "What needs attention in a campaign", params(("seg" = String, Path, description = "by_campaign_id;id=<id>")), responses((status = 200, description = "What keeps the campaign from delivering", content_type = "application/xml", body = String, example = json!(super::xml_examples::NOTIFICATIONS_OUT))))]
async fn notification(Within(st): Within, Auth(a): Auth, Path(seg): Path<String>) -> AppResult<Response> {
    let (c, list) = crate::usecases::notifications::for_campaign(&st, &a, &campaign_id(&seg)?).await?;
    let mut o = XmlOut::new();
    write_map(&mut o, &[(c.id.clone(), list)]);
    Ok(xml_response(StatusCode::OK, o.finish()))
}
