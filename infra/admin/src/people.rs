//! The admin command's people and keys (docs/people-and-roles.md): keys with a role, users,
//! and the identity migration. Users go through the same use cases as `/v1/users`.

use std::sync::Arc;

use web::model::access::{NewUser, Role, UserUpdate};
use web::state::AppState;
use web::store::Store;

fn state(store: Arc<dyn Store>) -> AppState {
    AppState::new(store, Arc::new(web::blobs::NoBlobs), Arc::new(web::queue::NoQueue))
}

fn role(s: Option<&str>) -> Result<Role, String> {
    let s = s.unwrap_or("ADMIN");
    Role::parse(&s.to_ascii_uppercase()).ok_or_else(|| format!("role is one of VIEWER, TRAFFICKER, ADMIN (got {s:?})"))
}

/// The value after `--name` in `args`, and the rest without it.
fn option<'a>(args: &'a [String], name: &str) -> (Option<&'a str>, Vec<&'a str>) {
    let mut value = None;
    let mut rest = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        if a == name {
            value = it.next().map(String::as_str);
        } else {
            rest.push(a.as_str());
        }
    }
    (value, rest)
}

/// `create-key <account> [name] [--role R]`, `list-keys <account>`, `revoke-key`, `rotate-key`.
pub async fn keys(store: Arc<dyn Store>, cmd: &str, args: &[String], usage: &str) -> Result<(), String> {
    use web::repo::accounts as acc;
    let (role_arg, rest) = option(args, "--role");
    let account = rest.first().ok_or(usage)?;
    let arg = rest.get(1).copied();
    let now = chrono::Utc::now();
    let e = |e: web::repo::RepoError| e.to_string();
    let store = store.as_ref();
    match cmd {
        "create-key" => {
            let created =
                acc::create_key(store, account, arg.unwrap_or("API key").to_string(), role(role_arg)?, None, now).await.map_err(e)?;
            eprintln!("key {} ({}) made; it is shown this once:", created.id, created.role.as_str());
            println!("{}", created.key);
        }
        "list-keys" => {
            for k in acc::list_keys(store, account).await.map_err(e)? {
                let used = k.last_used.map(|c| c.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_else(|| "-".into());
                let created = k.created.to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                println!("{}\t{}\t{}\t{created}\t{used}", k.fingerprint, k.role.as_str(), k.name);
            }
        }
        "revoke-key" => {
            acc::revoke_key(store, account, arg.ok_or(usage)?).await.map_err(e)?;
            eprintln!("revoked (every function refuses it within 5 s)");
        }
        _ => {
            println!("{}", acc::rotate_key(store, account, arg.ok_or(usage)?, now).await.map_err(e)?);
            eprintln!("rotated: the old key is revoked (every function refuses it within 5 s)");
        }
    }
    Ok(())
}

/// `create-user <account> <email> [name] [--role R]` (the password from PASSWORD, or made and
/// printed once), `list-users <account>`, `disable-user <account> <email|id>`.
pub async fn users(store: Arc<dyn Store>, cmd: &str, args: &[String], usage: &str) -> Result<(), String> {
    use web::usecases::access as uc;
    let (role_arg, rest) = option(args, "--role");
    let account = web::ids::AccountId::from(*rest.first().ok_or(usage)?);
    let st = state(store);
    let e = |e: web::usecases::UseCaseError| e.to_string();
    match cmd {
        "create-user" => {
            let email = rest.get(1).ok_or(usage)?.to_string();
            let name = rest.get(2).map_or_else(|| email.clone(), |n| n.to_string());
            let (password, made) = match std::env::var("PASSWORD") {
                Ok(p) => (p, false),
                Err(_) => (web::usecases::sign_in::token()[..24].to_string(), true),
            };
            let mut errors = Vec::new();
            web::model::access::check_email(&web::model::access::normalise_email(&email), "email", &mut errors);
            web::model::access::check_password(&password, "PASSWORD", &mut errors);
            if let Some(f) = errors.first() {
                return Err(f.message.clone());
            }
            let u = uc::create_user(&st, &account, NewUser { email, name, role: role(role_arg)?, password: password.clone() })
                .await
                .map_err(e)?;
            eprintln!("user {} ({}) made", u.email, u.role.as_str());
            if made {
                println!("password: {password}");
            }
        }
        "list-users" => {
            for u in uc::list_users(&st, &account).await.map_err(e)? {
                let state = if u.disabled { "disabled" } else { "enabled" };
                println!("{}\t{}\t{}\t{state}\t{}", u.id, u.email, u.role.as_str(), u.name);
            }
        }
        _ => {
            let who = web::model::access::normalise_email(rest.get(1).ok_or(usage)?);
            let users = uc::list_users(&st, &account).await.map_err(e)?;
            let u = users.into_iter().find(|u| u.email == who || u.id == who).ok_or_else(|| format!("no user {who} in {account}"))?;
            let update = UserUpdate {
                id: None,
                email: u.email.clone(),
                name: u.name.clone(),
                role: u.role,
                disabled: true,
                created: Default::default(),
                modified: Default::default(),
            };
            uc::update_user(&st, &account, &u.id, update, None).await.map_err(e)?;
            eprintln!("user {} disabled; their sessions ended", u.email);
        }
    }
    Ok(())
}

/// `migrate-identity <account>...`: each account record to its own partition, its keys
/// listed in its directory (run before deploying the scoped reads).
pub async fn migrate(store: Arc<dyn Store>, accounts: &[String]) -> Result<(), String> {
    for a in accounts {
        let moved = web::repo::accounts::migrate(store.as_ref(), a).await.map_err(|e| e.to_string())?;
        eprintln!("{a}: {}", if moved { "migrated" } else { "already migrated" });
    }
    Ok(())
}
