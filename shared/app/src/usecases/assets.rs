//! Video assets (seed 000 §4.4a, docs/media.md): creating one from a URL (the record
//! PENDING at once, the download and probe queued for the asset worker) or from uploaded
//! bytes (stored, the probe queued); and the transcode an ad's link starts.

use super::{UseCaseError, UseCaseResult};
use crate::ids::new_id;
use crate::ids::AccountId;
use crate::jobs::AssetJob;
use crate::model::asset::{self, content_type_for, Asset};
use crate::model::enums::AssetSource;
use crate::queue::QueueName;
use crate::repo;
use crate::state::AppState;

/// What a client sends to create an asset (its name and URL already checked by the parser).
pub enum CreateAsset {
    /// `{name, downloadUri}`: downloaded in the background.
    FromUrl { name: String, uri: String },
    /// The file's bytes with its name.
    Upload { name: String, bytes: Vec<u8> },
    /// A file already on the local disk (an upload streamed there) with its name.
    UploadedFile { name: String, path: std::path::PathBuf },
}

fn new_asset(st: &AppState, id: &str, name: String, source: AssetSource) -> Asset {
    let now = st.clock.now();
    Asset { expires: Some(now + st.settings.asset_expiry), ..Asset::new(id, &name, source, now) }
}

/// Creates the asset; returns it as stored.
pub async fn create(st: &AppState, account: &AccountId, cmd: CreateAsset) -> UseCaseResult<Asset> {
    let id = new_id();
    match cmd {
        CreateAsset::FromUrl { name, uri } => {
            let mut asset = new_asset(st, &id, name, AssetSource::Url);
            asset.download_uri = Some(uri);
            repo::assets::create(st.store.as_ref(), account, &asset).await?;
            queue_arrival(st, account, &id).await?;
            tracing::info!(asset = %id, "asset download queued");
            Ok(asset)
        }
        CreateAsset::Upload { name, bytes } => {
            let key = Asset::object_key(account, &id, &name);
            let size = bytes.len() as u64;
            st.blobs.put_bytes(&key, bytes, content_type_for(&name)).await?;
            uploaded(st, account, &id, name, key, size).await
        }
        CreateAsset::UploadedFile { name, path } => {
            let key = Asset::object_key(account, &id, &name);
            let size = st.blobs.put_file(&key, &path, content_type_for(&name)).await?;
            uploaded(st, account, &id, name, key, size).await
        }
    }
}

/// The record of an upload stored under `key`, then probed by the asset worker (PENDING
/// until then).
async fn uploaded(st: &AppState, account: &AccountId, id: &str, name: String, key: String, size: u64) -> UseCaseResult<Asset> {
    let ct = content_type_for(&name);
    let mut asset = new_asset(st, id, name, AssetSource::Upload);
    asset.size = Some(size);
    asset.content_type = Some(ct.into());
    asset.object_key = Some(key);
    repo::assets::create(st.store.as_ref(), account, &asset).await?;
    queue_arrival(st, account, id).await?;
    Ok(asset)
}

/// Queues the asset's download and probe; without a queued job the asset would stay
/// PENDING, so a failure to queue is recorded on it (FAILED) and answered.
async fn queue_arrival(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    let job = serde_json::to_string(&AssetJob { account: account.to_string(), asset: id.to_string() })?;
    if let Err(e) = st.queue.send(QueueName::Assets, job).await {
        tracing::error!(error = %e, asset = %id, "could not queue the asset's arrival");
        repo::assets::update(st.store.as_ref(), account, id, |failed| {
            failed.status = asset::FAILED;
            failed.failure_reason = Some("the file could not be queued for processing; upload again".into());
        })
        .await?;
        return Err(UseCaseError::from(e));
    }
    Ok(())
}

/// Starts the transcode of an ad's asset when it is due (seed 000 §4.4a: only once linked,
/// only when its file arrived): READY → TRANSCODING is a conditional write, so however many
/// ads link the asset at once, one of them queues the one transcode. Called after the ad
/// is written; an asset still arriving is transcoded by the worker when it is READY. The ad
/// stands whatever happens here (a failure is logged; the asset stays READY and the next
/// save of an ad linking it starts the transcode; the notifications name the ad meanwhile).
pub async fn transcode_linked(st: &AppState, account: &AccountId, asset_id: Option<&str>) {
    if let Err(e) = start_transcode(st, account, asset_id).await {
        tracing::error!(error = %e, asset = ?asset_id, "could not start the transcode of a linked asset");
    }
}

async fn start_transcode(st: &AppState, account: &AccountId, asset_id: Option<&str>) -> UseCaseResult<()> {
    let Some(id) = asset_id else { return Ok(()) };
    let moved = std::sync::atomic::AtomicBool::new(false);
    let now = st.clock.now();
    let written = repo::assets::update(st.store.as_ref(), account, id, |a| {
        let due = a.status == asset::READY && a.linked;
        moved.store(due, std::sync::atomic::Ordering::Relaxed);
        if due {
            a.status = asset::TRANSCODING;
            a.modified = now;
        }
    })
    .await?;
    if written.is_none() || !moved.load(std::sync::atomic::Ordering::Relaxed) {
        return Ok(());
    }
    let job = serde_json::to_string(&AssetJob { account: account.to_string(), asset: id.to_string() })?;
    if let Err(e) = st.queue.send(QueueName::Assets, job).await {
        // Back to READY, so that the next save of an ad linking it starts it again.
        tracing::error!(error = %e, asset = %id, "could not queue the transcode; the asset is READY again");
        repo::assets::update(st.store.as_ref(), account, id, |a| {
            if a.status == asset::TRANSCODING && a.transcode_job.is_none() {
                a.status = asset::READY;
            }
        })
        .await?;
        return Ok(());
    }
    tracing::info!(asset = %id, "transcode queued");
    Ok(())
}

/// The enabled ads of `goals` whose media cannot play now, by goal: (ad name, why) — the
/// campaign notifications' "waiting for its media" and "media failed".
pub async fn ads_without_media(
    st: &AppState,
    account: &AccountId,
    goals: &[crate::model::goal::Goal],
) -> UseCaseResult<std::collections::HashMap<String, Vec<(String, String)>>> {
    let ids: Vec<String> = goals.iter().flat_map(|g| g.ads.iter().filter(|a| a.enabled).map(|a| a.id.clone())).collect();
    let ads = repo::ads::by_ids(st.store.as_ref(), account, &ids).await?;
    let asset_ids: Vec<String> =
        ads.iter().filter_map(|a| a.creative.asset_id.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
    let assets: std::collections::HashMap<String, Asset> =
        repo::assets::by_ids(st.store.as_ref(), account, &asset_ids).await?.into_iter().map(|a| (a.id.clone(), a)).collect();
    let mut out: std::collections::HashMap<String, Vec<(String, String)>> = std::collections::HashMap::new();
    for ad in &ads {
        let Some(asset) = ad.creative.asset_id.as_ref().and_then(|id| assets.get(id)) else { continue };
        if let Some(why) = asset.not_playable() {
            out.entry(ad.goal_id.clone()).or_default().push((ad.name.clone(), why));
        }
    }
    for list in out.values_mut() {
        list.sort();
    }
    Ok(out)
}

/// Deletes an asset no ad names (`DELETE /v1/assets/video/{id}`): 409 naming the ads that
/// do; else it expires now (docs/goals-ads-assets.md). Retries when an ad links it meanwhile.
pub async fn delete(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    for _ in 0..5 {
        let now = st.clock.now();
        let cur = repo::assets::load(st.store.as_ref(), account, id, now).await?;
        let naming: Vec<String> = repo::ads::all_newest_first(st.store.as_ref(), account)
            .await?
            .into_iter()
            .filter(|a| a.creative.asset_id.as_deref() == Some(id))
            .map(|a| a.id)
            .collect();
        if !naming.is_empty() {
            let shown: Vec<&str> = naming.iter().take(5).map(String::as_str).collect();
            return Err(UseCaseError::conflict(format!(
                "asset {id} is the media of {} ad(s) ({}{}): delete them or link them to another asset first",
                naming.len(),
                shown.join(", "),
                if naming.len() > 5 { ", ..." } else { "" }
            )));
        }
        if repo::assets::expire_now(st.store.as_ref(), account, &cur, now).await? {
            tracing::info!(asset = %id, "asset deleted (expired now; its objects follow the record)");
            return Ok(());
        }
    }
    Err(UseCaseError::conflict(format!("asset {id} kept changing; try again")))
}

/// Most assets one page lists.
pub const MAX_PAGE: usize = repo::assets::MAX_ASSET_PAGE;

/// An asset of the account (an unlinked one past its expiry is gone: 404).
pub async fn get(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<repo::Versioned<Asset>> {
    Ok(repo::assets::load(st.store.as_ref(), account, id, st.clock.now()).await?)
}

/// A page of the account's assets by id after `after`, and where the next page starts.
pub async fn page(st: &AppState, account: &AccountId, after: Option<&str>, limit: usize) -> UseCaseResult<(Vec<Asset>, Option<String>)> {
    Ok(repo::assets::page(st.store.as_ref(), account, after, limit, st.clock.now()).await?)
}

/// Whether the media object at `key` (`<account>/assets/<asset>/...`) may be served: its
/// asset exists and is TRANSCODED, and the key is one of its served objects
/// (`Asset::serves`). The local media route asks this; on AWS the same rule is the
/// `servable` tag the bucket policy requires of CloudFront.
pub async fn servable(st: &AppState, key: &str) -> UseCaseResult<bool> {
    let mut parts = key.split('/');
    let (Some(account), Some("assets"), Some(asset)) = (parts.next(), parts.next(), parts.next()) else { return Ok(false) };
    let found = repo::assets::get(st.store.as_ref(), account, asset).await?;
    Ok(found.is_some_and(|a| a.value.serves(key)))
}
