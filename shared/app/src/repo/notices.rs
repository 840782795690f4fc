//! Won auctions' records and fired notices' markers (docs/programmatic.md, "Win records
//! and notices"): a win record holds the winner's `burl` until its impression is counted
//! (at most a tracking link's lifetime); a marker says a notice was fired, so a redelivered
//! message does not fire it again.

use serde::{Deserialize, Serialize};

use super::RepoResult;
use crate::keys;
use crate::store::{Cond, Item, Store, StoreError};

/// How long a win record waits for its impression: a tracking link's lifetime, and an hour.
pub const WIN_TTL_SECS: i64 = crate::delivery::tracking::MAX_AGE_SECS + 3600;
/// How long a notice's marker is kept (longer than any redelivery).
pub const MARKER_TTL_SECS: i64 = 3 * 86_400;

/// A won auction, by the impression it served.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Win {
    pub auction: String,
    pub partner: String,
    /// The `burl` with its macros replaced (none: the bid had none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub burl: Option<String>,
}

/// Keeps the win of impression `impression`.
pub async fn put_win(store: &dyn Store, account: &str, impression: &str, w: &Win, now: i64) -> RepoResult<()> {
    let mut item = super::item(keys::win(account, impression), w, 1)?;
    item.expires_at = Some(now + WIN_TTL_SECS);
    store.put(item, Cond::None).await?;
    Ok(())
}

/// The win of impression `impression`, when there was one.
pub async fn win(store: &dyn Store, account: &str, impression: &str) -> RepoResult<Option<Win>> {
    match store.get(&keys::win(account, impression)).await? {
        Some(item) => Ok(Some(super::decode::<Win>(item)?.value)),
        None => Ok(None),
    }
}

/// Whether the notice was fired already.
pub async fn fired(store: &dyn Store, n: &crate::jobs::Notice) -> RepoResult<bool> {
    Ok(store.get(&keys::notice_marker(&n.account, &n.about, &n.kind, &n.partner)).await?.is_some())
}

/// Marks the notice fired (a marker already there is fine: another delivery fired it).
pub async fn mark_fired(store: &dyn Store, n: &crate::jobs::Notice, now: i64) -> RepoResult<()> {
    let k = keys::notice_marker(&n.account, &n.about, &n.kind, &n.partner);
    let item = Item { pk: k.pk, sk: k.sk, version: 1, expires_at: Some(now + MARKER_TTL_SECS), body: "{}".into(), ..Item::default() };
    match store.put(item, Cond::NotExists).await {
        Ok(()) | Err(StoreError::ConditionFailed) => Ok(()),
        Err(e) => Err(e.into()),
    }
}
