//! Creating a video asset (seed 000 §4.4a): from a URL (the record PENDING at once, the
//! download queued for the asset worker) or from uploaded bytes (stored, then READY).

use crate::error::{AppError, AppResult};
use crate::ids::new_id;
use crate::jobs::AssetJob;
use crate::model::asset::{self, content_type_for, Asset};
use crate::queue::QueueName;
use crate::repo;
use crate::state::AppState;

/// What a client sends to create an asset (its name and URL already checked by the parser).
pub enum CreateAsset {
    /// `{name, downloadUri}`: downloaded in the background.
    FromUrl { name: String, uri: String },
    /// The file's bytes with its name.
    Upload { name: String, bytes: Vec<u8> },
}

fn new_asset(st: &AppState, id: &str, name: String, source: &str) -> Asset {
    let now = st.clock.now();
    Asset {
        id: id.to_string(),
        name,
        source: source.into(),
        download_uri: None,
        status: asset::PENDING,
        failure_reason: None,
        size: None,
        content_type: None,
        object_key: None,
        linked: false,
        expires: Some(now + st.settings.asset_expiry),
        created: now,
        modified: now,
    }
}

/// Creates the asset; returns it as stored.
pub async fn create(st: &AppState, account: &str, cmd: CreateAsset) -> AppResult<Asset> {
    let id = new_id();
    match cmd {
        CreateAsset::FromUrl { name, uri } => {
            let mut asset = new_asset(st, &id, name, "url");
            asset.download_uri = Some(uri);
            repo::assets::create(st.store.as_ref(), account, &asset).await?;
            let job = serde_json::to_string(&AssetJob { account: account.to_string(), asset: id.clone() })?;
            if let Err(e) = st.queue.send(QueueName::Assets, job).await {
                // Without a queued job the asset would stay PENDING: record the failure.
                tracing::error!(error = %e, asset = %id, "could not queue the download");
                repo::assets::update(st.store.as_ref(), account, &id, |failed| {
                    failed.status = asset::FAILED;
                    failed.failure_reason = Some("the download could not be queued; upload again".into());
                })
                .await?;
                return Err(AppError::from(e));
            }
            tracing::info!(asset = %id, "asset download queued");
            Ok(asset)
        }
        CreateAsset::Upload { name, bytes } => {
            let key = Asset::object_key(account, &id, &name);
            let ct = content_type_for(&name);
            let size = bytes.len() as u64;
            st.blobs.put_bytes(&key, bytes, ct).await?;
            let mut asset = new_asset(st, &id, name, "upload");
            asset.status = asset::READY;
            asset.size = Some(size);
            asset.content_type = Some(ct.into());
            asset.object_key = Some(key);
            repo::assets::create(st.store.as_ref(), account, &asset).await?;
            Ok(asset)
        }
    }
}
