//! The account's JSON collections over HTTP (`/v1/stitchers`, `/v1/demand-partners`,
//! `/v1/marketplaces`): `POST`/`GET` on the collection, `GET`/`PUT` (`If-Match`)/`DELETE`
//! on `/{id}`, generic over the record. Each group's module names its record's path, how a
//! body is read and how the record is shown ([`JsonCollection`]), and documents its
//! operations.

use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use crate::api::error::AppResult;
use crate::api::{if_match, no_content, with_etag, Auth, JsonBody, Within};
use crate::domain_error::DomainError;
use crate::state::AppState;
use crate::usecases::collection::{self, Resource};

/// A record of a JSON collection as the API reads and shows it.
pub trait JsonCollection: Resource + 'static {
    /// The collection's path (`/v1/stitchers`); a record is at `<PATH>/{id}`.
    const PATH: &'static str;
    /// The record as shown (write-only fields left out).
    type View: Serialize;
    /// The collection as listed.
    type List: Serialize;

    fn view(record: Self) -> Self::View;
    fn list(views: Vec<Self::View>) -> Self::List;
    /// Reads a create (`path_id` None) or replace body, every field error at once.
    fn parse(st: &AppState, v: &serde_json::Value, path_id: Option<&str>) -> Result<Self::Input, DomainError>;
}

/// 201 with `Location` and `ETag`.
pub async fn create<R: JsonCollection>(Within(st): Within, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    let e = collection::create::<R>(&st, &a.id, R::parse(&st, &v, None)).await?;
    let location = format!("{}/{}", R::PATH, e.record.id());
    let mut res = (StatusCode::CREATED, Json(R::view(e.record))).into_response();
    if let Ok(loc) = HeaderValue::from_str(&location) {
        res.headers_mut().insert(header::LOCATION, loc);
    }
    Ok(with_etag(res, e.version))
}

pub async fn list<R: JsonCollection>(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    let all = collection::list::<R>(&st, &a.id).await?;
    Ok(Json(R::list(all.into_iter().map(|e| R::view(e.record)).collect())).into_response())
}

pub async fn get_one<R: JsonCollection>(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let e = collection::get::<R>(&st, &a.id, &id).await?;
    Ok(with_etag(Json(R::view(e.record)).into_response(), e.version))
}

pub async fn replace<R: JsonCollection>(
    Within(st): Within,
    Auth(a): Auth,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(v): JsonBody,
) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    let e = collection::replace::<R>(&st, &a.id, &id, R::parse(&st, &v, Some(&id)), expected).await?;
    Ok(with_etag(Json(R::view(e.record)).into_response(), e.version))
}

pub async fn remove<R: JsonCollection>(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    collection::remove::<R>(&st, &a.id, &id).await?;
    Ok(no_content())
}
