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

use std::collections::HashSet;

use super::{RepoError, RepoResult};
use crate::keys;
use crate::model::campaign::Campaign;
use crate::model::goal::Goal;
use crate::store::{Cond, Item, Query, Store, TxOp};

/// Live campaigns.
pub const CAMPAIGNS: &str = "campaigns";
/// Live goals (deleted or not their campaign).
pub const GOALS: &str = "goals";
/// Live goals of deleted campaigns.
pub const HIDDEN: &str = "hidden";
/// Set (1) once every record of the account carries its index keys.
pub(super) const INDEXED: &str = "indexed";

/// The most bytes of the lower-case name a sort key holds: DynamoDB's sort keys hold 1,024
/// bytes, and a name of 255 characters can take more once lower-cased. Names that agree in
/// their first 960 bytes sort by id.
const NAME_BYTES: usize = 960;
/// Between the name and the id: below every printable character, so a name sorts before
/// the names it is a prefix of, as the lists compare them.
const SEP: char = '\u{1}';

/// The sort key of a record named `name`: its lower-case name, then its id.
pub fn sort_key(name: &str, id: &str) -> String {
    let mut lower = name.to_lowercase();
    if lower.len() > NAME_BYTES {
        let mut end = NAME_BYTES;
        while !lower.is_char_boundary(end) {
            end -= 1;
        }
        lower.truncate(end);
    }
    format!("{lower}{SEP}{id}")
}

/// The name part of a sort key.
fn name_of(sk: &str) -> &str {
    sk.rsplit_once(SEP).map_or(sk, |(n, _)| n)
}

/// A campaign's GSI2 entry: live campaigns only.
pub fn campaign_entry(account: &str, c: &Campaign) -> Option<(String, String)> {
    c.deleted_at.is_none().then(|| (keys::campaigns_by_name(account), sort_key(&c.name, &c.id)))
}

/// A goal's GSI2 entry: live goals only.
pub fn goal_entry(account: &str, g: &Goal) -> Option<(String, String)> {
    g.deleted_at.is_none().then(|| (keys::goals_by_name(account), sort_key(g.name.as_deref().unwrap_or(""), &g.id)))
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

pub async fn counts(store: &dyn Store, account: &str) -> RepoResult<Option<Counts>> {
    Ok(store.get(&keys::name_counts(account)).await?.filter(|i| i.counter(INDEXED) > 0).map(|i| Counts {
        campaigns: i.counter(CAMPAIGNS),
        goals: i.counter(GOALS),
        hidden: i.counter(HIDDEN),
    }))
}

/// Up to `n` entries of an index partition from the start (or the end), in order.
async fn first(store: &dyn Store, q: Query, n: usize) -> RepoResult<Vec<Item>> {
    let mut out: Vec<Item> = Vec::new();
    let mut q = q;
    while out.len() < n {
        let page = store.query(q.clone().limit(n - out.len())).await?;
        out.extend(page.items);
        match page.next {
            Some(c) => q.start_after = Some(c),
            None => break,
        }
    }
    Ok(out)
}

/// The default campaign page (live campaigns by name): the live count and the page's
/// records; `None` when the account's indexes are not complete.
pub async fn campaign_page(store: &dyn Store, account: &str, offset: usize, size: usize) -> RepoResult<Option<(usize, Vec<Item>)>> {
    let Some(n) = counts(store, account).await? else { return Ok(None) };
    let total = n.campaigns.max(0) as usize;
    if offset >= total {
        return Ok(Some((total, Vec::new())));
    }
    let mut items = first(store, Query::gsi2(keys::campaigns_by_name(account)), offset + size).await?;
    Ok(Some((total, items.split_off(offset.min(items.len())))))
}

/// What a goal's entry says of its campaign.
#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase")]
struct GoalCampaign {
    campaign_id: String,
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
        store.query(Query::gsi1(keys::campaigns_hiding(account))).await?.items.into_iter().map(|i| i.sk).collect()
    } else {
        HashSet::new()
    };
    let want = offset + size;
    let mut q = Query::gsi2(keys::goals_by_name(account));
    if descending {
        q = q.backward();
    }
    // Entries in index order, the hidden ones left out; read on past `want` while the name
    // stays the same, so that a descending page can order a name's goals by id.
    let mut shown: Vec<Item> = Vec::new();
    loop {
        let page = store.query(q.clone().limit(want.saturating_sub(shown.len()).max(1))).await?;
        let mut done = page.next.is_none();
        for item in page.items {
            let cid = serde_json::from_str::<GoalCampaign>(&item.body)
                .map_err(|e| RepoError::Internal(crate::cause::Cause::context(format!("corrupt record {}/{}", item.pk, item.sk), e)))?
                .campaign_id;
            if hiding.contains(&cid) {
                continue;
            }
            if shown.len() >= want && (!descending || sk_name(&item) != shown.last().map(sk_name).unwrap_or_default()) {
                done = true;
                break;
            }
            shown.push(item);
        }
        if done {
            break;
        }
        q.start_after = page.next;
    }
    if descending {
        // The index runs a name's goals by id downwards; the lists order them upwards.
        shown.sort_by(|x, y| sk_name(y).cmp(sk_name(x)).then(x.sk.cmp(&y.sk)));
    }
    shown.truncate(want);
    let page: Vec<Item> = shown.split_off(offset.min(shown.len()));
    let mut cids: Vec<crate::store::Key> = Vec::new();
    for item in &page {
        let cid = serde_json::from_str::<GoalCampaign>(&item.body).map(|g| g.campaign_id).unwrap_or_default();
        let k = keys::record(account, keys::CAMPAIGN, &cid);
        if !cids.contains(&k) {
            cids.push(k);
        }
    }
    let campaigns = store.batch_get(&cids).await?;
    Ok(Some((total, page, campaigns)))
}

/// The name part of an index entry's sort key.
fn sk_name(item: &Item) -> &str {
    item.gsi2.as_ref().map_or("", |(_, sk)| name_of(sk))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sort_keys_order_as_the_lists_compare_names() {
        let mut names = ["Beta", "alpha", "Alpha beta", "alpha!", "", "ÄRGER", "alp"];
        let mut keys: Vec<String> = names.iter().map(|n| sort_key(n, "id")).collect();
        keys.sort();
        names.sort_by_key(|n| n.to_lowercase());
        let from_keys: Vec<&str> = keys.iter().map(|k| name_of(k)).collect();
        let lower: Vec<String> = names.iter().map(|n| n.to_lowercase()).collect();
        assert_eq!(from_keys, lower);
        // A long name is cut at a character boundary, within DynamoDB's 1,024-byte sort key.
        let long = "é".repeat(255 * 2);
        let k = sort_key(&long, "00000000-0000-0000-0000-000000000000");
        assert!(k.len() <= 1024, "{}", k.len());
        assert!(name_of(&k).chars().all(|c| c == 'é'));
    }
}
