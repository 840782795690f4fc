//! Compiling an account's delivery snapshot once per change (docs/publisher-scale.md,
//! "Compile once per change"): a request or job that changes what is served queues the
//! account (`request`); the compile worker compiles the account's current version once,
//! writes the compiled form to the bucket and points the account's serving processes at
//! it (`run`). Messages for a version already compiled do nothing, so a burst of changes
//! and SQS redeliveries cost one compile.

use crate::ids::AccountId;
use serde::{Deserialize, Serialize};

use super::{UseCaseError, UseCaseResult};
use crate::delivery::compiled::{self, FORMAT};
use crate::delivery::snapshot::compile_unindexed;
use crate::keys;
use crate::queue::QueueName;
use crate::repo::changes::Work;
use crate::repo::delivery::{Compiled, Pointed};
use crate::repo::snapshot_load as snapshots;
use crate::repo::{self, RepoError};
use crate::state::AppState;

/// A compile queue message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CompileJob {
    pub account: String,
}

/// Queues one compile for each account (best effort: an account whose message is lost is
/// compiled on demand by the serving processes, as before).
pub async fn request(st: &AppState, accounts: &[String]) {
    for account in accounts {
        let body = match serde_json::to_string(&CompileJob { account: account.clone() }) {
            Ok(b) => b,
            Err(e) => {
                tracing::warn!(account, error = %e, "compile message not written");
                continue;
            }
        };
        if let Err(e) = st.queue.send(QueueName::Compile, body).await {
            tracing::warn!(account, error = %e, "compile not queued; serving compiles the account on demand");
        }
    }
}

/// Queues one compile for each account whose delivery a request's or job's unit of work
/// changed, when it ends (when `Settings::compile_on_write`).
pub async fn requested_by(st: &AppState, work: &Work) {
    if st.settings.compile_on_write {
        request(st, &work.compiles()).await;
    }
}

/// What a compile job did.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// The version was compiled and the pointer moved to it.
    Compiled(Compiled),
    /// The pointer already names this version or a newer one (a burst, a redelivery).
    Current,
    /// Past the serving bound: nothing written, the operator error logged.
    Refused(String),
    /// No such account.
    NoAccount,
}

/// Compiles the account's current version unless it is compiled already.
pub async fn run(st: &AppState, account: &AccountId) -> UseCaseResult<Outcome> {
    let store = st.store.as_ref();
    let (version, pointer) = repo::delivery::version_and_compiled(store, account).await?;
    if pointer.as_ref().is_some_and(|(p, _)| p.version >= version && p.format == FORMAT) {
        return Ok(Outcome::Current);
    }
    let input =
        match snapshots::load(store, account, version, &st.settings.media_base_url, crate::caches::bound(&st.settings), st.clock.now())
            .await
        {
            Ok(input) => input,
            Err(RepoError::Refused(why)) => {
                tracing::error!(account = account.as_str(), error = %why, "account past the serving bound: not compiled");
                return Ok(Outcome::Refused(why));
            }
            Err(e) => return Err(e.into()),
        };
    if input.account.is_none() {
        return Ok(Outcome::NoAccount);
    }
    let started = std::time::Instant::now();
    // The compiled form leaves the id indexes out (every reader rebuilds them): not built here.
    let snapshot = compile_unindexed(input, st.clock.now());
    let bytes = compiled::encode(&snapshot).map_err(UseCaseError::internal)?;
    let object = keys::compiled_object(account, version);
    let c = Compiled {
        version,
        object: object.clone(),
        bytes: bytes.len() as u64,
        format: FORMAT,
        goals: snapshot.goals.len() as u32,
        ads: snapshot.ads.len() as u32,
        built: snapshot.built,
    };
    st.blobs.put_bytes(&object, bytes, "application/octet-stream").await.map_err(UseCaseError::internal)?;
    match repo::delivery::put_compiled(store, account, &c).await? {
        Pointed::Moved(replaced) => {
            tracing::info!(
                account = account.as_str(),
                version,
                bytes = c.bytes,
                goals = c.goals,
                ads = c.ads,
                ms = started.elapsed().as_millis() as u64,
                "snapshot compiled"
            );
            // The previous version's object: no pointer names it any more (a process that
            // read the old pointer just now compiles on demand when it finds it gone).
            if let Some(old) = replaced.filter(|o| *o != object) {
                forget(st, &old).await;
            }
            Ok(Outcome::Compiled(c))
        }
        Pointed::Kept(current) => {
            // A newer version was pointed at meanwhile: this object is nobody's (unless
            // another worker wrote the same version: then it is the pointer's).
            if current != object {
                forget(st, &object).await;
            }
            Ok(Outcome::Current)
        }
    }
}

async fn forget(st: &AppState, object: &str) {
    if let Err(e) = st.blobs.delete(object).await {
        tracing::warn!(object, error = %e, "an unused compiled snapshot was not deleted");
    }
}
