//! The embedded store's viewer records in shard files of their own (`store::embedded`).
//!
//! An audience batch writes millions of viewer records (`A#<a>#VIEWER#<pid> / <provider>`),
//! and redb has one writer per file: in one file a 10 M-row batch was bound by that writer
//! on one core whatever the number of chunks feeding it. Here each shard is its own redb
//! file with its own writer, and a flush writes its shards side by side.
//!
//! What stays in the main file: everything else, including a viewer's frequency record
//! (`A#<a>#VIEWER#<pid> / FREQ`), which the counting transaction writes atomically with
//! other records. A query of a viewer partition reads the main file and the viewer's shard
//! and merges the two by sort key. A transaction may not touch a sharded record (none
//! does: viewer records are written by the audience worker's bulk writes only), and a
//! sharded record carries no index key (it has none).
//!
//! Durability: every write of every file is durable when it returns, bulk ones included
//! (the shards' fsyncs run side by side, with their writes).

use redb::{Database, ReadableTable};

use super::{be, decode, in_write, EmbeddedStore, Item, MAIN, META, SHARDED};
use crate::store::{Key, Page, StoreError, StoreResult};

/// Shards of a store (fixed: a record's shard is a hash of its partition key, and the
/// files are named with the count, so another count never misreads them).
pub const SHARDS: usize = 4;

/// The partition key of a viewer's records (`keys::viewer_partition`): `A#<a>#VIEWER#<pid>`.
pub fn is_viewer_partition(pk: &str) -> bool {
    pk.starts_with("A#") && pk.contains("#VIEWER#")
}

/// Whether a record lives in a shard: a viewer partition's record other than its
/// frequency state (`keys::FREQ_SK`; `keys` tests that its keys route here as meant).
pub fn is_sharded(pk: &str, sk: &str) -> bool {
    sk != "FREQ" && is_viewer_partition(pk)
}

/// FNV-1a: stable across processes and builds (the shard of a stored record must not move).
fn shard_of(pk: &str) -> usize {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in pk.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    (h % SHARDS as u64) as usize
}

pub struct Shards {
    dbs: Vec<Database>,
}

impl Shards {
    pub fn new(dbs: Vec<Database>) -> Shards {
        Shards { dbs }
    }

    /// The file of shard `i` beside the main file `main`.
    pub fn path(main: &std::path::Path, i: usize) -> std::path::PathBuf {
        let stem = main.file_stem().and_then(|s| s.to_str()).unwrap_or("store");
        main.with_file_name(format!("{stem}.viewers-{i}-of-{SHARDS}.redb"))
    }

    /// The shard holding `key`'s record, if it is a sharded one.
    pub fn of(&self, key: &Key) -> Option<&Database> {
        is_sharded(&key.pk, &key.sk).then(|| &self.dbs[shard_of(&key.pk)])
    }

    /// The shard holding a viewer partition's sharded records.
    pub fn of_partition(&self, pk: &str) -> Option<&Database> {
        is_viewer_partition(pk).then(|| &self.dbs[shard_of(pk)])
    }

    pub fn all(&self) -> &[Database] {
        &self.dbs
    }

    /// Groups `items` by shard (index into `all()`); the others are returned apart.
    pub fn split<T>(&self, items: Vec<T>, key: impl Fn(&T) -> (&str, &str)) -> (Vec<T>, Vec<Vec<T>>) {
        let mut main = Vec::new();
        let mut by_shard: Vec<Vec<T>> = (0..self.dbs.len()).map(|_| Vec::new()).collect();
        for it in items {
            let (pk, sk) = key(&it);
            if is_sharded(pk, sk) {
                let s = shard_of(pk);
                by_shard[s].push(it);
            } else {
                main.push(it);
            }
        }
        (main, by_shard)
    }
}

/// A sharded record may not be part of a transaction (see the module's documentation).
pub fn refuse_in_transaction(keys: impl IntoIterator<Item = Key>) -> StoreResult<()> {
    for k in keys {
        if is_sharded(&k.pk, &k.sk) {
            return Err(StoreError::Invalid(format!("the viewer record {}/{} cannot be written in a transaction", k.pk, k.sk)));
        }
    }
    Ok(())
}

/// A sharded record has no index key (viewer records have none; the shards' index tables
/// are never queried).
pub fn check_sharded(item: &crate::store::Item) -> StoreResult<()> {
    if is_sharded(&item.pk, &item.sk) && (item.gsi1.is_some() || item.gsi2.is_some()) {
        return Err(StoreError::Invalid(format!("the viewer record {}/{} cannot carry an index key", item.pk, item.sk)));
    }
    Ok(())
}

/// Two pages of the same partition query (the main file's and the shard's), each in the
/// query's order and each cut at `limit`, as one page: merged by sort key and cut at
/// `limit`; there is a next page when either had one or the cut dropped items.
pub fn merge(a: Page, b: Page, forward: bool, limit: Option<usize>) -> Page {
    let more = a.next.is_some() || b.next.is_some();
    let mut items = Vec::with_capacity(a.items.len() + b.items.len());
    let (mut x, mut y) = (a.items.into_iter().peekable(), b.items.into_iter().peekable());
    loop {
        let take_x = match (x.peek(), y.peek()) {
            (Some(i), Some(j)) => (i.sk <= j.sk) == forward,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        items.extend(if take_x { x.next() } else { y.next() });
    }
    let cut = limit.is_some_and(|l| items.len() > l);
    if let Some(l) = limit {
        items.truncate(l);
    }
    let next =
        if more || cut { items.last().map(|i| crate::store::Cursor { pk: i.pk.clone(), sk: i.sk.clone(), index_key: None }) } else { None };
    Page { items, next }
}

/// Opens (or creates) a shard with `cache` bytes of page cache.
pub fn open(path: &std::path::Path, cache: usize) -> StoreResult<Database> {
    Database::builder().set_cache_size(cache).create(path).map_err(be)
}

/// A file written before the shards keeps its viewer records in the main file: they are
/// moved to their shards once (then the file is marked).
pub(super) fn move_viewers_to_shards(store: &EmbeddedStore) -> StoreResult<()> {
    let marked = {
        let tx = store.db.begin_read().map_err(be)?;
        let meta = tx.open_table(META).map_err(be)?;
        meta.get(SHARDED).map_err(be)?.is_some()
    };
    if marked {
        return Ok(());
    }
    let moving: Vec<Item> = {
        let tx = store.db.begin_read().map_err(be)?;
        let main = tx.open_table(MAIN).map_err(be)?;
        let mut out = Vec::new();
        for entry in main.iter().map_err(be)? {
            let (k, v) = entry.map_err(be)?;
            let (pk, sk) = k.value();
            if is_sharded(pk, sk) {
                out.push(decode(pk, sk, v.value())?);
            }
        }
        out
    };
    // Each step is safe to repeat: a crash before the mark moves what is left again.
    let (_, by_shard) = store.shards.split(moving, |i| (i.pk.as_str(), i.sk.as_str()));
    for (db, items) in store.shards.all().iter().zip(by_shard) {
        in_write(db, |t| items.iter().try_for_each(|i| t.write_raw(None, i)))?;
        in_write(&store.db, |t| items.iter().try_for_each(|i| t.remove(i)))?;
    }
    let tx = store.db.begin_write().map_err(be)?;
    tx.open_table(META).map_err(be)?.insert(SHARDED, SHARDS as u64).map_err(be)?;
    tx.commit().map_err(be)
}

/// Runs a bulk write's parts (one a file: the main file's, then each shard's) side by side,
/// one thread a non-empty part: each file has a writer of its own.
pub(super) fn side_by_side<W: Send + IsEmpty>(
    work: Vec<(&Database, W)>,
    f: impl Fn(&Database, W) -> StoreResult<()> + Sync,
) -> StoreResult<()> {
    let work: Vec<_> = work.into_iter().filter(|(_, w)| !w.is_empty()).collect();
    if work.len() <= 1 {
        return work.into_iter().try_for_each(|(db, w)| f(db, w));
    }
    std::thread::scope(|scope| {
        let f = &f;
        let running: Vec<_> = work.into_iter().map(|(db, w)| scope.spawn(move || f(db, w))).collect();
        running.into_iter().try_for_each(|h| h.join().unwrap_or_else(|_| Err(StoreError::Invalid("a bulk write's thread panicked".into()))))
    })
}

/// What `side_by_side` skips.
pub(super) trait IsEmpty {
    fn is_empty(&self) -> bool;
}
impl<T> IsEmpty for Vec<T> {
    fn is_empty(&self) -> bool {
        Vec::is_empty(self)
    }
}
impl<A, B> IsEmpty for (Vec<A>, Vec<B>) {
    fn is_empty(&self) -> bool {
        self.0.is_empty() && self.1.is_empty()
    }
}
