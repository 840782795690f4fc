//! Signing in through an account's OpenID provider (docs/single-sign-on.md): the button's
//! start (to the provider, with the state in a cookie) and the provider's callback (a
//! session, or the sign-in page saying why not).

use axum::extract::{Path, Query};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::Response;

use super::error::ConsoleResult;
use super::{https, redirect, set_cookie};
use crate::api::auth::{cookie, SESSION_COOKIE};
use crate::api::client_addr::ClientAddr;
use crate::api::Within;
use crate::ids::AccountId;
use crate::usecases::sign_in::SignIn;
use crate::usecases::sso::{self as uc, Refused};

/// The cookie of a sign-in under way at the provider: its `state`.
pub const STATE_COOKIE: &str = "o_sso";
/// The callback's path (the redirect URI an ADMIN registers at the provider).
pub const CALLBACK: &str = "/console/sign-in/sso/callback";

/// This site's callback URL, as the browser reached this site.
fn redirect_uri(headers: &HeaderMap) -> String {
    let host = headers.get(header::HOST).and_then(|v| v.to_str().ok()).unwrap_or("localhost");
    format!("{}://{host}{CALLBACK}", if https(headers) { "https" } else { "http" })
}

fn refused_page(message: &str, status: StatusCode) -> Response {
    super::sign_in::message_page(message, status)
}

fn why(r: &Refused) -> String {
    match r {
        Refused::Stale => "That sign-in is not one this browser started, or it took too long: start again.".into(),
        Refused::Provider(m) => format!("The sign-in provider's answer was refused ({m}): ask your ADMIN."),
        Refused::NoRole => "Your account at the sign-in provider has no role here: ask your ADMIN.".into(),
    }
}

pub async fn begin(Within(st): Within, headers: HeaderMap, Path(account): Path<String>) -> ConsoleResult {
    let account: String = account.chars().take(crate::limits::MAX_ID_LEN).collect();
    match uc::begin(&st, &AccountId::from(account), &redirect_uri(&headers)).await? {
        Ok((to, state)) => {
            let mut res = redirect(&to);
            let ttl = crate::usecases::sso::STATE_TTL.num_seconds();
            if let Ok(v) = HeaderValue::from_str(&set_cookie(&headers, STATE_COOKIE, &state, ttl)) {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
            Ok(res)
        }
        Err(r) => Ok(refused_page(&why(&r), StatusCode::UNAUTHORIZED)),
    }
}

#[derive(serde::Deserialize)]
pub struct Callback {
    #[serde(default)]
    code: String,
    #[serde(default)]
    state: String,
    /// The provider's refusal (the person declined, or it failed).
    #[serde(default)]
    error: String,
}

pub async fn callback(Within(st): Within, ClientAddr(from): ClientAddr, headers: HeaderMap, Query(q): Query<Callback>) -> ConsoleResult {
    if !q.error.is_empty() {
        let e: String = q.error.chars().take(100).collect();
        return Ok(refused_page(&format!("The sign-in provider did not sign you in ({e})."), StatusCode::UNAUTHORIZED));
    }
    let cookie_state = cookie(&headers, STATE_COOKIE).unwrap_or_default();
    let outcome = uc::finish(&st, &q.state, &cookie_state, &q.code, from).await?;
    let mut res = match outcome {
        Ok(SignIn::Started { token, .. }) => {
            let mut res = redirect("/console/");
            let max_age = crate::usecases::sign_in::SESSION_MAX_AGE.num_seconds();
            if let Ok(v) = HeaderValue::from_str(&set_cookie(&headers, SESSION_COOKIE, &token, max_age)) {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
            res
        }
        Ok(SignIn::Throttled { .. }) => refused_page("Too many failed sign-ins from here: try again later.", StatusCode::TOO_MANY_REQUESTS),
        Ok(_) => refused_page("The service is busy signing people in: try again in a moment.", StatusCode::SERVICE_UNAVAILABLE),
        Err(r) => refused_page(&why(&r), StatusCode::UNAUTHORIZED),
    };
    if let Ok(v) = HeaderValue::from_str(&set_cookie(&headers, STATE_COOKIE, "", 0)) {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(res)
}
