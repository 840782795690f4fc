//! Audience providers, read-only (seed 002 §2.9, §4.3; docs/audience.md): created by the
//! admin command's seed file. The `segmentations` link resolves to
//! `/v1/audience/provider/{id}/segmentations`, listing the keys a batch file must use.
//! Audience batches: upload, progress, cancel, list; the worker is `workers::audience`.

use axum::extract::{Path, RawQuery, State};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Json;
use serde_json::{json, Value};

use super::*;
use crate::error::{AppResult, FieldError};
use crate::model::account::AudienceProvider;
use crate::model::audience::{self as m, Batch};
use crate::model::inflate;
use crate::repo::audience::{Cancelled, Created};
use crate::workers::audience as w;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v1/audience/provider", get(list))
        .route("/v1/audience/provider/{id}", get(get_one))
        .route("/v1/audience/provider/{id}/segmentations", get(segmentations))
        .route("/v1/audience/batch", post(upload).get(list_batches))
        .route("/v1/audience/provider/batch", post(upload))
        .route("/v1/audience/batch/{id}", get(progress))
        .route("/v1/audience/batch/{id}/cancel", post(cancel))
}

fn provider_json(p: &AudienceProvider) -> Value {
    json!({
        "id": p.id, "name": p.name, "urlIdentifier": p.url_identifier, "enabled": p.enabled,
        "segmentations": {"href": format!("/v1/audience/provider/{}/segmentations", p.id)},
    })
}

async fn load(st: &AppState, account: &str, id: &str) -> AppResult<AudienceProvider> {
    repo::audience::provider(st.store.as_ref(), account, id).await
}

fn page_link(size: usize, number: usize) -> String {
    format!("/v1/audience/provider?pageSize={size}&pageNumber={number}")
}

/// `{pagination {totalCount, pageSize, pageNumber, links {first, next, previous, last}}, providers}`;
/// `next`/`previous` are null at the ends.
async fn list(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let (size, number) = paging(&query_pairs(q.as_deref())?)?;
    let mut all = repo::audience::providers(st.store.as_ref(), &a.id).await?;
    all.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    let total = all.len();
    let last = total.div_ceil(size).max(1);
    let providers: Vec<Value> = all.iter().skip((number - 1).saturating_mul(size)).take(size).map(provider_json).collect();
    let links = json!({
        "first": page_link(size, 1),
        "next": (number < last).then(|| page_link(size, number + 1)),
        "previous": (number > 1).then(|| page_link(size, (number - 1).min(last))),
        "last": page_link(size, last),
    });
    Ok(Json(json!({"pagination": {"totalCount": total, "pageSize": size, "pageNumber": number, "links": links}, "providers": providers}))
        .into_response())
}

async fn get_one(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    Ok(Json(provider_json(&load(&st, &a.id, &id).await?)).into_response())
}

/// `[{id, key, name, segments: [{id, key, name}]}]`: the keys are what a batch file's
/// `<segmentationKey>=<segmentKey>` pairs must match (case-sensitively).
async fn segmentations(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let p = load(&st, &a.id, &id).await?;
    Ok(Json(json!({"providerId": p.id, "segmentations": p.segmentations})).into_response())
}

pub const REGIONS: &[&str] = &["eu", "asia"];

/// Seed 002 §5: batch endpoints need the regional address of the account's region.
fn check_account_region(st: &AppState, a: &crate::model::account::Account) -> AppResult<()> {
    match &a.region {
        Some(r) if !r.eq_ignore_ascii_case(&st.settings.audience_region) => Err(AppError::Forbidden(format!(
            "this account's audience data lives in the {r} region; use the {r} address (this is the {} address)",
            st.settings.audience_region
        ))),
        _ => Ok(()),
    }
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

/// Checks a gzip body off the request thread, under the limits of `model::inflate`: a
/// broken stream is 400, a bomb 413 (after a few MiB of output, not the whole of it).
async fn check_gzip(body: axum::body::Bytes) -> AppResult<()> {
    let checked = tokio::task::spawn_blocking(move || inflate::check(&body)).await.map_err(AppError::internal)?;
    match checked {
        Ok(_) => Ok(()),
        Err(why) => {
            let e = FieldError::new("body", why.rule(), format!("Content-Encoding is gzip but {why}"));
            Err(if why.is_size() { AppError::TooLargeField(e) } else { AppError::Validation(vec![e]) })
        }
    }
}

/// POST `/v1/audience/batch?providerId=&region=` (also `/v1/audience/provider/batch`).
async fn upload(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery, req: Request) -> AppResult<Response> {
    let pairs = query_pairs(q.as_deref())?;
    let mut errors = Vec::new();
    for (k, _) in &pairs {
        if k != "providerId" && k != "region" {
            errors.push(FieldError::new(k, "unknown", format!("unknown query parameter {k}; expected providerId, region")));
        }
    }
    let provider_id = single(&pairs, "providerId")?.map(str::trim).unwrap_or("");
    if provider_id.is_empty() {
        errors.push(FieldError::new("providerId", "required", "query parameter providerId is required"));
    }
    if let Some(r) = single(&pairs, "region")? {
        let r = r.trim().to_ascii_lowercase();
        if !REGIONS.contains(&r.as_str()) {
            errors.push(FieldError::new("region", "enum", format!("region must be eu or asia (got {r:?})")));
        } else if r != st.settings.audience_region {
            errors.push(FieldError::new(
                "region",
                "region",
                format!("region {r} does not match this address, which serves {}; upload to the {r} address", st.settings.audience_region),
            ));
        }
    }
    if !errors.is_empty() {
        return Err(AppError::Validation(errors));
    }
    check_account_region(&st, &a)?;
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
    // The provider before the body: a wrong id costs no upload.
    let provider = load(&st, &a.id, provider_id).await?;
    if !provider.enabled {
        return Err(AppError::Conflict(format!("audience provider {provider_id} is disabled")));
    }
    let max = st.settings.audience_upload_max_bytes;
    let body = axum::body::to_bytes(req.into_body(), max).await.map_err(|_| AppError::PayloadTooLarge(max))?;
    if body.is_empty() {
        return Err(AppError::field("body", "required", "the batch file is empty"));
    }
    if gzip {
        check_gzip(body.clone()).await?;
    }
    let id = crate::ids::new_id();
    let key = w::api_object_key(&a.id, &provider.id, &id);
    let batch = w::new_batch(&st, &a, &provider.id, &id, &key, "api");
    match repo::audience::create(st.store.as_ref(), &batch).await? {
        Created::New(_) => {}
        Created::SlotTaken(other) => {
            let mut res = AppError::TooManyRequests(format!(
                "audience provider {} already has batch {other} for {} (one batch file per provider per day); try again tomorrow",
                provider.id, batch.day
            ))
            .into_response();
            if let Ok(v) = HeaderValue::from_str(&seconds_to_next_day(&st, &a).to_string()) {
                res.headers_mut().insert(header::RETRY_AFTER, v);
            }
            return Ok(res);
        }
    }
    // The record exists before the object, so the object's event finds it.
    if let Err(e) = st.blobs.put_bytes(&key, body.to_vec(), "text/csv").await {
        if let Err(u) = repo::audience::undo_create(st.store.as_ref(), &batch).await {
            tracing::error!(error = %u, batch = %id, "could not undo a batch whose file was not stored");
        }
        return Err(e.into());
    }
    tracing::info!(batch = %id, provider = %provider.id, bytes = body.len(), gzip, "batch uploaded");
    let mut res = (StatusCode::ACCEPTED, Json(json!({"batchId": id, "status": m::UPLOADED, "link": batch.link()}))).into_response();
    if let Ok(v) = HeaderValue::from_str(&batch.link()) {
        res.headers_mut().insert(header::LOCATION, v);
    }
    Ok(res)
}

async fn progress(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    check_account_region(&st, &a)?;
    Ok(Json(repo::audience::load(st.store.as_ref(), &a.id, &id).await?.value.progress_json()).into_response())
}

/// Below 100 %: CANCELLED (200, also again); at 100 %: 400 `{errors: [{message}]}`.
async fn cancel(State(st): State<AppState>, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    check_account_region(&st, &a)?;
    match repo::audience::cancel(st.store.as_ref(), &a.id, &id).await? {
        Cancelled::Finished => {
            let message = format!("Batch {id} is already 100% processed and cannot be cancelled");
            Ok((StatusCode::BAD_REQUEST, Json(json!({"errors": [{"message": message}]}))).into_response())
        }
        Cancelled::Already(b) => Ok(Json(b.progress_json()).into_response()),
        Cancelled::Now(b) => {
            tracing::info!(batch = %id, "batch cancelled");
            // A batch of the provider may be waiting for this one.
            if let Err(e) = w::start_next(&st, &a.id, &b.provider_id).await {
                tracing::error!(error = %e, batch = %id, "could not start the provider's next batch");
            }
            Ok(Json(b.progress_json()).into_response())
        }
    }
}

/// GET `/v1/audience/batch?providerId=`: the batches, newest first (ours; for bucket drops).
async fn list_batches(State(st): State<AppState>, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    check_account_region(&st, &a)?;
    let pairs = query_pairs(q.as_deref())?;
    if let Some((k, _)) = pairs.iter().find(|(k, _)| !["providerId", "pageSize", "pageNumber"].contains(&k.as_str())) {
        return Err(AppError::field(k, "unknown", format!("unknown query parameter {k}; expected providerId, pageSize, pageNumber")));
    }
    let paging = super::paging::Paging::parse(&pairs)?;
    let providers: Vec<String> = match single(&pairs, "providerId")? {
        Some(p) => vec![load(&st, &a.id, p).await?.id],
        None => repo::audience::providers(st.store.as_ref(), &a.id).await?.into_iter().map(|p| p.id).collect(),
    };
    let mut batches: Vec<Batch> = Vec::new();
    for p in providers {
        batches.extend(repo::audience::of_provider(st.store.as_ref(), &a.id, &p).await?);
    }
    batches.sort_by(|x, y| y.created.cmp(&x.created).then(y.id.cmp(&x.id)));
    let (batches, total) = paging.apply(batches);
    let out: Vec<Value> = batches
        .iter()
        .map(|b| {
            let mut v = b.progress_json();
            // Counts only: the invalid pairs (up to 100 KB a batch) are at the batch's link.
            if let Some(d) = v.get_mut("details").and_then(Value::as_object_mut) {
                d.remove("invalidSegments");
            }
            v["providerId"] = json!(b.provider_id);
            v["created"] = json!(b.created.to_rfc3339_opts(chrono::SecondsFormat::Millis, true));
            v["source"] = json!(b.source);
            v
        })
        .collect();
    Ok(paging.headers(Json(json!({"batches": out})).into_response(), total))
}
