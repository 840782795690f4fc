//! Change history, written with the writes it describes.
//!
//! A request or job runs with a [`Work`]: the unit of work its writes belong to, a value
//! the process's state carries (`AppState::with_work`), so a task the request spawns keeps
//! it. A management request that may write has one with history: its author (its API key)
//! and every record it reads are kept in it. [`Recording`], the store a state holds, adds
//! to each write of a record (a campaign, a goal, a rule set, an ad...) one change item per
//! record it changes, in the same conditional transaction: a refused or conflicting write
//! leaves no change, and a write that lands always has its change. The old values come from
//! the read the write's condition checked (the same version), so the diff is exact. A
//! worker's job runs with a `Work` without history: its state moves are not history.
//!
//! The unit of work also gathers the accounts whose delivery the writes changed (a bump of
//! the account's delivery version, `repo::delivery::changed`): the request or job queues
//! one compile of each when it ends (`usecases::compile`). Keys: docs/store.md, "Change
//! history".

use std::collections::{BTreeSet, HashMap};
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use chrono::{DateTime, Utc};
use serde_json::Value;

use super::RepoResult;
use crate::model::change::{self, Change, Subject};
use crate::store::{Cond, Cursor, Delegate, Item, Key, Page, Query, SkCond, Store, StoreError, StoreResult, TxOp, MAX_TRANSACT_ACTIONS};

/// One request's or job's unit of work: who writes (with history), what it read (by key,
/// for the diffs), the changes its writes made, and the accounts whose delivery changed.
pub struct Work {
    /// `None`: no history (a worker's job).
    history: Option<History>,
    state: Mutex<WorkState>,
}

struct History {
    request_id: String,
    at: DateTime<Utc>,
}

#[derive(Default)]
struct WorkState {
    actor: Option<crate::model::access::Actor>,
    /// The role the request's route needed (a revert needs it too).
    role: Option<crate::model::access::Role>,
    seen: HashMap<Key, Item>,
    seq: u32,
    written: Vec<Change>,
    compiles: BTreeSet<String>,
}

static ORDER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

impl Work {
    /// A request whose writes are recorded.
    pub fn recorded(request_id: String, at: DateTime<Utc>) -> Arc<Work> {
        Arc::new(Work { history: Some(History { request_id, at }), state: Mutex::default() })
    }

    /// A job whose writes are not history (a worker's).
    pub fn unrecorded() -> Arc<Work> {
        Arc::new(Work { history: None, state: Mutex::default() })
    }

    /// The request's author, once its key or session is known.
    pub fn set_actor(&self, actor: crate::model::access::Actor) {
        self.with_state(|s| s.actor = Some(actor));
    }

    /// The role the request's route needed (its changes carry it).
    pub fn set_role(&self, role: crate::model::access::Role) {
        self.with_state(|s| s.role = Some(role));
    }

    /// The changes its writes made so far (a write that failed takes its own back).
    pub fn written(&self) -> Vec<Change> {
        self.with_state(|s| s.written.clone()).unwrap_or_default()
    }

    /// Says that what `account` serves changed (its delivery version was bumped).
    pub fn delivery_changed(&self, account: &str) {
        self.with_state(|s| s.compiles.insert(account.to_string()));
    }

    /// The accounts whose delivery changed, each once.
    pub fn compiles(&self) -> Vec<String> {
        self.with_state(|s| s.compiles.iter().cloned().collect()).unwrap_or_default()
    }

    fn with_state<R>(&self, f: impl FnOnce(&mut WorkState) -> R) -> Option<R> {
        self.state.lock().ok().map(|mut s| f(&mut s))
    }

    fn note<'a>(&self, items: impl IntoIterator<Item = &'a Item>) {
        if self.history.is_none() {
            return;
        }
        self.with_state(|s| {
            for i in items {
                if change::subject(&i.pk, &i.sk).is_some() {
                    s.seen.insert(i.key(), i.clone());
                }
            }
        });
    }
}

/// The partition of an account's changes, newest last by sort key (the change id).
pub fn partition(account: &str) -> String {
    crate::keys::partition(account, "CHANGE")
}

/// GSI1 partition of one record's changes.
pub fn record_partition(account: &str, record: &str) -> String {
    format!("{}#{record}", partition(account))
}

/// The store with history: see the module's documentation.
pub struct Recording {
    inner: Arc<dyn Store>,
    work: Option<Arc<Work>>,
}

impl Recording {
    /// `inner` as a state holds it outside any unit of work.
    pub fn wrap(inner: Arc<dyn Store>) -> Arc<dyn Store> {
        Arc::new(Recording { inner, work: None })
    }

    /// `inner` within `work`: its writes carry their changes (when `work` keeps history), and
    /// their delivery changes are gathered in it.
    pub fn within(inner: Arc<dyn Store>, work: Arc<Work>) -> Arc<dyn Store> {
        Arc::new(Recording { inner, work: Some(work) })
    }

    fn note<'a>(&self, items: impl IntoIterator<Item = &'a Item>) {
        if let Some(w) = &self.work {
            w.note(items);
        }
    }

    fn with_state<R>(&self, f: impl FnOnce(&mut WorkState) -> R) -> Option<R> {
        self.work.as_ref().and_then(|w| w.with_state(f))
    }

    /// The stored body a write replaces, as its condition checks it.
    async fn before(&self, key: &Key, cond: &Cond) -> StoreResult<Option<Item>> {
        if matches!(cond, Cond::NotExists) {
            return Ok(None);
        }
        let seen = self.with_state(|s| s.seen.get(key).cloned()).flatten();
        let wanted = match cond {
            Cond::Version(v) | Cond::VersionAndCounterZero(v, _) => Some(*v),
            _ => None,
        };
        match seen {
            Some(i) if wanted.is_none_or(|v| v == i.version) => Ok(Some(i)),
            _ => self.inner.get(key).await,
        }
    }

    /// The change items of `ops` (none outside a recorded request).
    async fn changes(&self, ops: &[TxOp]) -> StoreResult<Vec<Item>> {
        let Some(w) = self.work.as_ref().filter(|w| w.history.is_some()) else { return Ok(Vec::new()) };
        let mut out = Vec::new();
        for op in ops {
            let (key, after, cond) = match op {
                TxOp::Put(i, c) => (i.key(), Some(i), c),
                TxOp::Delete(k, c) => (k.clone(), None, c),
                _ => continue,
            };
            let Some(subject) = change::subject(&key.pk, &key.sk) else { continue };
            let before = self.before(&key, cond).await?;
            let parse = |i: Option<&Item>| i.and_then(|i| serde_json::from_str::<Value>(&i.body).ok());
            let (old, new) = (parse(before.as_ref()), parse(after));
            for m in change::moves(&subject, old.as_ref(), new.as_ref()) {
                out.push(self::item(w, &subject, m, after.map(|i| i.version))?);
            }
        }
        Ok(out)
    }

    async fn write(&self, ops: Vec<TxOp>, single: bool) -> StoreResult<()> {
        let before = self.with_state(|s| s.written.len());
        let changes = self.changes(&ops).await?;
        let remember: Vec<(Key, Option<Item>)> = ops
            .iter()
            .filter_map(|o| match o {
                TxOp::Put(i, _) => Some((i.key(), Some(i.clone()))),
                TxOp::Delete(k, _) => Some((k.clone(), None)),
                _ => None,
            })
            .collect();
        let r = if changes.is_empty() {
            let mut ops = ops;
            match (single, ops.pop()) {
                (true, Some(TxOp::Put(i, c))) => self.inner.put(i, c).await,
                (true, Some(TxOp::Delete(k, c))) => self.inner.delete(&k, c).await,
                (_, Some(op)) => {
                    ops.push(op);
                    self.inner.transact(ops).await
                }
                (_, None) => Ok(()),
            }
        } else {
            if ops.len() + changes.len() > MAX_TRANSACT_ACTIONS {
                return Err(StoreError::Invalid(format!(
                    "{} writes and their {} changes are over the {MAX_TRANSACT_ACTIONS} writes of one transaction",
                    ops.len(),
                    changes.len()
                )));
            }
            let mut all = ops;
            all.extend(changes.into_iter().map(|c| TxOp::Put(c, Cond::NotExists)));
            match self.inner.transact(all).await {
                // A single write's condition failed (the change items are new).
                Err(StoreError::TransactionCanceled { .. }) if single => Err(StoreError::ConditionFailed),
                r => r,
            }
        };
        if r.is_err() {
            self.with_state(|s| s.written.truncate(before.unwrap_or(0)));
        }
        if r.is_ok() {
            self.with_state(|s| {
                for (k, i) in remember {
                    match i {
                        Some(i) => s.seen.insert(k, i),
                        None => s.seen.remove(&k),
                    };
                }
            });
        }
        r
    }
}

fn item(w: &Work, subject: &Subject, m: change::Moved, version: Option<u64>) -> StoreResult<Item> {
    let Some(h) = &w.history else { return Err(StoreError::Invalid("a change record outside a recorded request".into())) };
    let account = match subject {
        Subject::Record { account, .. }
        | Subject::Rules { account, .. }
        | Subject::Collection { account, .. }
        | Subject::Directory { account } => account,
    };
    let (actor, role, seq) = w
        .with_state(|s| {
            s.seq += 1;
            (s.actor.clone(), s.role, s.seq)
        })
        .unwrap_or_default();
    // Keys keep `keyId`/`keyName` (clients read them); a user is named by `actor` alone.
    let (key_id, key_name) = match &actor {
        Some(a) if a.kind == crate::model::access::ActorKind::Key => (Some(a.id.clone()), Some(a.name.clone())),
        _ => (None, None),
    };
    // Time, then this process's sequence (changes within one millisecond keep their order),
    // then randomness (other processes).
    let order = ORDER.fetch_add(1, std::sync::atomic::Ordering::Relaxed) % 1_000_000;
    let suffix: String = crate::ids::fast_id().chars().filter(char::is_ascii_hexdigit).take(6).collect();
    let id = format!("{:013}-{order:06}{seq:02}-{suffix}", h.at.timestamp_millis().max(0));
    let version = match (subject, m.operation) {
        (Subject::Collection { .. }, _) | (_, change::Operation::Delete) => None,
        _ => version,
    };
    let c = Change {
        id: id.clone(),
        at: h.at,
        request_id: h.request_id.clone(),
        key_id,
        key_name,
        actor,
        kind: m.kind.to_string(),
        record_id: m.record_id.clone(),
        operation: m.operation,
        fields: m.fields,
        truncated: m.truncated,
        version,
        role,
    };
    let body = serde_json::to_string(&c).map_err(|e| StoreError::Invalid(format!("change record: {e}")))?;
    w.with_state(|s| s.written.push(c));
    Ok(Item {
        pk: partition(account),
        sk: id.clone(),
        gsi1: Some((record_partition(account, &m.record_id), id)),
        version: 1,
        expires_at: Some(h.at.timestamp() + change::RETENTION_DAYS * 86_400),
        body,
        ..Item::default()
    })
}

#[async_trait]
impl Delegate for Recording {
    fn inner(&self) -> &dyn Store {
        self.inner.as_ref()
    }
    async fn get(&self, key: &Key) -> StoreResult<Option<Item>> {
        let r = self.inner.get(key).await?;
        self.note(r.iter());
        Ok(r)
    }
    async fn put(&self, item: Item, cond: Cond) -> StoreResult<()> {
        self.write(vec![TxOp::Put(item, cond)], true).await
    }
    async fn delete(&self, key: &Key, cond: Cond) -> StoreResult<()> {
        self.write(vec![TxOp::Delete(key.clone(), cond)], true).await
    }
    async fn query(&self, q: Query) -> StoreResult<Page> {
        let p = self.inner.query(q).await?;
        self.note(p.items.iter());
        Ok(p)
    }
    async fn batch_get(&self, keys: &[Key]) -> StoreResult<Vec<Item>> {
        let r = self.inner.batch_get(keys).await?;
        self.note(r.iter());
        Ok(r)
    }
    async fn transact(&self, ops: Vec<TxOp>) -> StoreResult<()> {
        self.write(ops, false).await
    }
    /// A bump of an account's delivery version is what `repo::delivery::changed` says when
    /// a write changed what the account serves: the unit of work gathers the account.
    async fn add(&self, key: &Key, deltas: &[(String, i64)], cond: Cond) -> StoreResult<Item> {
        let out = self.inner.add(key, deltas, cond).await?;
        if let (Some(w), true) = (&self.work, key.sk == crate::keys::DELIVERY_VERSION_SK) {
            if let Some(account) = crate::keys::account_of_delivery(&key.pk) {
                w.delivery_changed(account);
            }
        }
        Ok(out)
    }
}

/// The most changes one page shows.
pub const MAX_PAGE: usize = 200;
/// The most change items one page reads while filtering by kind or key.
pub const MAX_SCANNED: usize = 2_000;

/// What `/v1/changes` asks for.
#[derive(Debug, Clone, Default)]
pub struct Filter {
    pub record_id: Option<String>,
    pub kind: Option<String>,
    pub key_id: Option<String>,
    /// Who made the change: a user's id or a key's id.
    pub actor_id: Option<String>,
    pub since: Option<DateTime<Utc>>,
    pub until: Option<DateTime<Utc>>,
    /// Whether the changes of users and keys are listed (`change::PEOPLE_KINDS`: an
    /// ADMIN's reading; `usecases::changes::list` sets it).
    pub people: bool,
}

/// A page of changes, newest first, and where the next one starts (`after`).
pub async fn list(
    store: &dyn Store,
    account: &str,
    f: &Filter,
    after: Option<&str>,
    limit: usize,
) -> RepoResult<(Vec<Change>, Option<String>)> {
    let lo = f.since.map_or_else(|| "0".to_string(), |t| format!("{:013}", t.timestamp_millis().max(0)));
    let hi = f.until.map_or_else(|| "~".to_string(), |t| format!("{:013}~", t.timestamp_millis().max(0)));
    let (base, index_pk) = match &f.record_id {
        Some(r) => (Query::gsi1(record_partition(account, r)), Some(record_partition(account, r))),
        None => (Query::partition(partition(account)), None),
    };
    let mut cursor =
        after.map(|a| Cursor { pk: partition(account), sk: a.to_string(), index_key: index_pk.clone().map(|p| (p, a.to_string())) });
    let (mut out, mut scanned) = (Vec::new(), 0usize);
    let wanted = |c: &Change| {
        (f.people || !change::PEOPLE_KINDS.contains(&c.kind.as_str()))
            && f.kind.as_ref().is_none_or(|k| &c.kind == k)
            && f.key_id.as_ref().is_none_or(|k| c.key_id.as_ref() == Some(k))
            && f.actor_id.as_ref().is_none_or(|a| c.actor.as_ref().is_some_and(|x| &x.id == a))
    };
    loop {
        // A filtered page reads ahead (most items may not match); an unfiltered one reads what it shows.
        let filtered = f.kind.is_some() || f.key_id.is_some() || f.actor_id.is_some() || !f.people;
        let want = if filtered { MAX_PAGE } else { limit - out.len() }.min(MAX_SCANNED - scanned).max(1);
        let q = Query { sk: SkCond::Between(lo.clone(), hi.clone()), ..base.clone() }.backward().limit(want).after(cursor.clone());
        let page = store.query(q).await?;
        let more = page.next.is_some();
        for i in page.items {
            scanned += 1;
            let c: Change = super::decode(i)?.value;
            cursor = Some(Cursor { pk: partition(account), sk: c.id.clone(), index_key: index_pk.clone().map(|p| (p, c.id.clone())) });
            if wanted(&c) {
                out.push(c);
            }
            if out.len() >= limit {
                break;
            }
        }
        if out.len() >= limit || scanned >= MAX_SCANNED {
            let next = if more || out.len() >= limit { cursor.map(|c| c.sk) } else { None };
            return Ok((out, next));
        }
        if !more {
            return Ok((out, None));
        }
    }
}

/// One change of the account.
pub async fn get(store: &dyn Store, account: &str, id: &str) -> RepoResult<Option<Change>> {
    if !crate::ids::plausible_id(id) {
        return Ok(None);
    }
    Ok(super::get::<Change>(store, &Key::new(partition(account), id)).await?.map(|v| v.value))
}

/// The newest change of a record.
pub async fn latest(store: &dyn Store, account: &str, record: &str) -> RepoResult<Option<Change>> {
    let q = Query::gsi1(record_partition(account, record)).backward().limit(1);
    Ok(super::query_all::<Change>(store, q).await?.into_iter().next().map(|v| v.value))
}
