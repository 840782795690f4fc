//! What every console form shares: the POST guard (the session's token, a same-origin
//! `Origin`, the route's role), the use cases' errors shown next to their fields, and
//! dates in the account's time zone.

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use chrono::{DateTime, NaiveDateTime, TimeZone, Utc};
use maud::{html, Markup};

use super::{page, ConsoleUser};
use crate::api::auth::same_origin;
use crate::api::error::AppError;
use crate::domain_error::FieldError;
use crate::model::account::Account;
use crate::usecases::UseCaseError;

/// Refuses a POST that did not come from this site's page (its `csrf` field is not the
/// session's token, or `Origin` is another site's), or that the person's role may not make:
/// 403, nothing read or changed.
pub fn guard(user: &ConsoleUser, headers: &HeaderMap, csrf: &str) -> Result<(), Response> {
    if !same_origin(headers) || !super::token_matches(csrf, &user.csrf) {
        return Err(page::forbidden("The form was not sent from this site: reload the page and try again."));
    }
    if !user.role.allows(user.needed) {
        return Err(page::forbidden(&format!(
            "This needs the {} role; you are signed in as {}.",
            user.needed.as_str(),
            user.role.as_str()
        )));
    }
    Ok(())
}

/// A page its route's role guards, reads included (the administration pages): 403 with
/// why, nothing shown.
pub fn role_needed(user: &ConsoleUser) -> Result<(), Response> {
    if user.role.allows(user.needed) {
        Ok(())
    } else {
        Err(page::forbidden(&format!("This page needs the {} role; you are signed in as {}.", user.needed.as_str(), user.role.as_str())))
    }
}

/// What a refused form shows: errors by field (the use case's field paths) and the rest.
#[derive(Debug, Default)]
pub struct Problems {
    pub fields: Vec<FieldError>,
    pub general: Vec<String>,
    /// The record changed since the form was read (its version travels in the form).
    pub stale: bool,
}

impl Problems {
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty() && self.general.is_empty() && !self.stale
    }

    pub fn general(message: impl Into<String>) -> Problems {
        Problems { general: vec![message.into()], ..Problems::default() }
    }

    /// The messages of the field whose API path ends in one of `names` (`campaignBean/name`,
    /// `creative.clickDestinationUri`), or starts with one followed by `/` or `[`.
    pub fn of(&self, names: &[&str]) -> Vec<&str> {
        self.fields.iter().filter(|e| names.iter().any(|n| names_field(&e.field, n))).map(|e| e.message.as_str()).collect()
    }

    /// The field errors no form field shows (listed at the top with the rest).
    pub fn unplaced(&self, shown: &[&str]) -> Vec<&str> {
        self.fields.iter().filter(|e| !shown.iter().any(|n| names_field(&e.field, n))).map(|e| e.message.as_str()).collect()
    }
}

fn names_field(path: &str, name: &str) -> bool {
    let last = path.rsplit(['/', '.']).next().unwrap_or(path);
    last == name || path.split(['/', '.']).any(|seg| seg == name || seg.split('[').next() == Some(name))
}

/// A use case's refusal as the form shows it; a failure of the service is its error page.
pub fn problems(e: UseCaseError) -> Result<Problems, Response> {
    let e = AppError::from(e);
    let status = e.status();
    if status.is_server_error() || status == StatusCode::TOO_MANY_REQUESTS {
        return Err(error_page(&e));
    }
    let body = e.body();
    Ok(match e {
        AppError::Validation(mut fields) => {
            for f in &mut fields {
                f.message = plain(&f.message);
            }
            Problems { fields, ..Problems::default() }
        }
        AppError::PreconditionFailed(m) => Problems { general: vec![m], stale: true, ..Problems::default() },
        _ => Problems { fields: body.errors, general: vec![body.message], stale: false },
    })
}

/// A message as the form shows it: the bean's element paths without their root
/// (`goalBean/end must be after goalBean/start` → `end must be after start`).
fn plain(m: &str) -> String {
    ["campaignBean/", "goalBean/", "clientBean/", "rulesBean/"].iter().fold(m.to_string(), |m, root| m.replace(root, ""))
}

/// An error of the service as a page with its status (a record not in the account: 404).
pub fn error_page(e: &AppError) -> Response {
    let status = e.status();
    let body = e.body();
    let mut res = page::page(
        "Error",
        None,
        html! { h1 { (status.canonical_reason().unwrap_or("Error")) } p role="alert" { (body.message) } p { a href="/console/campaigns" { "Back to campaigns" } } },
    )
    .into_response();
    *res.status_mut() = status;
    res
}

/// A use case's error as its page (404 for another account's record, never its data).
pub fn fail(e: UseCaseError) -> Response {
    error_page(&AppError::from(e))
}

/// The list of problems at the top of a refused form (role=alert: read out at once).
pub fn summary(p: &Problems, shown: &[&str]) -> Markup {
    let mut lines: Vec<&str> = p.general.iter().map(String::as_str).collect();
    lines.extend(p.unplaced(shown));
    html! {
        @if !p.fields.is_empty() || !lines.is_empty() {
            div.problems role="alert" {
                p { strong { "The form was not saved." } " Correct what is marked and save again." }
                @if !lines.is_empty() { ul { @for l in &lines { li { (l) } } } }
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
    /// The API field names whose errors this field shows.
    pub errors_of: &'a [&'a str],
    pub required: bool,
    pub hint: Option<&'a str>,
}

impl Field<'_> {
    pub fn render(&self, p: &Problems) -> Markup {
        let errors = p.of(self.errors_of);
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
    pub errors_of: &'a [&'a str],
    pub hint: Option<&'a str>,
}

impl Select<'_> {
    pub fn render(&self, p: &Problems) -> Markup {
        let errors = p.of(self.errors_of);
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

/// A `datetime-local` value in the account's time zone as the API's instant (RFC 3339),
/// or the text as typed (the use case then names the field and its format).
pub fn from_local(a: &Account, v: &str) -> String {
    let v = v.trim();
    let parsed = NaiveDateTime::parse_from_str(v, "%Y-%m-%dT%H:%M")
        .or_else(|_| NaiveDateTime::parse_from_str(v, "%Y-%m-%dT%H:%M:%S"))
        .or_else(|_| NaiveDateTime::parse_from_str(v, "%Y-%m-%d %H:%M"));
    match parsed.ok().and_then(|n| a.tz().from_local_datetime(&n).earliest()) {
        Some(t) => t.with_timezone(&Utc).to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
        None => v.to_string(),
    }
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

    #[test]
    fn errors_find_their_field_by_the_api_path() {
        let p = Problems {
            fields: vec![
                FieldError::new("goalBean/end", crate::rule::Rule::AfterStart, "end after start"),
                FieldError::new("creative.clickDestinationUri", crate::rule::Rule::Format, "a URL"),
                FieldError::new("goalBean/caps/cap[1]/value", crate::rule::Rule::Range, "positive"),
            ],
            ..Problems::default()
        };
        assert_eq!(p.of(&["end"]), ["end after start"]);
        assert_eq!(p.of(&["clickDestinationUri"]), ["a URL"]);
        assert_eq!(p.of(&["caps"]), ["positive"]);
        assert_eq!(p.unplaced(&["end", "caps"]), ["a URL"]);
    }

    #[test]
    fn numbers_are_grouped() {
        assert_eq!(number(12500.0), "12,500");
        assert_eq!(number(100.0), "100");
        assert_eq!(number(0.25), "0.25");
    }
}
