//! The asset worker (docs/media.md): PENDING → DOWNLOADING → probe → READY | FAILED, and
//! on a link TRANSCODING → TRANSCODED | FAILED (`transcode.rs`). Idempotent: what a message
//! does depends on the asset's state, the object keys are fixed per asset, every state
//! change is conditional on the record's version.

use crate::download::{download, Policy};
use crate::media::probe::ProbeError;
use crate::model::asset::{self, Asset, AssetStatus, Probe};
use crate::repo;
use crate::state::AppState;
use crate::workers::{JobError, JobResult};

pub use crate::jobs::AssetJob;

async fn update(st: &AppState, job: &AssetJob, change: impl Fn(&mut Asset)) -> JobResult<Option<Asset>> {
    repo::assets::touch(st.store.as_ref(), &job.account, &job.asset, st.clock.now(), change).await.map_err(JobError::from)
}

/// Time kept back from the invocation's deadline to upload the file and record the outcome.
const FINISH_RESERVE: std::time::Duration = std::time::Duration::from_secs(45);
/// Below this, a download is not started in this invocation.
const MIN_DOWNLOAD_TIME: std::time::Duration = std::time::Duration::from_secs(5);
const TMP_PREFIX: &str = "asset-";

/// The download's deadline: the configured one, cut to end [`FINISH_RESERVE`] before the
/// invocation's; `None` when less than [`MIN_DOWNLOAD_TIME`] would be left.
fn budget(configured: std::time::Duration, deadline: Option<std::time::Instant>, now: std::time::Instant) -> Option<std::time::Duration> {
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

/// One message of the assets queue: what happens depends on the asset's state, so a
/// redelivery of any message does only what is left (docs/media.md, "States").
pub async fn process(st: &AppState, job: &AssetJob) -> JobResult<()> {
    let Some(cur) = repo::assets::get(st.store.as_ref(), &job.account, &job.asset).await? else {
        tracing::info!(asset = %job.asset, "asset gone; nothing to do");
        return Ok(());
    };
    match cur.value.status {
        AssetStatus::Pending | AssetStatus::Downloading => arrive(st, job, &cur.value).await,
        AssetStatus::Transcoding => super::transcode::run(st, job).await,
        AssetStatus::Ready | AssetStatus::Transcoded | AssetStatus::Failed => {
            tracing::info!(asset = %job.asset, status = %cur.value.status, "nothing left to do (redelivery)");
            Ok(())
        }
    }
}

/// Records the file's arrival: READY with its probe (TRANSCODING at once when an ad linked
/// it meanwhile, and the transcode runs), or FAILED with the reason.
async fn arrived(st: &AppState, job: &AssetJob, probed: Result<Probe, ProbeError>, stored: impl Fn(&mut Asset)) -> JobResult<()> {
    let probe = match probed {
        Err(ProbeError::Tool(e)) => return Err(JobError::Retry(crate::cause::Cause::msg(format!("ffprobe: {e}")))),
        Err(e) => return fail(st, job, e.to_string()).await,
        Ok(p) => p,
    };
    if let Err(reason) = probe.check_bounds() {
        return fail(st, job, reason).await;
    }
    let written = update(st, job, |a| {
        if a.status.is_final() {
            return;
        }
        stored(a);
        a.probe = Some(probe.clone());
        a.failure_reason = None;
        a.status = if a.linked { asset::TRANSCODING } else { asset::READY };
    })
    .await?;
    tracing::info!(asset = %job.asset, duration_ms = probe.duration_ms, width = probe.width, height = probe.height, "asset probed");
    match written {
        Some(a) if a.status == asset::TRANSCODING => super::transcode::run(st, job).await,
        _ => Ok(()),
    }
}

async fn fail(st: &AppState, job: &AssetJob, reason: String) -> JobResult<()> {
    tracing::warn!(asset = %job.asset, %reason, "asset failed");
    update(st, job, |a| {
        if !a.status.is_final() {
            a.status = asset::FAILED;
            a.failure_reason = Some(reason.clone());
        }
    })
    .await
    .map(|_| ())
}

async fn arrive(st: &AppState, job: &AssetJob, cur: &Asset) -> JobResult<()> {
    // An octet-stream upload: the file is in the bucket already.
    let Some(url) = cur.download_uri.clone() else {
        let Some(key) = cur.object_key.clone() else { return fail(st, job, "the upload has no file".into()).await };
        let probed = st.media.probe(st.blobs.as_ref(), &key, None).await;
        return arrived(st, job, probed, |_| {}).await;
    };
    // The download ends before the invocation does, leaving time to store the file and the
    // outcome; with too little time left the message comes back to a fresh invocation.
    let Some(timeout) = budget(st.settings.asset_download_timeout, st.deadline, std::time::Instant::now()) else {
        return Err(JobError::Retry(crate::cause::Cause::msg("too little time left in this invocation for a download")));
    };
    update(st, job, |a| a.status = asset::DOWNLOADING).await?;
    let policy =
        Policy { allow_private: st.settings.asset_allow_private_urls, max_bytes: st.settings.asset_max_bytes, timeout, max_redirects: 5 };
    // On Lambda one download runs at a time per instance (BatchSize 1): files an earlier,
    // killed invocation left behind are removed first, so /tmp holds at most one file of
    // ASSET_MAX_BYTES. (In one process with concurrent jobs there is nothing to sweep.)
    if st.deadline.is_some() {
        sweep_tmp(&st.settings.asset_tmp_dir).await;
    }
    let tmp = st.settings.asset_tmp_dir.join(format!("{TMP_PREFIX}{}-{}", job.asset, uuid::Uuid::new_v4().simple()));
    let outcome = match download(&url, &policy, &tmp).await {
        Ok(d) => {
            let object_key = Asset::object_key(&job.account, &job.asset, &cur.name);
            let ct =
                d.content_type.clone().filter(|c| c.starts_with("video/")).unwrap_or_else(|| asset::content_type_for(&cur.name).into());
            // Stored first: the probe of the bucket's copy must find it (MediaConvert reads S3).
            match st.blobs.put_file(&object_key, &tmp, &ct).await {
                Ok(size) => {
                    tracing::info!(asset = %job.asset, size, "asset downloaded");
                    let probed = st.media.probe(st.blobs.as_ref(), &object_key, Some(&tmp)).await;
                    arrived(st, job, probed, |a| {
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
            tracing::error!(asset = %job.asset, error = %e, "asset download could not be stored locally; will retry");
            Err(JobError::Retry(crate::cause::Cause::msg(e.to_string())))
        }
        Err(e) => {
            // The log has the detail; the asset only the class of failure.
            tracing::warn!(asset = %job.asset, error = %e, "asset download failed");
            fail(st, job, e.public_reason()).await
        }
    };
    let _ = tokio::fs::remove_file(&tmp).await;
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::{Duration, Instant};

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
