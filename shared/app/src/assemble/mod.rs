//! Assembly: settings in, ports out. The one place adapters are chosen and built, used by
//! the Lambdas, the local server and the admin command (docs/architecture.md).

use std::path::PathBuf;
use std::sync::Arc;

#[cfg(feature = "aws")]
mod aws;
#[cfg(feature = "aws")]
pub use aws::*;

use crate::blobs::{Blobs, LocalBlobs, MemoryBlobs};
use crate::queue::durable::DurableQueue;
#[cfg(feature = "aws")]
use crate::queue::sqs::SqsQueue;
use crate::queue::{Queue, QueueName};
use crate::settings::{Settings, StoreConfig};
use crate::state::AppState;
use crate::store::embedded::EmbeddedStore;
use crate::store::Store;

/// Where audience files land in the bucket (the bucket notification's prefix).
pub(crate) const AUDIENCE_PREFIX: &str = crate::jobs::audience::PREFIX;

/// What a build without the AWS adapters (feature `aws`) answers when asked for them.
#[cfg(not(feature = "aws"))]
const NO_AWS: &str = "this build has no AWS adapters (feature `aws`): use the embedded store";

/// Every adapter behind the retry of refused requests (`store::retrying`).
pub(crate) fn retrying(s: impl Store + 'static) -> Arc<dyn Store> {
    Arc::new(crate::store::RetryingStore::new(Arc::new(s)))
}

/// The settings of a Lambda that neither signs nor checks tracking links: the environment.
/// Writes queue no compile: on AWS the table's stream feeds the compile worker.
pub fn lambda_settings() -> Settings {
    Settings { compile_on_write: false, ..Settings::from_env() }
}

/// The store alone (the admin command).
pub async fn open_store(cfg: &StoreConfig) -> Result<Arc<dyn Store>, String> {
    match cfg {
        StoreConfig::Embedded(path) => Ok(retrying(EmbeddedStore::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?)),
        StoreConfig::Memory => Ok(retrying(EmbeddedStore::in_memory().map_err(|e| e.to_string())?)),
        #[cfg(not(feature = "aws"))]
        StoreConfig::DynamoDb { .. } => Err(NO_AWS.into()),
        #[cfg(feature = "aws")]
        StoreConfig::DynamoDb { table, create } => {
            let s = crate::store::dynamodb::DynamoStore::from_env(table.clone()).await;
            if *create {
                s.create_table_if_missing().await.map_err(|e| format!("creating table {table}: {e}"))?;
            }
            Ok(retrying(s))
        }
    }
}

/// How the workers get their messages outside Lambda.
pub enum Workers {
    /// The local server's durable queue (`queue::durable`).
    Durable(Arc<DurableQueue>),
    #[cfg(feature = "aws")]
    Sqs(Arc<SqsQueue>),
}

impl Workers {
    /// Starts the workers in this process: channel consumers, or SQS pollers that play the
    /// part of the Lambda event source.
    pub fn start(self, st: AppState) {
        self.start_with(move |_| st.clone())
    }

    /// Starts the workers, each queue's with the state `state_of(queue)` gives it.
    pub fn start_with(self, state_of: impl Fn(QueueName) -> AppState) {
        match self {
            Workers::Durable(q) => crate::workers::durable_runner::run(state_of, q),
            #[cfg(feature = "aws")]
            Workers::Sqs(q) => {
                for qn in QueueName::ALL {
                    let qn = *qn;
                    let st = state_of(qn);
                    q.spawn_poller(qn, move |body| {
                        let st = st.clone();
                        async move { crate::workers::settle(&st, qn, &body).await }
                    });
                }
            }
        }
    }
}

/// An in-process blob store that sends the bucket notification's S3 events itself.
pub fn notifying(inner: Arc<dyn Blobs>, queue: &Arc<dyn Queue>, bucket: &str) -> Arc<dyn Blobs> {
    Arc::new(crate::blobs::Notifying {
        inner,
        queue: queue.clone(),
        target: QueueName::Audience,
        prefix: AUDIENCE_PREFIX,
        bucket: bucket.to_string(),
    })
}

/// The ports of the local server: the embedded store with a blob directory (or memory) and
/// its durable queue (the messages in the same store: nothing accepted is lost to a crash),
/// or the AWS ports (an emulator, LocalStack or AWS) with SQS pollers.
pub async fn local(cfg: &StoreConfig, settings: &Settings) -> Result<(AppState, Workers), String> {
    let durable = |store: Arc<dyn Store>, blobs: Option<PathBuf>| async move {
        let q = Arc::new(DurableQueue::open(store.clone()).await.map_err(|e| format!("opening the local queue: {e}"))?);
        let queue: Arc<dyn Queue> = q.clone();
        let inner: Arc<dyn Blobs> = match blobs {
            Some(dir) => {
                crate::blobs::watch_dir(dir.clone(), AUDIENCE_PREFIX, settings.bucket_name.clone(), queue.clone(), QueueName::Audience);
                Arc::new(LocalBlobs::new(dir))
            }
            None => Arc::new(MemoryBlobs::default()),
        };
        let state = AppState::new(store, notifying(inner, &queue, &settings.bucket_name), queue)
            .with_media(Arc::new(crate::media::local::Ffmpeg::new(settings.asset_tmp_dir.clone())))
            .with_settings(settings.clone());
        Ok::<_, String>((state, Workers::Durable(q)))
    };
    match cfg {
        StoreConfig::Embedded(path) => {
            let dir = path.parent().map(|p| p.join("blobs")).unwrap_or_else(|| PathBuf::from(".data/blobs"));
            let embedded = Arc::new(EmbeddedStore::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?);
            let store: Arc<dyn Store> = Arc::new(crate::store::RetryingStore::new(embedded.clone()));
            let (state, workers) = durable(store, Some(dir)).await?;
            // TTL, as DynamoDB has it: expired items removed every minute.
            crate::workers::janitor::sweep_embedded(state.clone(), std::time::Duration::from_secs(60));
            Ok((state, workers))
        }
        StoreConfig::Memory => durable(open_store(cfg).await?, None).await,
        #[cfg(not(feature = "aws"))]
        StoreConfig::DynamoDb { .. } => Err(NO_AWS.into()),
        #[cfg(feature = "aws")]
        StoreConfig::DynamoDb { table, create } => {
            let settings = Settings { table_name: table.clone(), ..settings.clone() };
            let (state, queue) = if *create { aws_creating_resources(&settings).await? } else { aws_with_media(&settings).await };
            Ok((state, Workers::Sqs(queue)))
        }
    }
}
