//! The name indexes behind the default `/v3` pages (docs/publisher-scale.md, section 4):
//! live campaigns and live goals by lower-case name then id, on GSI2, and their live counts
//! on one item, so a page sorted by name reads what it shows (and the entries before it),
//! never every record of the account.
//!
//! - A campaign's and a goal's index keys are written with the record, by the record's own
//!   item builder (`campaigns::item`, `goals::stored_item`); the counts move in the same
//!   transaction ([`delta`]).
//! - Deleting a campaign does not touch its goals (up to 500, more than one transaction
//!   holds): their entries stay, the campaign is listed on GSI1 `CAMPAIGN_HIDING`, and the
//!   count `hidden` holds its live goals; a goal page skips them.
//! - An account whose records were written before the indexes has no `indexed` count: its
//!   pages are read the old way until `repo::reindex::rebuild` has run (`seed::apply` runs
//!   it once, `admin reindex` on demand).

use std::collections::{HashMap, HashSet};

use super::RepoResult;
use crate::keys;
use crate::model::campaign::Campaign;
use crate::model::goal::Goal;
use crate::store::{Cond, Item, Key, Query, Store, TxOp};

/// Live campaigns.
pub const CAMPAIGNS: &str = "campaigns";
/// Live goals (deleted or not their campaign).
pub const GOALS: &str = "goals";
/// Live goals of deleted campaigns.
pub const HIDDEN: &str = "hidden";
/// Set (1) once every record of the account carries its index keys.
pub(super) const INDEXED: &str = "indexed";
/// Set (1) on `keys::delivery_indexes` once every campaign carries the open campaigns'
/// index key (`repo::campaigns::open`), where the delivery engine reads it.
pub(super) const OPEN_INDEXED: &str = "open";

/// The most bytes of the lower-case name a sort key holds: DynamoDB's sort keys hold 1,024
/// bytes, and a name of 255 characters can take more once lower-cased. Names that agree in
/// their first 940 bytes sort by id.
const NAME_BYTES: usize = 940;
/// Between the name and the id: below every printable character, so a name sorts before
/// the names it is a prefix of, as the lists compare them.
const SEP: char = '\u{1}';

/// The sort key of a record named `name`: its lower-case name, then its id (a goal's: then
/// its campaign's id, so a page can skip a deleted campaign's goals from the keys alone).
pub fn sort_key(name: &str, ids: &[&str]) -> String {
    let mut key = name.to_lowercase();
    if key.len() > NAME_BYTES {
        let mut end = NAME_BYTES;
        while !key.is_char_boundary(end) {
            end -= 1;
        }
        key.truncate(end);
    }
    for id in ids {
        key.push(SEP);
        key.push_str(id);
    }
    key
}

/// A sort key's name and its `N` ids (ids hold no separator; a name may).
fn parts<const N: usize>(sk: &str) -> (&str, [&str; N]) {
    let mut ids = [""; N];
    let mut rest = sk;
    for slot in ids.iter_mut().rev() {
        let (head, id) = rest.rsplit_once(SEP).unwrap_or(("", rest));
        *slot = id;
        rest = head;
    }
    (rest, ids)
}

/// A campaign's GSI2 entry: live campaigns only.
pub fn campaign_entry(account: &str, c: &Campaign) -> Option<(String, String)> {
    c.deleted_at.is_none().then(|| (keys::campaigns_by_name(account), sort_key(&c.name, &[&c.id])))
}

/// A goal's GSI2 entry: live goals only.
pub fn goal_entry(account: &str, g: &Goal) -> Option<(String, String)> {
    g.deleted_at.is_none().then(|| (keys::goals_by_name(account), sort_key(g.name.as_deref().unwrap_or(""), &[&g.id, &g.campaign_id])))
}

/// A campaign's live goals (what its deletion hides).
pub fn live_goals(c: &Campaign) -> i64 {
    c.goals.iter().filter(|g| !g.deleted).count() as i64
}

/// The counts' change, as one action of the write's transaction (none when nothing moves).
pub fn delta(account: &str, deltas: &[(&str, i64)]) -> Option<TxOp> {
    let d: Vec<(String, i64)> = deltas.iter().filter(|(_, n)| *n != 0).map(|(k, n)| (k.to_string(), *n)).collect();
    (!d.is_empty()).then(|| TxOp::Add(keys::name_counts(account), d, Cond::None))
}

/// The live counts, when the account's indexes are complete.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub campaigns: i64,
    pub goals: i64,
    pub hidden: i64,
}

/// Whether every campaign of the account carries the open campaigns' index key (accounts
/// written before it are compiled from all their records until `reindex::rebuild` ran).
pub async fn open_indexed(store: &dyn Store, account: &str) -> RepoResult<bool> {
    Ok(store.get(&keys::delivery_indexes(account)).await?.is_some_and(|i| i.counter(OPEN_INDEXED) > 0))
}

pub async fn counts(store: &dyn Store, account: &str) -> RepoResult<Option<Counts>> {
    Ok(store.get(&keys::name_counts(account)).await?.filter(|i| i.counter(INDEXED) > 0).map(|i| Counts {
        campaigns: i.counter(CAMPAIGNS),
        goals: i.counter(GOALS),
        hidden: i.counter(HIDDEN),
    }))
}

/// The fewest index keys a walk asks for at once (keys only: about 100 bytes each).
const WALK_CHUNK: usize = 100;

/// The index sort keys of up to `n` entries of `q` (keys only), in index order, with
/// those `skip` refuses left out; read on past `n` while `more` says the entry belongs with
/// the last one taken.
async fn walk(
    store: &dyn Store,
    mut q: Query,
    n: usize,
    skip: impl Fn(&str) -> bool,
    more: impl Fn(&str, &str) -> bool,
) -> RepoResult<Vec<String>> {
    let mut out: Vec<String> = Vec::new();
    loop {
        // At least a chunk a query: skipped entries and a descending page's run of equal
        // names would otherwise cost a query each.
        let page = store.query(q.clone().keys_only().limit(n.saturating_sub(out.len()).max(WALK_CHUNK))).await?;
        for item in page.items {
            let Some((_, sk)) = item.gsi2 else { continue };
            if skip(&sk) {
                continue;
            }
            if out.len() >= n && !out.last().is_some_and(|last| more(last, &sk)) {
                return Ok(out);
            }
            out.push(sk);
        }
        match page.next {
            Some(c) => q.start_after = Some(c),
            None => return Ok(out),
        }
    }
}

/// The records of each `(kind, ids)` (one batch get for all), each kind's in the order of
/// its `ids`; missing ones left out.
async fn records<const N: usize>(store: &dyn Store, account: &str, wanted: [(&str, &[&str]); N]) -> RepoResult<[Vec<Item>; N]> {
    let keys: Vec<Key> = wanted.iter().flat_map(|(kind, ids)| ids.iter().map(|id| keys::record(account, kind, id))).collect();
    let found = store.batch_get(&keys).await?;
    Ok(wanted.map(|(kind, ids)| {
        let (pk, place) = (keys::partition(account, kind), ids.iter().enumerate().map(|(i, id)| (*id, i)).collect::<HashMap<_, _>>());
        let mut mine: Vec<Item> = found.iter().filter(|i| i.pk == pk).cloned().collect();
        mine.sort_by_key(|i| place.get(i.sk.as_str()).copied());
        mine
    }))
}

/// The default campaign page (live campaigns by name): the live count and the page's
/// records; `None` when the account's indexes are not complete.
pub async fn campaign_page(store: &dyn Store, account: &str, offset: usize, size: usize) -> RepoResult<Option<(usize, Vec<Item>)>> {
    let Some(n) = counts(store, account).await? else { return Ok(None) };
    let total = n.campaigns.max(0) as usize;
    if offset >= total {
        return Ok(Some((total, Vec::new())));
    }
    let sks = walk(store, Query::gsi2(keys::campaigns_by_name(account)), offset + size, |_| false, |_, _| false).await?;
    let ids: Vec<&str> = sks.iter().skip(offset).map(|sk| parts::<1>(sk).1[0]).collect();
    let [campaigns] = records(store, account, [(keys::CAMPAIGN, &ids)]).await?;
    Ok(Some((total, campaigns)))
}

/// The default goal page (live goals of live campaigns by name, then id; `descending` by
/// name, ties still by id): the count, and the page's goal and campaign records; `None`
/// when the account's indexes are not complete.
pub async fn goal_page(
    store: &dyn Store,
    account: &str,
    offset: usize,
    size: usize,
    descending: bool,
) -> RepoResult<Option<(usize, Vec<Item>, Vec<Item>)>> {
    let Some(n) = counts(store, account).await? else { return Ok(None) };
    let total = (n.goals - n.hidden).max(0) as usize;
    if offset >= total {
        return Ok(Some((total, Vec::new(), Vec::new())));
    }
    let hiding: HashSet<String> = if n.hidden > 0 {
        let q = Query::gsi1(keys::campaigns_hiding(account)).keys_only();
        store.query(q).await?.items.into_iter().map(|i| i.sk).collect()
    } else {
        HashSet::new()
    };
    let mut q = Query::gsi2(keys::goals_by_name(account));
    if descending {
        q = q.backward();
    }
    // Descending, the index runs a name's goals by id downwards where the lists order them
    // upwards: read the whole last name, then order.
    let same_name = |a: &str, b: &str| descending && parts::<2>(a).0 == parts::<2>(b).0;
    let mut sks = walk(store, q, offset + size, |sk| hiding.contains(parts::<2>(sk).1[1]), same_name).await?;
    if descending {
        sks.sort_by(|x, y| {
            let ((xn, [xg, _]), (yn, [yg, _])) = (parts::<2>(x), parts::<2>(y));
            yn.cmp(xn).then(xg.cmp(yg))
        });
    }
    sks.truncate(offset + size);
    let page: Vec<(&str, [&str; 2])> = sks.iter().skip(offset).map(|sk| parts::<2>(sk)).collect();
    let goal_ids: Vec<&str> = page.iter().map(|(_, [g, _])| *g).collect();
    let mut campaign_ids: Vec<&str> = page.iter().map(|(_, [_, c])| *c).collect();
    campaign_ids.sort_unstable();
    campaign_ids.dedup();
    let [goals, campaigns] = records(store, account, [(keys::GOAL, &goal_ids), (keys::CAMPAIGN, &campaign_ids)]).await?;
    Ok(Some((total, goals, campaigns)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_order_as_the_lists_compare_names() {
        let mut names = ["Beta", "alpha", "Alpha beta", "alpha!", "", "ÄRGER", "alp"];
        let mut keys: Vec<String> = names.iter().map(|n| sort_key(n, &["id", "campaign"])).collect();
        keys.sort();
        names.sort_by_key(|n| n.to_lowercase());
        let from_keys: Vec<&str> = keys.iter().map(|k| parts::<2>(k).0).collect();
        let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
        assert_eq!(from_keys, lower);
        assert_eq!(parts::<2>(&sort_key("a\u{1}b", &["g", "c"])), ("a\u{1}b", ["g", "c"]), "a name may hold the separator");
        // A long name is cut at a character boundary, within DynamoDB's 1,024-byte sort key.
        let long = "é".repeat(255 * 2);
        let k = sort_key(&long, &["00000000-0000-0000-0000-000000000000", "00000000-0000-0000-0000-000000000000"]);
        assert!(k.len() <= 1024, "{}", k.len());
        assert!(parts::<2>(&k).0.chars().all(|c| c == 'é'));
    }
}
