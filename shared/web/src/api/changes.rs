//! Change history (docs/operations-guide.md, "Change history"): `GET /v1/changes` (JSON,
//! or CSV with `Accept: text/csv` / `output=csv`) and `POST /v1/changes/{id}/revert`.

use crate::api::Access;
use crate::api::Within;
use axum::extract::{Path, RawQuery};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Json;
use chrono::{DateTime, Utc};
use serde::Serialize;

use crate::api::auth::Caller;
use crate::api::error::{AppError, AppResult, FieldError};
use crate::api::queries::params::Params;
use crate::model::access::ActorKind;
use crate::model::change::{Change, KINDS};
use crate::repo::changes::{Filter, MAX_PAGE};
use crate::rule::Rule;
use crate::usecases::changes;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(paths(list, revert), components(schemas(ChangeList, Change, crate::model::change::FieldChange, crate::model::change::Operation)))]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new().route("/v1/changes", Access::RECORDS, get(list)).route("/v1/changes/{id}/revert", Access::RECORDS, post(revert))
}

/// A page of changes.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangeList {
    /// Newest first.
    pub changes: Vec<Change>,
    /// Pass as `after` for the next page; absent on the last page.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next: Option<String>,
}

pub const PARAMS: &[&str] = &["recordId", "kind", "since", "until", "keyId", "actorId", "after", "limit", "output"];
const DEFAULT_PAGE: usize = 50;

fn time(p: &mut Params, name: &str) -> Option<DateTime<Utc>> {
    let v = p.one(name)?;
    match DateTime::parse_from_rfc3339(&v) {
        Ok(t) => Some(t.with_timezone(&Utc)),
        Err(_) => {
            p.errors.push(FieldError::new(
                name,
                Rule::Format,
                format!("{name} is an RFC 3339 time such as 2026-11-26T09:00:00Z (got {v:?})"),
            ));
            None
        }
    }
}

#[utoipa::path(get, path = "/v1/changes", tag = "changes", summary = "The account's change history (JSON or CSV)",
    description = "Every write of a campaign, goal (and their rules), ad, client, contact, targeting template, insertion policy, \
        asset, stitcher, demand partner or marketplace made through the API, newest first: who (the API key's fingerprint and \
        label, never the key), when, the request id, the operation and a field-level diff. Kept 400 days. A page filtered by \
        `kind`, `keyId` or `actorId` reads at most 2,000 changes and may hold fewer than `limit`: continue with `next`.",
    params(("recordId" = Option<String>, Query, description = "Only this record's changes"),
        ("kind" = Option<String>, Query, description = "Only this kind: campaign, goal, ad, client, contact, template, policy, asset, stitcher, demandPartner, marketplace; user and apiKey (listed to an ADMIN only)"),
        ("since" = Option<String>, Query, description = "Only changes at or after this time (RFC 3339)"),
        ("until" = Option<String>, Query, description = "Only changes at or before this time (RFC 3339)"),
        ("keyId" = Option<String>, Query, description = "Only changes made with this key (its fingerprint, as `admin list-keys` shows it)"),
        ("actorId" = Option<String>, Query, description = "Only changes made by this user (their id) or key (its id)"),
        ("after" = Option<String>, Query, description = "The `next` of the previous page"),
        ("limit" = Option<usize>, Query, description = "Changes a page, 1-200 (default 50)"),
        ("output" = Option<String>, Query, description = "json (default) or csv; `Accept: text/csv` also asks for CSV")),
    responses((status = 200, description = "A page of changes; CSV has one line a changed field",
            content((ChangeList = "application/json", example = json!({"changes": [{"id": "1764149100000-001-3fa2c1d0", "at": "2026-11-26T09:25:00Z", "requestId": "c0ffee00-1111-4222-8333-444455556666", "keyId": "5e884898da28", "keyName": "trafficking", "actor": {"kind": "KEY", "id": "5e884898da28", "name": "trafficking"}, "kind": "goal", "recordId": "7d1c2f7e-4d0b-4b36-9c8e-2f1d3a4b5c6d", "operation": "UPDATE", "fields": [{"path": "end", "old": "2026-12-31T23:59:59Z", "new": "2027-01-31T23:59:59Z"}], "version": 4}]})),
                (String = "text/csv", example = json!("id,at,requestId,keyId,keyName,kind,recordId,operation,path,old,new,actorKind,actorId,actorName\r\n")))),
        (status = 400, description = "An unknown parameter or a bad value (the field and rule named)")))]
async fn list(Within(st): Within, Caller(a, who): Caller, headers: HeaderMap, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(q.as_deref(), PARAMS)?;
    let csv = crate::api::queries::reports::wants_csv(&mut p, &headers);
    let kind = p.one("kind");
    if let Some(k) = kind.as_deref().filter(|k| !KINDS.contains(k)) {
        p.errors.push(FieldError::new("kind", Rule::Enum, format!("kind must be one of {} (got {k:?})", KINDS.join(", "))));
    }
    let limit = match p.one("limit").map(|v| v.trim().parse::<usize>()) {
        None => DEFAULT_PAGE,
        Some(Ok(n)) if (1..=MAX_PAGE).contains(&n) => n,
        Some(_) => {
            p.errors.push(FieldError::new("limit", Rule::Range, format!("limit is a whole number from 1 to {MAX_PAGE}")));
            DEFAULT_PAGE
        }
    };
    let f = Filter {
        record_id: p.one("recordId"),
        kind,
        key_id: p.one("keyId"),
        actor_id: p.one("actorId"),
        since: time(&mut p, "since"),
        until: time(&mut p, "until"),
        people: false,
    };
    let after = p.one("after");
    if after.as_deref().is_some_and(|a| !crate::ids::plausible_id(a)) {
        p.errors.push(FieldError::new("after", Rule::Format, "after is the `next` of a previous page"));
    }
    if !p.errors.is_empty() {
        return Err(AppError::Validation(p.errors));
    }
    let (list, next) = changes::list(&st, &a.id, &f, after.as_deref(), limit, who.role).await?;
    if csv {
        return Ok((
            [(header::CONTENT_TYPE, "text/csv; charset=utf-8"), (header::CONTENT_DISPOSITION, "attachment; filename=\"changes.csv\"")],
            to_csv(&list)?,
        )
            .into_response());
    }
    Ok(Json(ChangeList { changes: list, next }).into_response())
}

/// One line a changed field (a change without fields: one line with an empty path).
fn to_csv(list: &[Change]) -> AppResult<String> {
    let mut w = crate::api::csv_out::CsvOut::new();
    // The actor's columns come last: a client reading columns by position keeps working.
    w.row([
        "id",
        "at",
        "requestId",
        "keyId",
        "keyName",
        "kind",
        "recordId",
        "operation",
        "path",
        "old",
        "new",
        "actorKind",
        "actorId",
        "actorName",
    ])?;
    for c in list {
        let at = c.at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let head = [
            c.id.as_str(),
            at.as_str(),
            &c.request_id,
            c.key_id.as_deref().unwrap_or(""),
            c.key_name.as_deref().unwrap_or(""),
            &c.kind,
            &c.record_id,
            c.operation.as_str(),
        ];
        let actor = [
            c.actor.as_ref().map_or("", |a| if a.kind == ActorKind::User { "USER" } else { "KEY" }),
            c.actor.as_ref().map_or("", |a| a.id.as_str()),
            c.actor.as_ref().map_or("", |a| a.name.as_str()),
        ];
        let value = |v: &Option<serde_json::Value>, hidden: bool| match (v, hidden) {
            (_, true) => "(not shown)".to_string(),
            (Some(serde_json::Value::String(s)), _) => s.clone(),
            (Some(v), _) => v.to_string(),
            (None, _) => String::new(),
        };
        if c.fields.is_empty() {
            w.row(head.iter().copied().chain(["", "", ""]).chain(actor))?;
        }
        for f in &c.fields {
            let hidden = f.write_only || f.omitted;
            let (old, new) = (value(&f.old, hidden), value(&f.new, hidden));
            w.row(head.iter().copied().chain([f.path.as_str(), old.as_str(), new.as_str()]).chain(actor))?;
        }
    }
    w.finish()
}

#[utoipa::path(post, path = "/v1/changes/{id}/revert", tag = "changes", summary = "Revert a change",
    description = "Puts back the old values of an UPDATE, if the record is still as that change left it; otherwise 409 naming \
        the later change. It needs the role the reverted write needed (the change's `role`; a demand partner's: ADMIN), else 403. The revert is itself a change, which this answers. Write-only values and values too long to keep \
        cannot be put back (409).",
    params(("id" = String, Path, description = "The change's id")),
    responses((status = 200, description = "Reverted: the revert's own change", body = Change),
        (status = 404, description = "No such change in this account"),
        (status = 409, description = "Not an UPDATE, or the record changed since (the later change named)")))]
async fn revert(Within(st): Within, Caller(a, who): Caller, Path(id): Path<String>) -> AppResult<Response> {
    Ok(Json(changes::revert(&st, &a.id, &id, who.role).await?).into_response())
}
