//! The delivery engine's records (docs/store.md):
//! - `A#<a>#DELIVERY / VERSION`: counter `v`, bumped after every change to what is served
//!   (campaigns, goals, ads, rules, templates, policies, assets); servers rebuild their
//!   snapshot when it moves.
//! - `A#<a>#DELIVERY / PACE#<goal>`: a goal's pace record (`delivery::pacing::Pace`).
//!   One query of the partition reads the version and every pace record.
//! - `A#<a>#VIEWER#<pid> / FREQ`: the viewer's frequency state, beside the audience
//!   records of the same viewer (one query reads both).
//! - `A#<a>#EVENT#<impression> / <event>`: an event counted once, its body the tracking
//!   call's id and verdict (TTL 19 days: longer than a message can live, queue + DLQ).
//! - `A#<a>#RATE#<subject> / M#<minute>`, `A#<a>#SPEND#<subject> / G#<goal>`: the
//!   invalid-traffic rate and per-goal spend records (docs/traffic-quality.md).

use std::collections::HashMap;

use super::RepoResult;
use crate::delivery::freq::FreqState;
use crate::delivery::pacing::Pace;
use crate::keys;
use crate::model::audience::Viewer;
use crate::store::{Cond, Query, SkCond, Store};

pub use keys::{DELIVERY_VERSION_SK as VERSION_SK, FREQ_SK, PACE_PREFIX};
/// How long a counted event's marker is kept: longer than any copy of its message can
/// live (the events queue keeps messages 4 days, its dead-letter queue 14; a redrive from
/// the DLQ must find every marker), so a redelivery or redrive counts nothing twice.
pub const MARKER_TTL_SECS: i64 = 19 * 86_400;
/// The events queue's and its dead-letter queue's retention (template.yaml; a test holds
/// the template to these).
pub const EVENTS_RETENTION_SECS: i64 = 4 * 86_400;
pub const EVENTS_DLQ_RETENTION_SECS: i64 = 14 * 86_400;

pub use keys::{
    delivery_partition as partition, delivery_version as version_key, event_marker as marker_key, freq as freq_key, pace as pace_key,
};

/// Says that what the account serves changed: servers rebuild their snapshot, and the unit
/// of work the store runs in (`changes::Work`) gathers the account for one compile when the
/// request or job ends. Called by the repository functions after each such write (a lost
/// bump is repaired by the next one and by the snapshot's maximum age).
pub async fn changed(store: &dyn Store, account: &str) {
    if let Err(e) = store.add(&version_key(account), &[("v".into(), 1)], Cond::None).await {
        tracing::warn!(error = %e, account, "the delivery version was not bumped; servers pick the change up at the snapshot's maximum age");
    }
}

/// Where an account's compiled snapshot is (`A#<a>#DELIVERY / COMPILED`, written by the
/// compile worker; the item's version is the delivery version it was compiled at).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Compiled {
    /// The delivery version the records were read at.
    pub version: u64,
    /// The bucket object (`keys::compiled_object`).
    pub object: String,
    pub bytes: u64,
    /// `delivery::compiled::FORMAT` of the object.
    pub format: u16,
    pub goals: u32,
    pub ads: u32,
    pub built: chrono::DateTime<chrono::Utc>,
}

/// What one query of the delivery partition says.
#[derive(Debug, Default)]
pub struct State {
    pub version: u64,
    /// Each goal's pace record and its item version.
    pub paces: HashMap<String, (Pace, u64)>,
    pub compiled: Option<Compiled>,
}

/// The delivery version, the compiled snapshot's pointer and every goal's pace record
/// (one query).
pub async fn state(store: &dyn Store, account: &str) -> RepoResult<State> {
    let mut version = 0;
    let mut pace = HashMap::new();
    let mut compiled = None;
    for item in super::all_items(store, Query::partition(partition(account))).await? {
        if item.sk == VERSION_SK {
            version = item.counter("v").max(0) as u64;
        } else if item.sk == keys::COMPILED_SK {
            compiled = Some(super::decode::<Compiled>(item)?.value);
        } else if let Some(goal) = item.sk.strip_prefix(PACE_PREFIX) {
            let (goal, item_version) = (goal.to_string(), item.version);
            pace.insert(goal, (super::decode::<Pace>(item)?.value, item_version));
        }
    }
    Ok(State { version, paces: pace, compiled })
}

/// The pace records of `goals` (one batch get; a goal without an event has none).
pub async fn paces_of(store: &dyn Store, account: &str, goals: &[String]) -> RepoResult<HashMap<String, Pace>> {
    let keys: Vec<crate::store::Key> =
        goals.iter().map(|g| crate::store::Key::new(partition(account), format!("{PACE_PREFIX}{g}"))).collect();
    let mut out = HashMap::new();
    for item in store.batch_get(&keys).await? {
        if let Some(goal) = item.sk.strip_prefix(PACE_PREFIX).map(str::to_string) {
            out.insert(goal, super::decode::<Pace>(item)?.value);
        }
    }
    Ok(out)
}

/// The wall clock in milliseconds: the pace records' change stamps and the serving
/// processes' read marks compare on it (never on an injected business clock).
pub fn wall_ms() -> i64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis() as i64)
}

/// The delivery version, the compiled pointer and the pace records changed at or after
/// `since_ms` (wall clock): one batch get and one query of GSI1, at once. What a serving
/// process that holds the account's pace records reads on a refresh: its size follows
/// the goals that delivered since, not the account.
pub async fn state_since(store: &dyn Store, account: &str, since_ms: i64) -> RepoResult<State> {
    let changes = Query::gsi1(keys::pace_changes(account)).sk(SkCond::Gt(keys::pace_changed_from(since_ms)));
    let (head, changed) = futures_util::future::join(version_and_compiled(store, account), super::all_items(store, changes)).await;
    let (version, compiled) = head?;
    let mut paces = HashMap::new();
    for item in changed? {
        if let Some(goal) = item.sk.strip_prefix(PACE_PREFIX) {
            let (goal, version) = (goal.to_string(), item.version);
            paces.insert(goal, (super::decode::<Pace>(item)?.value, version));
        }
    }
    Ok(State { version, paces, compiled: compiled.map(|(c, _)| c) })
}

/// The delivery version and the compiled pointer alone (one batch get): what the compile
/// worker compares.
pub async fn version_and_compiled(store: &dyn Store, account: &str) -> RepoResult<(u64, Option<(Compiled, u64)>)> {
    let keys = [version_key(account), keys::delivery_compiled(account)];
    let mut version = 0;
    let mut compiled = None;
    for item in store.batch_get(&keys).await? {
        if item.sk == VERSION_SK {
            version = item.counter("v").max(0) as u64;
        } else if item.sk == keys::COMPILED_SK {
            let stored = item.version;
            compiled = Some((super::decode::<Compiled>(item)?.value, stored));
        }
    }
    Ok((version, compiled))
}

/// What `put_compiled` did with the pointer.
#[derive(Debug, Clone, PartialEq)]
pub enum Pointed {
    /// Moved to the new snapshot; the object it named before, if any.
    Moved(Option<String>),
    /// Left alone: it names this version or a newer one already (that object).
    Kept(String),
}

/// Points serving processes at a newly compiled snapshot, unless the pointer already names
/// this version or a newer one (a slower worker never moves it back).
pub async fn put_compiled(store: &dyn Store, account: &str, c: &Compiled) -> RepoResult<Pointed> {
    let mut tries = super::Attempts::worker("compiled snapshot", account);
    loop {
        tries.next_try()?;
        let (_, current) = version_and_compiled(store, account).await?;
        let cond = match &current {
            Some((old, _)) if old.version >= c.version => return Ok(Pointed::Kept(old.object.clone())),
            Some((_, stored)) => Cond::Version(*stored),
            None => Cond::NotExists,
        };
        let item = super::item(keys::delivery_compiled(account), c, current.as_ref().map_or(1, |(_, v)| v + 1))?;
        match store.put(item, cond).await {
            Ok(()) => return Ok(Pointed::Moved(current.map(|(old, _)| old.object))),
            Err(crate::store::StoreError::ConditionFailed) => continue,
            Err(e) => return Err(e.into()),
        }
    }
}

/// The viewer's audience segment ids (`<provider>[<segmentation>]=<segment>`) and frequency
/// state (one query of the viewer's partition).
pub async fn viewer(store: &dyn Store, account: &str, pid: &str) -> RepoResult<(Vec<String>, FreqState, u64)> {
    let page = store.query(Query::partition(keys::viewer_partition(account, pid)).limit(100)).await?;
    let mut segments = Vec::new();
    let mut freq = FreqState::default();
    let mut version = 0;
    for item in page.items {
        if item.sk == FREQ_SK {
            version = item.version;
            freq = super::decode::<FreqState>(item)?.value;
        } else {
            let provider = item.sk.clone();
            let v: Viewer = super::decode::<Viewer>(item)?.value;
            segments.extend(v.segments.iter().map(|(sg, seg)| format!("{provider}[{sg}]={seg}")));
        }
    }
    Ok((segments, freq, version))
}
