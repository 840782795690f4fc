//! Admin command: creates accounts and API keys and loads reference data from a seed file
//! into the configured store (the API cannot do this).
//!
//!   admin seed <file.json> [--dry-run]  upsert every account of the file; prints the keys
//!                                     (--dry-run: what it would create or change; writes nothing)
//!   admin export <account-id> [file.json]  the account's settings and reference data as a
//!                                     seed file (stdout without a file); keys are not exported
//!   admin create-key <account-id> [name] [--role VIEWER|TRAFFICKER|ADMIN]
//!                                     a new key (ADMIN by default) for an existing account; printed once
//!   admin list-keys <account-id>      the account's keys: fingerprint, role, name, created, last used
//!   admin create-user <account-id> <email> [name] [--role R]
//!                                     a console user (ADMIN by default); the password from PASSWORD,
//!                                     or made and printed once
//!   admin list-users <account-id>     the account's users: id, email, role, state, name
//!   admin disable-user <account-id> <email|id>   their sessions end
//!   admin migrate-identity <account-id>...  account records to their own partition, keys into
//!                                     the account's directory (before deploying scoped reads)
//!   admin revoke-key <account-id> <fingerprint|key>
//!   admin rotate-key <account-id> <fingerprint|key>   a new key (printed once), the old one revoked
//!   admin create-table                create the DynamoDB table (emulators; SAM owns it on AWS)
//!   admin record-metrics <account-id> <ad-id> impression=100 complete=40 ...
//!                                     add delivery counts to an ad (and its goal and campaign)
//!   admin seed-synthetic <account-id> <goals> <ads> [seed] [--archived <n>]
//!                                     add a generated account's campaigns, goals, ads, rules and
//!                                     categories (delivery benchmarks, scripts/serve-load.sh);
//!                                     --archived adds n goals (one ad each) in archived
//!                                     campaigns: the history serving never reads
//!   admin reindex <account-id>        rebuild the /v3 name indexes and their counts (an account
//!                                     written before them; run while nobody writes the account)
//!   admin dead-letters|redrive|drop-dead-letters <queue>
//!                                     the local queue's dead letters (embedded store; the local
//!                                     server stopped): list them, send them back, or drop them.
//!                                     Queues: assets, audience, events, forecast, notices, compile
//!
//! The store comes from the environment: STORE (embedded|dynamodb), DATA_DIR, TABLE_NAME,
//! AWS_ENDPOINT_URL.

mod people;

use web::seed::{self, SeedFile};
use web::settings::StoreConfig;
use web::store::Store;

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Err(e) = run(&args).await {
        eprintln!("admin: {e}");
        std::process::exit(1);
    }
}

const USAGE: &str = "usage: admin seed <file.json> [--dry-run] | export <account-id> [file.json] | create-key <account-id> [name] [--role R] | list-keys <account-id> | create-user <account-id> <email> [name] [--role R] | list-users <account-id> | disable-user <account-id> <email|id> | migrate-identity <account-id>... | revoke-key <account-id> <fingerprint> | rotate-key <account-id> <fingerprint> | create-table | record-metrics <account-id> <ad-id> <counter>=<n>... | seed-synthetic <account-id> <goals> <ads> [seed] [--archived <n>] | reindex <account-id> | dead-letters|redrive|drop-dead-letters <queue> | rules-table";

async fn run(args: &[String]) -> Result<(), String> {
    let cmd = args.first().ok_or(USAGE)?;
    if cmd == "rules-table" {
        // docs/api.md's validation rules table, from the one list (web::rule::Rule).
        print!("{}", web::rule::Rule::table());
        return Ok(());
    }
    let cfg = StoreConfig::from_env("embedded")?;
    match cmd.as_str() {
        "seed" => {
            let path = args.get(1).ok_or(USAGE)?;
            let dry_run = match args.get(2).map(String::as_str) {
                None => false,
                Some("--dry-run") => true,
                Some(other) => return Err(format!("unknown option {other:?}; {USAGE}")),
            };
            let text = std::fs::read_to_string(path).map_err(|e| format!("reading {path}: {e}"))?;
            let file = SeedFile::parse(&text)?;
            // The demo seed's keys are public (they are in the repository): never into a real
            // table unless told to (SEED_DEMO=1), as the local server's own guard.
            let public = seed::public_keys_in(&file);
            let endpoint = std::env::var("AWS_ENDPOINT_URL").ok();
            let forced = std::env::var("SEED_DEMO").is_ok_and(|v| v == "1");
            if !public.is_empty() && !seed::demo_seed_allowed(&cfg, endpoint.as_deref(), forced) {
                return Err(format!(
                    "{path} holds {} public API key(s) (the demo seed's, which anyone can read in the repository): refusing to load \
                     them into the {}. Give the accounts keys of their own (or none: new keys are made), or set SEED_DEMO=1 for \
                     a table that is not in use.",
                    public.len(),
                    cfg.describe()
                ));
            }
            let store = web::assemble::open_store(&cfg).await?;
            if dry_run {
                let plans = web::seed_plan::plan(store.as_ref(), &file).await?;
                for p in &plans {
                    println!("{}", p.line());
                }
                eprintln!(
                    "dry run: {} write(s) for {} account(s); nothing written to the {}",
                    plans.iter().map(|p| p.writes()).sum::<usize>(),
                    plans.len(),
                    cfg.describe()
                );
                return Ok(());
            }
            let bar = progress(web::seed_plan::record_count(&file) as u64, "records");
            let seeded = seed::apply_with(store.as_ref(), &file, &|| bar.inc(1)).await;
            bar.finish_and_clear();
            for s in seeded? {
                for k in s.api_keys {
                    println!("{}\t{}\t{k}", s.account_id, s.name);
                }
            }
            eprintln!("seeded {} account(s) into the {}", file.accounts.len(), cfg.describe());
            Ok(())
        }
        "export" => {
            let account = args.get(1).ok_or(USAGE)?;
            let store = web::assemble::open_store(&cfg).await?;
            let a = web::seed_plan::export_account(store.as_ref(), account).await?;
            let text = serde_json::to_string_pretty(&serde_json::json!({"accounts": [a]})).map_err(|e| e.to_string())?;
            match args.get(2) {
                Some(path) => {
                    std::fs::write(path, format!("{text}\n")).map_err(|e| format!("writing {path}: {e}"))?;
                    eprintln!("exported {account} to {path} (API keys are not exported)");
                }
                None => println!("{text}"),
            }
            Ok(())
        }
        "create-key" | "list-keys" | "revoke-key" | "rotate-key" => {
            people::keys(web::assemble::open_store(&cfg).await?, cmd, &args[1..], USAGE).await
        }
        "create-user" | "list-users" | "disable-user" => {
            people::users(web::assemble::open_store(&cfg).await?, cmd, &args[1..], USAGE).await
        }
        "migrate-identity" => {
            if args.len() < 2 {
                return Err(USAGE.into());
            }
            people::migrate(web::assemble::open_store(&cfg).await?, &args[1..]).await
        }
        "create-table" => match cfg {
            StoreConfig::DynamoDb { table, .. } => {
                web::assemble::open_store(&StoreConfig::DynamoDb { table: table.clone(), create: true }).await?;
                eprintln!("table {table} ready");
                Ok(())
            }
            _ => Err("create-table needs STORE=dynamodb".into()),
        },
        "record-metrics" => {
            let (Some(account), Some(ad)) = (args.get(1), args.get(2)) else { return Err(USAGE.into()) };
            let store = web::assemble::open_store(&cfg).await?;
            record_metrics(store.as_ref(), account, ad, &args[3..]).await
        }
        "seed-synthetic" => {
            let num = |s: &String, what: &str| s.parse::<usize>().map_err(|_| format!("{what} must be a number (got {s:?})"));
            let mut args = args.to_vec();
            let archived = match args.iter().position(|a| a == "--archived") {
                Some(i) => {
                    let n = args.get(i + 1).ok_or(USAGE)?.clone();
                    args.drain(i..=i + 1);
                    num(&n, "--archived")?
                }
                None => 0,
            };
            if archived > web::delivery::synthetic::MAX_ARCHIVED {
                return Err(format!("--archived is at most {}", web::delivery::synthetic::MAX_ARCHIVED));
            }
            let (Some(account), Some(goals), Some(ads)) = (args.get(1), args.get(2), args.get(3)) else { return Err(USAGE.into()) };
            let (goals, ads) = (num(goals, "goals")?, num(ads, "ads")?);
            if !(1..=web::delivery::synthetic::MAX_GOALS).contains(&goals) || !(1..=web::delivery::synthetic::MAX_ADS).contains(&ads) {
                return Err(format!("goals 1-{} and ads 1-{}", web::delivery::synthetic::MAX_GOALS, web::delivery::synthetic::MAX_ADS));
            }
            let seed = args.get(4).map(|s| num(s, "seed")).transpose()?.unwrap_or(1) as u64;
            let store = web::assemble::open_store(&cfg).await?;
            if web::repo::accounts::get(store.as_ref(), account).await.map_err(|e| e.to_string())?.is_none() {
                return Err(format!("no account {account}: seed it first"));
            }
            let input = web::delivery::synthetic::generate(web::delivery::synthetic::Spec { goals, ads, seed }, chrono::Utc::now());
            let items = web::repo::snapshot_load::items(account, &input).map_err(|e| e.to_string())?;
            let bar = progress(items.len() as u64, "records");
            for chunk in items.chunks(25) {
                store.batch_write(chunk.to_vec(), Vec::new()).await.map_err(|e| e.to_string())?;
                bar.inc(chunk.len() as u64);
            }
            bar.finish_and_clear();
            if archived > 0 {
                let bar = progress(archived as u64, "archived goals");
                for part in web::delivery::synthetic::archived(archived, chrono::Utc::now()) {
                    let items = web::repo::snapshot_load::items(account, &part).map_err(|e| e.to_string())?;
                    for chunk in items.chunks(25) {
                        store.batch_write(chunk.to_vec(), Vec::new()).await.map_err(|e| e.to_string())?;
                    }
                    bar.inc(part.goals.len() as u64);
                }
                bar.finish_and_clear();
            }
            web::repo::reindex::rebuild(store.as_ref(), account).await.map_err(|e| e.to_string())?;
            web::repo::delivery::changed(store.as_ref(), account).await;
            eprintln!(
                "{account}: {} campaigns, {goals} goals, {ads} ads, {} rule sets written; {archived} archived goals",
                input.campaigns.len(),
                input.rules.len()
            );
            Ok(())
        }
        "reindex" => {
            let Some(account) = args.get(1) else { return Err(USAGE.into()) };
            let store = web::assemble::open_store(&cfg).await?;
            let n = web::repo::reindex::rebuild(store.as_ref(), account).await.map_err(|e| e.to_string())?;
            eprintln!(
                "{account}: name indexes rebuilt: {} live campaigns, {} live goals ({} of deleted campaigns)",
                n.campaigns, n.goals, n.hidden
            );
            Ok(())
        }
        "dead-letters" | "redrive" | "drop-dead-letters" => {
            let name = args.get(1).ok_or(USAGE)?;
            let q = web::queue::QueueName::ALL.iter().copied().find(|q| q.short() == name).ok_or_else(|| {
                let known: Vec<&str> = web::queue::QueueName::ALL.iter().map(|q| q.short()).collect();
                format!("unknown queue {name:?} (known: {})", known.join(", "))
            })?;
            if matches!(cfg, StoreConfig::DynamoDb { .. }) {
                return Err(
                    "on AWS (and the emulator) the queues are SQS's: their dead-letter queues are redriven with SQS (StartMessageMoveTask)"
                        .into(),
                );
            }
            let store = web::assemble::open_store(&cfg).await?;
            let queue = web::queue::durable::DurableQueue::open(store).await.map_err(|e| e.to_string())?;
            match cmd.as_str() {
                "dead-letters" => {
                    for (body, receives) in queue.dead_letters(q).await.map_err(|e| e.to_string())? {
                        println!("{receives}\t{body}");
                    }
                }
                "redrive" => eprintln!("{}: {} dead letter(s) sent back", q.short(), queue.redrive(q).await.map_err(|e| e.to_string())?),
                _ => eprintln!("{}: {} dead letter(s) dropped", q.short(), queue.drop_dead_letters(q).await.map_err(|e| e.to_string())?),
            }
            Ok(())
        }
        _ => Err(USAGE.into()),
    }
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
fn progress(len: u64, what: &str) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(len);
    if let Ok(style) = indicatif::ProgressStyle::with_template(&format!("{{bar:40}} {{pos}}/{{len}} {what} ({{eta}} left)")) {
        bar.set_style(style);
    }
    bar
}

async fn record_metrics(store: &dyn Store, account: &str, ad_id: &str, pairs: &[String]) -> Result<(), String> {
    use web::model::ad::Ad;
    use web::model::goal::Goal;
    let mut deltas = Vec::new();
    for p in pairs {
        let (name, n) = p.split_once('=').ok_or_else(|| format!("{p:?}: expected <counter>=<n>"))?;
        let counter = web::model::enums::Counter::parse(name).ok_or_else(|| {
            let known: Vec<&str> = web::model::enums::Counter::ALL.iter().map(|c| c.as_str()).collect();
            format!("unknown counter {name:?} (known: {})", known.join(", "))
        })?;
        let n: i64 = n.parse().map_err(|_| format!("{p:?}: the count must be an integer"))?;
        deltas.push((counter, n));
    }
    if deltas.is_empty() {
        return Err(USAGE.into());
    }
    let ad: Ad = web::repo::get(store, &web::keys::record(account, web::keys::AD, ad_id))
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("no ad {ad_id} in account {account}"))?
        .value;
    let goal: Goal = web::repo::get(store, &web::keys::record(account, web::keys::GOAL, &ad.goal_id))
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| format!("the ad's goal {} is missing", ad.goal_id))?
        .value;
    let path = web::repo::metrics::AdPath { campaign: goal.campaign_id.clone(), goal: goal.id.clone(), ad: ad.id.clone() };
    web::repo::metrics::record(store, account, &path, &deltas).await.map_err(|e| e.to_string())?;
    eprintln!("recorded {} counter(s) for ad {ad_id} (goal {}, campaign {})", deltas.len(), goal.id, goal.campaign_id);
    Ok(())
}
