//! The asset worker's use cases (docs/media.md, "States"): an asset's arrival (PENDING →
//! DOWNLOADING → probe → READY | FAILED) and, once an ad links it, its transcode
//! (TRANSCODING → TRANSCODED | FAILED). Idempotent: what a message does depends on the
//! asset's state, the object keys are fixed per asset, every state change is conditional
//! on the record's version. The transitions are the model's (`Asset::probed`, `fail`,
//! `transcoded`); a file that can never be used ends FAILED with its reason, and only a
//! failure of the service (the store, the bucket, the engine, this machine) is an error,
//! which the worker gives back to the queue.

use std::time::{Duration, Instant};

use super::{UseCaseError, UseCaseResult};
use crate::download::{download, Policy};
use crate::media::engine::{EngineError, Made, Order, Started};
use crate::media::job_events::Completion;
use crate::media::probe::ProbeError;
use crate::model::asset::{self, Asset, AssetStatus, Probe};
use crate::repo;
use crate::state::AppState;

/// Time kept back from the invocation's deadline to upload the file and record the outcome.
const FINISH_RESERVE: Duration = Duration::from_secs(45);
/// Below this, a download is not started in this invocation.
const MIN_DOWNLOAD_TIME: Duration = Duration::from_secs(5);
const TMP_PREFIX: &str = "asset-";

/// The download's deadline: the configured one, cut to end [`FINISH_RESERVE`] before the
/// invocation's; `None` when less than [`MIN_DOWNLOAD_TIME`] would be left.
pub fn budget(configured: Duration, deadline: Option<Instant>, now: Instant) -> Option<Duration> {
    let Some(deadline) = deadline else { return Some(configured) };
    let left = deadline.saturating_duration_since(now).saturating_sub(FINISH_RESERVE);
    (left >= MIN_DOWNLOAD_TIME).then(|| configured.min(left))
}

async fn sweep_tmp(dir: &std::path::Path) {
    let Ok(mut entries) = tokio::fs::read_dir(dir).await else { return };
    while let Ok(Some(e)) = entries.next_entry().await {
        if e.file_name().to_string_lossy().starts_with(TMP_PREFIX) {
            let _ = tokio::fs::remove_file(e.path()).await;
        }
    }
}

/// The asset a job names.
pub struct Named<'a> {
    pub account: &'a str,
    pub asset: &'a str,
}

async fn update(st: &AppState, n: &Named<'_>, change: impl Fn(&mut Asset)) -> UseCaseResult<Option<Asset>> {
    Ok(repo::assets::touch(st.store.as_ref(), n.account, n.asset, st.clock.now(), change).await?)
}

async fn fail(st: &AppState, n: &Named<'_>, reason: String) -> UseCaseResult<()> {
    tracing::warn!(asset = %n.asset, %reason, "asset failed");
    update(st, n, |a| a.fail(&reason)).await.map(|_| ())
}

/// One message of the assets queue for this asset: whatever is left to do in its state.
pub async fn advance(st: &AppState, n: &Named<'_>) -> UseCaseResult<()> {
    let Some(cur) = repo::assets::get(st.store.as_ref(), n.account, n.asset).await? else {
        tracing::info!(asset = %n.asset, "asset gone; nothing to do");
        return Ok(());
    };
    match cur.value.status {
        AssetStatus::Pending | AssetStatus::Downloading => arrive(st, n, &cur.value).await,
        AssetStatus::Transcoding => transcode(st, n).await,
        AssetStatus::Ready | AssetStatus::Transcoded | AssetStatus::Failed => {
            tracing::info!(asset = %n.asset, status = %cur.value.status, "nothing left to do (redelivery)");
            Ok(())
        }
    }
}

/// Records the file's arrival: READY with its probe (TRANSCODING at once when an ad linked
/// it meanwhile, and the transcode runs), or FAILED with the reason.
async fn arrived(st: &AppState, n: &Named<'_>, probed: Result<Probe, ProbeError>, stored: impl Fn(&mut Asset)) -> UseCaseResult<()> {
    let probe = match probed {
        Err(ProbeError::Tool(e)) => return Err(UseCaseError::internal_msg(format!("ffprobe: {e}"))),
        Err(e) => return fail(st, n, e.to_string()).await,
        Ok(p) => p,
    };
    if let Err(reason) = probe.check_bounds() {
        return fail(st, n, reason).await;
    }
    let written = update(st, n, |a| {
        if !a.status.is_final() {
            stored(a);
        }
        a.probed(probe.clone());
    })
    .await?;
    tracing::info!(asset = %n.asset, duration_ms = probe.duration_ms, width = probe.width, height = probe.height, "asset probed");
    match written {
        Some(a) if a.status == asset::TRANSCODING => transcode(st, n).await,
        _ => Ok(()),
    }
}

async fn arrive(st: &AppState, n: &Named<'_>, cur: &Asset) -> UseCaseResult<()> {
    // An octet-stream upload: the file is in the bucket already.
    let Some(url) = cur.download_uri.clone() else {
        let Some(key) = cur.object_key.clone() else { return fail(st, n, "the upload has no file".into()).await };
        let probed = st.media.probe(st.blobs.as_ref(), &key, None).await;
        return arrived(st, n, probed, |_| {}).await;
    };
    // The download ends before the invocation does, leaving time to store the file and the
    // outcome; with too little time left the message comes back to a fresh invocation.
    let Some(timeout) = budget(st.settings.asset_download_timeout, st.deadline, Instant::now()) else {
        return Err(UseCaseError::Busy("too little time left in this invocation for a download".into()));
    };
    update(st, n, |a| a.status = asset::DOWNLOADING).await?;
    let policy = Policy {
        resolver: st.resolver.clone(),
        allow_private: st.settings.asset_allow_private_urls,
        max_bytes: st.settings.asset_max_bytes,
        timeout,
        max_redirects: 5,
    };
    // On Lambda one download runs at a time per instance (BatchSize 1): files an earlier,
    // killed invocation left behind are removed first, so /tmp holds at most one file of
    // ASSET_MAX_BYTES. (In one process with concurrent jobs there is nothing to sweep.)
    if st.deadline.is_some() {
        sweep_tmp(&st.settings.asset_tmp_dir).await;
    }
    let tmp = st.settings.asset_tmp_dir.join(format!("{TMP_PREFIX}{}-{}", n.asset, uuid::Uuid::new_v4().simple()));
    let outcome = match download(&url, &policy, &tmp).await {
        Ok(_) => {
            let object_key = Asset::object_key(n.account, n.asset, &cur.name);
            // This service's own mapping of the name, never the remote server's header.
            let ct = asset::content_type_for(&cur.name).to_string();
            // Stored first: the probe of the bucket's copy must find it (MediaConvert reads S3).
            match st.blobs.put_file(&object_key, &tmp, &ct).await {
                Ok(size) => {
                    tracing::info!(asset = %n.asset, size, "asset downloaded");
                    let probed = st.media.probe(st.blobs.as_ref(), &object_key, Some(&tmp)).await;
                    arrived(st, n, probed, |a| {
                        a.size = Some(size);
                        a.content_type = Some(ct.clone());
                        a.object_key = Some(object_key.clone());
                    })
                    .await
                }
                // The bucket failed: let the message come back.
                Err(e) => Err(e.into()),
            }
        }
        // The local disk failed (full /tmp, ...): not the file's fault; retried later.
        Err(e) if e.is_local() => {
            tracing::error!(asset = %n.asset, error = %e, "asset download could not be stored locally; will retry");
            Err(UseCaseError::internal_msg(e.to_string()))
        }
        Err(e) => {
            // The log has the detail; the asset only the class of failure.
            tracing::warn!(asset = %n.asset, error = %e, "asset download failed");
            fail(st, n, e.public_reason()).await
        }
    };
    let _ = tokio::fs::remove_file(&tmp).await;
    outcome
}

/// The transcode of a linked asset: made here (ffmpeg) or submitted (MediaConvert, whose
/// job id is recorded so a redelivery does not submit another; its completion arrives
/// later on the same queue: `completion`).
async fn transcode(st: &AppState, n: &Named<'_>) -> UseCaseResult<()> {
    let Some(cur) = repo::assets::get(st.store.as_ref(), n.account, n.asset).await? else { return Ok(()) };
    let a = cur.value;
    if a.status != asset::TRANSCODING {
        return Ok(());
    }
    if a.transcode_job.is_some() {
        tracing::info!(asset = %n.asset, job = ?a.transcode_job, "transcode already submitted (redelivery)");
        return Ok(());
    }
    let (Some(master_key), Some(probe)) = (a.object_key.clone(), a.probe.clone()) else {
        return finish(st, n, None, Err("the asset has no probed master".into())).await;
    };
    let order = Order { account: n.account.to_string(), asset: n.asset.to_string(), master_key, probe };
    let started = Instant::now();
    match st.media.transcode(st.blobs.as_ref(), &order).await {
        Ok(Started::Done(made)) => {
            tracing::info!(asset = %n.asset, engine = st.media.kind(), renditions = made.renditions.len(),
                seconds = started.elapsed().as_secs_f64(), "asset transcoded");
            finish(st, n, None, Ok(made)).await
        }
        Ok(Started::Submitted(id)) => {
            tracing::info!(asset = %n.asset, engine = st.media.kind(), job = %id, "transcode submitted");
            update(st, n, |a| {
                if a.status == asset::TRANSCODING {
                    a.transcode_job = Some(id.clone());
                }
            })
            .await
            .map(|_| ())
        }
        Err(EngineError::Media(reason)) => finish(st, n, None, Err(format!("transcode failed: {reason}"))).await,
        Err(EngineError::Service(e)) => Err(UseCaseError::Busy(format!("transcoder unavailable: {e}"))),
    }
}

/// Records a transcode's outcome on the asset, if it is still the one it waits for.
/// The objects of a successful outcome are marked servable first (the CDN serves only
/// marked objects): a marking that fails leaves the asset waiting, and the message comes back.
async fn finish(st: &AppState, n: &Named<'_>, engine_job: Option<&str>, outcome: Result<Made, String>) -> UseCaseResult<()> {
    let outcome = outcome.map(|m| (m.renditions, m.still));
    if let Ok((renditions, still)) = &outcome {
        let Some(cur) = repo::assets::get(st.store.as_ref(), n.account, n.asset).await? else { return Ok(()) };
        let mut done = cur.value;
        done.transcoded(engine_job, &Ok((renditions.clone(), still.clone())));
        for key in done.served_keys() {
            st.blobs.mark_servable(key).await?;
        }
    }
    update(st, n, |a| a.transcoded(engine_job, &outcome)).await.map(|_| ())
}

/// A MediaConvert job's completion (the EventBridge event through SQS): the renditions it
/// wrote, with their sizes read from the bucket. An asset without a probe can never be
/// finished: FAILED with that reason.
pub async fn completion(st: &AppState, c: Completion) -> UseCaseResult<()> {
    let n = Named { account: &c.account, asset: &c.asset };
    let Some(cur) = repo::assets::get(st.store.as_ref(), n.account, n.asset).await? else { return Ok(()) };
    let a = cur.value;
    if !a.awaits_transcode(Some(c.job_id.as_str())) {
        tracing::info!(asset = %n.asset, job = %c.job_id, status = %a.status, "not the transcode this asset waits for (redelivery or an older job)");
        return Ok(());
    }
    let outcome = match (c.result, a.probe) {
        (Err(reason), _) => Err(format!("transcode failed: {reason}")),
        (Ok(_), None) => Err("the asset has no probe: its renditions cannot be described".to_string()),
        (Ok(outputs), Some(probe)) => Ok(crate::media::job_events::made(&outputs, &probe, st.blobs.as_ref()).await?),
    };
    finish(st, &n, Some(&c.job_id), outcome).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_download_ends_before_the_invocation() {
        let now = Instant::now();
        let d = Duration::from_secs(240);
        assert_eq!(budget(d, None, now), Some(d));
        // A fresh 300 s invocation: the configured 240 s fits (300 - 45 = 255).
        assert_eq!(budget(d, Some(now + Duration::from_secs(300)), now), Some(d));
        // Configured as long as the function's timeout: cut to end 45 s before it.
        assert_eq!(budget(Duration::from_secs(300), Some(now + Duration::from_secs(300)), now), Some(Duration::from_secs(255)));
        // Late in an invocation: not started.
        assert_eq!(budget(d, Some(now + Duration::from_secs(49)), now), None);
    }
}
