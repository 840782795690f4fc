//! Bulk edits as one conditional transaction: every record named, the records they keep in
//! step (a campaign's goal flights, a goal's ad summaries), and (through the recording
//! store) one change record per record. A record changed meanwhile makes the whole
//! transaction fail; it is read again and tried again, up to `WRITE_ATTEMPTS` (then 409).

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use super::{RepoError, RepoResult, Versioned};
use crate::domain_error::FieldError;
use crate::keys;
use crate::model::ad::Ad;
use crate::model::bulk;
use crate::model::campaign::Campaign;
use crate::model::goal::Goal;
use crate::rule::Rule;
use crate::store::{Cond, Key, Store, TxOp};

/// Records by id (deleted ones left out).
async fn read<T: serde::de::DeserializeOwned>(
    store: &dyn Store,
    account: &str,
    kind: &str,
    ids: &[String],
) -> RepoResult<BTreeMap<String, Versioned<T>>> {
    let keys: Vec<Key> = ids.iter().map(|id| keys::record(account, kind, id)).collect();
    let mut out = BTreeMap::new();
    for i in store.batch_get(&keys).await? {
        let deleted =
            serde_json::from_str::<serde_json::Value>(&i.body).ok().is_some_and(|v| v.get("deletedAt").is_some_and(|d| !d.is_null()));
        if !deleted {
            out.insert(i.sk.clone(), super::decode::<T>(i)?);
        }
    }
    Ok(out)
}

fn unknown(what: &str, ids: &[String], found: &BTreeMap<String, impl Sized>) -> Vec<FieldError> {
    ids.iter()
        .enumerate()
        .filter(|(_, id)| !found.contains_key(*id))
        .map(|(i, id)| FieldError::new(format!("ids[{i}]"), Rule::Reference, format!("ids[{i}]: no {what} {id} in this account")))
        .collect()
}

/// Writes `apply` to every goal of `ids` (and their campaigns' flights when `moves`):
/// the goals' new versions, in the order of `ids`.
pub async fn goals(
    store: &dyn Store,
    account: &str,
    ids: &[String],
    moves: bool,
    apply: impl Fn(&Goal) -> Result<Goal, Vec<FieldError>>,
) -> RepoResult<Vec<(String, u64)>> {
    let mut tries = super::Attempts::new("goals", "bulk", None);
    loop {
        tries.next_try()?;
        let found = read::<Goal>(store, account, keys::GOAL, ids).await?;
        let cids: Vec<String> =
            found.values().map(|g| g.value.campaign_id.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        let campaigns = read::<Campaign>(store, account, keys::CAMPAIGN, &cids).await?;
        let mut errors = unknown("goal", ids, &found);
        let mut next = Vec::new();
        for id in ids {
            let Some(g) = found.get(id) else { continue };
            if !campaigns.contains_key(&g.value.campaign_id) {
                errors.push(FieldError::new(format!("goals[{id}]"), Rule::Reference, format!("goal {id}'s campaign is deleted")));
                continue;
            }
            match apply(&g.value) {
                Ok(n) => next.push((g, n)),
                Err(mut e) => errors.append(&mut e),
            }
        }
        if !errors.is_empty() {
            return Err(RepoError::validation(errors));
        }
        bulk::check_size("goal", next.len(), if moves { campaigns.len() } else { 0 })?;
        let mut ops = Vec::new();
        for (cur, n) in &next {
            ops.push(super::goals::put_next(account, cur, n)?);
        }
        // One action on the name index's counts (a transaction names an item once).
        let live: i64 = next.iter().map(|(cur, n)| i64::from(n.deleted_at.is_none()) - i64::from(cur.value.deleted_at.is_none())).sum();
        ops.extend(super::name_index::delta(account, &[(super::name_index::GOALS, live)]));
        if moves {
            for c in campaigns.values() {
                let mut nc = c.value.clone();
                for (_, n) in next.iter().filter(|(_, n)| n.campaign_id == c.value.id) {
                    nc.set_goal(super::goals::flight(n));
                }
                ops.push(TxOp::Put(super::next(&c.item, &nc)?, Cond::Version(c.version())));
            }
        }
        if tries.commit(store, ops).await? {
            super::delivery::changed(store, account).await;
            return Ok(next.iter().map(|(cur, n)| (n.id.clone(), cur.version() + 1)).collect());
        }
    }
}

/// Writes `set` to every ad of `ids` and their goals' ad summaries, each ad checked within
/// its goal as the whole edit leaves it: the ads' new versions, in the order of `ids`.
pub async fn ads(
    store: &dyn Store,
    account: &str,
    ids: &[String],
    set: &bulk::AdSet,
    now: DateTime<Utc>,
) -> RepoResult<Vec<(String, u64)>> {
    let mut tries = super::Attempts::new("ads", "bulk", None);
    loop {
        tries.next_try()?;
        let found = read::<Ad>(store, account, keys::AD, ids).await?;
        let gids: Vec<String> =
            found.values().map(|a| a.value.goal_id.clone()).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        let mut goals = read::<Goal>(store, account, keys::GOAL, &gids).await?;
        let mut errors = unknown("ad", ids, &found);
        let next: Vec<(&Versioned<Ad>, Ad)> =
            ids.iter().filter_map(|id| found.get(id)).map(|a| (a, bulk::apply_ad(&a.value, set, now))).collect();
        let mut next_goals: BTreeMap<String, Goal> = goals.iter().map(|(id, g)| (id.clone(), g.value.clone())).collect();
        for (_, ad) in &next {
            if let Some(g) = next_goals.get_mut(&ad.goal_id) {
                match g.ads.iter_mut().find(|s| s.id == ad.id) {
                    Some(s) => *s = ad.summary(),
                    None => g.ads.push(ad.summary()),
                }
            }
        }
        for (_, ad) in &next {
            match next_goals.get(&ad.goal_id) {
                None => errors.push(FieldError::new(format!("ads[{}]", ad.id), Rule::Reference, format!("ad {}'s goal is deleted", ad.id))),
                Some(g) => errors.extend(
                    crate::model::ad::check_in_goal(ad, g, false)
                        .into_iter()
                        .map(|e| FieldError::new(format!("ads[{}].{}", ad.id, e.field), e.rule, format!("ad {}: {}", ad.id, e.message))),
                ),
            }
        }
        if !errors.is_empty() {
            return Err(RepoError::validation(errors));
        }
        bulk::check_size("ad", next.len(), goals.len())?;
        let mut ops = Vec::new();
        for (cur, ad) in &next {
            ops.push(TxOp::Put(super::next(&cur.item, ad)?, Cond::Version(cur.version())));
        }
        for (id, g) in &mut goals {
            if let Some(n) = next_goals.remove(id) {
                ops.push(TxOp::Put(super::next(&g.item, &n)?, Cond::Version(g.version())));
            }
        }
        if tries.commit(store, ops).await? {
            super::delivery::changed(store, account).await;
            return Ok(next.iter().map(|(cur, ad)| (ad.id.clone(), cur.version() + 1)).collect());
        }
    }
}
