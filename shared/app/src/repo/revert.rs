//! Putting back the old values of a change (`POST /v1/changes/{id}/revert`), conditional
//! on the record being as that change left it. The write goes through the recording store,
//! so the revert is itself a change.

use serde_json::Value;

use super::{RepoError, RepoResult};
use crate::keys;
use crate::model::change::{self, Change};
use crate::model::rules::Parent;
use crate::store::{Cond, Store, TxOp};

fn later(c: &Change) -> RepoError {
    RepoError::conflict(format!(
        "{} {} was changed after change {} by a write not in the history; read it again",
        c.kind, c.record_id, c.id
    ))
}

fn patch<T: serde::Serialize + serde::de::DeserializeOwned>(value: &T, prefix: &str, c: &Change) -> RepoResult<T> {
    let mut body = serde_json::to_value(value)?;
    change::put_back(&mut body, prefix, &c.fields).map_err(RepoError::conflict)?;
    serde_json::from_value(body).map_err(|e| RepoError::conflict(format!("the old values no longer make a valid {}: {e}", c.kind)))
}

/// Writes the old values of `c` (an UPDATE) back into its record.
pub async fn put_back(store: &dyn Store, account: &str, c: &Change) -> RepoResult<()> {
    let rules = change::of_rules(c);
    if c.kind == "goal" && !rules {
        // A goal's dates are also its campaign's flight: the goal's own update writes both.
        let first = super::goals::load(store, account, &c.record_id).await?;
        if Some(first.0.version()) != c.version {
            return Err(later(c));
        }
        super::goals::update(store, account, first, c.version, |g| patch(g, "", c)).await?;
    } else if c.kind == "campaign" && !rules {
        // Through the campaign's own update: its index keys and client references follow.
        let first = super::campaigns::load(store, account, &c.record_id).await?;
        if Some(first.version()) != c.version {
            return Err(later(c));
        }
        super::campaigns::update(store, account, first, c.version, |x| patch(x, "", c)).await?;
    } else {
        let key = match (rules, c.kind.as_str(), partition_of(&c.kind)) {
            (true, "campaign", _) => keys::rules(account, Parent::Campaign, &c.record_id),
            (true, "goal", _) => keys::rules(account, Parent::Goal, &c.record_id),
            (false, _, Some(p)) => keys::record(account, p, &c.record_id),
            _ => return Err(RepoError::conflict(format!("a {} change cannot be reverted", c.kind))),
        };
        let item = store.get(&key).await?.ok_or_else(|| RepoError::not_found("record", c.record_id.clone()))?;
        if Some(item.version) != c.version {
            return Err(later(c));
        }
        let body: Value = serde_json::from_str(&item.body)?;
        let next = patch(&body, if rules { "rules" } else { "" }, c)?;
        let next = super::next(&item, &next)?;
        if !super::Attempts::new("record", &c.record_id, None).commit(store, vec![TxOp::Put(next, Cond::Version(item.version))]).await? {
            return Err(later(c));
        }
    }
    super::delivery::changed(store, account).await;
    Ok(())
}

/// The partition (`keys::*`) of a kind kept one record per item.
fn partition_of(kind: &str) -> Option<&'static str> {
    Some(match kind {
        "campaign" => keys::CAMPAIGN,
        "goal" => keys::GOAL,
        "ad" => keys::AD,
        "client" => keys::CLIENT,
        "contact" => keys::CONTACT,
        "template" => keys::TEMPLATE,
        "policy" => keys::POLICY,
        "asset" => keys::ASSET,
        _ => return None,
    })
}
