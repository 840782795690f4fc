//! Embedded adapter: redb, a file for the local server (kept across restarts) or memory for
//! tests. GSIs are redb tables `(gsi pk, gsi sk, pk, sk) -> ()` maintained in the same write
//! transaction as the item, and redb's single writer makes every condition exact.

use std::ops::Bound;
use std::path::Path;

use async_trait::async_trait;
use redb::{Database, ReadableTable, TableDefinition};

use super::*;

const MAIN: TableDefinition<(&str, &str), &[u8]> = TableDefinition::new("items");
const GSI1: TableDefinition<(&str, &str, &str, &str), ()> = TableDefinition::new("gsi1");
const GSI2: TableDefinition<(&str, &str, &str, &str), ()> = TableDefinition::new("gsi2");

#[path = "embedded_codec.rs"]
mod codec;
#[path = "embedded_shards.rs"]
pub mod shards;
#[cfg(test)]
use codec::FRAMED;
use codec::{decode, encode};
use shards::Shards;

fn be<E: std::error::Error + Send + Sync + 'static>(e: E) -> StoreError {
    StoreError::backend("embedded store", e)
}

/// redb's page cache (its default is 1 GiB): bounded so a large audience batch does not
/// grow the process with the data it writes.
const CACHE_BYTES: usize = 64 * 1024 * 1024;
/// Each viewer shard's page cache (`shards`): the four take as much as the main file's.
const SHARD_CACHE_BYTES: usize = 16 * 1024 * 1024;

/// The main file's marker that its viewer records live in the shards (set once the records
/// of a file written before the shards have been moved there).
const META: TableDefinition<&str, u64> = TableDefinition::new("meta");
const SHARDED: &str = "viewer_shards";

pub struct EmbeddedStore {
    db: Database,
    shards: Shards,
    trips: RoundTrips,
}

impl EmbeddedStore {
    /// A store kept in a file (created when missing).
    pub fn open(path: &Path) -> StoreResult<Self> {
        if let Some(dir) = path.parent() {
            if !dir.as_os_str().is_empty() {
                std::fs::create_dir_all(dir).map_err(be)?;
            }
        }
        let db = Database::builder().set_cache_size(CACHE_BYTES).create(path).map_err(be)?;
        let shards = (0..shards::SHARDS).map(|i| shards::open(&Shards::path(path, i), SHARD_CACHE_BYTES)).collect::<StoreResult<_>>()?;
        Self::init(db, shards)
    }

    /// A store in memory (tests).
    pub fn in_memory() -> StoreResult<Self> {
        let memory = || Database::builder().create_with_backend(redb::backends::InMemoryBackend::new()).map_err(be);
        let shards = (0..shards::SHARDS).map(|_| memory()).collect::<StoreResult<_>>()?;
        Self::init(memory()?, shards)
    }

    fn init(db: Database, shard_dbs: Vec<Database>) -> StoreResult<Self> {
        for d in std::iter::once(&db).chain(&shard_dbs) {
            let tx = d.begin_write().map_err(be)?;
            {
                tx.open_table(MAIN).map_err(be)?;
                tx.open_table(GSI1).map_err(be)?;
                tx.open_table(GSI2).map_err(be)?;
                tx.open_table(META).map_err(be)?;
            }
            tx.commit().map_err(be)?;
        }
        let store = EmbeddedStore { db, shards: Shards::new(shard_dbs), trips: RoundTrips::default() };
        shards::move_viewers_to_shards(&store)?;
        Ok(store)
    }

    /// The file a record's single-item operation runs on.
    fn db_of(&self, key: &Key) -> &Database {
        self.shards.of(key).unwrap_or(&self.db)
    }

    /// A write of the file holding `key`.
    fn write_at<T>(&self, key: &Key, f: impl FnOnce(&mut WriteTables) -> StoreResult<T>) -> StoreResult<T> {
        in_write(self.db_of(key), f)
    }
}

/// Writes `item` into the main file at `path` as a build before the viewer shards did (the
/// test of the move to the shards; not for use).
#[doc(hidden)]
pub fn write_unsharded_for_test(path: &Path, item: &Item) -> StoreResult<()> {
    let db = Database::create(path).map_err(be)?;
    in_write(&db, |t| t.write_raw(None, item))
}

type MainTable<'t> = redb::Table<'t, (&'static str, &'static str), &'static [u8]>;
type GsiTable<'t> = redb::Table<'t, (&'static str, &'static str, &'static str, &'static str), ()>;

struct WriteTables<'t> {
    main: MainTable<'t>,
    g1: GsiTable<'t>,
    g2: GsiTable<'t>,
}

impl WriteTables<'_> {
    fn current(&self, key: &Key) -> StoreResult<Option<Item>> {
        match self.main.get((key.pk.as_str(), key.sk.as_str())).map_err(be)? {
            Some(v) => Ok(Some(decode(&key.pk, &key.sk, v.value())?)),
            None => Ok(None),
        }
    }

    fn remove(&mut self, old: &Item) -> StoreResult<()> {
        self.main.remove((old.pk.as_str(), old.sk.as_str())).map_err(be)?;
        if let Some((a, b)) = &old.gsi1 {
            self.g1.remove((a.as_str(), b.as_str(), old.pk.as_str(), old.sk.as_str())).map_err(be)?;
        }
        if let Some((a, b)) = &old.gsi2 {
            self.g2.remove((a.as_str(), b.as_str(), old.pk.as_str(), old.sk.as_str())).map_err(be)?;
        }
        Ok(())
    }

    /// Writes `item`; the stored counters are kept (a put never changes them), and an item
    /// it creates starts with the counters it carries.
    fn write(&mut self, old: Option<&Item>, item: &Item) -> StoreResult<()> {
        let mut item = item.clone();
        if let Some(o) = old {
            item.counters = o.counters.clone();
        }
        self.write_raw(old, &item)
    }

    /// Writes `item` over `old` (the item stored under its key): the record is replaced in
    /// place, and only index entries that change are removed and inserted (each a B-tree
    /// walk: a bulk load of viewer records pays two walks an item, not four).
    fn write_raw(&mut self, old: Option<&Item>, item: &Item) -> StoreResult<()> {
        let (pk, sk) = (item.pk.as_str(), item.sk.as_str());
        let bytes = encode(item)?;
        self.main.insert((pk, sk), bytes.as_slice()).map_err(be)?;
        for (table, before, after) in
            [(&mut self.g1, old.and_then(|o| o.gsi1.as_ref()), &item.gsi1), (&mut self.g2, old.and_then(|o| o.gsi2.as_ref()), &item.gsi2)]
        {
            if before == after.as_ref() {
                continue;
            }
            if let Some((a, b)) = before {
                table.remove((a.as_str(), b.as_str(), pk, sk)).map_err(be)?;
            }
            if let Some((a, b)) = after {
                table.insert((a.as_str(), b.as_str(), pk, sk), ()).map_err(be)?;
            }
        }
        Ok(())
    }

    fn add(&mut self, key: &Key, deltas: &[(String, i64)]) -> StoreResult<Item> {
        if deltas.is_empty() {
            return Err(StoreError::Invalid("an add needs at least one counter".into()));
        }
        let old = self.current(key)?;
        let mut item = old.clone().unwrap_or_else(|| Item { pk: key.pk.clone(), sk: key.sk.clone(), ..Item::default() });
        for (name, d) in deltas {
            *item.counters.entry(name.clone()).or_insert(0) += d;
        }
        self.write_raw(old.as_ref(), &item)?;
        Ok(item)
    }
}

/// Runs a bulk write (many items, one transaction) off the async worker thread where the
/// runtime allows it: a task waiting for redb's one writer, or writing, then does not keep
/// the other tasks of the thread (the audience chunks parsing their next rows) waiting.
fn bulk<T>(f: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current() {
        Ok(h) if h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread => tokio::task::block_in_place(f),
        _ => f(),
    }
}

/// Runs `f` in one redb write transaction, durable when it returns (every write, bulk ones
/// included: a commit without an fsync keeps the pages it replaced until the next durable
/// one, and an audience batch's shard files grew fourfold; docs/store.md); it commits only
/// when `f` returns Ok.
fn in_write<T>(db: &Database, f: impl FnOnce(&mut WriteTables) -> StoreResult<T>) -> StoreResult<T> {
    let tx = db.begin_write().map_err(be)?;
    let out = {
        let mut t = WriteTables {
            main: tx.open_table(MAIN).map_err(be)?,
            g1: tx.open_table(GSI1).map_err(be)?,
            g2: tx.open_table(GSI2).map_err(be)?,
        };
        f(&mut t)
    };
    match out {
        Ok(v) => {
            tx.commit().map_err(be)?;
            Ok(v)
        }
        Err(e) => {
            tx.abort().map_err(be)?;
            Err(e)
        }
    }
}

/// Lower bound of the sort key a forward scan can start at.
fn sk_start(c: &SkCond) -> &str {
    match c {
        SkCond::Eq(v) | SkCond::BeginsWith(v) | SkCond::Between(v, _) | SkCond::Gt(v) => v,
        SkCond::All | SkCond::Lt(_) => "",
    }
}

/// True once a forward scan has passed every sort key the condition can match.
fn past_end(c: &SkCond, sk: &str) -> bool {
    match c {
        SkCond::Eq(v) => sk > v.as_str(),
        SkCond::BeginsWith(p) => sk > p.as_str() && !sk.starts_with(p.as_str()),
        SkCond::Between(_, b) => sk > b.as_str(),
        SkCond::Lt(v) => sk >= v.as_str(),
        SkCond::All | SkCond::Gt(_) => false,
    }
}

/// True once a backward scan has passed every sort key the condition can match.
fn before_start(c: &SkCond, sk: &str) -> bool {
    match c {
        SkCond::Eq(v) | SkCond::Between(v, _) => sk < v.as_str(),
        SkCond::BeginsWith(p) => sk < p.as_str(),
        SkCond::Gt(v) => sk <= v.as_str(),
        SkCond::All | SkCond::Lt(_) => false,
    }
}

/// The exclusive end of partition `pk` in tuple order (no key contains NUL).
fn after_partition(pk: &str) -> String {
    format!("{pk}\0")
}

/// Where a scan stands at sort key `key` with `taken` items of at most `limit`.
#[derive(PartialEq)]
enum Scan {
    /// Past every key the condition can match.
    Stop,
    /// Not matched; go on.
    Skip,
    /// Matched, but the page is full: there is a next page.
    Full,
    Take,
}

fn scan_step(q: &Query, key: &str, taken: usize, limit: usize) -> Scan {
    if q.forward && past_end(&q.sk, key) || !q.forward && before_start(&q.sk, key) {
        Scan::Stop
    } else if !q.sk.matches(key) {
        Scan::Skip
    } else if taken == limit {
        Scan::Full
    } else {
        Scan::Take
    }
}

/// A query on one file.
fn query_in(db: &Database, q: &Query) -> StoreResult<Page> {
    let tx = db.begin_read().map_err(be)?;
    let main = tx.open_table(MAIN).map_err(be)?;
    let limit = q.limit.unwrap_or(usize::MAX);
    let mut items = Vec::new();
    let mut more = false;
    let end = after_partition(&q.pk);
    match q.index {
        Index::Primary => {
            let start = sk_start(&q.sk).to_string();
            let lower: Bound<(&str, &str)> = match (&q.start_after, q.forward) {
                (Some(c), true) => Bound::Excluded((q.pk.as_str(), c.sk.as_str())),
                _ => Bound::Included((q.pk.as_str(), start.as_str())),
            };
            let upper: Bound<(&str, &str)> = match (&q.start_after, q.forward) {
                (Some(c), false) => Bound::Excluded((q.pk.as_str(), c.sk.as_str())),
                _ => Bound::Excluded((end.as_str(), "")),
            };
            let range = main.range::<(&str, &str)>((lower, upper)).map_err(be)?;
            let iter: Box<dyn Iterator<Item = _>> = if q.forward { Box::new(range) } else { Box::new(range.rev()) };
            for entry in iter {
                let (k, v) = entry.map_err(be)?;
                let (pk, sk) = k.value();
                match scan_step(q, sk, items.len(), limit) {
                    Scan::Take => {}
                    Scan::Skip => continue,
                    end => {
                        more = end == Scan::Full;
                        break;
                    }
                }
                items.push(decode(pk, sk, v.value())?);
            }
            let next =
                if more { items.last().map(|i: &Item| Cursor { pk: i.pk.clone(), sk: i.sk.clone(), index_key: None }) } else { None };
            Ok(Page { items, next })
        }
        Index::Gsi1 | Index::Gsi2 => {
            let gsi = tx.open_table(if q.index == Index::Gsi1 { GSI1 } else { GSI2 }).map_err(be)?;
            let start = sk_start(&q.sk).to_string();
            type K4<'a> = (&'a str, &'a str, &'a str, &'a str);
            let cursor =
                q.start_after.as_ref().and_then(|c| c.index_key.as_ref().map(|(_, isk)| (isk.as_str(), c.pk.as_str(), c.sk.as_str())));
            let lower: Bound<K4> = match (cursor, q.forward) {
                (Some((isk, pk, sk)), true) => Bound::Excluded((q.pk.as_str(), isk, pk, sk)),
                _ => Bound::Included((q.pk.as_str(), start.as_str(), "", "")),
            };
            let upper: Bound<K4> = match (cursor, q.forward) {
                (Some((isk, pk, sk)), false) => Bound::Excluded((q.pk.as_str(), isk, pk, sk)),
                _ => Bound::Excluded((end.as_str(), "", "", "")),
            };
            let range = gsi.range::<K4>((lower, upper)).map_err(be)?;
            let iter: Box<dyn Iterator<Item = _>> = if q.forward { Box::new(range) } else { Box::new(range.rev()) };
            for entry in iter {
                let (k, _) = entry.map_err(be)?;
                let (_, isk, pk, sk) = k.value();
                match scan_step(q, isk, items.len(), limit) {
                    Scan::Take => {}
                    Scan::Skip => continue,
                    end => {
                        more = end == Scan::Full;
                        break;
                    }
                }
                if q.keys_only {
                    let ik = Some((q.pk.clone(), isk.to_string()));
                    let (gsi1, gsi2) = if q.index == Index::Gsi1 { (ik, None) } else { (None, ik) };
                    items.push(Item { pk: pk.to_string(), sk: sk.to_string(), gsi1, gsi2, ..Item::default() });
                } else if let Some(v) = main.get((pk, sk)).map_err(be)? {
                    items.push(decode(pk, sk, v.value())?);
                }
            }
            let next = if more {
                items.last().map(|i: &Item| {
                    let ik = if q.index == Index::Gsi1 { i.gsi1.clone() } else { i.gsi2.clone() };
                    Cursor { pk: i.pk.clone(), sk: i.sk.clone(), index_key: ik }
                })
            } else {
                None
            };
            Ok(Page { items, next })
        }
    }
}

#[async_trait]
impl Store for EmbeddedStore {
    /// Removes the items whose TTL (`expires_at`) is at or before `now`, as DynamoDB's TTL
    /// does (there within 48 h; the repositories never read an expired item either way),
    /// and returns them (the local server hands expired asset records to the asset
    /// janitor, as DynamoDB's stream does). An item rewritten meanwhile is left.
    async fn sweep_expired(&self, now: i64) -> StoreResult<Vec<Item>> {
        let mut expired: Vec<Item> = Vec::new();
        for db in std::iter::once(&self.db).chain(self.shards.all()) {
            let tx = db.begin_read().map_err(be)?;
            let main = tx.open_table(MAIN).map_err(be)?;
            for entry in main.iter().map_err(be)? {
                let (k, v) = entry.map_err(be)?;
                let (pk, sk) = k.value();
                let item = decode(pk, sk, v.value())?;
                if item.expires_at.is_some_and(|e| e <= now) {
                    expired.push(item);
                }
            }
        }
        let mut removed = Vec::with_capacity(expired.len());
        for item in expired {
            match self.delete(&item.key(), Cond::Version(item.version)).await {
                Ok(()) => removed.push(item),
                Err(StoreError::ConditionFailed) => {}
                Err(e) => return Err(e),
            }
        }
        Ok(removed)
    }

    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        check_key(key)?;
        self.trips.inc();
        let tx = self.db_of(key).begin_read().map_err(be)?;
        let t = tx.open_table(MAIN).map_err(be)?;
        let out = match t.get((key.pk.as_str(), key.sk.as_str())).map_err(be)? {
            Some(v) => Some(decode(&key.pk, &key.sk, v.value())?),
            None => None,
        };
        Ok(out)
    }

    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()> {
        check_item(&item)?;
        shards::check_sharded(&item)?;
        self.trips.inc();
        self.write_at(&item.key(), |t| {
            let old = t.current(&item.key())?;
            if !cond_holds(&cond, old.as_ref()) {
                return Err(StoreError::ConditionFailed);
            }
            t.write(old.as_ref(), &item)
        })
    }

    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()> {
        check_key(key)?;
        self.trips.inc();
        self.write_at(key, |t| {
            let old = t.current(key)?;
            if !cond_holds(&cond, old.as_ref()) {
                return Err(StoreError::ConditionFailed);
            }
            if let Some(old) = old {
                t.remove(&old)?;
            }
            Ok(())
        })
    }

    async fn query(&self, q: Query) -> StoreResult<Page> {
        check_query(&q)?;
        self.trips.inc();
        let main = query_in(&self.db, &q)?;
        match (&q.index, self.shards.of_partition(&q.pk)) {
            (Index::Primary, Some(shard)) => Ok(shards::merge(main, query_in(shard, &q)?, q.forward, q.limit)),
            _ => Ok(main),
        }
    }

    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        check_keys(keys)?;
        // Same round-trip accounting as DynamoDB: one request per 100 keys.
        for _ in keys.chunks(100) {
            self.trips.inc();
        }
        let mut out = Vec::with_capacity(keys.len());
        let mut seen = std::collections::HashSet::new();
        let (main, by_shard) = self.shards.split(keys.iter().collect(), |k| (k.pk.as_str(), k.sk.as_str()));
        for (db, keys) in std::iter::once((&self.db, main)).chain(self.shards.all().iter().zip(by_shard)) {
            if keys.is_empty() {
                continue;
            }
            let tx = db.begin_read().map_err(be)?;
            let t = tx.open_table(MAIN).map_err(be)?;
            for k in keys {
                if !seen.insert(k) {
                    continue;
                }
                if let Some(v) = t.get((k.pk.as_str(), k.sk.as_str())).map_err(be)? {
                    out.push(decode(&k.pk, &k.sk, v.value())?);
                }
            }
        }
        Ok(out)
    }

    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        check_transaction(&ops)?;
        shards::refuse_in_transaction(ops.iter().map(|op| match op {
            TxOp::Put(item, _) => item.key(),
            TxOp::Delete(k, _) | TxOp::Check(k, _) | TxOp::Add(k, _, _) => k.clone(),
        }))?;
        self.trips.inc();
        in_write(&self.db, |t| {
            let mut olds = Vec::with_capacity(ops.len());
            for (i, op) in ops.iter().enumerate() {
                let (key, cond) = match op {
                    TxOp::Put(item, c) => (item.key(), c),
                    TxOp::Delete(k, c) | TxOp::Check(k, c) | TxOp::Add(k, _, c) => (k.clone(), c),
                };
                let old = t.current(&key)?;
                if !cond_holds(cond, old.as_ref()) {
                    return Err(StoreError::TransactionCanceled { index: Some(i) });
                }
                olds.push(old);
            }
            for (op, old) in ops.iter().zip(olds) {
                match op {
                    TxOp::Put(item, _) => t.write(old.as_ref(), item)?,
                    TxOp::Delete(_, _) => {
                        if let Some(old) = old {
                            t.remove(&old)?;
                        }
                    }
                    TxOp::Check(_, _) => {}
                    TxOp::Add(k, deltas, _) => {
                        t.add(k, deltas)?;
                    }
                }
            }
            Ok(())
        })
    }

    async fn batch_write(&self, puts: Vec<Item>, deletes: Vec<Key>) -> StoreResult<()> {
        puts.iter().try_for_each(check_item)?;
        check_keys(&deletes)?;
        for _ in 0..(puts.len() + deletes.len()).div_ceil(25) {
            self.trips.inc();
        }
        // One transaction a file, the files side by side; in key order, as `put_newer`.
        puts.iter().try_for_each(shards::check_sharded)?;
        let (main_puts, shard_puts) = self.shards.split(puts, |i| (i.pk.as_str(), i.sk.as_str()));
        let (main_deletes, shard_deletes) = self.shards.split(deletes, |k| (k.pk.as_str(), k.sk.as_str()));
        let files = std::iter::once(&self.db).chain(self.shards.all());
        let work: Vec<_> =
            files.zip(std::iter::once(main_puts).chain(shard_puts).zip(std::iter::once(main_deletes).chain(shard_deletes))).collect();
        bulk(|| {
            shards::side_by_side(work, |db, (mut puts, deletes)| {
                puts.sort_unstable_by(|x, y| (&x.pk, &x.sk).cmp(&(&y.pk, &y.sk)));
                in_write(db, |t| {
                    for item in &puts {
                        let old = t.current(&item.key())?;
                        t.write(old.as_ref(), item)?;
                    }
                    for k in &deletes {
                        if let Some(old) = t.current(k)? {
                            t.remove(&old)?;
                        }
                    }
                    Ok(())
                })
            })
        })
    }

    async fn put_newer(&self, items: Vec<Item>) -> StoreResult<()> {
        items.iter().try_for_each(check_item)?;
        self.trips.inc();
        // As `batch_write`. In key order, so that neighbouring writes find their B-tree
        // pages in the cache.
        items.iter().try_for_each(shards::check_sharded)?;
        let (main, by_shard) = self.shards.split(items, |i| (i.pk.as_str(), i.sk.as_str()));
        let work: Vec<_> = std::iter::once(&self.db).chain(self.shards.all()).zip(std::iter::once(main).chain(by_shard)).collect();
        bulk(|| {
            shards::side_by_side(work, |db, mut items| {
                items.sort_unstable_by(|x, y| (&x.pk, &x.sk).cmp(&(&y.pk, &y.sk)));
                in_write(db, |t| {
                    for item in &items {
                        let old = t.current(&item.key())?;
                        if cond_holds(&Cond::VersionBelow(item.version), old.as_ref()) {
                            t.write(old.as_ref(), item)?;
                        }
                    }
                    Ok(())
                })
            })
        })
    }

    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item> {
        check_key(key)?;
        self.trips.inc();
        self.write_at(key, |t| {
            let old = t.current(key)?;
            if !cond_holds(&cond, old.as_ref()) {
                return Err(StoreError::ConditionFailed);
            }
            t.add(key, deltas)
        })
    }

    fn round_trips(&self) -> u64 {
        self.trips.get()
    }

    fn kind(&self) -> &'static str {
        "embedded"
    }
}

#[cfg(test)]
#[path = "embedded_tests.rs"]
mod tests;
