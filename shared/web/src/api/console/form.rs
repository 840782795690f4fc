//! What every console form shares: the POST guard (the session's token and a same-origin
//! `Origin`; the route's role is checked before the handler runs), a form's fields declared
//! once with the API fields whose errors each shows, the use cases' errors placed by those
//! declarations and listed at the top linked to their fields, and dates in the account's
//! time zone.

use axum::http::HeaderMap;
use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use maud::{html, Markup};

use super::error::{ConsoleError, ConsoleResult};
use super::ConsoleUser;
use crate::api::auth::same_origin;
use crate::api::error::AppError;
use crate::domain_error::FieldError;
use crate::model::account::Account;
use crate::usecases::UseCaseError;

/// Why a form from another site, or without the session's token, is refused.
pub const NOT_FROM_THIS_SITE: &str = "The form was not sent from this site: reload the page and try again.";

/// Refuses a POST that did not come from this site's page (its `csrf` field is not the
/// session's token, or `Origin` is another site's): 403, nothing changed.
pub fn guard(user: &ConsoleUser, headers: &HeaderMap, csrf: &str) -> ConsoleResult<()> {
    if !same_origin(headers) || !super::token_matches(csrf, &user.csrf) {
        return Err(ConsoleError::Forbidden(NOT_FROM_THIS_SITE.into()));
    }
    Ok(())
}

/// One field of a form: its input's `name` (and `id`), its label, and the API fields whose
/// errors it shows (a path, or a parent of paths: `goalBean/caps` shows
/// `goalBean/caps/cap[1]/value`'s).
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub name: &'static str,
    pub label: &'static str,
    pub api: &'static [&'static str],
}

impl Spec {
    fn shows(&self, path: &str) -> bool {
        self.api.iter().any(|a| path == *a || path.strip_prefix(a).is_some_and(|rest| rest.starts_with(['/', '[', '.'])))
    }
}

/// An error a refused form shows: at its field (`at`, the input's name) or at the top.
#[derive(Debug, Clone)]
pub struct Problem {
    /// The form field it is shown at: (its input's name, its label).
    pub at: Option<(&'static str, &'static str)>,
    /// The API field it is about (`goalBean/end`, `goals[<id>].end`), or empty.
    pub field: String,
    pub message: String,
}

/// What a refused form shows.
#[derive(Debug, Default)]
pub struct Problems {
    pub list: Vec<Problem>,
    /// The record changed since the form was read (its version travels in the form), or the
    /// form came without the version it was read at.
    pub stale: bool,
}

impl Problems {
    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && !self.stale
    }

    pub fn general(message: impl Into<String>) -> Problems {
        Problems { list: vec![Problem { at: None, field: String::new(), message: message.into() }], stale: false }
    }

    /// A form that came without its version, or with one that is no number: refused
    /// (nothing is saved over a record the person may not have seen).
    pub fn no_version() -> Problems {
        Problems::general("The form did not say which version of the record it edits: reload the page and edit again.")
    }

    /// Field errors placed by `specs` (the API path each field shows), the rest at the top.
    pub fn of_fields(errors: Vec<FieldError>, specs: &[Spec]) -> Problems {
        let list = errors
            .into_iter()
            .filter(|e| !e.message.is_empty())
            .map(|e| Problem {
                at: specs.iter().find(|s| s.shows(&e.field)).map(|s| (s.name, s.label)),
                message: plain(&e.field, &e.message),
                field: e.field,
            })
            .collect();
        Problems { list, stale: false }
    }

    /// The messages shown at the field named `name`.
    pub fn at(&self, name: &str) -> Vec<&str> {
        self.list.iter().filter(|p| p.at.is_some_and(|(n, _)| n == name)).map(|p| p.message.as_str()).collect()
    }
}

/// A use case's refusal as the form shows it (`specs`: the form's fields); a failure of the
/// service is its error page.
pub fn problems(e: UseCaseError, specs: &[Spec]) -> ConsoleResult<Problems> {
    let e = AppError::from(e);
    let status = e.status();
    if status.is_server_error() || status == axum::http::StatusCode::TOO_MANY_REQUESTS {
        return Err(ConsoleError::Service(e));
    }
    // Not the person's to do (a revert of an ADMIN's write): refused, not a form to correct.
    if status == axum::http::StatusCode::FORBIDDEN {
        return Err(e.into());
    }
    Ok(match e {
        AppError::Validation(fields) => Problems::of_fields(fields, specs),
        AppError::PreconditionFailed(m) => Problems { list: vec![Problem { at: None, field: String::new(), message: m }], stale: true },
        other => {
            let body = other.body();
            let mut p = Problems::of_fields(body.errors, specs);
            if p.list.is_empty() {
                p.list.push(Problem { at: None, field: String::new(), message: body.message });
            }
            p
        }
    })
}

/// A domain message as a form shows it: the domain names a field by its wire path
/// (`goalBean/end must be after goalBean/start`, `goals[<id>].end ...`); the form shows the
/// path's last name (`end must be after start`), next to the field's own label.
fn plain(field: &str, m: &str) -> String {
    let prefix = if let Some((root, _)) = field.split_once('/') {
        format!("{root}/")
    } else if let Some(end) = field.find("].") {
        field[..end + 2].to_string()
    } else if let Some((root, _)) = field.split_once('.') {
        format!("{root}.")
    } else {
        return m.to_string();
    };
    m.replace(&prefix, "")
}

/// The list of problems at the top of a refused form (role=alert: read out at once, and
/// focused): each links to its field.
pub fn summary(p: &Problems) -> Markup {
    html! {
        @if !p.list.is_empty() {
            div.problems #problems role="alert" tabindex="-1" autofocus aria-labelledby="problems-title" {
                h2 #problems-title { "The form was not saved" }
                ul {
                    @for x in &p.list {
                        li {
                            @if let Some((name, label)) = x.at { a href={ "#" (name) } { (label) ": " (x.message) } }
                            @else { (x.message) }
                        }
                    }
                }
            }
        }
    }
}

/// A labelled input with its errors next to it (`aria-describedby`, `aria-invalid`).
pub struct Field<'a> {
    pub label: &'a str,
    pub name: &'a str,
    pub kind: &'a str,
    pub value: &'a str,
    pub required: bool,
    pub hint: Option<&'a str>,
}

impl Field<'_> {
    pub fn render(&self, p: &Problems) -> Markup {
        let errors = p.at(self.name);
        let err_id = format!("{}-error", self.name);
        let hint_id = format!("{}-hint", self.name);
        let described = match (errors.is_empty(), self.hint.is_some()) {
            (false, true) => Some(format!("{err_id} {hint_id}")),
            (false, false) => Some(err_id.clone()),
            (true, true) => Some(hint_id.clone()),
            (true, false) => None,
        };
        html! {
            div.field {
                label for=(self.name) { (self.label) }
                @if let Some(h) = self.hint { span.hint id=(hint_id) { (h) } }
                input id=(self.name) name=(self.name) type=(self.kind) value=(self.value) required[self.required]
                    aria-invalid=[(!errors.is_empty()).then_some("true")] aria-describedby=[described]
                    step=[(self.kind == "number").then_some("any")];
                @if !errors.is_empty() { span.field-error id=(err_id) { @for e in &errors { (e) " " } } }
            }
        }
    }
}

/// A labelled choice with its errors next to it; `options` are (value, text).
pub struct Select<'a> {
    pub label: &'a str,
    pub name: &'a str,
    pub options: &'a [(String, String)],
    pub selected: &'a str,
    pub hint: Option<&'a str>,
}

impl Select<'_> {
    pub fn render(&self, p: &Problems) -> Markup {
        let errors = p.at(self.name);
        let err_id = format!("{}-error", self.name);
        let hint_id = format!("{}-hint", self.name);
        let described: Vec<&str> =
            [(!errors.is_empty()).then_some(err_id.as_str()), self.hint.map(|_| hint_id.as_str())].into_iter().flatten().collect();
        html! {
            div.field {
                label for=(self.name) { (self.label) }
                @if let Some(h) = self.hint { span.hint id=(hint_id) { (h) } }
                select id=(self.name) name=(self.name) aria-invalid=[(!errors.is_empty()).then_some("true")]
                    aria-describedby=[(!described.is_empty()).then(|| described.join(" "))] {
                    @for (value, text) in self.options { option value=(value) selected[value == self.selected] { (text) } }
                }
                @if !errors.is_empty() { span.field-error id=(err_id) { @for e in &errors { (e) " " } } }
            }
        }
    }
}

pub use super::page::action;

/// The hidden field every form carries.
pub fn csrf(user: &ConsoleUser) -> Markup {
    html! { input type="hidden" name="csrf" value=(user.csrf); }
}

/// An instant as the account's local date and time (`2026-12-03 08:00`).
pub fn local(a: &Account, t: DateTime<Utc>) -> String {
    t.with_timezone(a.tz()).format("%Y-%m-%d %H:%M").to_string()
}

/// An instant as the account's local date and time to the second.
pub fn local_seconds(a: &Account, t: DateTime<Utc>) -> String {
    t.with_timezone(a.tz()).format("%Y-%m-%d %H:%M:%S").to_string()
}

/// An instant as a `datetime-local` input's value in the account's time zone.
pub fn local_input(a: &Account, t: Option<DateTime<Utc>>) -> String {
    t.map(|t| t.with_timezone(a.tz()).format("%Y-%m-%dT%H:%M").to_string()).unwrap_or_default()
}

/// A `datetime-local` value in the account's time zone as an instant (`None`: not such a
/// value).
pub fn parse_local(a: &Account, v: &str) -> Option<DateTime<Utc>> {
    let v = v.trim();
    let parsed = NaiveDateTime::parse_from_str(v, "%Y-%m-%dT%H:%M")
        .or_else(|_| NaiveDateTime::parse_from_str(v, "%Y-%m-%dT%H:%M:%S"))
        .or_else(|_| NaiveDateTime::parse_from_str(v, "%Y-%m-%d %H:%M"));
    parsed.ok().and_then(|n| a.tz().from_local_datetime(&n).earliest()).map(|t| t.with_timezone(&Utc))
}

/// The version an edit form was read at (its hidden `version` field); a blank or missing
/// one is `None`, and the form is refused (`Problems::no_version`).
pub fn version(v: &str) -> Option<u64> {
    v.trim().parse::<u64>().ok()
}

/// The account's zone as the pages name it.
pub fn zone_name(a: &Account) -> &str {
    &a.time_zone
}

/// A number as a person reads it (12,500; 0.25).
pub fn number(v: f64) -> String {
    if v.fract() != 0.0 {
        return format!("{v:.2}");
    }
    let s = format!("{}", v.abs() as u64);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if v < 0.0 {
        format!("-{out}")
    } else {
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static SPECS: &[Spec] = &[
        Spec { name: "end", label: "End", api: &["goalBean/end"] },
        Spec { name: "daily_cap", label: "Daily cap", api: &["goalBean/caps"] },
    ];

    #[test]
    fn errors_are_placed_by_the_declared_api_paths() {
        let p = Problems::of_fields(
            vec![
                FieldError::new("goalBean/end", crate::rule::Rule::AfterStart, "goalBean/end must be after goalBean/start"),
                FieldError::new("goalBean/endless", crate::rule::Rule::Format, "not this one"),
                FieldError::new("goalBean/caps/cap[1]/value", crate::rule::Rule::Range, "positive"),
            ],
            SPECS,
        );
        assert_eq!(p.at("end"), ["end must be after start"]);
        assert_eq!(p.at("daily_cap"), ["positive"]);
        assert!(p.list[1].at.is_none(), "a path that only starts like a field's is not that field's");
        let html = summary(&p).into_string();
        assert!(html.contains(r##"href="#end""##) && html.contains("End: end must be after start"), "{html}");
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(number(12500.0), "12,500");
        assert_eq!(number(100.0), "100");
        assert_eq!(number(0.25), "0.25");
    }
}
