//! Runtime configuration from the environment, shared by the Lambdas, the local server and
//! the admin command. Names: README.md "Configuration".

use std::path::PathBuf;
use std::sync::Arc;

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
            StoreConfig::Embedded(path) => {
                Ok(Arc::new(EmbeddedStore::open(path).map_err(|e| format!("opening {}: {e}", path.display()))?))
            }
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
            StoreConfig::DynamoDb { table, .. } => format!(
                "DynamoDB table {table}{}",
                env("AWS_ENDPOINT_URL").map(|e| format!(" at {e}")).unwrap_or_default()
            ),
        }
    }
}
