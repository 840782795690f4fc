//! The snapshot cache of a serving process (a Lambda between invocations, the local
//! server): per account the compiled snapshot and the goals' pace records. At most every
//! `refresh` it reads the account's delivery partition once (the version counter, the
//! compiled snapshot's pointer and the pace records, one query). When the version moved it
//! reads the compile worker's snapshot of that version from the bucket (one GET), or, when
//! there is none yet, compiles the account's records itself; a snapshot it compiled itself
//! is compiled again at `max_age`. No request queries goals or ads.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::RepoResult;
use crate::blobs::Blobs;
use crate::delivery::pacing::Pace;
use crate::delivery::snapshot::{compile, Input, Snapshot};
use crate::keys;
use crate::model::account::Category;
use crate::model::ad::Ad;
use crate::model::asset::Asset;
use crate::model::rules::Rules;
use crate::model::template::Template;
use crate::repo::{self, reference::Kind};
use crate::store::{Key, Query, Store};

#[derive(Clone)]
struct Entry {
    snapshot: Arc<Snapshot>,
    pace: Arc<Vec<Pace>>,
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
        + len(serde_json::to_string(&input.rules.values().collect::<Vec<_>>()))
        + len(serde_json::to_string(&input.categories))
        + len(serde_json::to_string(&input.policies))
}

impl DeliveryCache {
    fn cached(&self, account: &str) -> Option<Entry> {
        self.entries.lock().ok()?.get(account).cloned()
    }

    fn fresh(&self, account: &str, refresh: Duration) -> Option<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        self.cached(account).filter(|e| e.checked.elapsed() < refresh).map(|e| (e.snapshot, e.pace))
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

    /// The account's snapshot and pace records (aligned with `snapshot.goals`).
    /// `refresh` and `max_age` from the settings (`DELIVERY_REFRESH_MS`, `DELIVERY_MAX_AGE_SECS`);
    /// a snapshot built now is compiled at `now` (the injected clock's). An unknown account
    /// gets the empty snapshot (the caller answers 404).
    pub async fn current(
        &self,
        store: &dyn Store,
        blobs: &dyn Blobs,
        account: &str,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        self.within((store, blobs), account, s, now, s.delivery_refresh).await
    }

    /// The account's snapshot as of every write before this call (management reads:
    /// notifications, pacing, the inspector): the delivery version and pace records are
    /// always read (one query), the snapshot compiled again only when the version moved.
    pub async fn latest(
        &self,
        store: &dyn Store,
        blobs: &dyn Blobs,
        account: &str,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        self.within((store, blobs), account, s, now, Duration::ZERO).await
    }

    async fn within(
        &self,
        ports: (&dyn Store, &dyn Blobs),
        account: &str,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
        refresh: Duration,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        if let Some(hit) = self.answered(account, refresh) {
            return Ok(hit);
        }
        let flight = {
            let mut f = self.flights.lock().map_err(|_| super::RepoError::internal_msg("snapshot cache lock poisoned"))?;
            f.entry(account.to_string()).or_default().clone()
        };
        let _turn = flight.lock().await;
        // Whoever held the turn before may have refreshed it.
        if let Some(hit) = self.answered(account, refresh) {
            return Ok(hit);
        }
        let out = self.refresh(ports, account, s, now).await;
        if let Ok(mut f) = self.flights.lock() {
            // The last one out removes the account's flight (waiters hold their own Arc).
            if f.get(account).is_some_and(|a| Arc::strong_count(a) <= 2) {
                f.remove(account);
            }
        }
        out
    }

    async fn refresh(
        &self,
        (store, blobs): (&dyn Store, &dyn Blobs),
        account: &str,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
    ) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        let cached = self.cached(account);
        let repo::delivery::State { version, paces, compiled } = repo::delivery::state(store, account).await?;
        // The compile worker's snapshot of this very version, when there is one.
        let compiled = compiled.filter(|c| c.version == version && c.format == crate::delivery::compiled::FORMAT);
        let (snapshot, built, bytes) = match &cached {
            // Kept while the version stands: up to the maximum age when this process
            // compiled it, for good once the worker compiled the version (the refresh then
            // reads only the delivery partition).
            Some(e) if e.snapshot.version == version && (e.built.elapsed() < s.delivery_max_age || compiled.is_some()) => {
                (e.snapshot.clone(), e.built, e.bytes)
            }
            _ => match self.refused_before(account, version, s) {
                Some(m) => return self.past_bound(account, version, m, cached.as_ref()),
                None => match super::compiled_read::read(blobs, account, compiled.as_ref()).await {
                    Some(snapshot) => {
                        self.loads.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let bytes = snapshot.approx_bytes();
                        (Arc::new(snapshot), Instant::now(), bytes)
                    }
                    None => match load(store, account, version, &s.media_base_url, Bound::of(s)).await {
                        Ok(input) => {
                            let bytes = weight(&input);
                            self.builds.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            (Arc::new(compile(input, now)), Instant::now(), bytes)
                        }
                        Err(super::RepoError::Refused(m)) => return self.past_bound(account, version, m, cached.as_ref()),
                        Err(e) => return Err(e),
                    },
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
        let pace: Vec<Pace> = snapshot.goals.iter().map(|g| paces.get(&g.id).map(|(p, _)| p.clone()).unwrap_or_default()).collect();
        let pace = Arc::new(pace);
        let entry = Entry { snapshot: snapshot.clone(), pace: pace.clone(), checked: Instant::now(), built, bytes };
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

impl DeliveryCache {
    /// The refusal of this version of the account, while it is younger than `max_age`.
    fn refused_before(&self, account: &str, version: u64, s: &crate::settings::Settings) -> Option<String> {
        let m = self.refused.lock().ok()?;
        m.get(account).filter(|(v, at, _)| *v == version && at.elapsed() < s.delivery_max_age).map(|(_, _, why)| why.clone())
    }

    /// An account past the serving bound: a snapshot this process holds already keeps
    /// serving (the operator error is logged); without one the account is refused.
    fn past_bound(&self, account: &str, version: u64, why: String, cached: Option<&Entry>) -> RepoResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
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
            None => Err(super::RepoError::Refused(why)),
        }
    }
}

async fn all_items(store: &dyn Store, q: Query) -> RepoResult<Vec<crate::store::Item>> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = store.query(q.clone().after(cursor)).await?;
        out.extend(page.items);
        match page.next {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
}

/// The most stored goals and ads a snapshot is compiled from (`Settings::delivery_max_goals`,
/// `delivery_max_ads`; `limits::SNAPSHOT_MAX_GOALS`, `SNAPSHOT_MAX_ADS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bound {
    pub goals: usize,
    pub ads: usize,
}

impl Bound {
    pub fn of(s: &crate::settings::Settings) -> Bound {
        Bound { goals: s.delivery_max_goals, ads: s.delivery_max_ads }
    }
}

/// The records of one partition, decoded a page at a time; past `max` the read stops and
/// the account is refused (what a serving process holds stays bounded).
async fn bounded<T: serde::de::DeserializeOwned>(
    store: &dyn Store,
    account: &str,
    kind: &str,
    max: usize,
    setting: &str,
) -> RepoResult<Vec<T>> {
    let mut out = Vec::new();
    let mut cursor = None;
    loop {
        let page = store.query(Query::partition(keys::partition(account, kind)).after(cursor)).await?;
        if out.len() + page.items.len() > max {
            let what = if kind == keys::GOAL { "goals" } else { "ads" };
            tracing::error!(account, what, max, "account past the serving bound; its snapshot is not compiled");
            return Err(super::RepoError::Refused(format!(
                "account {account} has more than {max} {what} stored, the most one serving process compiles a snapshot from \
                 ({setting}); archived and deleted records count until they are removed: remove some, or raise {setting} \
                 with the serving function's memory"
            )));
        }
        for item in page.items {
            out.push(repo::decode::<T>(item)?.value);
        }
        match page.next {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
}

/// Reads what a snapshot is compiled from: account, campaigns, goals, ads, their assets,
/// rules, linked templates, categories and the ranked policies. An account with more goals
/// or ads than `bound` is refused (`RepoError::Refused`) before the rest is read.
pub async fn load(store: &dyn Store, account: &str, version: u64, media_base: &str, bound: Bound) -> RepoResult<Input> {
    let Some(acc) = repo::accounts::for_delivery(store, account).await? else {
        // No such account: an empty snapshot (the caller answers 404), nothing else read.
        return Ok(Input { version, ..Input::default() });
    };
    let acc = Some(acc);
    let goals: Vec<crate::model::goal::Goal> = bounded(store, account, keys::GOAL, bound.goals, "DELIVERY_MAX_GOALS").await?;
    let ads: Vec<Ad> = bounded(store, account, keys::AD, bound.ads, "DELIVERY_MAX_ADS").await?;
    let campaigns = repo::campaigns::all(store, account).await?;
    let asset_keys: Vec<Key> = {
        let mut ids: Vec<&String> = ads.iter().filter(|a| a.enabled).filter_map(|a| a.creative.asset_id.as_ref()).collect();
        ids.sort();
        ids.dedup();
        ids.into_iter().map(|id| keys::record(account, keys::ASSET, id)).collect()
    };
    let mut assets = HashMap::new();
    for chunk in asset_keys.chunks(100) {
        for item in store.batch_get(chunk).await? {
            let a = repo::decode::<Asset>(item)?.value;
            assets.insert(a.id.clone(), a);
        }
    }
    let mut rules = HashMap::new();
    for item in all_items(store, Query::partition(keys::partition(account, keys::RULES))).await? {
        let Some(owner) = keys::rules_owner(&item.sk) else { continue };
        rules.insert(owner, repo::decode::<Rules>(item)?.value);
    }
    let mut linked: HashMap<crate::model::rules::Owner, Vec<Rules>> = HashMap::new();
    for t in repo::templates::all(store, account).await? {
        let t: Template = t;
        for link in all_items(store, Query::partition(keys::template_links(account, &t.id))).await? {
            if let Some(owner) = keys::rules_owner(&link.sk) {
                linked.entry(owner).or_default().push(t.rules.clone());
            }
        }
    }
    let categories: Vec<Category> = repo::reference::all(store, account, Kind::Category).await?;
    let partners = repo::reference::ids(store, account, Kind::ContentPartner).await?;
    let device_containers = repo::reference::ids(store, account, Kind::DeviceContainer).await?;
    let (policies, _) = repo::policies::page(store, account, 10_000, 1).await?;
    let demand_partners = repo::collection::all(store, account).await?.into_iter().map(|e| e.record).collect();
    let marketplaces = repo::collection::all(store, account).await?.into_iter().map(|e| e.record).collect();
    Ok(Input {
        account: acc,
        version,
        campaigns,
        goals,
        ads,
        assets,
        rules,
        linked,
        categories,
        partners,
        device_containers,
        policies,
        media_base: media_base.to_string(),
        demand_partners,
        marketplaces,
    })
}

/// The generated account's records as stored items of account `account` (campaigns,
/// goals, ads, rules, categories), for the benchmarks and `admin seed-synthetic`.
pub fn items(account: &str, input: &Input) -> Result<Vec<crate::store::Item>, serde_json::Error> {
    use super::item;
    let mut out = Vec::new();
    for c in &input.campaigns {
        out.push(item(keys::record(account, keys::CAMPAIGN, &c.id), c, 1)?);
    }
    for g in &input.goals {
        out.push(item(keys::record(account, keys::GOAL, &g.id), g, 1)?);
    }
    for a in &input.ads {
        let mut it = item(keys::record(account, keys::AD, &a.id), a, 1)?;
        it.gsi2 =
            Some((keys::ads_by_created(account), format!("{}#{}", a.created.to_rfc3339_opts(chrono::SecondsFormat::Micros, true), a.id)));
        out.push(it);
    }
    for ((parent, id), r) in &input.rules {
        out.push(item(keys::rules(account, *parent, id), r, 1)?);
    }
    for c in &input.categories {
        out.push(item(keys::record(account, keys::CATEGORY, &c.id), c, 1)?);
    }
    Ok(out)
}

/// What a preview of one ad is compiled from: the account, the ad (a live one), its goal,
/// its campaign and its asset; `None` when the ad is not the account's.
pub async fn of_ad(
    store: &dyn Store,
    account: &str,
    ad: &str,
    media_base: &str,
    now: chrono::DateTime<chrono::Utc>,
) -> RepoResult<Option<Input>> {
    let Some(acc) = repo::accounts::for_delivery(store, account).await? else { return Ok(None) };
    let (ad, goal) = match repo::ads::load_live(store, account, ad).await {
        Ok((a, g)) => (a.value, g.value),
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e),
    };
    let Some(campaign) = repo::campaigns::get_any(store, account, &goal.campaign_id).await? else { return Ok(None) };
    let mut assets = HashMap::new();
    if let Some(id) = &ad.creative.asset_id {
        match repo::assets::load(store, account, id, now).await {
            Ok(a) => {
                assets.insert(a.value.id.clone(), a.value);
            }
            Err(e) if e.is_not_found() => {}
            Err(e) => return Err(e),
        }
    }
    Ok(Some(Input {
        account: Some(acc),
        campaigns: vec![campaign],
        goals: vec![goal],
        ads: vec![ad],
        assets,
        media_base: media_base.to_string(),
        ..Input::default()
    }))
}
