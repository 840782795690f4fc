//! The Changes page: the account's changes newest first, with who made each, when, and
//! what changed field by field; filtered by record and by person; an UPDATE reverted with
//! `Revert` through the revert use case (which checks the record is as the change left it).

use super::error::ConsoleResult;
use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use maud::{html, Markup};

use super::form::{self, Problems};
use super::{page, redirect, ConsoleForm, ConsoleUser};
use crate::api::Within;
use crate::model::change::{Change, Operation};
use crate::state::AppState;
use crate::usecases::changes::Filter;
use crate::usecases::{access, changes};

/// Changes a page shows.
pub const PAGE_SIZE: usize = 50;

#[derive(serde::Deserialize, Default)]
pub struct ChangesQuery {
    #[serde(default)]
    record: String,
    #[serde(default)]
    actor: String,
    #[serde(default)]
    after: String,
    #[serde(default)]
    reverted: Option<String>,
}

/// Who made a change, as the page names them.
pub fn who(c: &Change) -> String {
    match (&c.actor, &c.key_name) {
        (Some(a), _) => a.name.clone(),
        (None, Some(k)) => format!("key {k}"),
        (None, None) => c.key_id.clone().map(|k| format!("key {k}")).unwrap_or_else(|| "the service".into()),
    }
}

/// The record's last change (who and when), for a stale form.
pub async fn last_change(st: &AppState, user: &ConsoleUser, record: &str) -> Option<Change> {
    let f = Filter { record_id: Some(record.to_string()), ..Filter::default() };
    changes::list(st, &user.account.id, &f, None, 1, user.role).await.ok().and_then(|(list, _)| list.into_iter().next())
}

/// What a stale form says: the record changed since the form was read, by whom and when.
pub fn stale_notice(a: &crate::model::account::Account, last: &Option<Change>, reload: &str) -> Markup {
    html! {
        div.problems role="alert" {
            p {
                strong { "Not saved: this record was changed after you opened the form" }
                @if let Some(c) = last { " (by " (who(c)) " at " (form::local(a, c.at)) " " (form::zone_name(a)) ")" }
                ". Your input is kept below; "
                a href=(reload) { "reload the record" }
                " to start from what is stored now."
            }
        }
    }
}

fn link_of(c: &Change) -> Option<String> {
    match c.kind.as_str() {
        "campaign" => Some(format!("/console/campaigns/{}", c.record_id)),
        "goal" => Some(format!("/console/goals/{}", c.record_id)),
        "ad" => Some(format!("/console/ads/{}", c.record_id)),
        "user" => Some(format!("/console/users/{}", c.record_id)),
        _ => None,
    }
}

fn value(v: &Option<serde_json::Value>) -> String {
    match v {
        None | Some(serde_json::Value::Null) => "(none)".into(),
        Some(serde_json::Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    }
}

fn diff(c: &Change) -> Markup {
    html! {
        ul.diff {
            @for f in c.fields.iter().take(20) {
                li {
                    code { (f.path) } ": "
                    @if f.write_only { "changed (secret)" }
                    @else if f.omitted { "changed (too long to keep)" }
                    @else { del { (value(&f.old)) } " → " ins { (value(&f.new)) } }
                }
            }
            @if c.fields.len() > 20 || c.truncated { li { "…and more" } }
        }
    }
}

pub async fn list(Within(st): Within, user: ConsoleUser, Query(q): Query<ChangesQuery>) -> ConsoleResult {
    render(&st, &user, &q, None).await
}

async fn render(st: &AppState, user: &ConsoleUser, q: &ChangesQuery, problem: Option<Problems>) -> ConsoleResult {
    let a = &user.account;
    let record: String = q.record.trim().chars().take(crate::limits::MAX_ID_LEN).collect();
    let actor: String = q.actor.trim().chars().take(crate::limits::MAX_ID_LEN).collect();
    let f = Filter {
        record_id: (!record.is_empty()).then(|| record.clone()),
        actor_id: (!actor.is_empty()).then(|| actor.clone()),
        ..Filter::default()
    };
    let after = (!q.after.is_empty()).then_some(q.after.as_str());
    let (list, next) = changes::list(st, &a.id, &f, after, PAGE_SIZE, user.role).await?;
    // The people and keys to filter by (names only; never a key).
    let mut people: Vec<(String, String)> = Vec::new();
    if let Ok(users) = access::list_users(st, &a.id).await {
        people.extend(users.into_iter().map(|u| (u.id, u.email)));
    }
    if let Ok(keys) = access::list_keys(st, &a.id).await {
        people.extend(keys.into_iter().map(|k| (k.id, format!("key {}", k.name))));
    }
    let p = problem.unwrap_or_default();
    let status = if p.is_empty() { StatusCode::OK } else { StatusCode::CONFLICT };
    let next_link = next.map(|n| format!("/console/changes?record={}&actor={}&after={n}", enc(&record), enc(&actor)));
    let body = html! {
        h1 { "Changes" }
        @if q.reverted.is_some() { p.notice role="status" { "Reverted: the record has its old values again (see the newest change)." } }
        (form::summary(&p))
        form.filters role="search" method="get" action="/console/changes" {
            div { label for="record" { "Record id" } input #record type="text" name="record" value=(record); }
            div {
                label for="actor" { "Changed by" }
                select #actor name="actor" {
                    option value="" { "Anyone" }
                    @for (id, name) in &people { option value=(id) selected[*id == actor] { (name) } }
                }
            }
            button.secondary type="submit" { "Filter" }
        }
        @if list.is_empty() { p { "No changes." } }
        table {
            thead { tr { th scope="col" { "When (" (form::zone_name(a)) ")" } th scope="col" { "Who" } th scope="col" { "Record" } th scope="col" { "What" } th scope="col" { "Changes" } @if user.writes() { th scope="col" { "Undo" } } } }
            tbody {
                @for c in &list {
                    tr {
                        td { (form::local_seconds(a, c.at)) }
                        td { (who(c)) }
                        td {
                            (c.kind) " "
                            @if let Some(l) = link_of(c) { a href=(l) { (c.record_id) } } @else { (c.record_id) }
                        }
                        td { (c.operation.as_str()) }
                        td { (diff(c)) }
                        @if user.writes() {
                            td {
                                @if c.operation == Operation::Update {
                                    form method="post" action=(form::action(user, &format!("/console/changes/{}/revert", c.id))) {
                                        (form::csrf(user))
                                        button.secondary type="submit" { "Revert" }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        @if let Some(l) = next_link { nav.pager aria-label="Pages" { a href=(l) { "Older changes" } } }
    };
    Ok(page::with_status(page::page("Changes", Some(user), body), status))
}

fn enc(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

#[derive(serde::Deserialize, Default)]
pub struct RevertForm {
    #[serde(default)]
    csrf: String,
}

pub async fn revert(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(f): ConsoleForm<RevertForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    match changes::revert(&st, &user.account.id, &id, user.role).await {
        Ok(_) => Ok(redirect("/console/changes?reverted=1")),
        Err(e) => {
            let p = form::problems(e, &[])?;
            render(&st, &user, &ChangesQuery::default(), Some(p)).await
        }
    }
}
