//! Authentication: the account of the request's API key (hashed, cached), its request
//! rate taken.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;

use crate::api::error::AppError;
use crate::ids::hash_key;
use crate::model::account::Account;
use crate::repo;
use crate::state::AppState;

/// The header carrying the account's API key.
pub const API_KEY_HEADER: &str = "x-o-api-key";

/// The authenticated account (`x-o-api-key`).
pub struct Auth(pub Account);

impl FromRequestParts<AppState> for Auth {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, AppError> {
        let key = parts
            .headers
            .get(API_KEY_HEADER)
            .ok_or_else(|| AppError::Unauthorized(format!("the {API_KEY_HEADER} header is required")))?
            .to_str()
            .map_err(|_| AppError::Unauthorized("unknown API key".into()))?
            .trim();
        if key.is_empty() || key.len() > 256 {
            return Err(AppError::Unauthorized("unknown API key".into()));
        }
        let h = hash_key(key);
        let (account, label) = match st.auth_cache.get(&h, st.clock.instant()) {
            Some(a) => a,
            None => {
                let a = repo::accounts::by_key_hash(st.store.as_ref(), &h)
                    .await?
                    .ok_or_else(|| AppError::Unauthorized("unknown API key".into()))?;
                st.auth_cache.put(h.clone(), a.clone(), st.clock.instant());
                a
            }
        };
        // A write's change records name the key by its fingerprint and label, never the key.
        if let Some(work) = parts.extensions.get::<std::sync::Arc<repo::changes::Work>>() {
            work.set_author(&h[..repo::accounts::FINGERPRINT_LEN.min(h.len())], label.as_deref());
        }
        // The request span (see `request_span`) carries the account from here on.
        tracing::Span::current().record("account", account.id.as_str());
        st.rate_limiter.take(&account.id, st.settings.account_rate_per_sec, st.settings.account_burst, st.clock.instant())?;
        Ok(Auth(account))
    }
}

/// The state a handler works with: the process's, within the request's unit of work when
/// it has one (`repo::changes::Work`, made by the router for a request that may write), so
/// its writes carry their change records and the compiles they ask for.
pub struct Within(pub AppState);

impl FromRequestParts<AppState> for Within {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, st: &AppState) -> Result<Self, Self::Rejection> {
        Ok(Within(match parts.extensions.get::<std::sync::Arc<repo::changes::Work>>() {
            Some(work) => st.clone().with_work(work.clone()),
            None => st.clone(),
        }))
    }
}
