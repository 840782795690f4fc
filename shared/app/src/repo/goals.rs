//! Goals: the record, and its flight on the campaign (written in the same transaction, so
//! the campaign's derived start/end/status are exact).

use super::{RepoError, RepoResult};
use crate::ids::plausible_id;
use crate::keys;
use crate::model::campaign::{Campaign, GoalFlight};
use crate::model::goal::Goal;
use crate::store::{Cond, Item, Key, Query, Store, TxOp};

use super::{name_index, Versioned};

fn key(account: &str, id: &str) -> Key {
    keys::record(account, keys::GOAL, id)
}

/// A live goal of the account with its (live) campaign; else 404.
pub async fn load(store: &dyn Store, account: &str, id: &str) -> RepoResult<(Versioned<Goal>, Versioned<Campaign>)> {
    find(store, account, id).await?.ok_or_else(|| RepoError::not_found("goal", id))
}

/// A live goal of the account with its (live) campaign, if there is one (a store failure
/// is an error, never "none").
pub async fn find(store: &dyn Store, account: &str, id: &str) -> RepoResult<Option<(Versioned<Goal>, Versioned<Campaign>)>> {
    if !plausible_id(id) {
        return Ok(None);
    }
    let goal: Versioned<Goal> = match super::get::<Goal>(store, &key(account, id)).await? {
        Some(g) if g.value.deleted_at.is_none() => g,
        _ => return Ok(None),
    };
    // A deleted campaign takes its goals with it.
    match super::campaigns::load(store, account, &goal.value.campaign_id).await {
        Ok(campaign) => Ok(Some((goal, campaign))),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// Live goals by id (one batch get), in the order of `ids`.
pub async fn load_many(store: &dyn Store, account: &str, ids: &[String]) -> RepoResult<Vec<Goal>> {
    let mut found: Vec<Goal> = by_ids(store, account, ids).await?.into_iter().filter(|g| g.deleted_at.is_none()).collect();
    found.sort_by_key(|g| ids.iter().position(|i| i == &g.id));
    Ok(found)
}

/// Goals by id (batch gets), deleted ones included, in no particular order.
pub async fn by_ids(store: &dyn Store, account: &str, ids: &[String]) -> RepoResult<Vec<Goal>> {
    let keys: Vec<Key> = ids.iter().map(|id| key(account, id)).collect();
    store.batch_get(&keys).await?.into_iter().map(|i| super::decode(i).map(|v| v.value)).collect()
}

/// A goal's stored item: its body and its name index entry, on `base` (key, version,
/// counters).
pub(super) fn stored_item(account: &str, g: &Goal, base: Item) -> RepoResult<Item> {
    let k = key(account, &g.id);
    Ok(Item { pk: k.pk, sk: k.sk, body: serde_json::to_string(g)?, gsi2: name_index::goal_entry(account, g), ..base })
}

/// The conditional put of a goal's next version.
pub(super) fn put_next(account: &str, cur: &Versioned<Goal>, g: &Goal) -> RepoResult<TxOp> {
    let base = Item { version: cur.version() + 1, ..cur.item.clone() };
    Ok(TxOp::Put(stored_item(account, g, base)?, Cond::Version(cur.version())))
}

/// The live goal count's change when a write deletes or restores a goal.
fn count_change(account: &str, old: &Goal, new: &Goal) -> Option<TxOp> {
    let live = |g: &Goal| i64::from(g.deleted_at.is_none());
    name_index::delta(account, &[(name_index::GOALS, live(new) - live(old))])
}

pub(super) fn flight(g: &Goal) -> GoalFlight {
    GoalFlight { id: g.id.clone(), start: g.start, end: g.end, deleted: g.deleted_at.is_some() }
}

/// The campaign's next version with the goal's flight recorded.
fn campaign_with(c: &Versioned<Campaign>, g: &Goal) -> RepoResult<TxOp> {
    let mut next = c.value.clone();
    next.set_goal(flight(g));
    Ok(TxOp::Put(super::next(&c.item, &next)?, Cond::Version(c.version())))
}

/// Creates a goal in its campaign. `build` makes the goal from the campaign as read (a
/// lost race reads the campaign again); a campaign that is not there is reported by
/// `missing` (the caller's 400 for a bad reference).
pub async fn create(
    store: &dyn Store,
    account: &str,
    campaign_id: &str,
    missing: impl Fn(RepoError) -> RepoError,
    build: impl Fn() -> Goal,
) -> RepoResult<Goal> {
    let mut tries = super::Attempts::new("campaign", campaign_id, None);
    loop {
        let campaign = super::campaigns::load(store, account, campaign_id).await.map_err(&missing)?;
        tries.check(campaign.version())?;
        if !campaign.value.has_room_for_a_goal() {
            return Err(RepoError::conflict(format!(
                "campaign {campaign_id} already has {} goals, the most a campaign may hold; delete one first",
                crate::model::campaign::MAX_GOALS
            )));
        }
        let g = build();
        let mut ops = vec![TxOp::Put(stored_item(account, &g, Item { version: 1, ..Item::default() })?, Cond::NotExists)];
        ops.push(campaign_with(&campaign, &g)?);
        ops.extend(name_index::delta(account, &[(name_index::GOALS, i64::from(g.deleted_at.is_none()))]));
        if tries.commit(store, ops).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(g);
            }
        }
    }
}

/// Changes a goal read as `first` (with its campaign), and the flight on the campaign.
pub async fn update(
    store: &dyn Store,
    account: &str,
    first: (Versioned<Goal>, Versioned<Campaign>),
    expected: Option<u64>,
    change: impl Fn(&Goal) -> RepoResult<Goal>,
) -> RepoResult<()> {
    let id = first.0.value.id.clone();
    let mut tries = super::Attempts::new("goal", &id, expected);
    let (mut cur, mut campaign) = first;
    loop {
        tries.check(cur.version())?;
        let g = change(&cur.value)?;
        let mut ops = vec![put_next(account, &cur, &g)?, campaign_with(&campaign, &g)?];
        ops.extend(count_change(account, &cur.value, &g));
        if tries.commit(store, ops).await? {
            {
                super::delivery::changed(store, account).await;
                return Ok(());
            }
        }
        (cur, campaign) = load(store, account, &id).await?;
    }
}

/// Deleting keeps a tombstone (for `/v3 includeDeletedGoals`); the campaign's flight no
/// longer counts it.
pub async fn remove(store: &dyn Store, account: &str, id: &str, now: chrono::DateTime<chrono::Utc>) -> RepoResult<()> {
    let first = load(store, account, id).await?;
    update(store, account, first, None, |g| {
        let mut g = g.clone();
        g.deleted_at = Some(now);
        Ok(g)
    })
    .await
}

/// Every goal of the account as stored (the /v3 lists).
pub async fn stored(store: &dyn Store, account: &str) -> RepoResult<super::Stored> {
    Ok(super::Stored(store.query(Query::partition(keys::partition(account, keys::GOAL))).await?.items))
}

/// One campaign's goals and the campaign itself, as stored (deleted ones included); empty
/// when there is no such campaign.
pub async fn stored_of_campaign(store: &dyn Store, account: &str, campaign: &str) -> RepoResult<(super::Stored, super::Stored)> {
    if !plausible_id(campaign) {
        return Ok((super::Stored::empty(), super::Stored::empty()));
    }
    let Some(citem) = store.get(&keys::record(account, keys::CAMPAIGN, campaign)).await? else {
        return Ok((super::Stored::empty(), super::Stored::empty()));
    };
    let c: Campaign = super::decode(citem.clone())?.value;
    let keys: Vec<Key> = c.goals.iter().map(|g| key(account, &g.id)).collect();
    Ok((super::Stored(store.batch_get(&keys).await?), super::Stored(vec![citem])))
}

/// Every goal of the account, deleted ones included.
pub async fn all(store: &dyn Store, account: &str) -> RepoResult<Vec<Goal>> {
    let found: Vec<Versioned<Goal>> = super::query_all(store, Query::partition(keys::partition(account, keys::GOAL))).await?;
    Ok(found.into_iter().map(|v| v.value).collect())
}

/// A goal, deleted or not, with its campaign (deleted or not): the /v3 reads show tombstones.
pub async fn get_any(store: &dyn Store, account: &str, id: &str) -> RepoResult<Option<(Goal, Campaign)>> {
    if !plausible_id(id) {
        return Ok(None);
    }
    let Some(g) = super::get::<Goal>(store, &key(account, id)).await?.map(|v| v.value) else { return Ok(None) };
    Ok(super::campaigns::get_any(store, account, &g.campaign_id).await?.map(|c| (g, c)))
}
