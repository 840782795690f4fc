//! The transcode of a linked asset (docs/media.md): TRANSCODING → TRANSCODED | FAILED.
//! The engine either makes the renditions here (ffmpeg) or submits a job (MediaConvert,
//! whose job id is recorded so a redelivery does not submit another) and its completion
//! event arrives later on the same queue (`completion`).

use crate::jobs::AssetJob;
use crate::media::engine::{EngineError, Made, Order, Started};
use crate::media::job_events::Completion;
use crate::model::asset::{self, Asset};
use crate::repo;
use crate::state::AppState;
use crate::workers::{JobError, JobResult};

async fn update(st: &AppState, job: &AssetJob, change: impl Fn(&mut Asset)) -> JobResult<Option<Asset>> {
    repo::assets::touch(st.store.as_ref(), &job.account, &job.asset, st.clock.now(), change).await.map_err(JobError::from)
}

pub async fn run(st: &AppState, job: &AssetJob) -> JobResult<()> {
    let Some(cur) = repo::assets::get(st.store.as_ref(), &job.account, &job.asset).await? else { return Ok(()) };
    let a = cur.value;
    if a.status != asset::TRANSCODING {
        return Ok(());
    }
    if a.transcode_job.is_some() {
        tracing::info!(asset = %job.asset, job = ?a.transcode_job, "transcode already submitted (redelivery)");
        return Ok(());
    }
    let (Some(master_key), Some(probe)) = (a.object_key.clone(), a.probe.clone()) else {
        return finish(st, job, None, Err("the asset has no probed master".into())).await;
    };
    let order = Order { account: job.account.clone(), asset: job.asset.clone(), master_key, probe };
    let started = std::time::Instant::now();
    match st.media.transcode(st.blobs.as_ref(), &order).await {
        Ok(Started::Done(made)) => {
            tracing::info!(asset = %job.asset, engine = st.media.kind(), renditions = made.renditions.len(),
                seconds = started.elapsed().as_secs_f64(), "asset transcoded");
            finish(st, job, None, Ok(made)).await
        }
        Ok(Started::Submitted(id)) => {
            tracing::info!(asset = %job.asset, engine = st.media.kind(), job = %id, "transcode submitted");
            update(st, job, |a| {
                if a.status == asset::TRANSCODING {
                    a.transcode_job = Some(id.clone());
                }
            })
            .await
            .map(|_| ())
        }
        Err(EngineError::Media(reason)) => finish(st, job, None, Err(format!("transcode failed: {reason}"))).await,
        Err(EngineError::Service(e)) => Err(JobError::Retry(crate::cause::Cause::msg(e))),
    }
}

/// Records a transcode's outcome on the asset, if it is still the one it waits for
/// (`engine_job`: the submitted job's id; `None` for one made in this process).
async fn finish(st: &AppState, job: &AssetJob, engine_job: Option<&str>, outcome: Result<Made, String>) -> JobResult<()> {
    let expected = |a: &Asset| a.status == asset::TRANSCODING && (engine_job.is_none() || a.transcode_job.as_deref() == engine_job);
    update(st, job, |a| {
        if !expected(a) {
            return;
        }
        a.transcode_job = None;
        match &outcome {
            Ok(made) => {
                a.status = asset::TRANSCODED;
                a.renditions = made.renditions.clone();
                a.still = made.still.clone();
            }
            Err(reason) => {
                a.status = asset::FAILED;
                a.failure_reason = Some(reason.clone());
            }
        }
    })
    .await
    .map(|_| ())
}

/// A MediaConvert job's completion (the EventBridge event through SQS): the renditions
/// it wrote, with their sizes read from the bucket.
pub async fn completion(st: &AppState, c: Completion) -> JobResult<()> {
    let job = AssetJob { account: c.account.clone(), asset: c.asset.clone() };
    let Some(cur) = repo::assets::get(st.store.as_ref(), &job.account, &job.asset).await? else { return Ok(()) };
    let a = cur.value;
    if a.status != asset::TRANSCODING || a.transcode_job.as_deref() != Some(c.job_id.as_str()) {
        tracing::info!(asset = %job.asset, job = %c.job_id, status = %a.status, "not the transcode this asset waits for (redelivery or an older job)");
        return Ok(());
    }
    let outcome = match c.result {
        Err(reason) => Err(format!("transcode failed: {reason}")),
        Ok(outputs) => {
            let probe = a.probe.clone().ok_or("the asset has no probe")?;
            Ok(crate::media::job_events::made(&outputs, &probe, st.blobs.as_ref()).await.map_err(JobError::from)?)
        }
    };
    finish(st, &job, Some(&c.job_id), outcome).await
}
