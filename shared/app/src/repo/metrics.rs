//! Delivery metrics: counters per ad, rolled up to its goal and campaign in the same
//! transaction, so a goal or a campaign reads its own counters instead of summing its
//! children. Each counter set is split over SHARDS items and an event adds to one shard
//! picked at random, so a hot campaign spreads its writes over SHARDS partition keys
//! (DynamoDB allows ~1000 writes/s per key: 4 shards ≈ 4000 events/s per campaign; raise
//! SHARDS for more, at SHARDS reads per record). Readers batch-get every shard and sum.
//! What the counters are and the formulas over them: `delivery::counters`.

use std::collections::{BTreeMap, HashMap};

use super::RepoResult;
use crate::delivery::counters::{Counters, Slot};
use crate::model::enums::Counter;
use crate::store::{Cond, Key, Store, TxOp};

pub const SHARDS: u32 = 4;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Level {
    Ad,
    Goal,
    Campaign,
}

impl Level {
    fn tag(self) -> &'static str {
        match self {
            Level::Ad => "AD",
            Level::Goal => "GOAL",
            Level::Campaign => "CAMPAIGN",
        }
    }
}

pub fn key(account: &str, level: Level, id: &str, shard: u32) -> Key {
    crate::keys::metrics(account, level.tag(), id, shard)
}

fn shard() -> u32 {
    u32::from(uuid::Uuid::new_v4().as_bytes()[0]) % SHARDS
}

/// An ad with its goal and campaign: what a delivery event adds to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct AdPath {
    pub campaign: String,
    pub goal: String,
    pub ad: String,
}

/// Counter → amount to add.
pub type Deltas = Vec<(Slot, i64)>;

/// Counts valid delivery events of an ad directly (the admin tool's `record-metrics`): one
/// transaction adding to a shard of the ad, its goal and its campaign.
pub async fn record(store: &dyn Store, account: &str, path: &AdPath, deltas: &[(Counter, i64)]) -> RepoResult<()> {
    let deltas: Deltas = deltas.iter().map(|(c, n)| (Slot::Valid(*c), *n)).collect();
    if deltas.is_empty() {
        return Ok(());
    }
    Ok(store.transact(add_ops(account, &[(path.clone(), deltas)])).await?)
}

/// The counter additions of many delivery events at once: per ad, goal and campaign the
/// summed deltas, each on one random shard (for a transaction: one action per item).
pub fn add_ops(account: &str, per_ad: &[(AdPath, Deltas)]) -> Vec<TxOp> {
    let mut sums: BTreeMap<(Level, &str), BTreeMap<Slot, i64>> = BTreeMap::new();
    for (path, deltas) in per_ad {
        for (level, id) in [(Level::Ad, &path.ad), (Level::Goal, &path.goal), (Level::Campaign, &path.campaign)] {
            let slot = sums.entry((level, id.as_str())).or_default();
            for (s, d) in deltas {
                *slot.entry(*s).or_insert(0) += d;
            }
        }
    }
    sums.into_iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|((level, id), d)| {
            let adds = d.into_iter().map(|(s, n)| (s.name().to_string(), n)).collect();
            TxOp::Add(key(account, level, id, shard()), adds, Cond::None)
        })
        .collect()
}

/// The counters of many records of one level (batch gets of every shard).
pub async fn read(store: &dyn Store, account: &str, level: Level, ids: &[String]) -> RepoResult<HashMap<String, Counters>> {
    let mut keys = Vec::with_capacity(ids.len() * SHARDS as usize);
    for id in ids {
        for s in 0..SHARDS {
            keys.push(key(account, level, id, s));
        }
    }
    let prefix = crate::keys::metrics_prefix(account, level.tag());
    let mut out: HashMap<String, Counters> = ids.iter().map(|id| (id.clone(), Counters::default())).collect();
    for item in store.batch_get(&keys).await? {
        let Some(id) = item.pk.strip_prefix(&prefix) else { continue };
        let c = out.entry(id.to_string()).or_default();
        for (name, v) in &item.counters {
            c.add_stored(name, *v);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::embedded::EmbeddedStore;

    fn path(ad: &str) -> AdPath {
        AdPath { campaign: "c".into(), goal: "g".into(), ad: ad.into() }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn events_roll_up_and_shards_sum() {
        let s = EmbeddedStore::in_memory().unwrap();
        for _ in 0..50 {
            record(&s, "a", &path("ad1"), &[(Counter::Impression, 2), (Counter::Complete, 1)]).await.unwrap();
        }
        record(&s, "a", &path("ad2"), &[(Counter::Impression, 5)]).await.unwrap();
        let ads = read(&s, "a", Level::Ad, &["ad1".into(), "ad2".into(), "ad3".into()]).await.unwrap();
        assert_eq!((ads["ad1"].get(Counter::Impression), ads["ad1"].get(Counter::Complete)), (100, 50));
        assert_eq!(ads["ad2"].get(Counter::Impression), 5);
        assert_eq!(ads["ad3"], Counters::default());
        let g = read(&s, "a", Level::Goal, &["g".into()]).await.unwrap();
        let c = read(&s, "a", Level::Campaign, &["c".into()]).await.unwrap();
        assert_eq!(g["g"].get(Counter::Impression), 105);
        assert_eq!(c["c"], g["g"]);
        // The writes landed on more than one shard.
        let used = (0..SHARDS).filter(|i| exists_blocking(&s, &key("a", Level::Campaign, "c", *i))).count();
        assert!(used > 1, "{used} shard(s) used");
    }

    fn exists_blocking(s: &EmbeddedStore, k: &Key) -> bool {
        let rt = tokio::runtime::Handle::current();
        tokio::task::block_in_place(|| rt.block_on(s.get(k))).ok().flatten().is_some()
    }
}
