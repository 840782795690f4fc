//! Runtime configuration from the environment, shared by the Lambdas, the local server and
//! the admin command. Names: README.md "Configuration".

use std::path::PathBuf;
use std::sync::Arc;

use crate::blobs::s3::S3Blobs;
use crate::blobs::{Blobs, LocalBlobs, MemoryBlobs};
use crate::queue::sqs::SqsQueue;
use crate::queue::{InProcessQueue, Queue, QueueName, Receivers};
use crate::state::AppState;
use crate::store::dynamodb::DynamoStore;
use crate::store::embedded::EmbeddedStore;
use crate::store::Store;

#[derive(Debug, Clone, PartialEq)]
pub enum StoreConfig {
    /// redb file (kept across restarts).
    Embedded(PathBuf),
    /// redb in memory (gone on exit).
    Memory,
    /// DynamoDB (or an emulator through `AWS_ENDPOINT_URL`); create the table when missing.
    DynamoDb { table: String, create: bool },
}

pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl StoreConfig {
    /// `STORE` = embedded (default) | memory | dynamodb; `DATA_DIR`; `TABLE_NAME`;
    /// `CREATE_TABLE` = 1 to create the table (emulators).
    pub fn from_env(default_kind: &str) -> Result<StoreConfig, String> {
        let kind = env("STORE").unwrap_or_else(|| default_kind.to_string());
        match kind.as_str() {
            "embedded" => {
                let dir = PathBuf::from(env("DATA_DIR").unwrap_or_else(|| ".data".into()));
                Ok(StoreConfig::Embedded(dir.join("store.redb")))
            }
            "memory" => Ok(StoreConfig::Memory),
            "dynamodb" => Ok(StoreConfig::DynamoDb {
                table: env("TABLE_NAME").unwrap_or_else(|| "adserver".into()),
                create: env("CREATE_TABLE").is_some_and(|v| v == "1" || v == "true"),
            }),
            other => Err(format!("STORE must be embedded, memory or dynamodb (got {other:?})")),
        }
    }

    pub async fn open(&self) -> Result<Arc<dyn Store>, String> {
        match self {
            StoreConfig::Embedded(path) => Ok(Arc::new(EmbeddedStore::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?)),
            StoreConfig::Memory => Ok(Arc::new(EmbeddedStore::in_memory().map_err(|e| e.to_string())?)),
            StoreConfig::DynamoDb { table, create } => {
                let s = DynamoStore::from_env(table.clone()).await;
                if *create {
                    s.create_table_if_missing().await.map_err(|e| format!("creating table {table}: {e}"))?;
                }
                Ok(Arc::new(s))
            }
        }
    }

    pub fn describe(&self) -> String {
        match self {
            StoreConfig::Embedded(p) => format!("embedded store at {}", p.display()),
            StoreConfig::Memory => "in-memory store".into(),
            StoreConfig::DynamoDb { table, .. } => {
                format!("DynamoDB table {table}{}", env("AWS_ENDPOINT_URL").map(|e| format!(" at {e}")).unwrap_or_default())
            }
        }
    }
}

/// How the workers get their messages outside Lambda.
pub enum Workers {
    InProcess(Receivers),
    Sqs(Arc<SqsQueue>),
}

impl Workers {
    /// Starts the workers in this process: channel consumers, or SQS pollers that play the
    /// part of the Lambda event source.
    pub fn start(self, st: AppState) {
        match self {
            Workers::InProcess(r) => crate::workers::run_in_process(st, r),
            Workers::Sqs(q) => {
                for qn in QueueName::ALL {
                    let qn = *qn;
                    let st = st.clone();
                    q.spawn_poller(qn, move |body| {
                        let st = st.clone();
                        async move {
                            match crate::workers::dispatch(&st, qn, &body).await {
                                Ok(()) => true,
                                Err(e) => {
                                    tracing::warn!(queue = qn.short(), error = %e, "job failed; SQS will redeliver it");
                                    false
                                }
                            }
                        }
                    });
                }
            }
        }
    }
}

const AUDIENCE_PREFIX: &str = crate::workers::audience::PREFIX;

/// An in-process blob store that sends the bucket notification's S3 events itself.
pub fn notifying(inner: Arc<dyn Blobs>, queue: &Arc<dyn Queue>) -> Arc<dyn Blobs> {
    Arc::new(crate::blobs::Notifying { inner, queue: queue.clone(), target: QueueName::Audience, prefix: AUDIENCE_PREFIX })
}

/// `BUCKET_NAME`, default `adserver-assets`.
pub fn bucket_name() -> String {
    env("BUCKET_NAME").unwrap_or_else(|| "adserver-assets".into())
}

/// The ports for the local server (and the admin command): the embedded store with a blob
/// directory and in-process queues, or DynamoDB + S3 + SQS (emulated or real).
pub async fn build_local(cfg: &StoreConfig) -> Result<(AppState, Workers), String> {
    let store = cfg.open().await?;
    match cfg {
        StoreConfig::Embedded(path) => {
            let dir = path.parent().map(|p| p.join("blobs")).unwrap_or_else(|| PathBuf::from(".data/blobs"));
            let (q, rx) = InProcessQueue::new();
            let queue: Arc<dyn Queue> = Arc::new(q);
            crate::blobs::watch_dir(dir.clone(), AUDIENCE_PREFIX, queue.clone(), QueueName::Audience);
            let blobs = notifying(Arc::new(LocalBlobs::new(dir)), &queue);
            Ok((AppState::new(store, blobs, queue), Workers::InProcess(rx)))
        }
        StoreConfig::Memory => {
            let (q, rx) = InProcessQueue::new();
            let queue: Arc<dyn Queue> = Arc::new(q);
            Ok((AppState::new(store, notifying(Arc::new(MemoryBlobs::default()), &queue), queue), Workers::InProcess(rx)))
        }
        StoreConfig::DynamoDb { create, .. } => {
            let blobs = S3Blobs::from_env(bucket_name()).await;
            let queue = if *create {
                blobs.create_bucket_if_missing().await.map_err(|e| e.to_string())?;
                let q = SqsQueue::create(&env("QUEUE_PREFIX").unwrap_or_else(|| "adserver".into())).await.map_err(|e| e.to_string())?;
                let arn = q.arn(QueueName::Audience).await.map_err(|e| e.to_string())?;
                blobs.notify_queue(&arn, AUDIENCE_PREFIX).await.map_err(|e| e.to_string())?;
                q
            } else {
                SqsQueue::from_env().await
            };
            let queue = Arc::new(queue);
            Ok((AppState::new(store, Arc::new(blobs), queue.clone()), Workers::Sqs(queue)))
        }
    }
}
