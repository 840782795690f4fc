//! Single sign-on through an account's OpenID provider (docs/single-sign-on.md): the
//! authorization code flow with PKCE, the ID token verified against the provider's keys,
//! the person provisioned at their first sign-in with the role their claims map to.

use std::net::IpAddr;
use std::time::Duration;

use base64::Engine;
use serde::Deserialize;
use sha2::{Digest, Sha256};

use super::sign_in::SignIn;
use super::{UseCaseError, UseCaseResult};
use crate::demand::client::Call;
use crate::ids::{hash_key, AccountId};
use crate::model::access::{normalise_email, UserEntry};
use crate::model::sso::{SingleSignOn, SsoInput};
use crate::repo;
use crate::repo::sso::Pending;
/// How long a sign-in may stay at the provider (its state's cookie lives as long).
pub use crate::repo::sso::STATE_TTL;
use crate::state::AppState;

/// The most a provider's answer (discovery, token, keys) may weigh.
const ANSWER_MAX: usize = 256 * 1024;
/// Each call to the provider.
const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Why a sign-in through the provider was refused (the sign-in page says it).
#[derive(Debug, Clone, PartialEq)]
pub enum Refused {
    /// The sign-in is not one this browser started, or it took too long.
    Stale,
    /// The provider or its answer failed a check (named).
    Provider(String),
    /// The person has no role in this account, or their user is disabled.
    NoRole,
}

/// The account's provider and whether a client secret is set.
pub async fn provider(st: &AppState, account: &AccountId) -> UseCaseResult<(Option<SingleSignOn>, bool)> {
    let (dir, _) = repo::access::directory(st.store.as_ref(), account).await?;
    let set = dir.single_sign_on.as_ref().is_some_and(|s| s.secret_set.is_some());
    Ok((dir.single_sign_on, set))
}

/// Sets the account's provider (an ADMIN's); every broken rule named, nothing changed.
pub async fn set(st: &AppState, account: &AccountId, input: &SsoInput) -> UseCaseResult<()> {
    let (_, secret_set) = provider(st, account).await?;
    let provider = input.check(secret_set).map_err(UseCaseError::validation)?;
    // The provider is called from here: an address the outbound rule allows (https, public).
    if let Err(e) = crate::download::check_endpoint(&format!("{}/", provider.issuer), st.settings.sso_allow_private_urls) {
        return Err(UseCaseError::validation(vec![crate::domain_error::FieldError::new(
            "issuer",
            crate::rule::Rule::Url,
            format!("issuer {e}"),
        )]));
    }
    let secret = input.client_secret.trim();
    Ok(repo::sso::set(st.store.as_ref(), account, Some(provider), Some(secret), st.clock.now()).await?)
}

/// Removes the account's provider (and its secret).
pub async fn remove(st: &AppState, account: &AccountId) -> UseCaseResult<()> {
    Ok(repo::sso::set(st.store.as_ref(), account, None, None, st.clock.now()).await?)
}

#[derive(Debug, Deserialize)]
struct Discovery {
    issuer: String,
    authorization_endpoint: String,
    token_endpoint: String,
    jwks_uri: String,
}

async fn fetch<T: serde::de::DeserializeOwned>(st: &AppState, url: &str, form: Option<String>) -> Result<T, Refused> {
    let headers: &[(&str, &str)] = match form {
        Some(_) => &[("accept", "application/json"), ("content-type", "application/x-www-form-urlencoded")],
        None => &[("accept", "application/json")],
    };
    let call =
        Call { url, json: form, headers, timeout: CALL_TIMEOUT, max_bytes: ANSWER_MAX, allow_private: st.settings.sso_allow_private_urls };
    let answer = st.bidders.call(call).await.map_err(|e| Refused::Provider(format!("{url}: {e}")))?;
    if !(200..300).contains(&answer.status) {
        return Err(Refused::Provider(format!("{url} answered {}", answer.status)));
    }
    serde_json::from_slice(&answer.body).map_err(|e| Refused::Provider(format!("{url} answered what is not its document: {e}")))
}

async fn discover(st: &AppState, p: &SingleSignOn) -> Result<Discovery, Refused> {
    let d: Discovery = fetch(st, &format!("{}/.well-known/openid-configuration", p.issuer), None).await?;
    if d.issuer.trim_end_matches('/') != p.issuer {
        return Err(Refused::Provider(format!("the discovery document names another issuer ({})", d.issuer)));
    }
    Ok(d)
}

/// Starts a sign-in through the account's provider: where to send the browser, and the
/// state its cookie keeps. `None`: the account has no provider.
pub async fn begin(st: &AppState, account: &AccountId, redirect_uri: &str) -> UseCaseResult<Result<(String, String), Refused>> {
    let (Some(p), _) = provider(st, account).await? else { return Ok(Err(Refused::NoRole)) };
    let d = match discover(st, &p).await {
        Ok(d) => d,
        Err(r) => return Ok(Err(r)),
    };
    let (state, nonce, verifier) = (crate::ids::secret_hex::<32>(), crate::ids::secret_hex::<32>(), crate::ids::secret_hex::<32>());
    let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    let pending = Pending {
        account: account.to_string(),
        nonce: nonce.clone(),
        verifier,
        redirect_uri: redirect_uri.to_string(),
        created: st.clock.now(),
    };
    repo::sso::start(st.store.as_ref(), &hash_key(&state), &pending).await?;
    let query = serde_urlencoded::to_string([
        ("response_type", "code"),
        ("client_id", p.client_id.as_str()),
        ("redirect_uri", redirect_uri),
        ("scope", "openid email profile"),
        ("state", state.as_str()),
        ("nonce", nonce.as_str()),
        ("code_challenge", challenge.as_str()),
        ("code_challenge_method", "S256"),
    ])
    .map_err(UseCaseError::internal)?;
    let sep = if d.authorization_endpoint.contains('?') { '&' } else { '?' };
    Ok(Ok((format!("{}{sep}{query}", d.authorization_endpoint), state)))
}

#[derive(Debug, Deserialize)]
struct TokenAnswer {
    id_token: String,
}

/// The claims this service reads; the rest (the role claim among them) stay in `other`.
#[derive(Debug, Deserialize)]
struct Claims {
    email: Option<String>,
    email_verified: Option<bool>,
    name: Option<String>,
    nonce: Option<String>,
    #[serde(flatten)]
    other: serde_json::Map<String, serde_json::Value>,
}

/// Finishes a sign-in at the provider's callback: `state` from the query and from the
/// browser's cookie, `code` from the query. A session (`SignIn::Started`), or why not.
/// Counted as a sign-in attempt of the address `from` is.
pub async fn finish(
    st: &AppState,
    state: &str,
    cookie_state: &str,
    code: &str,
    from: Option<IpAddr>,
) -> UseCaseResult<Result<SignIn, Refused>> {
    use subtle::ConstantTimeEq;
    let now = st.clock.now();
    if state.is_empty()
        || state.len() > 128
        || code.is_empty()
        || code.len() > 2048
        || !bool::from(state.as_bytes().ct_eq(cookie_state.as_bytes()))
    {
        return Ok(Err(Refused::Stale));
    }
    let Some(pending) = repo::sso::take(st.store.as_ref(), &hash_key(state), now).await? else { return Ok(Err(Refused::Stale)) };
    let account = pending.account.clone();
    let (Some(p), _) = provider(st, &AccountId::from(account.clone())).await? else { return Ok(Err(Refused::NoRole)) };
    let held = match super::sign_in::count_address(st, from, now).await? {
        Ok(held) => held,
        Err(refused) => return Ok(Ok(refused)),
    };
    let claims = match verified_claims(st, &p, &account, &pending, code).await {
        Ok(c) => c,
        Err(r) => return Ok(Err(r)),
    };
    let Some(email) = claims.email.as_deref().map(normalise_email).filter(|e| !e.is_empty()) else {
        return Ok(Err(Refused::Provider("the ID token names no email".into())));
    };
    if claims.email_verified == Some(false) {
        return Ok(Err(Refused::Provider("the provider has not verified the email".into())));
    }
    let Some(role) = p.role_of(&claims.other) else { return Ok(Err(Refused::NoRole)) };
    let user_id = match provision(st, &account, &email, claims.name.as_deref(), role).await? {
        Some(id) => id,
        None => return Ok(Err(Refused::NoRole)),
    };
    super::sign_in::forgive(st, &held, now).await?;
    let (token, csrf) = (super::sign_in::token(), super::sign_in::token());
    repo::sessions::start(st.store.as_ref(), &account, &user_id, &hash_key(&token), &csrf, false, now).await?;
    Ok(Ok(SignIn::Started { token, csrf, account }))
}

/// The code exchanged for an ID token, verified: signature (the provider's key of its
/// `kid`, RS256 or ES256), issuer, audience, expiry and nonce.
async fn verified_claims(st: &AppState, p: &SingleSignOn, account: &str, pending: &Pending, code: &str) -> Result<Claims, Refused> {
    use jsonwebtoken::{decode, decode_header, jwk::JwkSet, Algorithm, DecodingKey, Validation};
    let d = discover(st, p).await?;
    let secret = repo::sso::secret(st.store.as_ref(), account).await.map_err(|e| Refused::Provider(e.to_string()))?.unwrap_or_default();
    let form = serde_urlencoded::to_string([
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", pending.redirect_uri.as_str()),
        ("client_id", p.client_id.as_str()),
        ("client_secret", secret.as_str()),
        ("code_verifier", pending.verifier.as_str()),
    ])
    .map_err(|e| Refused::Provider(e.to_string()))?;
    let answer: TokenAnswer = fetch(st, &d.token_endpoint, Some(form)).await?;
    let header = decode_header(&answer.id_token).map_err(|e| Refused::Provider(format!("the ID token: {e}")))?;
    if !matches!(header.alg, Algorithm::RS256 | Algorithm::ES256) {
        return Err(Refused::Provider(format!("the ID token is signed with {:?} (RS256 or ES256 here)", header.alg)));
    }
    let keys: JwkSet = fetch(st, &d.jwks_uri, None).await?;
    let jwk = match &header.kid {
        Some(kid) => keys.find(kid),
        None if keys.keys.len() == 1 => keys.keys.first(),
        None => None,
    }
    .ok_or_else(|| Refused::Provider("the provider's keys hold none for the ID token".into()))?;
    let key = DecodingKey::from_jwk(jwk).map_err(|e| Refused::Provider(format!("the provider's key: {e}")))?;
    let mut v = Validation::new(header.alg);
    v.set_issuer(&[p.issuer.as_str(), d.issuer.as_str()]);
    v.set_audience(&[p.client_id.as_str()]);
    v.leeway = 60;
    let claims = decode::<Claims>(&answer.id_token, &key, &v).map_err(|e| Refused::Provider(format!("the ID token: {e}")))?.claims;
    let nonce_ok = claims.nonce.as_deref().is_some_and(|n| n == pending.nonce);
    if !nonce_ok {
        return Err(Refused::Provider("the ID token's nonce is not this sign-in's".into()));
    }
    Ok(claims)
}

/// The user of `email` in the account: made at their first sign-in with `role` (an
/// unusable password: they sign in through the provider); `None` when disabled.
async fn provision(
    st: &AppState,
    account: &str,
    email: &str,
    name: Option<&str>,
    role: crate::model::access::Role,
) -> UseCaseResult<Option<String>> {
    let (dir, _) = repo::access::directory(st.store.as_ref(), account).await?;
    if let Some(u) = dir.user_by_email(email) {
        return Ok((!u.disabled).then(|| u.id.clone()));
    }
    let password_hash = crate::passwords::hash(crate::ids::secret_hex::<32>()).await.map_err(UseCaseError::Internal)?;
    let now = st.clock.now();
    let name: String = name.unwrap_or(email).trim().chars().take(crate::model::access::NAME_MAX).collect();
    let name = if name.is_empty() { email.to_string() } else { name };
    let user = UserEntry::new(email.to_string(), name, role, password_hash, now);
    let id = user.id.clone();
    let made = repo::access::change(st.store.as_ref(), account, |dir| {
        // Made meanwhile by another sign-in of the same person: that one.
        if let Some(u) = dir.user_by_email(email) {
            return Ok(((!u.disabled).then(|| u.id.clone()), Vec::new()));
        }
        dir.users.push(user.clone());
        Ok((Some(id.clone()), Vec::new()))
    })
    .await?;
    Ok(made)
}
