//! The one in-process cache of the crate: entries live for `ttl` on the injected clock's
//! monotonic time (`Clock::instant`), and past `cap` entries the oldest written goes first
//! (never the whole map at once). What uses it: the resolved API keys (`state::AuthCache`),
//! each account's stitchers (`usecases::stitchers`) and the request-rate buckets
//! (`rate_limit`).

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;
use std::time::{Duration, Instant};

pub struct TtlCache<K, V> {
    ttl: Duration,
    cap: usize,
    inner: Mutex<Inner<K, V>>,
}

struct Inner<K, V> {
    /// Each entry with when it was written and its write's number.
    map: HashMap<K, (Instant, u64, V)>,
    /// Keys in the order they were written, with the write's number: an entry written
    /// again leaves its older number behind, skipped when it comes up.
    order: VecDeque<(K, u64)>,
    writes: u64,
}

impl<K: Eq + Hash + Clone, V: Clone> TtlCache<K, V> {
    pub fn new(ttl: Duration, cap: usize) -> Self {
        TtlCache { ttl, cap: cap.max(1), inner: Mutex::new(Inner { map: HashMap::new(), order: VecDeque::new(), writes: 0 }) }
    }

    /// The entry of `key`, unless it is older than the TTL at `now`.
    pub fn get(&self, key: &K, now: Instant) -> Option<V> {
        let inner = self.inner.lock().ok()?;
        inner.map.get(key).filter(|(at, _, _)| now.saturating_duration_since(*at) < self.ttl).map(|(_, _, v)| v.clone())
    }

    /// Writes `key`'s entry at `now`.
    pub fn put(&self, key: K, value: V, now: Instant) {
        self.update(key, now, |_| (value, ()));
    }

    /// Reads and writes `key`'s entry under one lock: `f` gets the live entry (`None`: absent
    /// or expired) and returns the new one and the answer.
    pub fn update<R>(&self, key: K, now: Instant, f: impl FnOnce(Option<V>) -> (V, R)) -> Option<R> {
        let mut inner = self.inner.lock().ok()?;
        let live = inner.map.get(&key).filter(|(at, _, _)| now.saturating_duration_since(*at) < self.ttl).map(|(_, _, v)| v.clone());
        let (value, out) = f(live);
        if !inner.map.contains_key(&key) {
            while inner.map.len() >= self.cap {
                inner.evict_oldest();
            }
        }
        inner.writes += 1;
        let n = inner.writes;
        inner.order.push_back((key.clone(), n));
        inner.map.insert(key, (now, n, value));
        if inner.order.len() > 2 * self.cap + 16 {
            inner.compact();
        }
        Some(out)
    }

    /// Forgets `key` (a write that changed what it names).
    pub fn remove(&self, key: &K) {
        if let Ok(mut inner) = self.inner.lock() {
            inner.map.remove(key);
        }
    }

    pub fn len(&self) -> usize {
        self.inner.lock().map_or(0, |i| i.map.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<K: Eq + Hash + Clone, V> Inner<K, V> {
    fn evict_oldest(&mut self) {
        while let Some((k, n)) = self.order.pop_front() {
            if self.map.get(&k).is_some_and(|(_, written, _)| *written == n) {
                self.map.remove(&k);
                return;
            }
        }
        // The order lost track (it never should): start over rather than grow.
        self.map.clear();
    }

    /// Drops the order's numbers that no entry carries any more.
    fn compact(&mut self) {
        let map = &self.map;
        self.order.retain(|(k, n)| map.get(k).is_some_and(|(_, written, _)| written == n));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_expire_and_the_oldest_goes_first() {
        let t0 = Instant::now();
        let c = TtlCache::new(Duration::from_secs(30), 2);
        c.put("a", 1, t0);
        c.put("b", 2, t0 + Duration::from_secs(1));
        assert_eq!(c.get(&"a", t0 + Duration::from_secs(29)), Some(1));
        assert_eq!(c.get(&"a", t0 + Duration::from_secs(30)), None, "expired");
        // Written again, "a" is newer than "b": a third key evicts "b" alone.
        c.put("a", 3, t0 + Duration::from_secs(2));
        c.put("c", 4, t0 + Duration::from_secs(3));
        assert_eq!((c.get(&"a", t0), c.get(&"b", t0), c.get(&"c", t0)), (Some(3), None, Some(4)));
        assert_eq!(c.len(), 2);
        c.remove(&"a");
        assert_eq!(c.get(&"a", t0), None);
        // Many rewrites of one key keep the order bounded.
        for i in 0..1000 {
            c.put("c", i, t0);
        }
        assert!(c.inner.lock().unwrap().order.len() <= 2 * 2 + 16 + 1);
    }

    #[test]
    fn update_reads_and_writes_under_one_lock() {
        let t0 = Instant::now();
        let c = TtlCache::new(Duration::from_secs(1), 10);
        assert_eq!(c.update("k", t0, |v| (v.unwrap_or(0) + 1, v)), Some(None));
        assert_eq!(c.update("k", t0, |v| (v.unwrap_or(0) + 1, v)), Some(Some(1)));
        assert_eq!(c.update("k", t0 + Duration::from_secs(2), |v| (v.unwrap_or(0) + 1, v)), Some(None), "expired: absent");
    }
}
