//! Signing in and out (docs/people-and-roles.md, "Sessions"): the sign-in page and its
//! form (a double-submit token), the second factor's code step for a user who has one, and
//! signing out.

use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::html;

use super::error::{ConsoleError, ConsoleResult};
use super::{page, redirect, set_cookie, token_matches, ConsoleForm, ConsoleUser, CSRF_COOKIE};
use crate::api::auth::{cookie, same_origin, SESSION_COOKIE};
use crate::api::client_addr::ClientAddr;
use crate::api::Within;
use crate::state::AppState;
use crate::usecases::sign_in::{sign_in as start, sign_in_code, sign_out as end, SignIn};

/// The cookie of a sign-in waiting for its second factor's code (the password was right).
pub const PENDING_COOKIE: &str = "o_pending";

#[derive(serde::Deserialize)]
pub struct PageQuery {
    /// The account whose OpenID provider the page offers (docs/single-sign-on.md).
    #[serde(default)]
    account: String,
}

pub async fn page(Within(st): Within, headers: HeaderMap, axum::extract::Query(q): axum::extract::Query<PageQuery>) -> ConsoleResult {
    let (token, fresh) = form_token(&headers);
    let account: String = q.account.chars().take(crate::limits::MAX_ID_LEN).collect();
    let provider = if account.is_empty() {
        None
    } else {
        crate::usecases::sso::provider(&st, &crate::ids::AccountId::from(account.clone())).await?.0.map(|p| (account, p.name))
    };
    let mut res = sign_in_form_with(&token, "", None, StatusCode::OK, provider.as_ref());
    if fresh {
        if let Ok(v) = HeaderValue::from_str(&set_cookie(&headers, CSRF_COOKIE, &token, 3600)) {
            res.headers_mut().append(header::SET_COOKIE, v);
        }
    }
    Ok(res)
}

/// A page that says why a sign-in did not happen, with the way back to the sign-in page.
pub fn message_page(message: &str, status: StatusCode) -> Response {
    let mut res = page::page(
        "Sign in",
        None,
        html! {
            h1 { "Sign in" }
            p.error role="alert" { (message) }
            p { a href="/console/sign-in" { "Back to sign in" } }
        },
    )
    .into_response();
    *res.status_mut() = status;
    res
}

/// The sign-in forms' double-submit token: the cookie's, or a new one (`true`: set it).
fn form_token(headers: &HeaderMap) -> (String, bool) {
    match cookie(headers, CSRF_COOKIE).filter(|t| t.len() == 64) {
        Some(t) => (t, false),
        None => (crate::usecases::sign_in::token(), true),
    }
}

fn sign_in_form(csrf: &str, email: &str, error: Option<&str>, status: StatusCode) -> Response {
    sign_in_form_with(csrf, email, error, status, None)
}

/// The sign-in form, with the button of an account's OpenID provider: (account, its name).
fn sign_in_form_with(csrf: &str, email: &str, error: Option<&str>, status: StatusCode, provider: Option<&(String, String)>) -> Response {
    let mut res = page::page(
        "Sign in",
        None,
        html! {
            h1 { "Sign in" }
            @if let Some(e) = error { p.error role="alert" { (e) } }
            form method="post" action="/console/sign-in" {
                input type="hidden" name="csrf" value=(csrf);
                label for="email" { "Email" }
                input #email type="email" name="email" autocomplete="username" required value=(email);
                label for="password" { "Password" }
                input #password type="password" name="password" autocomplete="current-password" required;
                button type="submit" { "Sign in" }
            }
            @if let Some((account, name)) = provider {
                p { a.button href={ "/console/sign-in/sso/" (account) } { "Sign in with " (name) } }
            }
        },
    )
    .into_response();
    *res.status_mut() = status;
    res
}

/// The code step's page: one field, `Code` (an authenticator's six digits or a recovery code).
fn code_form(csrf: &str, error: Option<&str>, status: StatusCode) -> Response {
    let mut res = page::page(
        "Two-factor code",
        None,
        html! {
            h1 { "Two-factor code" }
            @if let Some(e) = error { p.error role="alert" { (e) } }
            form method="post" action="/console/sign-in/code" {
                input type="hidden" name="csrf" value=(csrf);
                label for="code" { "Code" }
                span.hint id="code-hint" { "The six digits your authenticator app shows, or one of your recovery codes" }
                input #code type="text" name="code" inputmode="numeric" autocomplete="one-time-code" required autofocus aria-describedby="code-hint";
                button type="submit" { "Verify" }
            }
            p { a href="/console/sign-in" { "Start again" } }
        },
    )
    .into_response();
    *res.status_mut() = status;
    res
}

#[derive(serde::Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    email: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    csrf: String,
}

/// Refuses a sign-in form not sent from this site's sign-in page (its token is not the
/// cookie's, or `Origin` is another site's): 403, nothing counted.
fn from_this_site(headers: &HeaderMap, csrf: &str) -> ConsoleResult<String> {
    let cookie = cookie(headers, CSRF_COOKIE).unwrap_or_default();
    if !same_origin(headers) || !token_matches(csrf, &cookie) {
        return Err(ConsoleError::Forbidden(
            "The form was not sent from this site's sign-in page: open the sign-in page and try again.".into(),
        ));
    }
    Ok(cookie)
}

pub async fn sign_in(
    Within(st): Within,
    ClientAddr(from): ClientAddr,
    headers: HeaderMap,
    ConsoleForm(f): ConsoleForm<SignInForm>,
) -> ConsoleResult {
    let csrf = from_this_site(&headers, &f.csrf)?;
    let email = f.email.trim().chars().take(crate::model::access::EMAIL_MAX).collect::<String>();
    if f.password.chars().count() > crate::model::access::PASSWORD_MAX {
        return Ok(sign_in_form(&csrf, &email, Some("Email or password is wrong."), StatusCode::UNAUTHORIZED));
    }
    let outcome = start(&st, &email, &f.password, from).await?;
    Ok(answer(&st, &headers, outcome, |message, status| sign_in_form(&csrf, &email, Some(message), status)))
}

#[derive(serde::Deserialize)]
pub struct CodeForm {
    #[serde(default)]
    code: String,
    #[serde(default)]
    csrf: String,
}

/// The code step's page (after a right password, with the waiting sign-in's cookie).
pub async fn code_page(headers: HeaderMap) -> Response {
    if cookie(&headers, PENDING_COOKIE).is_none() {
        return redirect("/console/sign-in");
    }
    code_form(&form_token(&headers).0, None, StatusCode::OK)
}

pub async fn code(
    Within(st): Within,
    ClientAddr(from): ClientAddr,
    headers: HeaderMap,
    ConsoleForm(f): ConsoleForm<CodeForm>,
) -> ConsoleResult {
    let csrf = from_this_site(&headers, &f.csrf)?;
    let Some(pending) = cookie(&headers, PENDING_COOKIE) else { return Ok(redirect("/console/sign-in")) };
    let code: String = f.code.chars().take(crate::model::two_factor::CODE_MAX + 1).collect();
    let outcome = sign_in_code(&st, &pending, &code, from).await?;
    Ok(answer(&st, &headers, outcome, |message, status| {
        let message = if status == StatusCode::UNAUTHORIZED {
            "The code is wrong or has expired: try the code your app shows now, or start again."
        } else {
            message
        };
        code_form(&csrf, Some(message), status)
    }))
}

/// A sign-in step's answer: the session's cookie and the home page, the code step, or the
/// form again (`again`: its message and status) saying why.
fn answer(st: &AppState, headers: &HeaderMap, outcome: SignIn, again: impl Fn(&str, StatusCode) -> Response) -> Response {
    let cookie_of = |name: &str, value: &str, max_age: i64| HeaderValue::from_str(&set_cookie(headers, name, value, max_age)).ok();
    match outcome {
        SignIn::Started { token, .. } => {
            let mut res = redirect("/console/");
            let max_age = crate::usecases::sign_in::SESSION_MAX_AGE.num_seconds();
            let cookies = [cookie_of(SESSION_COOKIE, &token, max_age), cookie_of(PENDING_COOKIE, "", 0)];
            for v in cookies.into_iter().flatten() {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
            res
        }
        SignIn::CodeNeeded { pending } => {
            let mut res = redirect("/console/sign-in/code");
            let wait = crate::usecases::sign_in::CODE_WAIT.num_seconds();
            if let Some(v) = cookie_of(PENDING_COOKIE, &pending, wait) {
                res.headers_mut().append(header::SET_COOKIE, v);
            }
            res
        }
        SignIn::Refused => again("Email or password is wrong.", StatusCode::UNAUTHORIZED),
        SignIn::Busy => {
            let mut res = again("The service is busy signing people in: try again in a moment.", StatusCode::SERVICE_UNAVAILABLE);
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            res
        }
        SignIn::Throttled { until } => {
            let wait = (until - st.clock.now()).num_seconds().max(1);
            let mut res = again(
                &format!("Too many failed sign-ins from here: try again in {} minutes.", (wait + 59) / 60),
                StatusCode::TOO_MANY_REQUESTS,
            );
            if let Ok(v) = HeaderValue::from_str(&wait.to_string()) {
                res.headers_mut().insert(header::RETRY_AFTER, v);
            }
            res
        }
    }
}

#[derive(serde::Deserialize)]
pub struct CsrfForm {
    #[serde(default)]
    pub csrf: String,
}

pub async fn sign_out(Within(st): Within, headers: HeaderMap, user: ConsoleUser, ConsoleForm(f): ConsoleForm<CsrfForm>) -> ConsoleResult {
    super::form::guard(&user, &headers, &f.csrf)?;
    if let Some(token) = cookie(&headers, SESSION_COOKIE) {
        end(&st, &token).await?;
        crate::api::auth::forget_session(&st, &crate::ids::hash_key(&token));
    }
    let mut res = redirect("/console/sign-in");
    if let Ok(v) = HeaderValue::from_str(&set_cookie(&headers, SESSION_COOKIE, "", 0)) {
        res.headers_mut().append(header::SET_COOKIE, v);
    }
    Ok(res)
}
