//! The local server (README's main command; `functions/local` is its binary): every router
//! on one listener, over the embedded store by default (or DynamoDB/an emulator by
//! configuration), seeded with the demo accounts on first start, the workers and their
//! durable queue in the same process. The tests start the same server as a process of its
//! own (the crash test kills it).
//!
//! Usage: local-server [--port N] [--seed FILE]   (env: PORT, SEED_FILE, STORE, DATA_DIR,
//! TABLE_NAME, CREATE_TABLE, AWS_ENDPOINT_URL, SEED_DEMO)

use crate::model::access::Role;
use std::net::SocketAddr;

use crate::seed::{self, SeedFile};
use crate::settings::{env, Settings, StoreConfig};

fn arg(name: &str) -> Option<String> {
    let args: Vec<String> = std::env::args().collect();
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

/// The binary's whole life: logs, then the server until Ctrl-C; an error ends the process
/// with status 1 and the reason.
pub async fn main() {
    crate::telemetry::init();
    if let Err(e) = run().await {
        eprintln!("local-server: {e}");
        std::process::exit(1);
    }
}

/// The demo accounts' console users, an ADMIN, a TRAFFICKER and a VIEWER each, made on the first
/// start (their passwords are public, like the demo keys): (account, email, role, password).
async fn demo_users(state: &crate::state::AppState, seeded: &[seed::Seeded]) -> Result<Vec<(String, String, Role, String)>, String> {
    let mut out = Vec::new();
    for s in seeded {
        let account = crate::ids::AccountId::from(s.account_id.as_str());
        let existing = crate::usecases::access::list_users(state, &account).await.map_err(|e| e.to_string())?;
        for role in [Role::Admin, Role::Trafficker, Role::Viewer] {
            let who = role.as_str().to_lowercase();
            let email = format!("{who}@{}.example", s.account_id);
            let password = format!("{}-{who}-demo", s.account_id);
            if !existing.iter().any(|u| u.email == email) {
                let name = format!("Demo {who}");
                let input = crate::model::access::NewUser { email: email.clone(), name, role, password: password.clone() };
                crate::usecases::access::create_user(state, &account, input).await.map_err(|e| e.to_string())?;
            }
            out.push((s.account_id.clone(), email, role, password));
        }
    }
    Ok(out)
}

/// Runs the server until Ctrl-C.
pub async fn run() -> Result<(), String> {
    let port: u16 = arg("--port")
        .or_else(|| env("PORT"))
        .unwrap_or_else(|| "3000".into())
        .parse()
        .map_err(|_| "the port must be a number".to_string())?;
    let cfg = StoreConfig::from_env("embedded")?;
    let seed_text = match arg("--seed").or_else(|| env("SEED_FILE")) {
        Some(path) => std::fs::read_to_string(&path).map_err(|e| format!("reading seed file {path}: {e}"))?,
        None if seed::demo_seed_allowed(&cfg, env("AWS_ENDPOINT_URL").as_deref(), env("SEED_DEMO").is_some_and(|v| v == "1")) => {
            seed::DEMO_SEED.to_string()
        }
        None => {
            return Err(format!(
                "not seeding the demo accounts (their keys are public) into the {}: name a seed file with --seed or SEED_FILE, \
                 or set SEED_DEMO=1 if this table is a throwaway",
                cfg.describe()
            ))
        }
    };
    let seed_file = SeedFile::parse(&seed_text)?;
    // The documents' ad-request, tracking and media links point at this server unless set.
    let mut settings = Settings::from_env();
    if env("AD_REQUEST_BASE_URL").is_none() {
        settings.ad_request_base_url = format!("http://127.0.0.1:{port}");
        if env("MEDIA_BASE_URL").is_none() {
            settings.media_base_url = format!("{}{}", settings.ad_request_base_url, crate::settings::MEDIA_PATH);
        }
    }
    let (state, workers) = crate::assemble::local(&cfg, &settings).await?;
    let seeded = seed::apply(state.store.as_ref(), &seed_file).await?;
    for s in &seeded {
        crate::repo::accounts::migrate(state.store.as_ref(), &s.account_id).await.map_err(|e| e.to_string())?;
    }
    let demo_users = if seed_text == seed::DEMO_SEED { demo_users(&state, &seeded).await? } else { Vec::new() };
    // The workers (asset downloads, ...) run in this process.
    workers.start(state.clone());
    let (blobs_kind, queue_kind) = (state.blobs.kind(), state.queue.kind());
    // The OpenAPI document (`/openapi.json`) and the interactive reference (`/docs`) are the
    // reference group's routes (api/docs_page.rs), like every other group's.
    let app = axum::Router::new()
        // The media objects themselves (docs/media.md, "Delivery"): MEDIA_BASE_URL points here.
        .merge(crate::api::media::router(state.clone()))
        .merge(crate::api::app(state));
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    let listener = tokio::net::TcpListener::bind(addr).await.map_err(|e| format!("binding {addr}: {e}"))?;
    println!("Serving the API on http://{addr} over the {} (blobs: {}, queue: {})", cfg.describe(), blobs_kind, queue_kind);
    for s in &seeded {
        for k in &s.api_keys {
            println!("  account {:<12} {:<26} x-o-api-key: {k}", s.account_id, s.name);
        }
    }
    for (account, email, role, password) in &demo_users {
        println!("  console user {email} ({}) in {account} password: {password}", role.as_str());
    }
    println!("The console: http://{addr}/console/ (sign in as a console user above)");
    println!("The API reference: http://{addr}/docs (the OpenAPI document: http://{addr}/openapi.json)");
    println!(
        "Try: curl -H 'x-o-api-key: {}' http://{addr}/api/1.0/client",
        seeded.first().and_then(|s| s.api_keys.first()).cloned().unwrap_or_default()
    );
    // The socket's peer is the viewer's address (TRUSTED_PROXIES names proxies in front).
    axum::serve(listener, app.into_make_service_with_connect_info::<std::net::SocketAddr>())
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|e| format!("server: {e}"))
}
