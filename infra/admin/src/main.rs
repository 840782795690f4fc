//! Admin command: creates accounts and API keys and loads reference data from a seed file
//! into the configured store (the API cannot do this).
//!
//!   admin seed <file.json>            upsert every account of the file; prints the keys
//!   admin create-key <account-id>     a new key for an existing account; prints it
//!   admin create-table                create the DynamoDB table (emulators; SAM owns it on AWS)
//!   admin record-metrics <account-id> <ad-id> impression=100 complete=40 ...
//!                                     add delivery counts to an ad (and its goal and campaign)
//!
//! The store comes from the environment: STORE (embedded|dynamodb), DATA_DIR, TABLE_NAME,
//! AWS_ENDPOINT_URL.

use shared::ids::{hash_key, new_api_key};
use shared::model::account::KeyRecord;
use shared::seed::{self, SeedFile};
use shared::settings::StoreConfig;
use shared::store::{Cond, Store};

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args).await {
        eprintln!("admin: {e}");
        std::process::exit(1);
    }
}

const USAGE: &str = "usage: admin seed <file.json> | admin create-key <account-id> | admin create-table | admin record-metrics <account-id> <ad-id> <counter>=<n>...";

async fn run(args: &[String]) -> Result<(), String> {
    let cmd = args.first().ok_or(USAGE)?;
    let cfg = StoreConfig::from_env("embedded")?;
    match cmd.as_str() {
        "seed" => {
            let path = args.get(1).ok_or(USAGE)?;
            let text = std::fs::read_to_string(path).map_err(|e| format!("reading {path}: {e}"))?;
            let file = SeedFile::parse(&text)?;
            let store = shared::assemble::open_store(&cfg).await?;
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
            let store = shared::assemble::open_store(&cfg).await?;
            create_key(store.as_ref(), account).await
        }
        "create-table" => match cfg {
            StoreConfig::DynamoDb { table, .. } => {
                shared::assemble::open_store(&StoreConfig::DynamoDb { table: table.clone(), create: true }).await?;
                eprintln!("table {table} ready");
                Ok(())
            }
            _ => Err("create-table needs STORE=dynamodb".into()),
        },
        "record-metrics" => {
            let (Some(account), Some(ad)) = (args.get(1), args.get(2)) else { return Err(USAGE.into()) };
            let store = shared::assemble::open_store(&cfg).await?;
            record_metrics(store.as_ref(), account, ad, &args[3..]).await
        }
        _ => Err(USAGE.into()),
    }
}

async fn record_metrics(store: &dyn Store, account: &str, ad_id: &str, pairs: &[String]) -> Result<(), String> {
    use shared::model::ad::Ad;
    use shared::model::goal::Goal;
    let mut deltas = Vec::new();
    for p in pairs {
        let (name, n) = p.split_once('=').ok_or_else(|| format!("{p:?}: expected <counter>=<n>"))?;
        if !shared::metrics::COUNTERS.contains(&name) {
            return Err(format!("unknown counter {name:?} (known: {})", shared::metrics::COUNTERS.join(", ")));
        }
        let n: i64 = n.parse().map_err(|_| format!("{p:?}: the count must be an integer"))?;
        deltas.push((name.to_string(), n));
    }
    if deltas.is_empty() {
        return Err(USAGE.into());
    }
    let ad: Ad = shared::repo::get(store, &shared::keys::record(account, shared::keys::AD, ad_id))
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no ad {ad_id} in account {account}"))?
        .value;
    let goal: Goal = shared::repo::get(store, &shared::keys::record(account, shared::keys::GOAL, &ad.goal_id))
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("the ad's goal {} is missing", ad.goal_id))?
        .value;
    shared::metrics::record(store, account, &goal.campaign_id, &goal.id, &ad.id, &deltas).await.map_err(|e| e.to_string())?;
    eprintln!("recorded {} counter(s) for ad {ad_id} (goal {}, campaign {})", deltas.len(), goal.id, goal.campaign_id);
    Ok(())
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
