//! The snapshot cache of a serving process (a Lambda between invocations, the local
//! server): per account the compiled snapshot and the goals' pace records. At most every
//! `refresh` it reads the account's delivery partition once (the version counter and the
//! pace records, one query); when the version moved, or the snapshot is older than
//! `max_age`, it rebuilds the snapshot from the store. No request queries goals or ads.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::delivery::pacing::Pace;
use crate::delivery::snapshot::{compile, Input, Snapshot};
use crate::error::AppResult;
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
}

/// Accounts whose snapshots one process keeps.
pub const MAX_ACCOUNTS: usize = 200;

#[derive(Default)]
pub struct DeliveryCache {
    entries: Mutex<HashMap<String, Entry>>,
}

impl DeliveryCache {
    fn cached(&self, account: &str) -> Option<Entry> {
        self.entries.lock().ok()?.get(account).cloned()
    }

    /// The account's snapshot and pace records (aligned with `snapshot.goals`).
    /// `refresh` and `max_age` from the settings (`DELIVERY_REFRESH_MS`, `DELIVERY_MAX_AGE_SECS`);
    /// a snapshot built now is compiled at `now` (the injected clock's).
    pub async fn current(
        &self,
        store: &dyn Store,
        account: &str,
        s: &crate::settings::Settings,
        now: chrono::DateTime<chrono::Utc>,
    ) -> AppResult<(Arc<Snapshot>, Arc<Vec<Pace>>)> {
        let (refresh, max_age, media_base) = (s.delivery_refresh, s.delivery_max_age, s.media_base_url.as_str());
        let cached = self.cached(account);
        if let Some(e) = &cached {
            if e.checked.elapsed() < refresh {
                return Ok((e.snapshot.clone(), e.pace.clone()));
            }
        }
        let (version, paces) = repo::delivery::state(store, account).await?;
        let (snapshot, built) = match &cached {
            Some(e) if e.snapshot.version == version && e.built.elapsed() < max_age => (e.snapshot.clone(), e.built),
            _ => {
                let input = load(store, account, version, media_base).await?;
                (Arc::new(compile(input, now)), Instant::now())
            }
        };
        let pace: Vec<Pace> = snapshot.goals.iter().map(|g| paces.get(&g.id).map(|(p, _)| p.clone()).unwrap_or_default()).collect();
        let pace = Arc::new(pace);
        let entry = Entry { snapshot: snapshot.clone(), pace: pace.clone(), checked: Instant::now(), built };
        // Unknown accounts are not kept (anyone can name one in an ad request), and the
        // cache holds at most MAX_ACCOUNTS: the least recently checked goes first.
        if !snapshot.account.is_empty() {
            if let Ok(mut m) = self.entries.lock() {
                if m.len() >= MAX_ACCOUNTS && !m.contains_key(account) {
                    if let Some(oldest) = m.iter().min_by_key(|(_, e)| e.checked).map(|(k, _)| k.clone()) {
                        m.remove(&oldest);
                    }
                }
                m.insert(account.to_string(), entry);
            }
        }
        Ok((snapshot, pace))
    }
}

async fn all_items(store: &dyn Store, q: Query) -> AppResult<Vec<crate::store::Item>> {
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

/// Reads what a snapshot is compiled from: account, campaigns, goals, ads, their assets,
/// rules, linked templates, categories and the ranked policies.
pub async fn load(store: &dyn Store, account: &str, version: u64, media_base: &str) -> AppResult<Input> {
    let Some(acc) = repo::accounts::get(store, account).await? else {
        // No such account: an empty snapshot (the caller answers 404), nothing else read.
        return Ok(Input { version, ..Input::default() });
    };
    let acc = Some(acc);
    let campaigns = repo::campaigns::all(store, account).await?;
    let goals = repo::goals::all(store, account).await?;
    let mut ads = Vec::new();
    for item in all_items(store, Query::partition(keys::partition(account, keys::AD))).await? {
        ads.push(repo::decode::<Ad>(item)?.value);
    }
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
    let (policies, _) = repo::policies::page(store, account, 10_000, 1).await?;
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
        policies,
        media_base: media_base.to_string(),
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
