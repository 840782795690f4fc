//! Audience providers, read-only (seed 002 §2.9, §4.3; docs/audience.md): created by the
//! admin command's seed file. The `segmentations` link resolves to
//! `/v1/audience/provider/{id}/segmentations`, listing the keys a batch file must use.
//! Audience batches: upload, progress, cancel, list (`usecases::audience`; the worker is
//! `workers::audience`).

use crate::api::Access;
use crate::api::Within;
use crate::rule::Rule;
use axum::extract::{Path, RawQuery};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Json;
use serde::Serialize;
use utoipa::ToSchema;

use crate::api::error::AppError;
use crate::api::error::{AppResult, FieldError};
use crate::api::{content_type, media_type, paging, query_pairs, single, Auth};
use crate::model::account::{AudienceProvider, Segmentation};
use crate::model::audience as m;
use crate::repo::audience::Cancelled;
use crate::state::AppState;
use crate::usecases::audience::{self, Uploaded};
use crate::usecases::UseCaseError;
use axum::extract::Request;
use axum::http::header;
use axum::http::HeaderValue;
use axum::http::StatusCode;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list, get_one, segmentations, upload, upload_provider_path, list_batches, progress, cancel),
    tags((name = "audience", description = "Audience providers and batch uploads"))
)]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v1/audience/provider", Access::RECORDS, get(list))
        .route("/v1/audience/provider/{id}", Access::RECORDS, get(get_one))
        .route("/v1/audience/provider/{id}/segmentations", Access::RECORDS, get(segmentations))
        .route("/v1/audience/batch", Access::RECORDS, post(upload).get(list_batches))
        .route("/v1/audience/provider/batch", Access::RECORDS, post(upload_provider_path))
        .route("/v1/audience/batch/{id}", Access::RECORDS, get(progress))
        .route("/v1/audience/batch/{id}/cancel", Access::RECORDS, post(cancel))
}

/// An audience provider (seed 002 §2.9).
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProviderView<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub url_identifier: &'a str,
    pub enabled: bool,
    pub segmentations: Href,
}

#[derive(Serialize, ToSchema)]
pub struct Href {
    pub href: String,
}

fn provider_view(p: &AudienceProvider) -> ProviderView<'_> {
    ProviderView {
        id: &p.id,
        name: &p.name,
        url_identifier: &p.url_identifier,
        enabled: p.enabled,
        segmentations: Href { href: format!("/v1/audience/provider/{}/segmentations", p.id) },
    }
}

/// A page of providers.
#[derive(Serialize, ToSchema)]
pub struct ProviderPage<'a> {
    pub pagination: Pagination,
    pub providers: Vec<ProviderView<'a>>,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Pagination {
    pub total_count: usize,
    pub page_size: usize,
    pub page_number: usize,
    pub links: PageLinks,
}

/// `next` and `previous` are null at the ends.
#[derive(Serialize, ToSchema)]
pub struct PageLinks {
    pub first: String,
    pub next: Option<String>,
    pub previous: Option<String>,
    pub last: String,
}

#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Segmentations<'a> {
    pub provider_id: &'a str,
    pub segmentations: &'a [Segmentation],
}

/// `POST /v1/audience/batch`: accepted, processed in the background.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchAccepted<'a> {
    pub batch_id: &'a str,
    pub status: m::BatchStatus,
    pub link: String,
}

/// A cancel of a finished batch (seed 002 §2.8): `{errors: [{message}]}`.
#[derive(Serialize, ToSchema)]
pub struct CancelRefused {
    pub errors: Vec<Message>,
}

#[derive(Serialize, ToSchema)]
pub struct Message {
    pub message: String,
}

/// An item of `GET /v1/audience/batch`: the progress (counts only), provider, created, source.
#[derive(Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BatchListItem<'a> {
    #[serde(flatten)]
    pub progress: m::BatchProgress<'a>,
    pub provider_id: &'a str,
    pub created: String,
    /// `api` or `bucket`.
    pub source: crate::model::enums::BatchSource,
}

#[derive(Serialize, ToSchema)]
pub struct BatchList<'a> {
    pub batches: Vec<BatchListItem<'a>>,
}

fn page_link(size: usize, number: usize) -> String {
    format!("/v1/audience/provider?pageSize={size}&pageNumber={number}")
}

/// `{pagination {totalCount, pageSize, pageNumber, links {first, next, previous, last}}, providers}`;
/// `next`/`previous` are null at the ends.
#[utoipa::path(get, path = "/v1/audience/provider", tag = "audience", summary = "List the account's audience providers (paged)", description = "`{pagination {totalCount, pageSize, pageNumber, links {first, next, previous, last}}, providers}`; `next`/`previous` are null at the ends.",
    params(("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000), ("pageNumber" = Option<u32>, Query, minimum = 1)),
    responses((status = 200, description = "A page of providers, by name", body = ProviderPage)))]
async fn list(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let (size, number) = paging(&query_pairs(q.as_deref())?)?;
    let all = audience::providers(&st, &a.id).await?;
    let total = all.len();
    let last = total.div_ceil(size).max(1);
    let providers: Vec<ProviderView> = all.iter().skip((number - 1).saturating_mul(size)).take(size).map(provider_view).collect();
    let links = PageLinks {
        first: page_link(size, 1),
        next: (number < last).then(|| page_link(size, number + 1)),
        previous: (number > 1).then(|| page_link(size, (number - 1).min(last))),
        last: page_link(size, last),
    };
    let pagination = Pagination { total_count: total, page_size: size, page_number: number, links };
    Ok(Json(ProviderPage { pagination, providers }).into_response())
}

#[utoipa::path(get, path = "/v1/audience/provider/{id}", tag = "audience", summary = "Read an audience provider", params(("id" = String, Path)),
    responses((status = 200, description = "The provider", body = ProviderView)))]
async fn get_one(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    Ok(Json(provider_view(&audience::provider(&st, &a.id, &id).await?)).into_response())
}

/// `[{id, key, name, segments: [{id, key, name}]}]`: the keys are what a batch file's
/// `<segmentationKey>=<segmentKey>` pairs must match (case-sensitively).
#[utoipa::path(get, path = "/v1/audience/provider/{id}/segmentations", tag = "audience", summary = "A provider's segmentations and segments", description = "`[{id, key, name, segments: [{id, key, name}]}]`: the keys are what a batch file's `<segmentationKey>=<segmentKey>` pairs must match (case-sensitively).", params(("id" = String, Path)),
    responses((status = 200, description = "The keys a batch file's pairs must use", body = Segmentations)))]
async fn segmentations(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let p = audience::provider(&st, &a.id, &id).await?;
    Ok(Json(Segmentations { provider_id: &p.id, segmentations: &p.segmentations }).into_response())
}

pub use crate::usecases::audience::REGIONS;

/// Seed 002 §5: batch endpoints need the regional address of the account's region.
fn check_account_region(st: &AppState, a: &crate::model::account::Account) -> AppResult<()> {
    Ok(audience::check_account_region(st, a)?)
}

/// Seconds from now to the next local midnight (when a provider's next batch is allowed).
fn seconds_to_next_day(st: &AppState, a: &crate::model::account::Account) -> i64 {
    use chrono::{Duration, TimeZone};
    let tz = a.tz();
    let now = st.clock.now().with_timezone(tz);
    let tomorrow = now.date_naive() + Duration::days(1);
    let midnight = tomorrow.and_hms_opt(0, 0, 0).and_then(|t| tz.from_local_datetime(&t).earliest());
    midnight.map_or(86_400, |m| (m.with_timezone(&chrono::Utc) - st.clock.now()).num_seconds().max(1))
}

/// POST `/v1/audience/batch?providerId=&region=` (also `/v1/audience/provider/batch`).
/// The seed's other address of the upload (the same operation).
#[utoipa::path(post, path = "/v1/audience/provider/batch", tag = "audience", summary = "Upload an audience data batch (the seed's other address)", description = "POST `/v1/audience/batch?providerId=&region=` (also `/v1/audience/provider/batch`). The seed's other address of the upload (the same operation).",
    params(("providerId" = String, Query), ("region" = Option<String>, Query), ("Content-Encoding" = Option<String>, Header)),
    request_body(content = Vec<u8>, content_type = "text/csv", description = "One row a user: `<pid>\\t<segmentationKey>=<segmentKey>,...` (docs/audience.md)", example = json!("viewer-1\tinterests=sports,interests=news\nviewer-2\tage=25-34\n")),
    responses((status = 202, description = "Accepted", body = BatchAccepted, headers(("Location" = String)))))]
async fn upload_provider_path(st: Within, a: Auth, q: RawQuery, req: Request) -> AppResult<Response> {
    upload(st, a, q, req).await
}

#[utoipa::path(post, path = "/v1/audience/batch", tag = "audience", summary = "Upload an audience data batch",
    params(("providerId" = String, Query), ("region" = Option<String>, Query, description = "eu or asia: must be the region this address serves"),
        ("Content-Encoding" = Option<String>, Header, description = "gzip, or none")),
    request_body(content = Vec<u8>, content_type = "text/csv", description = "One row a user: `<pid>\\t<segmentationKey>=<segmentKey>,...` (docs/audience.md)", example = json!("viewer-1\tinterests=sports,interests=news\nviewer-2\tage=25-34\n")),
    responses((status = 202, description = "Accepted (Location: the batch)", body = BatchAccepted, headers(("Location" = String)))))]
async fn upload(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery, req: Request) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let mut errors = Vec::new();
    for (k, _) in &pairs {
        if k != "providerId" && k != "region" {
            errors.push(FieldError::new(k, Rule::Unknown, format!("unknown query parameter {k}; expected providerId, region")));
        }
    }
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    let provider_id = single(&pairs, "providerId")?.map(str::trim).unwrap_or("");
    let region = single(&pairs, "region")?;
    let mt = media_type(req.headers());
    if mt != "text/csv" && mt != "text/plain" {
        return Err(AppError::UnsupportedMediaType { expected: "text/csv", got: content_type(req.headers()) });
    }
    let encoding = req.headers().get(header::CONTENT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("").trim().to_ascii_lowercase();
    let gzip = match encoding.as_str() {
        "" | "identity" => false,
        "gzip" | "x-gzip" => true,
        other => return Err(AppError::UnsupportedMediaType { expected: "Content-Encoding gzip or none", got: other.to_string() }),
    };
    let max = st.settings.audience_upload_max_bytes;
    // Read by the use case once the request's other rules hold.
    let body = async move { axum::body::to_bytes(req.into_body(), max).await.map_err(|_| UseCaseError::BodyTooLarge(max)) };
    let uploaded = audience::upload_batch(&st, &a, audience::UploadRequest { provider_id, region, gzip }, body).await?;
    match uploaded {
        Uploaded::SlotTaken { other, day, provider } => {
            Err(AppError::TooManyRequests(
                format!(
                    "audience provider {provider} already has batch {other} for {day} (one batch file per provider per day); try again tomorrow"
                ),
                seconds_to_next_day(&st, &a).max(1) as u64,
            ))
        }
        Uploaded::Accepted(batch) => {
            let mut res = (StatusCode::ACCEPTED, Json(BatchAccepted { batch_id: &batch.id, status: m::UPLOADED, link: batch.link() }))
                .into_response();
            if let Ok(v) = HeaderValue::from_str(&batch.link()) {
                res.headers_mut().insert(header::LOCATION, v);
            }
            Ok(res)
        }
    }
}

#[utoipa::path(get, path = "/v1/audience/batch/{id}", tag = "audience", summary = "An audience batch's progress", params(("id" = String, Path)),
    responses((status = 200, description = "The batch's progress", body = m::BatchProgress)))]
async fn progress(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    check_account_region(&st, &a)?;
    Ok(Json(audience::batch(&st, &a.id, &id).await?.progress()).into_response())
}

/// Below 100 %: CANCELLED (200, also again); at 100 %: 400 `{errors: [{message}]}`.
#[utoipa::path(post, path = "/v1/audience/batch/{id}/cancel", tag = "audience", params(("id" = String, Path)),
    responses((status = 200, description = "Cancelled (also when it already was)", body = m::BatchProgress),
        (status = 400, description = "Already 100 % processed", body = CancelRefused)))]
async fn cancel(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    check_account_region(&st, &a)?;
    match audience::cancel(&st, &a.id, &id).await? {
        Cancelled::Finished => {
            let message = format!("Batch {id} is already 100% processed and cannot be cancelled");
            Ok((StatusCode::BAD_REQUEST, Json(CancelRefused { errors: vec![Message { message }] })).into_response())
        }
        Cancelled::Already(b) | Cancelled::Now(b) => Ok(Json(b.progress()).into_response()),
    }
}

/// GET `/v1/audience/batch?providerId=`: the batches, newest first (ours; for bucket drops).
#[utoipa::path(get, path = "/v1/audience/batch", tag = "audience", summary = "List a provider's audience batches", description = "GET `/v1/audience/batch?providerId=`: the batches, newest first (ours; for bucket drops).",
    params(("providerId" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000),
        ("pageNumber" = Option<u32>, Query, minimum = 1)),
    responses((status = 200, description = "Batches, newest first (X-Total-Count)", body = BatchList, headers(("X-Total-Count" = u64)))))]
async fn list_batches(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    check_account_region(&st, &a)?;
    let pairs = query_pairs(q.as_deref())?;
    if let Some((k, _)) = pairs.iter().find(|(k, _)| !["providerId", "pageSize", "pageNumber"].contains(&k.as_str())) {
        return Err(AppError::field(k, Rule::Unknown, format!("unknown query parameter {k}; expected providerId, pageSize, pageNumber")));
    }
    let paging = super::paging::Paging::parse(&pairs)?;
    let found = audience::batches(&st, &a.id, single(&pairs, "providerId")?).await?;
    let (batches, total) = paging.apply(found);
    let out: Vec<BatchListItem> = batches
        .iter()
        .map(|b| {
            let mut progress = b.progress();
            // Counts only: the invalid pairs (up to 100 KB a batch) are at the batch's link.
            progress.details.invalid_segments = None;
            BatchListItem {
                progress,
                provider_id: &b.provider_id,
                created: b.created.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
                source: b.source,
            }
        })
        .collect();
    Ok(paging.headers(Json(BatchList { batches: out }).into_response(), total))
}
