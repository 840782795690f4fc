//! The signed-in person's own account page (docs/people-and-roles.md, "Two-factor"): their
//! second factor (set up with a secret shown as text and as a QR code, confirmed with a
//! first code, ten recovery codes shown once; turned off with their password) and, for an
//! ADMIN, the account's sign-in settings (require two-factor of everyone).

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup, PreEscaped};

use super::error::ConsoleResult;
use super::form::{self, Field, Problems, Select, Spec};
use super::{page, redirect, ConsoleForm, ConsoleUser};
use crate::api::client_addr::ClientAddr;
use crate::api::Within;
use crate::model::access::Role;
use crate::model::two_factor::TwoFactor;
use crate::state::AppState;
use crate::usecases::two_factor as uc;

/// The issuer an authenticator app lists the secret under.
const ISSUER: &str = "Ad operations console";

const SPECS: &[Spec] = &[
    Spec { name: "code", label: "Code", api: &["code"] },
    Spec { name: "currentPassword", label: "Your password", api: &["currentPassword"] },
    Spec { name: "name", label: "Provider name", api: &["name"] },
    Spec { name: "issuer", label: "Issuer", api: &["issuer"] },
    Spec { name: "clientId", label: "Client id", api: &["clientId"] },
    Spec { name: "clientSecret", label: "Client secret", api: &["clientSecret"] },
    Spec { name: "roleClaim", label: "Role claim", api: &["roleClaim"] },
    Spec { name: "roles", label: "Roles", api: &["roles"] },
    Spec { name: "defaultRole", label: "Default role", api: &["defaultRole"] },
];

/// What the page shows besides the person's standing.
enum Shown {
    Nothing,
    /// A secret just made, waiting for its first code.
    SetUp(TwoFactor),
    /// The recovery codes of a second factor just turned on: this once.
    Recovery(Vec<String>),
}

pub async fn show(Within(st): Within, user: ConsoleUser) -> ConsoleResult {
    render(&st, &user, Shown::Nothing, Problems::default()).await
}

async fn render(st: &AppState, user: &ConsoleUser, shown: Shown, p: Problems) -> ConsoleResult {
    let (tf, required) = uc::status(st, &user.account.id, &user.user_id).await?;
    let status = if p.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let on = tf.as_ref().is_some_and(|t| t.confirmed);
    let waiting = match (&shown, &tf) {
        (Shown::SetUp(t), _) => Some(t.clone()),
        (_, Some(t)) if !t.confirmed => Some(t.clone()),
        _ => None,
    };
    let body = html! {
        h1 { "Your account" }
        (form::summary(&p))
        p { "Signed in as " strong { (user.email) } " (" (user.role.as_str()) ")." }
        @if required && !on {
            p.error role="alert" { "This account requires two-factor sign-in: set it up to go on." }
        }
        h2 { "Two-factor sign-in" }
        @if let Shown::Recovery(codes) = &shown {
            p role="status" { "Two-factor sign-in is on. These are your recovery codes: each signs you in once without your app. They are shown this once: keep them somewhere safe." }
            ol.recovery aria-label="Recovery codes" { @for c in codes { li { code { (c) } } } }
        }
        @if on {
            p { "On: signing in asks for a code from your authenticator app after your password. "
                (tf.as_ref().map_or(0, |t| t.recovery.len())) " recovery codes left." }
            @if !required {
                form.stack method="post" action=(form::action(user, "/console/account/two-factor/off")) {
                    (form::csrf(user))
                    (password_field(&p))
                    button type="submit" { "Turn off two-factor" }
                }
            }
        } @else if let Some(t) = waiting {
            (set_up(user, &t, &p))
        } @else {
            p { "Off: signing in asks for your password only." }
            form method="post" action=(form::action(user, "/console/account/two-factor/begin")) {
                (form::csrf(user))
                button type="submit" { "Set up two-factor" }
            }
        }
        @if user.role.allows(Role::Admin) {
            h2 { "Sign-in settings" }
            form.stack method="post" action=(form::action(user, "/console/account/sign-in-settings")) {
                (form::csrf(user))
                label.check {
                    input type="checkbox" name="requireTwoFactor" value="on" checked[required];
                    " Require two-factor sign-in for everyone in this account"
                }
                button type="submit" { "Save sign-in settings" }
            }
            (single_sign_on(st, user, &p).await?)
        }
    };
    Ok(page::with_status(page::page("Your account", Some(user), body), status))
}

/// An ADMIN's single sign-on settings (docs/single-sign-on.md): the account's OpenID
/// provider; the client secret is write-only (blank keeps it).
async fn single_sign_on(st: &AppState, user: &ConsoleUser, p: &Problems) -> ConsoleResult<Markup> {
    let (provider, secret_set) = crate::usecases::sso::provider(st, &user.account.id).await?;
    let v = |f: fn(&crate::model::sso::SingleSignOn) -> String| provider.as_ref().map(f).unwrap_or_default();
    let default_role = provider.as_ref().and_then(|s| s.default_role).map_or("", |r| r.as_str());
    let roles: Vec<(String, String)> = [("", "None: refuse")]
        .iter()
        .chain(Role::ALL.iter().map(|r| (r.as_str(), r.as_str())).collect::<Vec<_>>().iter())
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .collect();
    let link = format!("/console/sign-in?account={}", user.account.id);
    Ok(html! {
        h2 { "Single sign-on" }
        @if provider.is_some() {
            p { "People sign in with the provider from " a href=(link) { "this account's sign-in page" } ". Register "
                code { (super::sso::CALLBACK) } " (on this site's address) as its redirect URI." }
        } @else {
            p { "Off: people sign in with their email and password." }
        }
        form.stack method="post" action=(form::action(user, "/console/account/single-sign-on")) {
            (form::csrf(user))
            (Field { label: "Provider name", name: "name", kind: "text", value: &v(|s| s.name.clone()), required: true, hint: Some("The sign-in button reads \"Sign in with\" this") }.render(p))
            (Field { label: "Issuer", name: "issuer", kind: "url", value: &v(|s| s.issuer.clone()), required: true, hint: Some("The provider's issuer URL (https)") }.render(p))
            (Field { label: "Client id", name: "clientId", kind: "text", value: &v(|s| s.client_id.clone()), required: true, hint: None }.render(p))
            (Field { label: "Client secret", name: "clientSecret", kind: "password", value: "", required: !secret_set,
                hint: Some(if secret_set { "Set: never shown. Leave blank to keep it" } else { "Never shown again once saved" }) }.render(p))
            (Field { label: "Role claim", name: "roleClaim", kind: "text", value: &v(|s| s.role_claim.clone()), required: false, hint: Some("The ID token's claim with the person's groups (default groups)") }.render(p))
            div.field {
                label for="roles" { "Roles" }
                span.hint id="roles-hint" { "One line each: a claim value=ROLE, such as ad-ops=TRAFFICKER" }
                textarea #roles name="roles" rows="4" aria-describedby="roles-hint" { (v(|s| s.roles_text())) }
            }
            (Select { label: "Default role", name: "defaultRole", options: &roles, selected: default_role, hint: Some("The role of a person whose claim matches no line") }.render(p))
            button type="submit" { "Save single sign-on" }
        }
        @if provider.is_some() {
            form method="post" action=(form::action(user, "/console/account/single-sign-on/remove")) {
                (form::csrf(user))
                button type="submit" { "Remove single sign-on" }
            }
        }
    })
}

/// The set-up step: the secret as text and as a QR code, and the field of its first code.
fn set_up(user: &ConsoleUser, t: &TwoFactor, p: &Problems) -> Markup {
    html! {
        p { "Add this secret to an authenticator app: scan the QR code, or type the secret in. Then enter the code the app shows." }
        figure {
            (qr(&t.otpauth_url(ISSUER, &user.email)))
            figcaption { "Secret: " code #secret { (t.secret) } }
        }
        form.stack method="post" action=(form::action(user, "/console/account/two-factor/confirm")) {
            (form::csrf(user))
            (Field { label: "Code", name: "code", kind: "text", value: "", required: true, hint: Some("The six digits the app shows now") }.render(p))
            button type="submit" { "Turn on two-factor" }
        }
    }
}

fn password_field(p: &Problems) -> Markup {
    Field { label: "Your password", name: "currentPassword", kind: "password", value: "", required: true, hint: None }.render(p)
}

/// The `otpauth://` URL as a QR code, inline SVG (no script, no style: the page's CSP holds).
fn qr(url: &str) -> Markup {
    let Ok(code) = qrcode::QrCode::new(url.as_bytes()) else { return html! {} };
    let svg = code.render::<qrcode::render::svg::Color<'_>>().min_dimensions(200, 200).build();
    let svg = svg.find("<svg").map_or("", |i| &svg[i..]);
    let labelled = svg.replacen("<svg ", "<svg role=\"img\" aria-label=\"QR code of the secret\" class=\"qr\" ", 1);
    PreEscaped(labelled)
}

#[derive(serde::Deserialize)]
pub struct CodeForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    code: String,
}

#[derive(serde::Deserialize)]
pub struct PasswordForm {
    #[serde(default)]
    csrf: String,
    #[serde(default, rename = "currentPassword")]
    current_password: String,
}

#[derive(serde::Deserialize)]
pub struct SettingsForm {
    #[serde(default)]
    csrf: String,
    #[serde(default, rename = "requireTwoFactor")]
    require_two_factor: Option<String>,
}

pub async fn begin(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    ConsoleForm(f): ConsoleForm<super::sign_in::CsrfForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let t = uc::begin(&st, &user.account.id, &user.user_id).await?;
    render(&st, &user, Shown::SetUp(t), Problems::default()).await
}

pub async fn confirm(Within(st): Within, user: ConsoleUser, headers: HeaderMap, ConsoleForm(f): ConsoleForm<CodeForm>) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let code: String = f.code.chars().take(crate::model::two_factor::CODE_MAX).collect();
    match uc::confirm(&st, &user.account.id, &user.user_id, &code).await {
        Ok(codes) => {
            // This process reads the session again (no longer held to its account page);
            // other functions within their cache's 4 s.
            if let Some(token) = crate::api::auth::cookie(&headers, crate::api::auth::SESSION_COOKIE) {
                crate::api::auth::forget_session(&st, &crate::ids::hash_key(&token));
            }
            render(&st, &user, Shown::Recovery(codes), Problems::default()).await
        }
        Err(e) => render(&st, &user, Shown::Nothing, form::problems(e, SPECS)?).await,
    }
}

pub async fn turn_off(
    Within(st): Within,
    user: ConsoleUser,
    ClientAddr(from): ClientAddr,
    headers: HeaderMap,
    ConsoleForm(f): ConsoleForm<PasswordForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let done = uc::turn_off(&st, &user.account.id, &user.user_id, &f.current_password, from).await;
    saved(&st, &user, done).await
}

/// A saved form's answer: back to the page, or the page with what was refused.
async fn saved(st: &AppState, user: &ConsoleUser, done: crate::usecases::UseCaseResult<()>) -> ConsoleResult {
    match done {
        Ok(()) => Ok(redirect("/console/account")),
        Err(e) => render(st, user, Shown::Nothing, form::problems(e, SPECS)?).await,
    }
}

pub async fn settings(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    ConsoleForm(f): ConsoleForm<SettingsForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    uc::require(&st, &user.account.id, f.require_two_factor.is_some()).await?;
    Ok(redirect("/console/account").into_response())
}

#[derive(serde::Deserialize)]
pub struct SsoForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    issuer: String,
    #[serde(default, rename = "clientId")]
    client_id: String,
    #[serde(default, rename = "clientSecret")]
    client_secret: String,
    #[serde(default, rename = "roleClaim")]
    role_claim: String,
    #[serde(default)]
    roles: String,
    #[serde(default, rename = "defaultRole")]
    default_role: String,
}

pub async fn save_sso(Within(st): Within, user: ConsoleUser, headers: HeaderMap, ConsoleForm(f): ConsoleForm<SsoForm>) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let input = crate::model::sso::SsoInput {
        name: f.name,
        issuer: f.issuer,
        client_id: f.client_id,
        client_secret: f.client_secret,
        role_claim: f.role_claim,
        roles: f.roles,
        default_role: f.default_role,
    };
    let done = crate::usecases::sso::set(&st, &user.account.id, &input).await;
    saved(&st, &user, done).await
}

pub async fn remove_sso(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    ConsoleForm(f): ConsoleForm<super::sign_in::CsrfForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    crate::usecases::sso::remove(&st, &user.account.id).await?;
    Ok(redirect("/console/account"))
}

/// Whether a session that must set up a second factor first may open `path` (its account
/// page, the set-up's steps, signing out): the gate sends it to its account page otherwise.
pub fn open_before_enrolment(path: &str) -> bool {
    matches!(path, "/console/account" | "/console/account/two-factor/begin" | "/console/account/two-factor/confirm" | "/console/sign-out")
}

/// The account page, where a session that must set up a second factor is sent.
pub fn enrol_first() -> Response {
    redirect("/console/account")
}
