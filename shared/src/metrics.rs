//! Delivery metrics: counters per ad, rolled up to its goal and campaign in the same
//! transaction, so a goal or a campaign reads its own counters instead of summing its
//! children. Each counter set is split over SHARDS items and an event adds to one shard
//! picked at random, so a hot campaign spreads its writes over SHARDS partition keys
//! (DynamoDB allows ~1000 writes/s per key: 4 shards ≈ 4000 events/s per campaign; raise
//! SHARDS for more, at SHARDS reads per record). Readers batch-get every shard and sum.

use std::collections::HashMap;

use serde::Serialize;

use crate::delivery::ivt::INVALID_PREFIX;
use crate::model::enums::PricingModel;
use crate::model::goal::Goal;
use crate::store::{Cond, Key, Store, StoreResult, TxOp};

pub const SHARDS: u32 = 4;
pub const COUNTERS: &[&str] =
    &["impression", "clickThrough", "start", "firstQuartile", "midpoint", "thirdQuartile", "complete", "delivered"];

#[derive(Debug, Clone, Copy, PartialEq)]
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

/// Counts delivery events of an ad: one transaction adding to a shard of the ad, its goal
/// and its campaign (so the three never disagree).
pub async fn record(store: &dyn Store, account: &str, campaign: &str, goal: &str, ad: &str, deltas: &[(String, i64)]) -> StoreResult<()> {
    let deltas: Vec<(String, i64)> = deltas.iter().filter(|(n, _)| COUNTERS.contains(&n.as_str())).cloned().collect();
    if deltas.is_empty() {
        return Ok(());
    }
    let ops = vec![
        TxOp::Add(key(account, Level::Ad, ad, shard()), deltas.clone(), Cond::None),
        TxOp::Add(key(account, Level::Goal, goal, shard()), deltas.clone(), Cond::None),
        TxOp::Add(key(account, Level::Campaign, campaign, shard()), deltas, Cond::None),
    ];
    store.transact(ops).await
}

/// An ad with its goal and campaign: what a delivery event adds to.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct AdPath {
    pub campaign: String,
    pub goal: String,
    pub ad: String,
}

/// Counter name → amount to add.
pub type Deltas = Vec<(String, i64)>;

/// The counter additions of many delivery events at once: per ad, goal and campaign the
/// summed deltas, each on one random shard (for a transaction: one action per item).
pub fn add_ops(account: &str, per_ad: &[(AdPath, Deltas)]) -> Vec<TxOp> {
    let mut sums: std::collections::BTreeMap<(u8, String), std::collections::BTreeMap<String, i64>> = Default::default();
    for (path, deltas) in per_ad {
        for (level, id) in [(0u8, &path.ad), (1, &path.goal), (2, &path.campaign)] {
            let slot = sums.entry((level, id.clone())).or_default();
            for (n, d) in deltas.iter().filter(|(n, _)| COUNTERS.contains(&n.as_str()) || n.starts_with(INVALID_PREFIX)) {
                *slot.entry(n.clone()).or_insert(0) += d;
            }
        }
    }
    sums.into_iter()
        .filter(|(_, d)| !d.is_empty())
        .map(|((level, id), d)| {
            let level = [Level::Ad, Level::Goal, Level::Campaign][level as usize];
            TxOp::Add(key(account, level, &id, shard()), d.into_iter().collect(), Cond::None)
        })
        .collect()
}

/// The counters of one record.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counters(pub HashMap<String, i64>);

impl Counters {
    pub fn get(&self, name: &str) -> i64 {
        self.0.get(name).copied().unwrap_or(0)
    }
}

/// The counters of many records of one level (batch gets of every shard).
pub async fn read(store: &dyn Store, account: &str, level: Level, ids: &[String]) -> StoreResult<HashMap<String, Counters>> {
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
            *c.0.entry(name.clone()).or_insert(0) += v;
        }
    }
    Ok(out)
}

// ---- formulas of the /v3 metrics (docs/queries.md) ----

/// `a / b` rounded to four decimals; 0 when nothing was counted (ctr, completion rate).
pub fn ratio(a: i64, b: i64) -> f64 {
    if b == 0 {
        0.0
    } else {
        ((a as f64 / b as f64) * 10_000.0).round() / 10_000.0
    }
}

/// Revenue per thousand impressions from the goal's pricing (docs/queries.md).
pub fn ecpm(g: &Goal, c: &Counters) -> f64 {
    let price = g.pricing_value.unwrap_or(0.0);
    let per_thousand = |events: i64| events as f64 * price / 1000.0;
    let revenue = match g.pricing_model {
        PricingModel::Cpm => per_thousand(c.get("impression")),
        PricingModel::Cpmv25 => per_thousand(c.get("firstQuartile")),
        PricingModel::Cpmv50 => per_thousand(c.get("midpoint")),
        PricingModel::Cpmv75 => per_thousand(c.get("thirdQuartile")),
        PricingModel::Cpmv100 => per_thousand(c.get("complete")),
        PricingModel::Cpc => c.get("clickThrough") as f64 * price,
        PricingModel::Budget => g.goal_value.map_or(0.0, |v| if v > 0.0 { price * (c.get("delivered") as f64 / v).min(1.0) } else { 0.0 }),
        PricingModel::NoPricing => 0.0,
    };
    let imps = c.get("impression");
    if imps == 0 {
        0.0
    } else {
        ((revenue / imps as f64 * 1000.0) * 100.0).round() / 100.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::embedded::EmbeddedStore;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn events_roll_up_and_shards_sum() {
        let s = EmbeddedStore::in_memory().unwrap();
        for _ in 0..50 {
            record(&s, "a", "c", "g", "ad1", &[("impression".into(), 2), ("complete".into(), 1)]).await.unwrap();
        }
        record(&s, "a", "c", "g", "ad2", &[("impression".into(), 5), ("bogus".into(), 9)]).await.unwrap();
        let ads = read(&s, "a", Level::Ad, &["ad1".into(), "ad2".into(), "ad3".into()]).await.unwrap();
        assert_eq!((ads["ad1"].get("impression"), ads["ad1"].get("complete")), (100, 50));
        assert_eq!((ads["ad2"].get("impression"), ads["ad2"].get("bogus")), (5, 0));
        assert_eq!(ads["ad3"], Counters::default());
        let g = read(&s, "a", Level::Goal, &["g".into()]).await.unwrap();
        let c = read(&s, "a", Level::Campaign, &["c".into()]).await.unwrap();
        assert_eq!(g["g"].get("impression"), 105);
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
