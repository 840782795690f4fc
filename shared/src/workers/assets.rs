//! The asset downloader: PENDING → DOWNLOADING → READY | FAILED. Idempotent: a finished
//! asset is left alone, the object key is fixed per asset, every state change is
//! conditional on the record's version.

use serde::{Deserialize, Serialize};

use crate::download::{download, Policy};
use crate::model::asset::{self, Asset};
use crate::repo;
use crate::state::AppState;
use crate::workers::{JobError, JobResult};

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AssetJob {
    pub account: String,
    pub asset: String,
}

/// Applies `change` (and the modification time) to the stored asset; `None` when it is gone.
async fn update(st: &AppState, job: &AssetJob, change: impl Fn(&mut Asset)) -> JobResult<Option<Asset>> {
    let now = st.clock.now();
    repo::assets::update(st.store.as_ref(), &job.account, &job.asset, |a| {
        change(a);
        a.modified = now;
    })
    .await
    .map_err(JobError::from)
}

pub async fn process(st: &AppState, job: &AssetJob) -> JobResult<()> {
    let Some(cur) = repo::assets::get(st.store.as_ref(), &job.account, &job.asset).await? else {
        tracing::info!(asset = %job.asset, "asset gone; nothing to do");
        return Ok(());
    };
    if cur.value.status == asset::READY || cur.value.status == asset::FAILED {
        tracing::info!(asset = %job.asset, status = %cur.value.status, "already finished (redelivery)");
        return Ok(());
    }
    let Some(url) = cur.value.download_uri.clone() else {
        return Ok(());
    };
    update(st, job, |a| a.status = asset::DOWNLOADING).await?;
    let policy = Policy {
        allow_private: st.settings.asset_allow_private_urls,
        max_bytes: st.settings.asset_max_bytes,
        timeout: st.settings.asset_download_timeout,
        max_redirects: 5,
    };
    let tmp = std::env::temp_dir().join(format!("asset-{}-{}", job.asset, uuid::Uuid::new_v4().simple()));
    let result = download(&url, &policy, &tmp).await;
    let outcome = match result {
        Ok(d) => {
            let object_key = Asset::object_key(&job.account, &job.asset, &cur.value.name);
            let ct = d
                .content_type
                .clone()
                .filter(|c| c.starts_with("video/"))
                .unwrap_or_else(|| asset::content_type_for(&cur.value.name).into());
            match st.blobs.put_file(&object_key, &tmp, &ct).await {
                Ok(size) => {
                    tracing::info!(asset = %job.asset, size, "asset downloaded");
                    update(st, job, |a| {
                        a.status = asset::READY;
                        a.size = Some(size);
                        a.content_type = Some(ct.clone());
                        a.object_key = Some(object_key.clone());
                        a.failure_reason = None;
                    })
                    .await
                    .map(|_| ())
                }
                // The bucket failed: let the message come back.
                Err(e) => Err(e.into()),
            }
        }
        Err(e) => {
            tracing::warn!(asset = %job.asset, error = %e, "asset download failed");
            let reason = e.to_string();
            update(st, job, |a| {
                a.status = asset::FAILED;
                a.failure_reason = Some(reason.clone());
            })
            .await
            .map(|_| ())
        }
    };
    let _ = tokio::fs::remove_file(&tmp).await;
    outcome
}
