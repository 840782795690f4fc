//! The records of counting (docs/store.md, docs/traffic-quality.md): what the counting
//! rules read for a group of events (markers, rate and spend tallies), the pace and
//! frequency records a group changes, and the one transaction that commits a judged group
//! (markers, metric counters, report cells, pace, frequency, rate and spend records). Keys
//! come from `keys.rs`; a record that does not decode is an error, never a zero.

use std::collections::HashMap;

use super::metrics::{AdPath, Deltas};
use super::{RepoError, RepoResult};
use crate::cause::Cause;
use crate::delivery::counting::{Event, Marker, MarkerId, Seen, Spend, Tallies, Tally, Wanted};
use crate::delivery::freq::FreqState;
use crate::delivery::ivt::Reason;
use crate::delivery::pacing::Pace;
use crate::keys;
use crate::store::{Cond, Item, Key, Store, TxOp};

/// How long a counted event's marker is kept: longer than any copy of its message can
/// live (the events queue keeps messages 4 days, its dead-letter queue 14; a redrive from
/// the DLQ must find every marker), so a redelivery or redrive counts nothing twice.
pub const MARKER_TTL_SECS: i64 = 19 * 86_400;

type Found = HashMap<Key, Item>;

async fn read_many(store: &dyn Store, keys: &[Key]) -> RepoResult<Found> {
    let mut out = HashMap::new();
    for chunk in keys.chunks(100) {
        for item in store.batch_get(chunk).await? {
            out.insert(Key::new(item.pk.clone(), item.sk.clone()), item);
        }
    }
    Ok(out)
}

fn corrupt(item: &Item, why: impl std::fmt::Display) -> RepoError {
    RepoError::Internal(Cause::msg(format!("corrupt record {}/{}: {why}", item.pk, item.sk)))
}

/// A versioned JSON record as read (default and version 0 when absent; corrupt: an error).
fn versioned<T: serde::de::DeserializeOwned + Default>(found: &Found, key: &Key) -> RepoResult<(T, u64)> {
    match found.get(key) {
        Some(item) => Ok((serde_json::from_str(&item.body).map_err(|e| corrupt(item, e))?, item.version)),
        None => Ok((T::default(), 0)),
    }
}

fn marker_key(account: &str, m: &MarkerId) -> Key {
    keys::event_marker(account, &m.impression, &m.slot)
}

/// A marker's body: the tracking call's id and its verdict (empty: valid), `<id>\t<verdict>`;
/// markers written before verdicts hold the id alone.
fn marker_of(item: &Item) -> RepoResult<Marker> {
    let (call, verdict) = item.body.split_once('\t').unwrap_or((item.body.as_str(), ""));
    let reason = match verdict {
        "" => None,
        v => Some(Reason::parse(v).ok_or_else(|| corrupt(item, format!("unknown verdict {v:?}")))?),
    };
    Ok(Marker { call: call.to_string(), reason })
}

/// What the counting rules of a group read, decoded.
pub async fn seen(store: &dyn Store, account: &str, w: &Wanted) -> RepoResult<Seen> {
    let markers: Vec<Key> = w.markers.iter().map(|m| marker_key(account, m)).collect();
    let rates: Vec<Key> = w.rates.iter().map(|(s, minute)| keys::rate(account, &s.key_part(), *minute)).collect();
    let spends: Vec<Key> = w.spends.iter().map(|(s, goal)| keys::spend(account, &s.key_part(), goal)).collect();
    let found = read_many(store, &[markers.as_slice(), &rates, &spends].concat()).await?;
    let mut out = Seen::default();
    for (m, k) in w.markers.iter().zip(&markers) {
        if let Some(item) = found.get(k) {
            out.markers.insert(m.clone(), marker_of(item)?);
        }
    }
    for (r, k) in w.rates.iter().zip(&rates) {
        if found.contains_key(k) {
            out.rates.insert(r.clone(), versioned::<Tally>(&found, k)?);
        }
    }
    for (s, k) in w.spends.iter().zip(&spends) {
        if found.contains_key(k) {
            out.spends.insert(s.clone(), versioned::<Spend>(&found, k)?);
        }
    }
    Ok(out)
}

/// The pace records of some goals and the frequency states of some viewers, with their
/// versions (absent: a new record at version 0).
pub type PacesAndFreqs = (HashMap<String, (Pace, u64)>, HashMap<String, (FreqState, u64)>);

pub async fn paces_and_freqs(store: &dyn Store, account: &str, goals: &[&str], viewers: &[&str]) -> RepoResult<PacesAndFreqs> {
    let pace_keys: Vec<Key> = goals.iter().map(|g| keys::pace(account, g)).collect();
    let freq_keys: Vec<Key> = viewers.iter().map(|v| keys::freq(account, v)).collect();
    let found = read_many(store, &[pace_keys.as_slice(), &freq_keys].concat()).await?;
    let mut paces = HashMap::new();
    for (g, k) in goals.iter().zip(&pace_keys) {
        paces.insert(g.to_string(), versioned::<Pace>(&found, k)?);
    }
    let mut freqs = HashMap::new();
    for (v, k) in viewers.iter().zip(&freq_keys) {
        freqs.insert(v.to_string(), versioned::<FreqState>(&found, k)?);
    }
    Ok((paces, freqs))
}

/// An event the rules counted: under which marker, valid or invalid.
pub struct Counted<'a> {
    pub event: &'a Event,
    pub reason: Option<Reason>,
    pub marker: MarkerId,
}

/// A judged group of one account's events, to be written at once.
pub struct Commit<'a> {
    pub account: &'a str,
    pub now: i64,
    pub counted: Vec<Counted<'a>>,
    pub tallies: Tallies,
    /// New pace records and frequency states, each with the version read.
    pub paces: Vec<(String, Pace, u64)>,
    pub freqs: Vec<(String, FreqState, u64)>,
    /// The account's zone offset at an instant (report cells are cut by local hour).
    pub offset_at: &'a (dyn Fn(i64) -> i32 + Sync),
}

fn put_versioned<T: serde::Serialize>(key: Key, value: &T, prev_version: u64, expires: Option<i64>) -> RepoResult<TxOp> {
    let mut item = super::item(key, value, prev_version + 1)?;
    item.expires_at = expires;
    let cond = if prev_version == 0 { Cond::NotExists } else { Cond::Version(prev_version) };
    Ok(TxOp::Put(item, cond))
}

fn marker_op(key: Key, id: &str, reason: Option<Reason>, now: i64) -> TxOp {
    let body = format!("{id}\t{}", reason.map_or("", Reason::as_str));
    TxOp::Put(
        Item { pk: key.pk, sk: key.sk, version: 1, expires_at: Some(now + MARKER_TTL_SECS), body, ..Item::default() },
        Cond::NotExists,
    )
}

/// The writes of a judged group: nothing is added unless its marker is written with it.
fn ops(c: &Commit<'_>) -> RepoResult<Vec<TxOp>> {
    let a = c.account;
    let mut ops: Vec<TxOp> =
        c.counted.iter().map(|x| marker_op(marker_key(a, &x.marker), &x.event.id, x.reason, x.event.at.max(c.now))).collect();
    let mut per_ad: std::collections::BTreeMap<AdPath, Deltas> = Default::default();
    let mut cells = Vec::new();
    for x in &c.counted {
        let e = x.event;
        let path = AdPath { campaign: e.campaign.clone(), goal: e.goal.clone(), ad: e.ad.clone() };
        let deltas = per_ad.entry(path).or_default();
        for (slot, n) in crate::delivery::counting::slots(e, x.reason) {
            deltas.push((slot, n));
            cells.push((e, slot, n));
        }
    }
    ops.extend(super::metrics::add_ops(a, &per_ad.into_iter().collect::<Vec<_>>()));
    ops.extend(super::reports::add_ops(cells.into_iter(), c.offset_at));
    let stamp = super::delivery::wall_ms();
    for (goal, pace, version) in &c.paces {
        let mut op = put_versioned(keys::pace(a, goal), pace, *version, None)?;
        if let TxOp::Put(item, _) = &mut op {
            // Serving processes read the pace records changed since their last read.
            item.gsi1 = Some(keys::pace_changed(a, goal, stamp));
        }
        ops.push(op);
    }
    for (viewer, freq, version) in &c.freqs {
        ops.push(put_versioned(keys::freq(a, viewer), freq, *version, None)?);
    }
    for ((s, minute), (tally, version, expires)) in &c.tallies.rates {
        ops.push(put_versioned(keys::rate(a, &s.key_part(), *minute), tally, *version, Some(*expires))?);
    }
    for ((s, goal), (spend, version, expires)) in &c.tallies.spends {
        ops.push(put_versioned(keys::spend(a, &s.key_part(), goal), spend, *version, Some(*expires))?);
    }
    Ok(ops)
}

/// Writes a judged group as one transaction; `Ok(false)` when a record moved (or a marker
/// was taken) since it was read: nothing was written, the group is judged again.
pub async fn commit(store: &dyn Store, c: &Commit<'_>, tries: &super::Attempts) -> RepoResult<bool> {
    tries.commit(store, ops(c)?).await
}

/// The most actions one event adds to a group's transaction: its marker, three counter
/// records, its report cell, pace, frequency, two rate and two spend records.
pub const ACTIONS_PER_EVENT: usize = 11;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::counting::Subject;
    use crate::store::embedded::EmbeddedStore;

    #[tokio::test]
    async fn a_corrupt_tally_or_marker_is_an_error_not_a_zero() {
        let s = EmbeddedStore::in_memory().unwrap();
        let subject = Subject::Viewer("v1".into());
        let k = keys::rate("a", &subject.key_part(), 10);
        s.put(Item { pk: k.pk, sk: k.sk, version: 1, body: "not json".into(), ..Item::default() }, Cond::None).await.unwrap();
        let w = Wanted { rates: vec![(subject, 10)], ..Wanted::default() };
        assert!(seen(&s, "a", &w).await.is_err());
        let m = MarkerId::of("i1", crate::model::enums::Counter::Impression);
        let k = marker_key("a", &m);
        s.put(Item { pk: k.pk, sk: k.sk, version: 1, body: "call\tbogus".into(), ..Item::default() }, Cond::None).await.unwrap();
        assert!(seen(&s, "a", &Wanted { markers: vec![m], ..Wanted::default() }).await.is_err());
    }
}
