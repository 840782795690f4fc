//! Audience batches (seed 002 §2.8, docs/audience.md): upload through the API (the record
//! first, then the file, so the object's event finds it), cancel, and the start of a
//! provider's next waiting batch (one batch of a provider runs at a time, in upload order).

use crate::ids::AccountId;
use bytes::Bytes;

use super::{UseCaseError, UseCaseResult};
use crate::domain_error::{DomainError, FieldError};
use crate::jobs::audience::{api_object_key, PlanJob, PlanMessage};
use crate::model::account::{Account, AudienceProvider};
use crate::model::audience::Batch;
use crate::model::enums::{BatchSource, BatchStatus};
use crate::queue::QueueName;
use crate::repo;
use crate::repo::audience::{Cancelled, Created};
use crate::rule::Rule;
use crate::state::AppState;

/// Batches looked at when ordering a provider's batches: the last 100 (one a day).
pub const RECENT_BATCHES: usize = 100;

/// What an upload came to.
pub enum Uploaded {
    /// Accepted: the batch as recorded (UPLOADED); the worker takes it from the file's event.
    Accepted(Box<Batch>),
    /// The provider already has batch `other` today (one batch file a provider a day).
    SlotTaken { other: String, day: String, provider: String },
}

/// An upload, step 1: the provider the client names, this account's and enabled; the
/// handler reads the body only then (a wrong id costs no upload).
pub async fn provider_for_upload(st: &AppState, account: &Account, provider_id: &str) -> UseCaseResult<AudienceProvider> {
    let provider = repo::audience::provider(st.store.as_ref(), &account.id, provider_id).await?;
    if !provider.enabled {
        return Err(UseCaseError::conflict(format!("audience provider {provider_id} is disabled")));
    }
    Ok(provider)
}

/// The audience regions an address can serve.
pub const REGIONS: &[&str] = &["eu", "asia"];

/// What an upload names besides its file: the provider, the region its address was given
/// for (`region=`), and whether the file comes gzip-compressed.
pub struct UploadRequest<'a> {
    pub provider_id: &'a str,
    pub region: Option<&'a str>,
    pub gzip: bool,
}

/// A batch upload (seed 002 §5): the region rules, the account's region, an enabled
/// provider, then the file (`body`, read only once the rest holds, so a wrong provider
/// costs no upload): not empty, and a gzip stream that inflates within the limits.
pub async fn upload_batch(
    st: &AppState,
    a: &Account,
    req: UploadRequest<'_>,
    body: impl std::future::Future<Output = UseCaseResult<Bytes>>,
) -> UseCaseResult<Uploaded> {
    let mut errors = Vec::new();
    if req.provider_id.is_empty() {
        errors.push(FieldError::new("providerId", Rule::Required, "query parameter providerId is required"));
    }
    errors.extend(check_region(st, req.region));
    if !errors.is_empty() {
        return Err(DomainError::Validation(errors).into());
    }
    check_account_region(st, a)?;
    let provider = provider_for_upload(st, a, req.provider_id).await?;
    let body = body.await?;
    if body.is_empty() {
        return Err(UseCaseError::field("body", Rule::Required, "the batch file is empty"));
    }
    if req.gzip {
        check_gzip(body.clone()).await?;
    }
    upload(st, a, &provider, body).await
}

/// `region=` names a region, the one this address serves.
fn check_region(st: &AppState, region: Option<&str>) -> Option<FieldError> {
    let r = region?.trim().to_ascii_lowercase();
    if !REGIONS.contains(&r.as_str()) {
        Some(FieldError::new("region", Rule::Enum, format!("region must be eu or asia (got {r:?})")))
    } else if r != st.settings.audience_region {
        Some(FieldError::new(
            "region",
            Rule::Region,
            format!("region {r} does not match this address, which serves {}; upload to the {r} address", st.settings.audience_region),
        ))
    } else {
        None
    }
}

/// Seed 002 §5: batch endpoints need the regional address of the account's region.
pub fn check_account_region(st: &AppState, a: &Account) -> UseCaseResult<()> {
    match &a.region {
        Some(r) if !r.eq_ignore_ascii_case(&st.settings.audience_region) => Err(UseCaseError::Forbidden(format!(
            "this account's audience data lives in the {r} region; use the {r} address (this is the {} address)",
            st.settings.audience_region
        ))),
        _ => Ok(()),
    }
}

/// Checks a gzip body off the async runtime, under the limits of `model::inflate`: a
/// broken stream is 400, a bomb 413 (after a few MiB of output, not the whole of it).
async fn check_gzip(body: Bytes) -> UseCaseResult<()> {
    let checked = tokio::task::spawn_blocking(move || crate::model::inflate::check(&body)).await.map_err(UseCaseError::internal)?;
    match checked {
        Ok(_) => Ok(()),
        Err(why) => {
            let e = FieldError::new("body", why.rule(), format!("Content-Encoding is gzip but {why}"));
            Err(if why.is_size() { UseCaseError::TooLarge(e) } else { DomainError::Validation(vec![e]).into() })
        }
    }
}

/// Step 2: the file of an enabled provider (step 1, `provider_for_upload`) recorded as a
/// batch and stored for the worker.
pub async fn upload(st: &AppState, a: &Account, provider: &AudienceProvider, body: Bytes) -> UseCaseResult<Uploaded> {
    let id = crate::ids::new_id();
    let key = api_object_key(&a.id, &provider.id, &id);
    let batch = Batch::new(a, &provider.id, &id, &key, BatchSource::Api, st.clock.now());
    match repo::audience::create(st.store.as_ref(), &batch).await? {
        Created::New(_) => {}
        Created::SlotTaken(other) => return Ok(Uploaded::SlotTaken { other, day: batch.day, provider: provider.id.clone() }),
    }
    if let Err(e) = st.blobs.put_bytes(&key, body.to_vec(), "text/csv").await {
        if let Err(u) = repo::audience::undo_create(st.store.as_ref(), &batch).await {
            tracing::error!(error = %u, batch = %id, "could not undo a batch whose file was not stored");
        }
        return Err(e.into());
    }
    tracing::info!(batch = %id, provider = %provider.id, bytes = body.len(), "batch uploaded");
    Ok(Uploaded::Accepted(Box::new(batch)))
}

/// Cancels a batch below 100 %; a provider's batch waiting for this one then starts.
pub async fn cancel(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Cancelled> {
    let c = repo::audience::cancel(st.store.as_ref(), account, id).await?;
    if let Cancelled::Now(b) = &c {
        tracing::info!(batch = %id, "batch cancelled");
        if let Err(e) = start_next(st, account, &b.provider_id).await {
            tracing::error!(error = %e, batch = %id, "could not start the provider's next batch");
        }
    }
    Ok(c)
}

/// After a batch ends (finished or cancelled): starts the provider's oldest waiting batch.
pub async fn start_next(st: &AppState, account: &AccountId, provider: &str) -> UseCaseResult<()> {
    let all = repo::audience::recent_of_provider(st.store.as_ref(), account, provider, RECENT_BATCHES).await?;
    if let Some(next) = all.into_iter().find(|b| b.status == BatchStatus::Uploaded) {
        let msg = PlanMessage { plan: PlanJob { account: account.to_string(), batch: next.id } };
        st.queue.send(QueueName::Audience, serde_json::to_string(&msg)?).await?;
    }
    Ok(())
}

/// The account's audience providers by name (case-insensitive), then id.
pub async fn providers(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<AudienceProvider>> {
    let mut all = repo::audience::providers(st.store.as_ref(), account).await?;
    all.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    Ok(all)
}

pub async fn provider(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<AudienceProvider> {
    Ok(repo::audience::provider(st.store.as_ref(), account, id).await?)
}

pub async fn batch(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Batch> {
    Ok(repo::audience::load(st.store.as_ref(), account, id).await?.value)
}

/// A provider's batches (the provider must be the account's), or those of every provider
/// the account has: newest first. Two reads whatever the number of providers.
pub async fn batches(st: &AppState, account: &AccountId, provider_id: Option<&str>) -> UseCaseResult<Vec<Batch>> {
    let mut batches = match provider_id {
        Some(p) => {
            let p = repo::audience::provider(st.store.as_ref(), account, p).await?;
            repo::audience::of_provider(st.store.as_ref(), account, &p.id).await?
        }
        None => {
            let providers: std::collections::HashSet<String> =
                repo::audience::providers(st.store.as_ref(), account).await?.into_iter().map(|p| p.id).collect();
            let mut all = repo::audience::of_account(st.store.as_ref(), account).await?;
            all.retain(|b| providers.contains(&b.provider_id));
            all
        }
    };
    batches.sort_by(|x, y| y.created.cmp(&x.created).then(y.id.cmp(&x.id)));
    Ok(batches)
}
