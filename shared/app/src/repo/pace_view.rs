//! The goals' pace records as a serving process holds them (docs/publisher-scale.md,
//! "Pace records"): by goal id with their item versions, read whole once, then only the
//! records changed since the last read (`repo::delivery::state_since`), and laid out in a
//! snapshot's goal order for the decisions.

use std::collections::HashMap;
use std::sync::Arc;

use crate::delivery::pacing::Pace;
use crate::delivery::snapshot::Snapshot;

/// Each goal's pace record and its item version.
pub type Paces = HashMap<String, (Pace, u64)>;

/// `held` with the records of `changed` that are newer than the held ones, and the goals
/// whose record moved (none: `held` itself is returned). Updated in place when the caller
/// holds the only reference (the refresh takes it out of the cache: no copy per refresh).
pub fn merged(mut held: Arc<Paces>, changed: Paces) -> (Arc<Paces>, Vec<String>) {
    let newer: Vec<(String, (Pace, u64))> = changed.into_iter().filter(|(g, (_, v))| held.get(g).is_none_or(|(_, old)| v > old)).collect();
    let goals = newer.iter().map(|(g, _)| g.clone()).collect();
    if !newer.is_empty() {
        Arc::make_mut(&mut held).extend(newer);
    }
    (held, goals)
}

/// The pace records of `snapshot`'s goals, in its order (a goal without one: zero).
pub fn aligned(snapshot: &Snapshot, paces: &Paces) -> Arc<Vec<Pace>> {
    Arc::new(snapshot.goals.iter().map(|g| paces.get(&g.id).map(|(p, _)| p.clone()).unwrap_or_default()).collect())
}

/// `laid` (aligned with `snapshot`) with the records of `goals` replaced from `paces`.
pub fn patched(snapshot: &Snapshot, laid: &Arc<Vec<Pace>>, paces: &Paces, goals: &[String]) -> Arc<Vec<Pace>> {
    if goals.is_empty() {
        return laid.clone();
    }
    let mut out = (**laid).clone();
    for g in goals {
        if let (Some(&i), Some((p, _))) = (snapshot.goal_index.get(g), paces.get(g)) {
            if let Some(slot) = out.get_mut(i as usize) {
                *slot = p.clone();
            }
        }
    }
    Arc::new(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pace(n: u64) -> Pace {
        Pace { impressions: n, delivered: n, ..Pace::default() }
    }

    #[test]
    fn only_newer_records_replace_held_ones() {
        let held: Arc<Paces> = Arc::new([("a".to_string(), (pace(5), 3)), ("b".to_string(), (pace(1), 1))].into());
        let (same, moved) = merged(held.clone(), [("a".to_string(), (pace(4), 2)), ("b".to_string(), (pace(1), 1))].into());
        assert!(Arc::ptr_eq(&same, &held) && moved.is_empty(), "older or equal versions change nothing");
        let (out, mut moved) = merged(held.clone(), [("a".to_string(), (pace(9), 4)), ("c".to_string(), (pace(2), 1))].into());
        moved.sort();
        assert_eq!(moved, ["a", "c"]);
        assert_eq!(out["a"], (pace(9), 4));
        assert_eq!(out["b"], (pace(1), 1));
        assert_eq!(out["c"], (pace(2), 1));
    }
}
