//! Single sign-on's records (docs/single-sign-on.md): the provider's client secret, kept
//! apart from the directory in `A#<a>#SSO`, and a sign-in under way
//! (`SSO#<SHA-256 of state>`, ten minutes, read once).

use chrono::{DateTime, Duration, Utc};
use serde::{Deserialize, Serialize};

use super::{RepoError, RepoResult};
use crate::keys;
use crate::model::sso::SingleSignOn;
use crate::store::{Cond, Store, StoreError, TxOp};

/// How long a sign-in may stay at the provider.
pub const STATE_TTL: Duration = Duration::minutes(10);

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Secret {
    client_secret: String,
}

/// A sign-in under way at the provider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pending {
    pub account: String,
    pub nonce: String,
    pub verifier: String,
    pub redirect_uri: String,
    pub created: DateTime<Utc>,
}

/// The account's client secret, if one is set.
pub async fn secret(store: &dyn Store, account: &str) -> RepoResult<Option<String>> {
    Ok(super::get::<Secret>(store, &keys::sso_secret(account)).await?.map(|v| v.value.client_secret))
}

/// Sets (or removes, `None`) the account's provider, with a new client secret when one is
/// given (`Some("")` keeps the one set), in one directory change.
pub async fn set(
    store: &dyn Store,
    account: &str,
    provider: Option<SingleSignOn>,
    client_secret: Option<&str>,
    now: DateTime<Utc>,
) -> RepoResult<()> {
    let secret_op = match (&provider, client_secret) {
        (None, _) => Some(TxOp::Delete(keys::sso_secret(account), Cond::None)),
        (Some(_), Some(s)) if !s.is_empty() => {
            Some(TxOp::Put(super::item(keys::sso_secret(account), &Secret { client_secret: s.to_string() }, 1)?, Cond::None))
        }
        _ => None,
    };
    super::access::change(store, account, |dir| {
        let before = dir.single_sign_on.as_ref().and_then(|s| s.secret_set);
        dir.single_sign_on = provider.clone().map(|mut p| {
            p.secret_set = if matches!(client_secret, Some(s) if !s.is_empty()) { Some(now) } else { before };
            p
        });
        Ok(((), secret_op.clone().into_iter().collect()))
    })
    .await
}

/// Keeps a sign-in under way under the SHA-256 of its state.
pub async fn start(store: &dyn Store, state_hash: &str, p: &Pending) -> RepoResult<()> {
    let mut item = super::item(keys::sso_state(state_hash), p, 1)?;
    item.expires_at = Some((p.created + STATE_TTL).timestamp());
    store.put(item, Cond::NotExists).await.map_err(RepoError::from)
}

/// Takes the sign-in under way of this state: once (it is deleted as it is read, so a
/// replayed callback finds none), and only while it is live.
pub async fn take(store: &dyn Store, state_hash: &str, now: DateTime<Utc>) -> RepoResult<Option<Pending>> {
    let key = keys::sso_state(state_hash);
    let Some(found) = super::get::<Pending>(store, &key).await? else { return Ok(None) };
    let version = found.version();
    match store.delete(&key, Cond::Version(version)).await {
        Ok(()) => {}
        Err(StoreError::ConditionFailed) => return Ok(None),
        Err(e) => return Err(e.into()),
    }
    Ok(Some(found.value).filter(|p| now - p.created <= STATE_TTL))
}
