//! Bringing a large account's new version into a serving process off the request path
//! (docs/publisher-scale.md, "Serving"): when the version moves and the process holds a
//! snapshot of at least `DELIVERY_SWAP_GOALS` goals, ad requests keep being answered from
//! it while a task reads the compile worker's form of the new version, and swaps it in.
//! When the worker has not written it yet, the process waits for it up to
//! `DELIVERY_COMPILE_WAIT_SECS` before compiling the records itself (in the task too).
//! One task per account and version.
//!
//! The refresh itself (the version, the pointer, the pace records changed) runs behind the
//! requests too for such an account: a request that finds the snapshot held older than
//! `DELIVERY_REFRESH_MS` is answered from it at once, and starts the refresh in a task
//! unless one is running (`refresh_behind`). An ad request of a large account never waits
//! for the store while the process holds a snapshot; what it serves is at most the refresh
//! interval plus one refresh's reads old. A refresh that fails is logged and tried again by
//! the next request; the snapshot held keeps serving meanwhile, up to
//! `DELIVERY_MAX_AGE_SECS` since its last check: a snapshot older than that (a process idle
//! that long, or a store down that long) is refreshed on the request again.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::snapshots::{Ask, DeliveryCache, Fetched};
use crate::blobs::Blobs;
use crate::delivery::pacing::Pace;
use crate::delivery::snapshot::Snapshot;
use crate::repo::delivery::Compiled;
use crate::store::Store;

/// Marks an account's refresh as running behind the requests; the mark goes when the task
/// ends, however it ends.
struct Behind {
    cache: Arc<DeliveryCache>,
    account: String,
}

impl Drop for Behind {
    fn drop(&mut self) {
        if let Ok(mut b) = self.cache.behind.lock() {
            b.remove(&self.account);
        }
    }
}

impl DeliveryCache {
    /// Whether a refresh of the account runs behind the requests now (the tests and the
    /// bench wait for it).
    pub fn refreshing(&self, account: &str) -> bool {
        self.behind.lock().is_ok_and(|b| b.contains(account))
    }

    /// A large account's stale snapshot: answered from at once, the refresh started in a
    /// task (one at a time per account). `None` when the process holds no snapshot of the
    /// account, a small one, or one not checked for `DELIVERY_MAX_AGE_SECS`: the request
    /// refreshes it itself.
    pub(super) fn refresh_behind(
        self: &Arc<Self>,
        (store, blobs): (&Arc<dyn Store>, &Arc<dyn Blobs>),
        ask: Ask<'_>,
    ) -> Option<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        let Ask { account, s, now, refresh, .. } = ask;
        // A snapshot not checked for the maximum age (a process idle that long) is refreshed
        // on the request: it is not served that old.
        let held = self.fresh(account, s.delivery_max_age).filter(|(snapshot, _)| snapshot.goals.len() >= s.delivery_swap_goals)?;
        if !self.behind.lock().ok()?.insert(account.to_string()) {
            return Some(held);
        }
        let mark = Behind { cache: self.clone(), account: account.to_string() };
        let (store, blobs, settings) = (store.clone(), blobs.clone(), s.clone());
        tokio::spawn(async move {
            let Behind { cache, account } = &mark;
            let ask = Ask { account, s: &settings, now, refresh, swap: true };
            if let Err(e) = cache.flown((&store, &blobs), ask).await {
                tracing::warn!(account, error = %e, "refresh failed; the snapshot held keeps serving");
            }
        });
        Some(held)
    }

    pub(super) fn bring_in(
        self: &Arc<Self>,
        (store, blobs): (&Arc<dyn Store>, &Arc<dyn Blobs>),
        account: &str,
        version: u64,
        compiled: Option<Compiled>,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
    ) {
        if self.held_version(account).is_some_and(|v| v >= version) {
            // Swapped in already (by the task of a request that read the held one before).
            return;
        }
        {
            let Ok(mut pending) = self.pending.lock() else { return };
            let since = match pending.get(account) {
                Some((v, _, true)) if *v == version => return,
                Some((v, since, false)) if *v == version => *since,
                _ => Instant::now(),
            };
            if compiled.is_none() && since.elapsed() < s.delivery_compile_wait {
                // The worker has not compiled it yet: wait for it.
                pending.insert(account.to_string(), (version, since, false));
                return;
            }
            pending.insert(account.to_string(), (version, since, true));
        }
        let (cache, store, blobs, settings, account) = (self.clone(), store.clone(), blobs.clone(), s.clone(), account.to_string());
        tokio::spawn(async move {
            let started = Instant::now();
            match cache.fetch((store.as_ref(), blobs.as_ref()), &account, version, compiled.as_ref(), &settings, now).await {
                Ok(Fetched::Snapshot(snapshot, bytes)) => {
                    tracing::info!(account, version, ms = started.elapsed().as_millis() as u64, "new snapshot swapped in");
                    // Stale at once: the next request reads the pace records of its goals.
                    let stale = Instant::now().checked_sub(settings.delivery_refresh + Duration::from_secs(1)).unwrap_or_else(Instant::now);
                    cache.put_in(&account, snapshot, bytes, stale);
                }
                Ok(Fetched::Refused(why)) => {
                    tracing::error!(account, error = %why, "new version past the serving bound; the snapshot held keeps serving")
                }
                Err(e) => tracing::warn!(account, version, error = %e, "new snapshot not brought in; the next refresh tries again"),
            }
            if let Ok(mut pending) = cache.pending.lock() {
                if pending.get(&account).is_some_and(|(v, _, _)| *v == version) {
                    pending.remove(&account);
                }
            }
        });
    }
}
