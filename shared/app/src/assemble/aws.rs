//! The AWS adapters' assembly (feature `aws`, on by default): DynamoDB, S3 and SQS over one
//! SDK configuration, each function's subset of them, and the tracking keys from Secrets
//! Manager. Without the feature (the fuzz workspace) nothing of the AWS SDK is built.

use std::collections::HashMap;
use std::sync::Arc;

use super::{retrying, AUDIENCE_PREFIX};
use crate::blobs::s3::S3Blobs;
use crate::blobs::{Blobs, NoBlobs, UploadsOnly};
use crate::queue::sqs::SqsQueue;
use crate::queue::{NoQueue, QueueName};
use crate::settings::Settings;
use crate::state::AppState;
use crate::store::dynamodb::DynamoStore;

/// The table's adapter over a loaded SDK configuration.
fn table(conf: &aws_config::SdkConfig, settings: &Settings) -> DynamoStore {
    DynamoStore::new(aws_sdk_dynamodb::Client::new(conf), settings.table_name.clone())
}

/// The URLs of the queues this deployment has (`ASSET_QUEUE_URL`, `AUDIENCE_QUEUE_URL`).
fn queue_urls(settings: &Settings) -> HashMap<QueueName, String> {
    QueueName::ALL.iter().filter_map(|q| url_in(*q, settings).map(|u| (*q, u.to_string()))).collect()
}

/// The AWS ports: DynamoDB, S3 and SQS over one SDK configuration (loaded once: each load
/// reads the environment and builds a credentials chain). The resources must exist (on AWS
/// the template owns them); the queue URLs come from the settings. No media engine but the
/// default (nothing here transcodes): the asset worker's is `aws_with_media`.
pub async fn aws(settings: &Settings) -> (AppState, Arc<SqsQueue>) {
    let conf = aws_config::load_from_env().await;
    aws_on(&conf, settings)
}

fn aws_on(conf: &aws_config::SdkConfig, settings: &Settings) -> (AppState, Arc<SqsQueue>) {
    let queue = Arc::new(SqsQueue::new(conf, queue_urls(settings)));
    let store = table(conf, settings);
    let state = AppState::new(retrying(store), Arc::new(S3Blobs::new(conf, settings.bucket_name.clone())), queue.clone())
        .with_settings(settings.clone());
    (state, queue)
}

/// The asset worker's ports: `aws` with the media engine (MediaConvert on AWS), so that
/// no other function links the MediaConvert client.
pub async fn aws_with_media(settings: &Settings) -> (AppState, Arc<SqsQueue>) {
    let conf = aws_config::load_from_env().await;
    let (state, queue) = aws_on(&conf, settings);
    (state.with_media(media_engine(&conf, settings)), queue)
}

/// The media engine: MediaConvert when `MEDIACONVERT_ROLE_ARN` is set (on AWS), ffmpeg
/// on this machine otherwise (docs/media.md, "Engines").
fn media_engine(conf: &aws_config::SdkConfig, settings: &Settings) -> Arc<dyn crate::media::engine::MediaEngine> {
    match &settings.mediaconvert_role_arn {
        #[cfg(feature = "mediaconvert")]
        Some(role) => Arc::new(crate::media::mediaconvert::MediaConvert {
            client: aws_sdk_mediaconvert::Client::new(conf),
            role_arn: role.clone(),
            bucket: settings.bucket_name.clone(),
        }),
        #[cfg(not(feature = "mediaconvert"))]
        Some(_) => {
            let _ = conf;
            tracing::error!("MEDIACONVERT_ROLE_ARN is set but this build has no MediaConvert engine; using ffmpeg");
            Arc::new(crate::media::local::Ffmpeg::new(settings.asset_tmp_dir.clone()))
        }
        None => Arc::new(crate::media::local::Ffmpeg::new(settings.asset_tmp_dir.clone())),
    }
}

/// The settings of a Lambda that signs or checks signed links: the environment, the
/// tracking keys from Secrets Manager when `TRACKING_SECRETS_ARN` names a secret (serving,
/// tracking; docs/traffic-quality.md §2), and the preview keys when `PREVIEW_SECRETS_ARN`
/// does (queries, serving). Only these functions link the Secrets Manager client. A secret that cannot be read fails the cold start: links signed or checked with
/// another key would all be refused.
pub async fn lambda_settings_with_keys() -> Result<Settings, String> {
    let mut settings = Settings::from_env();
    if let Some(arn) = settings.tracking_secrets_arn.clone() {
        settings.tracking_keys = read_keys(&arn, "tracking keys").await?;
    }
    if let Some(arn) = settings.preview_secrets_arn.clone() {
        settings.preview_keys = read_keys(&arn, "preview keys").await?;
    }
    Ok(settings)
}

/// A key set from the Secrets Manager secret `arn`.
async fn read_keys(arn: &str, what: &str) -> Result<crate::delivery::link_keys::TrackingKeys, String> {
    #[cfg(feature = "secrets")]
    {
        let conf = aws_config::load_from_env().await;
        let out = aws_sdk_secretsmanager::Client::new(&conf)
            .get_secret_value()
            .secret_id(arn)
            .send()
            .await
            .map_err(|e| format!("reading the {what} {arn}: {}", aws_sdk_secretsmanager::error::DisplayErrorContext(e)))?;
        let text = out.secret_string().ok_or_else(|| format!("the {what} {arn} hold no string"))?;
        crate::delivery::link_keys::TrackingKeys::parse(text)
    }
    #[cfg(not(feature = "secrets"))]
    {
        Err(format!("the {what} secret ({arn}) is set but this build reads no secrets"))
    }
}

/// The AWS ports of an HTTP function that stores uploads and sends jobs (assets, audience):
/// like `aws`, with a blob port that only stores.
pub async fn aws_uploads(settings: &Settings) -> AppState {
    let conf = aws_config::load_from_env().await;
    let store = table(&conf, settings);
    let blobs = UploadsOnly(S3Blobs::new(&conf, settings.bucket_name.clone()));
    AppState::new(retrying(store), Arc::new(blobs), Arc::new(SqsQueue::new(&conf, queue_urls(settings)))).with_settings(settings.clone())
}

/// The console's AWS ports: the table, the bucket (uploads, and reads of the compiled
/// snapshots) and the queues.
pub async fn aws_console(settings: &Settings) -> AppState {
    let conf = aws_config::load_from_env().await;
    let store = table(&conf, settings);
    let blobs = crate::blobs::UploadsAndSnapshots(UploadsOnly(S3Blobs::new(&conf, settings.bucket_name.clone())));
    AppState::new(retrying(store), Arc::new(blobs), Arc::new(SqsQueue::new(&conf, queue_urls(settings)))).with_settings(settings.clone())
}

/// The AWS ports of an HTTP function that sends jobs but stores no objects (ads: a link
/// queues its asset's transcode): the table and the queues, no bucket.
pub async fn aws_with_queues(settings: &Settings) -> AppState {
    let conf = aws_config::load_from_env().await;
    let store = table(&conf, settings);
    AppState::new(retrying(store), Arc::new(NoBlobs), Arc::new(SqsQueue::new(&conf, queue_urls(settings)))).with_settings(settings.clone())
}

/// The AWS ports on an emulator (moto, LocalStack): the table, the bucket, the queues and
/// the bucket notification are created when missing. Kept apart from `aws` so that no
/// Lambda links the resource-creating calls.
pub async fn aws_creating_resources(settings: &Settings) -> Result<(AppState, Arc<SqsQueue>), String> {
    let conf = aws_config::load_from_env().await;
    let store = table(&conf, settings);
    let blobs = S3Blobs::new(&conf, settings.bucket_name.clone());
    let t = &settings.table_name;
    store.create_table_if_missing().await.map_err(|e| format!("creating table {t}: {e}"))?;
    blobs.create_bucket_if_missing().await.map_err(|e| e.to_string())?;
    let q = SqsQueue::create_with(&conf, &settings.queue_prefix).await.map_err(|e| e.to_string())?;
    let arn = q.arn(QueueName::Audience).await.map_err(|e| e.to_string())?;
    blobs.notify_queue(&arn, AUDIENCE_PREFIX).await.map_err(|e| e.to_string())?;
    let queue = Arc::new(q);
    let state = AppState::new(retrying(store), Arc::new(blobs), queue.clone())
        .with_media(Arc::new(crate::media::local::Ffmpeg::new(settings.asset_tmp_dir.clone())))
        .with_settings(settings.clone());
    Ok((state, queue))
}

/// The table alone, for a function whose group stores no objects and sends no jobs: its
/// blob and queue ports refuse every call, and the S3 and SQS clients (and their operation
/// code) are not part of its binary.
pub async fn aws_table_only(settings: &Settings) -> AppState {
    let conf = aws_config::load_from_env().await;
    let store = table(&conf, settings);
    AppState::new(retrying(store), Arc::new(NoBlobs), Arc::new(NoQueue)).with_settings(settings.clone())
}

/// The table and the bucket, no queue: the compile worker (it reads the records, writes
/// the compiled snapshot) and, reading objects only (`GetsOnly`), the functions that read
/// compiled snapshots (serving, queries, the events worker).
pub async fn aws_table_and_bucket(settings: &Settings, gets_only: bool) -> AppState {
    let conf = aws_config::load_from_env().await;
    let store = table(&conf, settings);
    let s3 = S3Blobs::new(&conf, settings.bucket_name.clone());
    let blobs: Arc<dyn Blobs> = if gets_only { Arc::new(crate::blobs::GetsOnly(s3)) } else { Arc::new(s3) };
    AppState::new(retrying(store), blobs, Arc::new(NoQueue)).with_settings(settings.clone())
}

/// The asset janitor's one port: the bucket, for deleting objects only (it reads no table:
/// the expired records arrive in its stream events), so it links no other S3 operation.
pub async fn aws_object_deleter(settings: &Settings) -> Arc<dyn Blobs> {
    let conf = aws_config::load_from_env().await;
    Arc::new(crate::blobs::DeletesOnly(S3Blobs::new(&conf, settings.bucket_name.clone())))
}

/// The queue's URL on AWS (`ASSET_QUEUE_URL`, `AUDIENCE_QUEUE_URL`, ...).
fn url_in(q: QueueName, s: &Settings) -> Option<&str> {
    match q {
        QueueName::Assets => s.asset_queue_url.as_deref(),
        QueueName::Audience => s.audience_queue_url.as_deref(),
        QueueName::Events => s.events_queue_url.as_deref(),
        QueueName::Forecast => s.forecast_queue_url.as_deref(),
        QueueName::Notices => s.notices_queue_url.as_deref(),
        QueueName::Compile => s.compile_queue_url.as_deref(),
    }
}
