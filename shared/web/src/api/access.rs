//! People and API keys (docs/people-and-roles.md), JSON, ADMIN only but for a user's own
//! password: `/v1/users`, `/v1/users/{id}` (`If-Match` on PUT), `/v1/users/{id}/password`,
//! `/v1/api-keys`, `/v1/api-keys/{id}`.

use crate::api::Access;
use axum::extract::Path;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Json;

use crate::api::auth::Caller;
use crate::api::client_addr::ClientAddr;
use crate::api::error::{AppError, AppResult};
use crate::api::{if_match, no_content, with_etag, Auth, JsonBody, Within};
use crate::domain_error::FieldError;
use crate::model::access::{
    check_email, check_name, check_password, CreatedKey, KeyView, NewKey, NewPassword, NewUser, Role, UserUpdate, UserView,
};
use crate::rule::Rule;
use crate::usecases::access as uc;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(list_users, create_user, get_user, replace_user, delete_user, set_password, list_keys, create_key, revoke_key),
    tags((name = "people", description = "Users and API keys, each with a role (VIEWER, TRAFFICKER, ADMIN); ADMIN only"))
)]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v1/users", Access::ADMIN, get(list_users).post(create_user))
        .route("/v1/users/{id}", Access::ADMIN, get(get_user).put(replace_user).delete(delete_user))
        .route("/v1/users/{id}/password", Access::VIEWER, post(set_password))
        .route("/v1/api-keys", Access::ADMIN, get(list_keys).post(create_key))
        .route("/v1/api-keys/{id}", Access::ADMIN, axum::routing::delete(revoke_key))
}

/// The account's users.
#[derive(serde::Serialize, utoipa::ToSchema)]
pub struct UserList {
    /// Every user of the account, in the order made.
    pub users: Vec<UserView>,
}

/// The account's API keys (never the keys themselves).
#[derive(serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyList {
    /// Every key of the account, in the order made.
    pub api_keys: Vec<KeyView>,
}

fn invalid(errors: Vec<FieldError>) -> AppError {
    AppError::Validation(errors)
}

fn user_rules(email: &mut String, name: &str, errors: &mut Vec<FieldError>) {
    *email = crate::model::access::normalise_email(email);
    check_email(email, "email", errors);
    check_name(name, "name", errors);
}

const NEW_USER: &str = r#"{"email": "ann@example.com", "name": "Ann Lee", "role": "TRAFFICKER", "password": "correct horse battery"}"#;
const USER: &str = r#"{"id": "7d1c2f7e-4d0b-4b36-9c8e-2f1d3a4b5c6d", "email": "ann@example.com", "name": "Ann Lee", "role": "TRAFFICKER", "disabled": false, "created": "2026-11-27T09:00:00Z", "modified": "2026-11-27T09:00:00Z"}"#;

fn example(s: &str) -> serde_json::Value {
    serde_json::from_str(s).unwrap_or_default()
}

#[utoipa::path(get, path = "/v1/users", tag = "people", summary = "List the account's users",
    description = "Every user, never a password or its hash. ADMIN only.",
    responses((status = 200, description = "The users", body = UserList, example = json!({"users": [example(USER)]})),
        (status = 403, description = "The caller is not ADMIN (type Forbidden)")))]
async fn list_users(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    Ok(Json(UserList { users: uc::list_users(&st, &a.id).await? }).into_response())
}

#[utoipa::path(post, path = "/v1/users", tag = "people", summary = "Add a user",
    description = "A person who signs in to the console. Email unique in the account (case-insensitive), at most 200 users; \
        the password (12-128 characters) is stored only as its Argon2id hash. ADMIN only.",
    request_body(content = NewUser, example = json!(example(NEW_USER))),
    responses((status = 201, description = "Added (Location, ETag)", body = UserView, headers(("Location" = String), ("ETag" = String))),
        (status = 400, description = "A field breaks a rule (named)"), (status = 403, description = "The caller is not ADMIN (type Forbidden), or the account has 200 users")))]
async fn create_user(Within(st): Within, Auth(a): Auth, JsonBody(v): JsonBody) -> AppResult<Response> {
    let input = read_new_user(&v).map_err(invalid)?;
    let user = uc::create_user(&st, &a.id, input).await?;
    let location = format!("/v1/users/{}", user.id);
    let res = (StatusCode::CREATED, [(header::LOCATION, location)], Json(user)).into_response();
    Ok(with_etag(res, 1))
}

#[utoipa::path(get, path = "/v1/users/{id}", tag = "people", summary = "Read a user",
    description = "The user with its ETag (for If-Match on PUT), never a password or its hash. ADMIN only; another account's is 404.",
    params(("id" = String, Path, description = "The user's id")),
    responses((status = 200, description = "The user, with its ETag", body = UserView, headers(("ETag" = String))),
        (status = 403, description = "The caller is not ADMIN (type Forbidden)"), (status = 404, description = "No such user in the account")))]
async fn get_user(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    let (user, version) = uc::get_user(&st, &a.id, &id).await?;
    Ok(with_etag(Json(user).into_response(), version))
}

#[utoipa::path(put, path = "/v1/users/{id}", tag = "people", summary = "Change a user",
    description = "Email, name, role, disabled (the rest is read-only). Disabling a user ends their sessions. \
        The account keeps at least one enabled ADMIN user or ADMIN key (409). ADMIN only.",
    params(("id" = String, Path, description = "The user's id"), ("If-Match" = Option<String>, Header, description = "The ETag of a GET: 412 when the user changed since")),
    request_body(content = UserUpdate, example = json!(example(USER))),
    responses((status = 200, description = "Changed", body = UserView, headers(("ETag" = String))),
        (status = 400, description = "A field breaks a rule (named)"), (status = 403, description = "The caller is not ADMIN (type Forbidden)"),
        (status = 404, description = "No such user"), (status = 409, description = "It would leave no ADMIN, or the email is taken"),
        (status = 412, description = "Stale If-Match")))]
async fn replace_user(
    Within(st): Within,
    Auth(a): Auth,
    Path(id): Path<String>,
    headers: HeaderMap,
    JsonBody(v): JsonBody,
) -> AppResult<Response> {
    let expected = if_match(&headers)?;
    uc::get_user(&st, &a.id, &id).await?;
    let input = read_user_update(&v, &id).map_err(invalid)?;
    let (user, version) = uc::update_user(&st, &a.id, &id, input, expected).await?;
    Ok(with_etag(Json(user).into_response(), version))
}

#[utoipa::path(delete, path = "/v1/users/{id}", tag = "people", summary = "Delete a user",
    description = "Their sessions end. The account keeps at least one ADMIN (409). ADMIN only.",
    params(("id" = String, Path, description = "The user's id")),
    responses((status = 204, description = "Deleted"), (status = 403, description = "The caller is not ADMIN (type Forbidden)"),
        (status = 404, description = "No such user"), (status = 409, description = "It would leave no ADMIN")))]
async fn delete_user(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    uc::delete_user(&st, &a.id, &id).await?;
    Ok(no_content())
}

#[utoipa::path(post, path = "/v1/users/{id}/password", tag = "people", summary = "Set a user's password",
    description = "An ADMIN sets anyone's; a user sets their own through their console session. Through a session, \
        `currentPassword` is the signed-in person's own password (400, rule `credential`, when it is not; wrong guesses count \
        as failed sign-ins, 429 past them); an ADMIN's API key gives none. The user's other sessions end.",
    params(("id" = String, Path, description = "The user's id")),
    request_body(content = NewPassword, example = json!({"password": "another long passphrase", "currentPassword": "the one I have now"})),
    responses((status = 204, description = "Set"), (status = 400, description = "The password breaks its rule, or (through a session) currentPassword is missing or wrong"),
        (status = 403, description = "Neither ADMIN nor the user themself (type Forbidden)"), (status = 404, description = "No such user"),
        (status = 429, description = "Too many wrong current passwords")))]
async fn set_password(
    Within(st): Within,
    Caller(a, who): Caller,
    ClientAddr(from): ClientAddr,
    Path(id): Path<String>,
    JsonBody(v): JsonBody,
) -> AppResult<Response> {
    let themself = who.session.is_some() && who.actor.id == id;
    if !themself && !who.role.allows(Role::Admin) {
        return Err(AppError::RoleRequired(Role::Admin));
    }
    let input = read_password(&v).map_err(invalid)?;
    let current = input.current_password.clone().unwrap_or_default();
    let asker = who.session.as_ref().map(|s| uc::Asker { user_id: &who.actor.id, session: &s.hash, current_password: &current, from });
    uc::set_password(&st, &a.id, &id, input.password, asker).await?;
    Ok(no_content())
}

#[utoipa::path(get, path = "/v1/api-keys", tag = "people", summary = "List the account's API keys",
    description = "Each key's id (its fingerprint), name, role, creation and the hour it was last used; never the key. ADMIN only.",
    responses((status = 200, description = "The keys", body = KeyList,
        example = json!({"apiKeys": [{"id": "5e884898da28", "name": "reporting", "role": "VIEWER", "fingerprint": "5e884898da28", "created": "2026-11-27T09:00:00Z", "lastUsed": "2026-11-28T03:00:00Z"}]})),
        (status = 403, description = "The caller is not ADMIN (type Forbidden)")))]
async fn list_keys(Within(st): Within, Auth(a): Auth) -> AppResult<Response> {
    Ok(Json(KeyList { api_keys: uc::list_keys(&st, &a.id).await? }).into_response())
}

#[utoipa::path(post, path = "/v1/api-keys", tag = "people", summary = "Make an API key",
    description = "The key is in this answer only (stored as its SHA-256). At most 100 keys an account. ADMIN only.",
    request_body(content = NewKey, example = json!({"name": "reporting", "role": "VIEWER"})),
    responses((status = 201, description = "Made: the key, shown once", body = CreatedKey, headers(("Location" = String))),
        (status = 400, description = "A field breaks a rule (named)"), (status = 403, description = "The caller is not ADMIN (type Forbidden), or the account has 100 keys")))]
async fn create_key(Within(st): Within, Caller(a, who): Caller, JsonBody(v): JsonBody) -> AppResult<Response> {
    let input = read_new_key(&v).map_err(invalid)?;
    // A user's key (made signed in) never outlives the user's standing.
    let made_by = who.session.is_some().then_some(who.actor.id.as_str());
    let key = uc::create_key(&st, &a.id, input, made_by).await?;
    let location = format!("/v1/api-keys/{}", key.id);
    Ok((StatusCode::CREATED, [(header::LOCATION, location), (header::CACHE_CONTROL, "no-store".into())], Json(key)).into_response())
}

#[utoipa::path(delete, path = "/v1/api-keys/{id}", tag = "people", summary = "Revoke an API key",
    description = "Every function refuses it (401) within 5 seconds. The account keeps at least one ADMIN (409). ADMIN only.",
    params(("id" = String, Path, description = "The key's id (its fingerprint)")),
    responses((status = 204, description = "Revoked"), (status = 403, description = "The caller is not ADMIN (type Forbidden)"),
        (status = 404, description = "No such key"), (status = 409, description = "It would leave no ADMIN")))]
async fn revoke_key(Within(st): Within, Auth(a): Auth, Path(id): Path<String>) -> AppResult<Response> {
    if id.len() != crate::repo::accounts::FINGERPRINT_LEN || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err(AppError::NotFound { what: "API key", id });
    }
    uc::revoke_key(&st, &a.id, &id).await?;
    Ok(no_content())
}

/// The bodies of the people and key operations, each with its rules (the console's forms
/// are read by the same functions).
pub fn read_new_user(v: &serde_json::Value) -> Result<NewUser, Vec<FieldError>> {
    crate::json::read(v, |b: &mut NewUser, errors| {
        user_rules(&mut b.email, &b.name, errors);
        check_password(&b.password, "password", errors);
    })
}

pub fn read_user_update(v: &serde_json::Value, id: &str) -> Result<UserUpdate, Vec<FieldError>> {
    crate::json::read(v, |b: &mut UserUpdate, errors| {
        user_rules(&mut b.email, &b.name, errors);
        crate::json::record_id(b.id.as_deref(), Some(id), errors);
    })
}

pub fn read_password(v: &serde_json::Value) -> Result<NewPassword, Vec<FieldError>> {
    crate::json::read(v, |b: &mut NewPassword, errors| check_password(&b.password, "password", errors))
}

pub fn read_new_key(v: &serde_json::Value) -> Result<NewKey, Vec<FieldError>> {
    crate::json::read(v, |b: &mut NewKey, errors| check_name(&b.name, "name", errors))
}

/// A field error for a role given as text (the console's forms).
pub fn role_field(value: &str, field: &str) -> Result<Role, FieldError> {
    Role::parse(value).ok_or_else(|| FieldError::new(field, Rule::Enum, format!("{field} is one of VIEWER, TRAFFICKER, ADMIN")))
}
