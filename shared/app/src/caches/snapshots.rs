//! The snapshot cache of a serving process (a Lambda between invocations, the local
//! server): per account the compiled snapshot and the goals' pace records. At most every
//! `refresh` it reads the version counter and the compiled snapshot's pointer (one batch
//! get) and the pace records changed since its last read (one query of GSI1, at the same
//! time; the first read of an account, and a management read, query the whole delivery
//! partition instead). When the version moved it
//! reads the compile worker's snapshot of that version from the bucket (one GET), or, when
//! there is none yet, compiles the account's records itself; a snapshot it compiled itself
//! is compiled again at `max_age`. No request queries goals or ads.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::blobs::Blobs;
use crate::delivery::pacing::Pace;
use crate::delivery::snapshot::{compile, Input, Snapshot};
use crate::repo;
use crate::repo::pace_view::{self, Paces};
use crate::repo::snapshot_load::load;
use crate::repo::{RepoError, RepoResult};
use crate::store::Store;

#[derive(Clone)]
struct Entry {
    snapshot: Arc<Snapshot>,
    pace: Arc<Vec<Pace>>,
    /// The pace records by goal, and when (wall clock, ms) they were last read: the next
    /// refresh reads those changed since (`None`: all of them).
    paces: Arc<Paces>,
    pace_read_ms: Option<i64>,
    checked: Instant,
    built: Instant,
    /// What the snapshot's records weigh (their JSON), the cache's byte bound counts it.
    bytes: usize,
}

/// Accounts whose snapshots one process keeps.
pub const MAX_ACCOUNTS: usize = 200;
/// What the kept snapshots may weigh in all (their records' JSON); past it the least
/// recently checked go first.
pub const MAX_BYTES: usize = 64 * 1024 * 1024;
/// How long an account found unknown is answered from memory (anyone can name accounts in
/// an ad request: each name costs reads once per this long, not once per request).
pub const UNKNOWN_FOR: Duration = Duration::from_secs(30);
/// Unknown names remembered at most (the memory is cleared when full).
pub const MAX_UNKNOWN: usize = 10_000;

/// What a caller asks of the cache: the account's snapshot, read again when older than
/// `refresh`; `swap` for an ad request (a large account's refresh and new version run behind
/// it), not for a management read.
#[derive(Clone, Copy)]
pub(super) struct Ask<'a> {
    pub account: &'a str,
    pub s: &'a crate::settings::Settings,
    pub now: chrono::DateTime<chrono::Utc>,
    pub refresh: Duration,
    pub swap: bool,
}

#[derive(Default)]
pub struct DeliveryCache {
    entries: Mutex<HashMap<String, Entry>>,
    /// One refresh per account at a time (single flight): the others wait for it and use
    /// its result.
    flights: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    unknown: Mutex<HashMap<String, Instant>>,
    /// Accounts refused for their size, at which delivery version, when and why: not read
    /// again until the version moves or `max_age` passes.
    refused: Mutex<HashMap<String, (u64, Instant, String)>>,
    /// Snapshot builds (for the tests and the bench).
    builds: std::sync::atomic::AtomicU64,
    /// Compiled snapshots read from the bucket (for the tests and the bench).
    loads: std::sync::atomic::AtomicU64,
    /// Pace records read (for the tests and the bench).
    paces_read: std::sync::atomic::AtomicU64,
    /// New versions being brought in off the request path (`swap.rs`), per account: the
    /// version, since when it is awaited, and whether a task is reading or compiling it.
    pub(super) pending: Mutex<HashMap<String, (u64, Instant, bool)>>,
    /// Large accounts whose refresh runs behind the requests now (`swap.rs`).
    pub(super) behind: Mutex<std::collections::HashSet<String>>,
}

fn empty() -> (Arc<Snapshot>, Arc<Vec<Pace>>) {
    static EMPTY: std::sync::OnceLock<(Arc<Snapshot>, Arc<Vec<Pace>>)> = std::sync::OnceLock::new();
    EMPTY.get_or_init(|| (Arc::new(compile(Input::default(), chrono::Utc::now())), Arc::new(Vec::new()))).clone()
}

/// What an input's records weigh (their JSON), for the cache's byte bound.
fn weight(input: &Input) -> usize {
    let len = |v: serde_json::Result<String>| v.map_or(0, |s| s.len());
    len(serde_json::to_string(&input.campaigns))
        + len(serde_json::to_string(&input.goals))
        + len(serde_json::to_string(&input.ads))
        + len(serde_json::to_string(&input.assets))
        + len(serde_json::to_string(&input.rules.iter().map(|(_, r)| r).collect::<Vec<_>>()))
        + len(serde_json::to_string(&input.categories))
        + len(serde_json::to_string(&input.policies))
}

impl DeliveryCache {
    /// The version of the account's snapshot this process holds.
    pub(super) fn held_version(&self, account: &str) -> Option<u64> {
        self.entries.lock().ok()?.get(account).map(|e| e.snapshot.version)
    }

    /// Takes the account's pace records and their read mark out of the cache, for a refresh
    /// to update in place (refreshes of an account are single flight). Until the refresh
    /// puts them back, the entry reads them whole: a refresh that fails costs one full read.
    fn take_paces(&self, account: &str) -> Option<(Arc<Paces>, i64)> {
        let mut m = self.entries.lock().ok()?;
        let e = m.get_mut(account)?;
        let since = e.pace_read_ms.take()?;
        Some((std::mem::take(&mut e.paces), since))
    }

    fn cached(&self, account: &str) -> Option<Entry> {
        self.entries.lock().ok()?.get(account).cloned()
    }

    /// The snapshot held and its pace records, when it was checked less than `within` ago.
    pub(super) fn fresh(&self, account: &str, within: Duration) -> Option<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        self.cached(account).filter(|e| e.checked.elapsed() < within).map(|e| (e.snapshot, e.pace))
    }

    fn known_unknown(&self, account: &str) -> bool {
        self.unknown.lock().ok().and_then(|m| m.get(account).copied()).is_some_and(|at| at.elapsed() < UNKNOWN_FOR)
    }

    /// What memory answers: a fresh snapshot, or the empty one of a known-unknown account.
    fn answered(&self, account: &str, refresh: Duration) -> Option<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        self.fresh(account, refresh).or_else(|| self.known_unknown(account).then(empty))
    }

    /// Snapshots built by this cache so far.
    pub fn builds(&self) -> u64 {
        self.builds.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Compiled snapshots read from the bucket by this cache so far.
    pub fn loads(&self) -> u64 {
        self.loads.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Pace records read by this cache so far.
    pub fn paces_read(&self) -> u64 {
        self.paces_read.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The account's snapshot and pace records (aligned with `snapshot.goals`).
    /// `refresh` and `max_age` from the settings (`DELIVERY_REFRESH_MS`, `DELIVERY_MAX_AGE_SECS`);
    /// a snapshot built now is compiled at `now` (the injected clock's). An unknown account
    /// gets the empty snapshot (the caller answers 404). A large account's new version is
    /// brought in off the request path (`swap.rs`): the requests meanwhile are answered from
    /// the snapshot held.
    pub async fn current(
        self: &Arc<Self>,
        store: &Arc<dyn Store>,
        blobs: &Arc<dyn Blobs>,
        account: &str,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        self.within((store, blobs), Ask { account, s, now, refresh: s.delivery_refresh, swap: true }).await
    }

    /// The account's snapshot as of every write before this call (management reads:
    /// notifications, pacing, the inspector): the delivery version and pace records are
    /// always read (one query), the snapshot read or compiled again when the version moved.
    pub async fn latest(
        self: &Arc<Self>,
        store: &Arc<dyn Store>,
        blobs: &Arc<dyn Blobs>,
        account: &str,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        self.within((store, blobs), Ask { account, s, now, refresh: Duration::ZERO, swap: false }).await
    }

    async fn within(
        self: &Arc<Self>,
        ports: (&Arc<dyn Store>, &Arc<dyn Blobs>),
        ask: Ask<'_>,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        if let Some(hit) = self.answered(ask.account, ask.refresh) {
            return Ok(hit);
        }
        if ask.swap {
            if let Some(held) = self.refresh_behind(ports, ask) {
                return Ok(held);
            }
        }
        self.flown(ports, ask).await
    }

    /// The refresh, single flight: the first caller of an account refreshes it, the others
    /// wait for it and use its result.
    pub(super) async fn flown(
        self: &Arc<Self>,
        ports: (&Arc<dyn Store>, &Arc<dyn Blobs>),
        ask: Ask<'_>,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        let account = ask.account;
        let flight = {
            let mut f = self.flights.lock().map_err(|_| RepoError::internal_msg("snapshot cache lock poisoned"))?;
            f.entry(account.to_string()).or_default().clone()
        };
        let _turn = flight.lock().await;
        // Whoever held the turn before may have refreshed it.
        if let Some(hit) = self.answered(account, ask.refresh) {
            return Ok(hit);
        }
        let out = self.refresh(ports, account, ask.s, ask.now, ask.swap).await;
        if let Ok(mut f) = self.flights.lock() {
            // The last one out removes the account's flight (waiters hold their own Arc).
            if f.get(account).is_some_and(|a| Arc::strong_count(a) <= 2) {
                f.remove(account);
            }
        }
        out
    }

    async fn refresh(
        self: &Arc<Self>,
        (store, blobs): (&Arc<dyn Store>, &Arc<dyn Blobs>),
        account: &str,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
        swap: bool,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        // An ad request's refresh of an account whose pace records the process holds reads
        // only the records changed since its last read; a first read and a management read
        // (`latest`) read them all.
        let held = if swap { self.take_paces(account) } else { None };
        let cached = self.cached(account);
        let read_at = repo::delivery::wall_ms();
        let (version, compiled, paces, moved) = match held {
            Some((held, since)) => {
                let overlap = s.delivery_pace_overlap.as_millis() as i64;
                let st = repo::delivery::state_since(store.as_ref(), account, since - overlap).await?;
                self.paces_read.fetch_add(st.paces.len() as u64, std::sync::atomic::Ordering::Relaxed);
                let (paces, moved) = pace_view::merged(held, st.paces);
                (st.version, st.compiled, paces, Some(moved))
            }
            None => {
                let st = repo::delivery::state(store.as_ref(), account).await?;
                self.paces_read.fetch_add(st.paces.len() as u64, std::sync::atomic::Ordering::Relaxed);
                (st.version, st.compiled, Arc::new(st.paces), None)
            }
        };
        let read = PaceRead { paces, moved, at: read_at };
        // The compile worker's snapshot of this very version, when there is one; the one it
        // compiled last serves an account past the bound.
        let last_good = compiled.clone().filter(|c| c.format == crate::delivery::compiled::FORMAT);
        let compiled = compiled.filter(|c| c.version == version && c.format == crate::delivery::compiled::FORMAT);
        if let Some(e) =
            cached.as_ref().filter(|e| swap && e.snapshot.version != version && e.snapshot.goals.len() >= s.delivery_swap_goals)
        {
            // A large account's new version: read (or compiled) off the request path,
            // the snapshot held answers meanwhile, with the new pace records.
            self.bring_in((store, blobs), account, version, compiled, s, now);
            return Ok(self.keep(account, e, read));
        }
        let (snapshot, built, bytes) = match &cached {
            // Kept while the version stands: up to the maximum age when this process
            // compiled it, for good once the worker compiled the version (the refresh then
            // reads only the delivery partition).
            Some(e) if e.snapshot.version == version && (e.built.elapsed() < s.delivery_max_age || compiled.is_some()) => {
                (e.snapshot.clone(), e.built, e.bytes)
            }
            _ => match self.refused_before(account, version, s) {
                Some(m) => return self.past_bound(blobs.as_ref(), account, version, m, cached.as_ref(), last_good.as_ref(), read).await,
                None => match self.fetch((store.as_ref(), blobs.as_ref()), account, version, compiled.as_ref(), s, now).await? {
                    Fetched::Snapshot(snapshot, bytes) => (snapshot, Instant::now(), bytes),
                    Fetched::Refused(m) => {
                        return self.past_bound(blobs.as_ref(), account, version, m, cached.as_ref(), last_good.as_ref(), read).await
                    }
                },
            },
        };
        if snapshot.account.is_empty() {
            // Unknown: remembered briefly, never kept as a snapshot.
            if let Ok(mut u) = self.unknown.lock() {
                if u.len() >= MAX_UNKNOWN {
                    u.clear();
                }
                u.insert(account.to_string(), Instant::now());
            }
            return Ok(empty());
        }
        let entry = read.entry(snapshot.clone(), cached.as_ref(), built, bytes);
        let pace = entry.pace.clone();
        if let Ok(mut m) = self.refused.lock() {
            m.remove(account);
        }
        if let Ok(mut m) = self.entries.lock() {
            m.insert(account.to_string(), entry);
            // At most MAX_ACCOUNTS snapshots and MAX_BYTES in all: the least recently
            // checked go first (the one just kept stays).
            loop {
                let total: usize = m.values().map(|e| e.bytes).sum();
                if m.len() <= MAX_ACCOUNTS && total <= MAX_BYTES {
                    break;
                }
                let Some(oldest) = m.iter().filter(|(k, _)| k.as_str() != account).min_by_key(|(_, e)| e.checked).map(|(k, _)| k.clone())
                else {
                    break;
                };
                m.remove(&oldest);
            }
        }
        Ok((snapshot, pace))
    }
}

/// A snapshot of a version, or why the account cannot have one.
pub(super) enum Fetched {
    Snapshot(Arc<Snapshot>, usize),
    Refused(String),
}

/// What a refresh read of the pace records: all of them by goal, the goals whose record
/// moved (`None`: read whole), and when the read began (wall clock, ms).
struct PaceRead {
    paces: Arc<Paces>,
    moved: Option<Vec<String>>,
    at: i64,
}

impl PaceRead {
    /// The entry a process holds of `snapshot` with these records laid out for it.
    fn entry(self, snapshot: Arc<Snapshot>, held: Option<&Entry>, built: Instant, bytes: usize) -> Entry {
        let pace = self.laid(&snapshot, held);
        Entry { snapshot, pace, paces: self.paces, pace_read_ms: Some(self.at), checked: Instant::now(), built, bytes }
    }

    /// The records in `snapshot`'s goal order: the held ones patched where they moved when
    /// the snapshot is the one held, laid out afresh otherwise.
    fn laid(&self, snapshot: &Arc<Snapshot>, held: Option<&Entry>) -> Arc<Vec<Pace>> {
        match (held, &self.moved) {
            (Some(e), Some(moved)) if Arc::ptr_eq(&e.snapshot, snapshot) => pace_view::patched(snapshot, &e.pace, &self.paces, moved),
            _ => pace_view::aligned(snapshot, &self.paces),
        }
    }
}

impl DeliveryCache {
    /// The snapshot of `version`: the compile worker's (one GET), else compiled from the
    /// records here.
    pub(super) async fn fetch(
        &self,
        (store, blobs): (&dyn Store, &dyn Blobs),
        account: &str,
        version: u64,
        compiled: Option<&repo::delivery::Compiled>,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
    ) -> RepoResult<Fetched> {
        if let Some(snapshot) = crate::repo::compiled_read::read(blobs, account, compiled).await {
            self.loads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let bytes = snapshot.approx_bytes();
            return Ok(Fetched::Snapshot(Arc::new(snapshot), bytes));
        }
        match load(store, account, version, &s.media_base_url, super::bound(s), now).await {
            Ok(input) => {
                let bytes = weight(&input);
                self.builds.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                Ok(Fetched::Snapshot(Arc::new(compile(input, now)), bytes))
            }
            Err(RepoError::Refused(m)) => Ok(Fetched::Refused(m)),
            Err(e) => Err(e),
        }
    }

    /// Answers from the snapshot held, with the pace records just read (it stays checked
    /// for `refresh`). When a newer snapshot was swapped in meanwhile (`put_in`, while this
    /// refresh held the records taken), the records go to it, laid out for it, and it stays
    /// stale: without them the next refresh would read every record again.
    fn keep(&self, account: &str, e: &Entry, read: PaceRead) -> (Arc<Snapshot>, Arc<Vec<Pace>>) {
        let pace = read.laid(&e.snapshot, Some(e));
        if let Ok(mut m) = self.entries.lock() {
            match m.get_mut(account) {
                Some(kept) if Arc::ptr_eq(&kept.snapshot, &e.snapshot) => {
                    kept.pace = pace.clone();
                    kept.paces = read.paces;
                    kept.pace_read_ms = Some(read.at);
                    kept.checked = Instant::now();
                }
                Some(kept) if kept.pace_read_ms.is_none_or(|at| at < read.at) => {
                    kept.pace = pace_view::aligned(&kept.snapshot, &read.paces);
                    kept.paces = read.paces;
                    kept.pace_read_ms = Some(read.at);
                }
                _ => {}
            }
        }
        (e.snapshot.clone(), pace)
    }

    /// Keeps a snapshot of `account` brought in off the request path, unless a newer one is
    /// held already, with the pace records held (the next request reads those changed).
    pub(super) fn put_in(&self, account: &str, snapshot: Arc<Snapshot>, bytes: usize, stale_since: Instant) {
        if let Ok(mut m) = self.entries.lock() {
            let (paces, pace_read_ms) = match m.get(account) {
                Some(e) if e.snapshot.version >= snapshot.version => return,
                Some(e) => (e.paces.clone(), e.pace_read_ms),
                None => (Arc::default(), None),
            };
            let pace = pace_view::aligned(&snapshot, &paces);
            let entry = Entry { snapshot, pace, paces, pace_read_ms, checked: stale_since, built: Instant::now(), bytes };
            m.insert(account.to_string(), entry);
        }
    }

    /// Why the account's current version is not served (past the serving bound), when it
    /// was refused at the last read.
    pub fn refusal(&self, account: &str) -> Option<String> {
        self.refused.lock().ok()?.get(account).map(|(_, _, why)| why.clone())
    }

    /// The refusal of this version of the account, while it is younger than `max_age`.
    fn refused_before(&self, account: &str, version: u64, s: &crate::settings::Settings) -> Option<String> {
        let m = self.refused.lock().ok()?;
        m.get(account).filter(|(v, at, _)| *v == version && at.elapsed() < s.delivery_max_age).map(|(_, _, why)| why.clone())
    }

    /// An account past the serving bound is never refused: a snapshot this process holds
    /// keeps serving, else the one the compile worker compiled last (read once and held),
    /// else nothing is served until the account is back within the bound. The operator
    /// error is logged, and the campaigns' notifications say why (`usecases::notifications`).
    #[allow(clippy::too_many_arguments)]
    async fn past_bound(
        &self,
        blobs: &dyn Blobs,
        account: &str,
        version: u64,
        why: String,
        cached: Option<&Entry>,
        last_good: Option<&repo::delivery::Compiled>,
        read: PaceRead,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        if let Ok(mut m) = self.refused.lock() {
            if m.len() >= MAX_UNKNOWN && !m.contains_key(account) {
                m.clear();
            }
            if m.get(account).is_none_or(|(v, _, _)| *v != version) {
                m.insert(account.to_string(), (version, Instant::now(), why.clone()));
            }
        }
        match cached {
            Some(e) => {
                tracing::error!(account, error = %why, "serving the previous snapshot");
                if let Ok(mut m) = self.entries.lock() {
                    if let Some(kept) = m.get_mut(account) {
                        kept.checked = Instant::now();
                    }
                }
                Ok((e.snapshot.clone(), e.pace.clone()))
            }
            None => match crate::repo::compiled_read::read(blobs, account, last_good).await {
                Some(snapshot) => {
                    tracing::error!(account, error = %why, version = snapshot.version, "serving the snapshot compiled last");
                    let snapshot = Arc::new(snapshot);
                    let bytes = snapshot.approx_bytes();
                    let entry = read.entry(snapshot.clone(), None, Instant::now(), bytes);
                    let pace = entry.pace.clone();
                    if let Ok(mut m) = self.entries.lock() {
                        m.insert(account.to_string(), entry);
                    }
                    Ok((snapshot, pace))
                }
                None => {
                    tracing::error!(account, error = %why, "no snapshot compiled yet: nothing is served");
                    Ok(empty())
                }
            },
        }
    }
}
