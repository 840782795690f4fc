//! Admin command: creates accounts and API keys and loads reference data from a seed file
//! into the configured store (the API cannot do this).
//!
//!   admin seed <file.json>            upsert every account of the file; prints the keys
//!   admin create-key <account-id>     a new key for an existing account; prints it
//!   admin create-table                create the DynamoDB table (emulators; SAM owns it on AWS)
//!
//! The store comes from the environment: STORE (embedded|dynamodb), DATA_DIR, TABLE_NAME,
//! AWS_ENDPOINT_URL.

use shared::config::StoreConfig;
use shared::ids::{hash_key, new_api_key};
use shared::model::account::KeyRecord;
use shared::seed::{self, SeedFile};
use shared::store::{Cond, Store};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args).await {
        eprintln!("admin: {e}");
        std::process::exit(1);
    }
}

const USAGE: &str = "usage: admin seed <file.json> | admin create-key <account-id> | admin create-table";

async fn run(args: &[String]) -> Result<(), String> {
    let cmd = args.first().ok_or(USAGE)?;
    let cfg = StoreConfig::from_env("embedded")?;
    match cmd.as_str() {
        "seed" => {
            let path = args.get(1).ok_or(USAGE)?;
            let text = std::fs::read_to_string(path).map_err(|e| format!("reading {path}: {e}"))?;
            let file = SeedFile::parse(&text)?;
            let store = cfg.open().await?;
            for s in seed::apply(store.as_ref(), &file).await? {
                for k in s.api_keys {
                    println!("{}\t{}\t{k}", s.account_id, s.name);
                }
            }
            eprintln!("seeded {} account(s) into the {}", file.accounts.len(), cfg.describe());
            Ok(())
        }
        "create-key" => {
            let account = args.get(1).ok_or(USAGE)?;
            let store = cfg.open().await?;
            create_key(store.as_ref(), account).await
        }
        "create-table" => match cfg {
            StoreConfig::DynamoDb { table, .. } => {
                StoreConfig::DynamoDb { table: table.clone(), create: true }.open().await?;
                eprintln!("table {table} ready");
                Ok(())
            }
            _ => Err("create-table needs STORE=dynamodb".into()),
        },
        _ => Err(USAGE.into()),
    }
}

async fn create_key(store: &dyn Store, account: &str) -> Result<(), String> {
    if store.get(&shared::keys::account(account)).await.map_err(|e| e.to_string())?.is_none() {
        return Err(format!("no account {account}"));
    }
    let key = new_api_key();
    let rec = KeyRecord { account_id: account.to_string(), label: None };
    let item = shared::repo::item(shared::keys::api_key(&hash_key(&key)), &rec, 1).map_err(|e| e.to_string())?;
    store.put(item, Cond::NotExists).await.map_err(|e| e.to_string())?;
    println!("{key}");
    Ok(())
}
