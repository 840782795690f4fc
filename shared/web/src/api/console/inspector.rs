//! Why not serving: the request inspector for a chosen category, format and device, in
//! words: which goal would serve, and for every other goal why not. It runs the same
//! explanation as `GET /v3/inspect` (`api::queries::inspect::explain_request`), so it is
//! served by the queries function, which reads the compiled snapshots.

use super::error::{ConsoleError, ConsoleResult};
use axum::extract::Query;
use axum::response::IntoResponse;
use maud::html;

use super::form::{self, Select};
use super::{page, ConsoleUser};
use crate::api::queries::inspect::explain_request;
use crate::api::Within;
use crate::usecases::reference;

/// Goals a break's table lists, and records the "taking no requests" list names (the
/// rest counted): a page stays readable, and light, at 10,000 goals.
const ROWS: usize = 100;

/// The formats the page offers (the ad request's `format`).
const FORMATS: &[(&str, &str)] = &[("preroll", "Pre-roll"), ("midroll", "Mid-roll"), ("postroll", "Post-roll"), ("pause", "Pause")];

#[derive(serde::Deserialize, Default)]
pub struct CheckQuery {
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    format: String,
    #[serde(default)]
    device: String,
}

fn outcome_words(outcome: &str) -> &'static str {
    match outcome {
        "SERVED" => "Would serve",
        "LOST" => "Eligible, another goal took the break",
        "EXCLUDED" => "Excluded",
        "NO_AD_OF_FORMAT" => "No ad of this format",
        "NO_AD_FITS" => "No ad fits the break",
        _ => "Not served",
    }
}

pub async fn show(Within(st): Within, user: ConsoleUser, Query(q): Query<CheckQuery>) -> ConsoleResult {
    let a = &user.account;
    let cats = reference::categories(&st, &a.id).await?;
    let devices = reference::device_containers(&st, &a.id).await?;
    let cat_options: Vec<(String, String)> = std::iter::once((String::new(), "None (no category)".to_string()))
        .chain(cats.iter().map(|c| (c.id.clone(), c.name.clone())))
        .collect();
    let format_options: Vec<(String, String)> = FORMATS.iter().map(|(v, t)| (v.to_string(), t.to_string())).collect();
    let device_options: Vec<(String, String)> =
        std::iter::once((String::new(), "Any device".to_string())).chain(devices.iter().map(|d| (d.id.clone(), d.name.clone()))).collect();
    let format = if FORMATS.iter().any(|(v, _)| *v == q.format) { q.format.clone() } else { "preroll".to_string() };
    let asked = q.category.is_some();
    let explained = if asked {
        let mut pairs = vec![("account".to_string(), a.id.to_string()), ("format".to_string(), format.clone())];
        if let Some(c) = q.category.as_deref().filter(|c| !c.is_empty()) {
            pairs.push(("category".into(), c.to_string()));
        }
        if !q.device.is_empty() {
            pairs.push(("dc".into(), q.device.clone()));
        }
        match explain_request(&st, pairs).await {
            Ok(out) => Some(out),
            Err(e) => return Err(ConsoleError::Service(e)),
        }
    } else {
        None
    };
    // A flight that has not started says when it starts, in the account's time zone.
    let waiting: Vec<String> = explained
        .iter()
        .flat_map(|o| o.breaks.iter().flat_map(|b| b.goals.iter()))
        .filter(|g| g.reason.as_ref().is_some_and(|r| r.code == "FLIGHT_NOT_STARTED"))
        .map(|g| g.goal_id.clone())
        .collect();
    let starts = crate::usecases::overview::starts(&st, a, &waiting).await.unwrap_or_default();
    let why = |g: &crate::api::queries::inspect::InspectedGoal| -> String {
        match (g.reason.as_ref(), starts.get(&g.goal_id)) {
            (Some(r), Some(s)) if r.code == "FLIGHT_NOT_STARTED" => {
                format!("flight starts {} ({})", form::local(a, *s), form::zone_name(a))
            }
            (Some(r), _) => r.message.clone(),
            (None, _) => String::new(),
        }
    };
    let goal_name = |id: &str, name: &Option<String>| name.clone().unwrap_or_else(|| format!("Goal {id}"));
    let body = html! {
        h1 { "Why not serving" }
        p { "What an ad request would get now, and why each goal would or would not serve it. Nothing is counted." }
        form.filters method="get" action="/console/why-not-serving" {
            (Select { label: "Category", name: "category", options: &cat_options, selected: q.category.as_deref().unwrap_or(""), hint: None }.render(&Default::default()))
            (Select { label: "Format", name: "format", options: &format_options, selected: &format, hint: None }.render(&Default::default()))
            (Select { label: "Device", name: "device", options: &device_options, selected: &q.device, hint: None }.render(&Default::default()))
            button type="submit" { "Check" }
        }
        @if let Some(out) = &explained {
            @for n in &out.notes { p.notice role="status" { (n) } }
            @for b in &out.breaks {
                h2 { (b.format) " break " (b.break_number) }
                @if b.served.is_empty() {
                    p { strong { "Nothing would serve." } @if let Some(e) = &b.empty { " " (e.message) } }
                } @else {
                    @for s in &b.served {
                        @let g = b.goals.iter().find(|g| g.goal_id == s.goal_id);
                        p { strong { "Would serve: " } a href={ "/console/goals/" (s.goal_id) } { (g.map(|g| goal_name(&g.goal_id, &g.goal_name)).unwrap_or_else(|| s.goal_id.clone())) } " (ad " (s.ad_name) ")" }
                    }
                }
                table {
                    thead { tr { th scope="col" { "Goal" } th scope="col" { "Outcome" } th scope="col" { "Why" } } }
                    tbody {
                        @for g in b.goals.iter().take(ROWS) {
                            tr {
                                td { a href={ "/console/goals/" (g.goal_id) } { (goal_name(&g.goal_id, &g.goal_name)) } }
                                td { (outcome_words(&g.outcome)) }
                                td { (why(g)) }
                            }
                        }
                    }
                }
                @if b.truncated || b.goals.len() > ROWS { p { "More goals were left off the list: choose a category, format or device to narrow it." } }
            }
            @if !out.not_serving.is_empty() {
                h2 { "Taking no requests at all" }
                ul { @for n in out.not_serving.iter().filter(|n| n.kind != "ad").take(ROWS) { li { (n.kind) " " (n.id) ": " (n.reason.message) } } }
                @let ads = out.not_serving.iter().filter(|n| n.kind == "ad").count();
                @if ads > 0 { p { (ads) " ads take no request (disabled, placeholders, or without playable media); each goal's page says why." } }
            }
        }
    };
    Ok(page::page("Why not serving", Some(&user), body).into_response())
}
