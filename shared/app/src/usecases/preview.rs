//! Creative preview (docs/operations-guide.md, "Show me the ad"): a signed, expiring link
//! to one ad (`delivery::preview`), its VAST document and its player page.

use crate::ids::AccountId;
use chrono::{DateTime, Utc};

use super::{UseCaseError, UseCaseResult};
use crate::delivery::decide::Pick;
use crate::delivery::preview::{self, Grant};
use crate::delivery::snapshot::{compile, Snapshot};
use crate::delivery::tracking::RequestDims;
use crate::delivery::vast::{self, Links, Served, Version};
use crate::repo;
use crate::state::AppState;

/// A preview's links.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PreviewLinks {
    /// A VAST 3.0 document with exactly this ad; its tracking counts nowhere.
    pub vast_url: String,
    /// A web page that plays the ad (no key needed: it can be sent to an advertiser).
    pub player_url: String,
    /// When both links stop working (7 days).
    pub expires_at: DateTime<Utc>,
}

/// The ad as a preview serves it, compiled: its index in the snapshot, or 409 with the
/// reason it cannot play (its media not ready, a placeholder creative).
async fn compiled(st: &AppState, account: &AccountId, ad: &str, now: DateTime<Utc>) -> UseCaseResult<(Snapshot, u32)> {
    let input = repo::snapshot_load::of_ad(st.store.as_ref(), account, ad, &st.settings.media_base_url, now)
        .await?
        .ok_or_else(|| UseCaseError::not_found("ad", ad))?;
    let snap = compile(preview::prepared(input, ad), now);
    match snap.ad_index.get(ad) {
        Some(i) => {
            let i = *i;
            Ok((snap, i))
        }
        None => {
            let why =
                snap.left_out.iter().find(|l| l.id == ad).map_or_else(|| "it has nothing to play".to_string(), |l| l.reason.message());
            Err(UseCaseError::conflict(format!("ad {ad} cannot be previewed yet: {why}")))
        }
    }
}

/// `GET /v3/ads/{id}/preview`.
pub async fn link(st: &AppState, account: &AccountId, ad: &str) -> UseCaseResult<PreviewLinks> {
    let now = st.clock.now();
    compiled(st, account, ad, now).await?;
    let g = Grant { account: account.to_string(), ad: ad.to_string(), expires: now.timestamp() + preview::TTL_SECS };
    let t = g.token(&st.settings.preview_keys);
    let base = &st.settings.ad_request_base_url;
    Ok(PreviewLinks {
        vast_url: format!("{base}/v1/preview/{t}/vast.xml"),
        player_url: format!("{base}/v1/preview/{t}/player"),
        expires_at: DateTime::from_timestamp(g.expires, 0).unwrap_or(now),
    })
}

/// A preview token, checked: 403 when forged or expired.
pub fn grant(st: &AppState, token: &str) -> UseCaseResult<Grant> {
    let g = Grant::read(token, &st.settings.preview_keys)
        .ok_or_else(|| UseCaseError::Forbidden("this is not a preview link of this service".into()))?;
    if g.expired(st.clock.now()) {
        return Err(UseCaseError::Forbidden("this preview link has expired; ask for a new preview".into()));
    }
    Ok(g)
}

/// The preview's VAST document: the one ad, its links marked as a preview's.
pub async fn document(st: &AppState, token: &str) -> UseCaseResult<String> {
    let g = grant(st, token)?;
    let now = st.clock.now();
    let (snap, ad) = compiled(st, &AccountId::from(g.account.as_str()), &g.ad, now).await?;
    let goal = snap.ads[ad as usize].goal;
    let (key_id, key) = st.settings.tracking_keys.signing();
    let links =
        Links { base: &st.settings.ad_request_base_url, key_id, key, viewer: None, issued: now.timestamp(), dims: RequestDims::default() };
    let pick = Pick { ad, goal, skip: None };
    Ok(vast::vast(&snap, &[Served { pick: &pick, impression: g.impression(), won: None }], Version::V3, &links))
}
