//! Administration (ADMIN): the account's users (create, change role, disable, reset the
//! password) and API keys (create with a role, the key shown once; revoke), over the
//! people use cases and the same body rules as `/v1/users` and `/v1/api-keys`.

use super::error::ConsoleResult;
use axum::extract::Path;
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::IntoResponse;
use maud::{html, Markup};
use serde_json::json;

use super::form::{self, Field, Problems, Select, Spec};
use super::{page, redirect, ConsoleForm, ConsoleUser};
use crate::api::access::{read_new_key, read_new_user, read_password, read_user_update};
use crate::api::Within;
use crate::model::access::Role;
use crate::usecases::access as uc;
use crate::usecases::UseCaseError;

fn roles() -> Vec<(String, String)> {
    [Role::Viewer, Role::Trafficker, Role::Admin].iter().map(|r| (r.as_str().to_string(), r.as_str().to_string())).collect()
}

#[derive(serde::Deserialize, Default, Clone)]
pub struct UserForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    email: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    role: String,
    #[serde(default)]
    password: String,
    #[serde(default)]
    disabled: Option<String>,
    #[serde(default)]
    version: String,
}

/// The user and key forms' fields, with the API fields whose errors each shows.
const SPECS: &[Spec] = &[
    Spec { name: "email", label: "Email", api: &["email"] },
    Spec { name: "name", label: "Name", api: &["name"] },
    Spec { name: "role", label: "Role", api: &["role"] },
    Spec { name: "password", label: "Password", api: &["password"] },
    Spec { name: "currentPassword", label: "Your password", api: &["currentPassword"] },
    Spec { name: "disabled", label: "Disabled", api: &["disabled"] },
];

pub async fn list(Within(st): Within, user: ConsoleUser) -> ConsoleResult {
    let users = uc::list_users(&st, &user.account.id).await?;
    let body = html! {
        h1 { "Users" }
        form method="get" action="/console/users/new" { button type="submit" { "New user" } }
        table {
            thead { tr { th scope="col" { "Email" } th scope="col" { "Name" } th scope="col" { "Role" } th scope="col" { "State" } } }
            tbody {
                @for u in &users {
                    tr {
                        td { a href={ "/console/users/" (u.id) } { (u.email) } }
                        td { (u.name) }
                        td { (u.role.as_str()) }
                        td { @if u.disabled { "Disabled" } @else { "Enabled" } }
                    }
                }
            }
        }
    };
    Ok(page::page("Users", Some(&user), body).into_response())
}

fn user_form(user: &ConsoleUser, action: &str, f: &UserForm, p: &Problems, new: bool) -> Markup {
    html! {
        (form::summary(p))
        form.stack method="post" action=(form::action(user, action)) novalidate {
            (form::csrf(user))
            input type="hidden" name="version" value=(f.version);
            (Field { label: "Email", name: "email", kind: "email", value: &f.email, required: true, hint: None }.render(p))
            (Field { label: "Name", name: "name", kind: "text", value: &f.name, required: true, hint: None }.render(p))
            (Select { label: "Role", name: "role", options: &roles(), selected: &f.role, hint: Some("VIEWER reads; TRAFFICKER also changes campaigns; ADMIN also manages people, keys and demand") }.render(p))
            @if new {
                (Field { label: "Password", name: "password", kind: "password", value: "", required: true, hint: Some("12 to 128 characters") }.render(p))
            } @else {
                div.field.checks { input #disabled type="checkbox" name="disabled" value="true" checked[f.disabled.is_some()]; label for="disabled" { "Disabled (their sessions end)" } }
            }
            button type="submit" { "Save" }
        }
    }
}

pub async fn new_form(user: ConsoleUser) -> ConsoleResult {
    let f = UserForm { role: Role::Viewer.as_str().into(), ..UserForm::default() };
    Ok(page::page(
        "New user",
        Some(&user),
        html! { h1 { "New user" } (user_form(&user, "/console/users", &f, &Problems::default(), true)) },
    )
    .into_response())
}

pub async fn create(Within(st): Within, user: ConsoleUser, headers: HeaderMap, ConsoleForm(f): ConsoleForm<UserForm>) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let body = json!({"email": f.email.trim(), "name": f.name.trim(), "role": f.role, "password": f.password});
    let made = match read_new_user(&body) {
        Ok(input) => uc::create_user(&st, &user.account.id, input).await,
        Err(e) => Err(UseCaseError::validation(e)),
    };
    match made {
        Ok(u) => Ok(redirect(&format!("/console/users/{}?saved=1", u.id))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            Ok(page::with_status(
                page::page("New user", Some(&user), html! { h1 { "New user" } (user_form(&user, "/console/users", &f, &p, true)) }),
                StatusCode::UNPROCESSABLE_ENTITY,
            ))
        }
    }
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path(id): Path<String>) -> ConsoleResult {
    render(&st, &user, &id, None, Problems::default()).await
}

async fn render(st: &crate::state::AppState, user: &ConsoleUser, id: &str, refused: Option<UserForm>, p: Problems) -> ConsoleResult {
    let (u, version) = uc::get_user(st, &user.account.id, id).await?;
    let f = refused.unwrap_or_else(|| UserForm {
        email: u.email.clone(),
        name: u.name.clone(),
        role: u.role.as_str().into(),
        disabled: u.disabled.then(|| "true".into()),
        version: version.to_string(),
        ..UserForm::default()
    });
    let status = if p.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let body = html! {
        p { a href="/console/users" { "← Users" } }
        h1 { (u.email) }
        (user_form(user, &format!("/console/users/{id}"), &f, &p, false))
        h2 { "Reset the password" }
        form.stack method="post" action=(form::action(user, &format!("/console/users/{id}/password"))) {
            (form::csrf(user))
            label for="new-password" { "New password" }
            span.hint id="new-password-hint" { "12 to 128 characters; the user's sessions end" }
            input #new-password type="password" name="password" autocomplete="new-password" aria-describedby="new-password-hint";
            label for="currentPassword" { "Your password" }
            span.hint id="current-password-hint" { "Your own, to show it is you asking" }
            input #currentPassword type="password" name="currentPassword" autocomplete="current-password" required aria-describedby="current-password-hint";
            button type="submit" { "Set password" }
        }
    };
    Ok(page::with_status(page::page(&u.email, Some(user), body), status))
}

pub async fn update(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(f): ConsoleForm<UserForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let body = json!({"email": f.email.trim(), "name": f.name.trim(), "role": f.role, "disabled": f.disabled.is_some()});
    let Some(expected) = form::version(&f.version) else { return render(&st, &user, &id, Some(f), Problems::no_version()).await };
    let done = match read_user_update(&body, &id) {
        Ok(input) => uc::update_user(&st, &user.account.id, &id, input, Some(expected)).await.map(|_| ()),
        Err(e) => Err(UseCaseError::validation(e)),
    };
    match done {
        Ok(()) => Ok(redirect(&format!("/console/users/{id}?saved=1"))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            render(&st, &user, &id, Some(f), p).await
        }
    }
}

#[derive(serde::Deserialize, Default)]
pub struct PasswordForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    password: String,
    #[serde(default, rename = "currentPassword")]
    current_password: String,
}

pub async fn set_password(
    Within(st): Within,
    user: ConsoleUser,
    crate::api::client_addr::ClientAddr(from): crate::api::client_addr::ClientAddr,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(f): ConsoleForm<PasswordForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let Some(session) = crate::api::auth::cookie(&headers, crate::api::auth::SESSION_COOKIE).map(|t| crate::ids::hash_key(&t)) else {
        return Err(super::error::ConsoleError::SignIn);
    };
    let asker = uc::Asker { user_id: &user.user_id, session: &session, current_password: &f.current_password, from };
    let done = match read_password(&json!({"password": f.password})) {
        Ok(input) => uc::set_password(&st, &user.account.id, &id, input.password, Some(asker)).await,
        Err(e) => Err(UseCaseError::validation(e)),
    };
    match done {
        Ok(()) => Ok(redirect(&format!("/console/users/{id}?saved=1"))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            render(&st, &user, &id, None, p).await
        }
    }
}

pub async fn keys(Within(st): Within, user: ConsoleUser) -> ConsoleResult {
    keys_page(&st, &user, None, Problems::default()).await
}

/// The keys, with the form for a new one; `made` is a key just made, shown this once.
async fn keys_page(
    st: &crate::state::AppState,
    user: &ConsoleUser,
    made: Option<crate::model::access::CreatedKey>,
    p: Problems,
) -> ConsoleResult {
    let list = uc::list_keys(st, &user.account.id).await?;
    let a = &user.account;
    let body = html! {
        h1 { "API keys" }
        @if let Some(k) = &made {
            div.notice role="status" {
                p { strong { "The key “" (k.name) "” (" (k.role.as_str()) "):" } " copy it now; it is not shown again." }
                code.url #new-key { (k.key) }
                button.secondary type="button" data-copy="new-key" hidden { "Copy key" }
            }
        }
        (form::summary(&p))
        form method="get" action="/console/api-keys/new" { button type="submit" { "New key" } }
        table {
            thead { tr { th scope="col" { "Name" } th scope="col" { "Role" } th scope="col" { "Fingerprint" } th scope="col" { "Created" } th scope="col" { "Last used (hour)" } th scope="col" { "Revoke" } } }
            tbody {
                @for k in &list {
                    tr {
                        td { (k.name) }
                        td { (k.role.as_str()) }
                        td { code { (k.fingerprint) } }
                        td { (form::local(a, k.created)) }
                        td { (k.last_used.map(|t| form::local(a, t)).unwrap_or_else(|| "never".into())) }
                        td {
                            form method="post" action=(form::action(user, &format!("/console/api-keys/{}/revoke", k.id))) {
                                (form::csrf(user))
                                button.secondary type="submit" aria-describedby={ "key-" (k.id) } { "Revoke" }
                                span.hint id={ "key-" (k.id) } { "the key " (k.name) }
                            }
                        }
                    }
                }
            }
        }
    };
    let status = if p.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let mut res = page::with_status(page::page("API keys", Some(user), body), status);
    // A key shown once is kept by no cache.
    res.headers_mut().insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    Ok(res)
}

fn key_form(user: &ConsoleUser, f: &KeyForm, p: &Problems) -> Markup {
    html! {
        (form::summary(p))
        form.stack method="post" action=(form::action(user, "/console/api-keys")) novalidate {
            (form::csrf(user))
            (Field { label: "Name", name: "name", kind: "text", value: &f.name, required: true, hint: Some("What the key is for, e.g. reporting") }.render(p))
            (Select { label: "Role", name: "role", options: &roles(), selected: &f.role, hint: None }.render(p))
            button type="submit" { "Create" }
        }
    }
}

pub async fn new_key(user: ConsoleUser) -> ConsoleResult {
    let f = KeyForm { role: Role::Viewer.as_str().into(), ..KeyForm::default() };
    Ok(page::page(
        "New key",
        Some(&user),
        html! { p { a href="/console/api-keys" { "← API keys" } } h1 { "New key" } (key_form(&user, &f, &Problems::default())) },
    )
    .into_response())
}

#[derive(serde::Deserialize, Default)]
pub struct KeyForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    role: String,
}

/// Makes a key and answers the page with it (no redirect: the key is in this answer only).
pub async fn create_key(Within(st): Within, user: ConsoleUser, headers: HeaderMap, ConsoleForm(f): ConsoleForm<KeyForm>) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let made = match read_new_key(&json!({"name": f.name.trim(), "role": f.role})) {
        Ok(input) => uc::create_key(&st, &user.account.id, input, Some(&user.user_id)).await,
        Err(e) => Err(UseCaseError::validation(e)),
    };
    match made {
        Ok(k) => keys_page(&st, &user, Some(k), Problems::default()).await,
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            Ok(page::with_status(
                page::page("New key", Some(&user), html! { h1 { "New key" } (key_form(&user, &f, &p)) }),
                StatusCode::UNPROCESSABLE_ENTITY,
            ))
        }
    }
}

#[derive(serde::Deserialize, Default)]
pub struct RevokeForm {
    #[serde(default)]
    csrf: String,
}

pub async fn revoke_key(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(f): ConsoleForm<RevokeForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let known = id.len() == uc::FINGERPRINT_LEN && id.bytes().all(|b| b.is_ascii_hexdigit());
    let done = if known { uc::revoke_key(&st, &user.account.id, &id).await } else { Err(UseCaseError::not_found("API key", id)) };
    match done {
        Ok(()) => Ok(redirect("/console/api-keys")),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            keys_page(&st, &user, None, p).await
        }
    }
}
