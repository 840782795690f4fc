//! A campaign's page: what it is and how it delivers, its goals (selected for a bulk edit),
//! its targeting in words, its form, and a duplicate with a date shift.

use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use maud::html;

use super::campaigns::{delivered, flight, form_markup, pace, state_words, CampaignForm, SPECS};
use super::error::ConsoleResult;
use super::form::{self, Problems, Spec};
use super::{page, redirect, targeting, ConsoleForm, ConsoleUser};
use crate::api::Within;
use crate::domain_error::FieldError;
use crate::model::bulk::{DuplicateBody, GoalSet, GoalsBulk};
use crate::model::campaign::CampaignInput;
use crate::model::common::PRIORITY;
use crate::model::rules::Parent;
use crate::rule::Rule;
use crate::state::AppState;
use crate::usecases::{self, campaigns, overview};

#[derive(serde::Deserialize, Default)]
pub struct Notice {
    #[serde(default)]
    saved: Option<String>,
    #[serde(default)]
    edited: Option<String>,
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path(id): Path<String>, Query(n): Query<Notice>) -> ConsoleResult {
    let notice = if n.saved.is_some() {
        Some("Saved.".to_string())
    } else {
        n.edited.as_deref().and_then(|k| k.parse::<usize>().ok()).map(|k| format!("{k} goal{} changed.", if k == 1 { "" } else { "s" }))
    };
    render_with(&st, &user, &id, None, None, notice).await
}

/// The page, with the campaign form's refused input when there is one.
pub async fn render(st: &AppState, user: &ConsoleUser, id: &str, refused: Option<(CampaignForm, Problems)>) -> ConsoleResult {
    render_with(st, user, id, refused, None, None).await
}

async fn render_with(
    st: &AppState,
    user: &ConsoleUser,
    id: &str,
    refused: Option<(CampaignForm, Problems)>,
    bulk_problems: Option<Problems>,
    notice: Option<String>,
) -> ConsoleResult {
    let a = &user.account;
    let (c, advertiser, goals) = overview::campaign(st, a, id).await?;
    let rules = targeting::sentence(st, a, Parent::Campaign, id).await?;
    let status = if refused.is_some() || bulk_problems.is_some() { StatusCode::UNPROCESSABLE_ENTITY } else { StatusCode::OK };
    let stale = match &refused {
        Some((_, p)) if p.stale => Some(super::changes::last_change(st, user, id).await),
        _ => None,
    };
    let (f, p) =
        refused.unwrap_or_else(|| (CampaignForm { version: c.version().to_string(), ..CampaignForm::of(&c.value) }, Problems::default()));
    let campaign_form = if user.writes() { Some(form_markup(st, user, &format!("/console/campaigns/{id}"), &f, &p).await?) } else { None };
    let total = goals.iter().fold(overview::Delivery::default(), |mut sum, g| {
        sum.delivered += g.delivery.delivered;
        sum
    });
    let bp = bulk_problems.unwrap_or_default();
    let cv = &c.value;
    let report_to = st.clock.now().with_timezone(a.tz()).date_naive();
    let report_from = report_to.checked_sub_days(chrono::Days::new(6)).unwrap_or(report_to);
    let goals_table = html! {
        table {
            thead { tr {
                @if user.writes() { th scope="col" { "Select" } }
                th scope="col" { "Goal" } th scope="col" { "Type" } th scope="col" { "Start" } th scope="col" { "End" }
                th.num scope="col" { "Priority" } th.num scope="col" { "Delivered / booked" } th scope="col" { "Pace" } th scope="col" { "Serving" }
            } }
            tbody {
                @for g in &goals {
                    @let name = g.goal.name.clone().unwrap_or_else(|| format!("Goal {}", g.goal.id));
                    tr {
                        @if user.writes() { td { input type="checkbox" name="goal" value=(g.goal.id) aria-label={ "Select " (name) }; } }
                        td { a href={ "/console/goals/" (g.goal.id) } { (name) } }
                        td { (g.goal.kind.as_str()) }
                        td { (form::local(a, g.goal.start)) }
                        td { (g.goal.end.map(|e| form::local(a, e)).unwrap_or_else(|| "no end".into())) }
                        td.num { (g.goal.effective_priority(cv, a)) }
                        td.num { (delivered(&g.delivery)) }
                        td { (pace(&g.delivery)) }
                        td { @if g.goal.enabled { "Enabled" } @else { "Disabled" } }
                    }
                }
            }
        }
    };
    let body = html! {
        p { a href="/console/campaigns" { "← Campaigns" } }
        h1 { (cv.name) }
        @if let Some(n) = &notice { p.notice role="status" { (n) } }
        dl {
            dt { "Advertiser" } dd { (advertiser.as_deref().unwrap_or("—")) }
            dt { "State" } dd { (state_words(cv)) }
            dt { "Flight" } dd { (flight(a, cv)) " " span.zone { "(" (form::zone_name(a)) ")" } }
            dt { "Delivered" } dd { (form::number(total.delivered)) }
            dt { "Targeting" } dd { (rules) @if user.writes() { " " a href={ "/console/campaigns/" (id) "/targeting" } { "Edit targeting" } } }
        }
        h2 { "Goals" }
        @if user.writes() { p { a.button href={ "/console/campaigns/" (id) "/goals/new" } { "New goal" } } }
        (form::summary(&bp))
        @if user.writes() {
            form method="post" action=(form::action(user, &format!("/console/campaigns/{id}/bulk"))) {
                (form::csrf(user))
                (goals_table)
                @if goals.is_empty() { p { "No goals yet." } }
                @if !goals.is_empty() {
                    fieldset {
                        legend { "Bulk edit the selected goals (all or nothing)" }
                        div.filters {
                            div { label for="bulk-end" { "New end" } input #bulk-end type="datetime-local" name="end"; }
                            div { label for="bulk-priority" { "New priority" } input #bulk-priority type="number" name="priority" min="1" max="10"; }
                            div { label for="bulk-enabled" { "Serving" } select #bulk-enabled name="enabled" { option value="" { "Leave as it is" } option value="true" { "Enable" } option value="false" { "Disable" } } }
                        }
                        button type="submit" { "Apply to selected goals" }
                    }
                }
            }
        } @else {
            (goals_table)
            @if goals.is_empty() { p { "No goals yet." } }
        }
        @if !goals.is_empty() {
            h2 { "Pacing" }
            @if goals.len() > PACING_CHARTS { p { "The first " (PACING_CHARTS) " of " (goals.len()) " goals; each goal's page has its own." } }
            div.charts { @for g in goals.iter().take(PACING_CHARTS) {
                (pacing_figure(&g.goal.id, &g.goal.name.clone().unwrap_or_else(|| format!("Goal {}", g.goal.id))))
            } }
        }
        h2 { "Reports and forecasts" }
        p {
            a href={ "/console/reports?from=" (report_from) "&to=" (report_to) "&groupBy=goal&granularity=day&campaignId=" (id) } { "Delivery of this campaign's goals, last 7 days" }
            " · " a href={ "/console/forecasts?campaign=" (id) } { "Forecasts of this campaign" }
        }
        @if let Some(m) = campaign_form {
            h2 { "Edit campaign" }
            @if let Some(s) = &stale { (super::changes::stale_notice(a, s, &format!("/console/campaigns/{id}"))) }
            (m)
            h2 { "Duplicate" }
            form.stack method="post" action=(form::action(user, &format!("/console/campaigns/{id}/duplicate"))) {
                (form::csrf(user))
                label for="dup-name" { "Name of the copy" }
                input #dup-name type="text" name="name" value={ (cv.name) " (copy)" };
                label for="dup-shift" { "Shift every date by (days)" }
                input #dup-shift type="number" name="shift" value="0" min="-3660" max="3660";
                button type="submit" { "Duplicate" }
            }
        }
    };
    Ok(page::with_status(page::page(&cv.name, Some(user), body), status))
}

/// The bulk edit form: the selected goals (checkboxes, repeated) and what to set.
#[derive(serde::Deserialize, Default)]
pub struct BulkForm {
    #[serde(default)]
    csrf: String,
    #[serde(default, rename = "goal")]
    goals: Vec<String>,
    #[serde(default)]
    end: String,
    #[serde(default)]
    priority: String,
    #[serde(default)]
    enabled: String,
}

/// The bulk form's fields: a failing goal's error is shown at the top, with its name.
const BULK_SPECS: &[Spec] = &[
    Spec { name: "bulk-end", label: "New end", api: &["set.end"] },
    Spec { name: "bulk-priority", label: "New priority", api: &["set.priority"] },
    Spec { name: "bulk-enabled", label: "Serving", api: &["set.enabled"] },
];

impl BulkForm {
    /// The bulk edit this form asks for.
    fn command(&self, a: &crate::model::account::Account) -> Result<GoalsBulk, Vec<FieldError>> {
        let mut set = GoalSet::default();
        let mut errors = Vec::new();
        match self.end.trim() {
            "" => {}
            raw => match form::parse_local(a, raw) {
                Some(t) => set.end = Some(Some(t)),
                None => errors.push(FieldError::new(
                    "set.end",
                    Rule::DateTime,
                    format!("set.end must be a date and time such as 2030-01-31T18:00 (got {raw:?})"),
                )),
            },
        }
        match self.priority.trim() {
            "" => {}
            raw => match raw.parse::<u8>().ok().filter(|p| PRIORITY.contains(p)) {
                Some(p) => set.priority = Some(Some(p)),
                None => errors.push(FieldError::new(
                    "set.priority",
                    Rule::Range,
                    format!("set.priority must be a whole number from {} to {} (got {raw})", PRIORITY.start(), PRIORITY.end()),
                )),
            },
        }
        match self.enabled.as_str() {
            "" => {}
            "true" => set.enabled = Some(true),
            "false" => set.enabled = Some(false),
            other => errors.push(FieldError::new("set.enabled", Rule::Enum, format!("set.enabled is true or false (got {other:?})"))),
        }
        if errors.is_empty() {
            Ok(GoalsBulk { ids: self.goals.clone(), set })
        } else {
            Err(errors)
        }
    }
}

/// Sets the selected goals' end, priority or serving in one all-or-nothing edit; refused,
/// the page names every failing goal and nothing changed.
pub async fn bulk_edit(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(f): ConsoleForm<BulkForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let a = &user.account;
    let refused = |p: Problems| async { render_with(&st, &user, &id, None, Some(p), None).await };
    if f.goals.is_empty() {
        return refused(Problems::general("Select at least one goal.")).await;
    }
    let bulk = match f.command(a) {
        Ok(b) if b.set == GoalSet::default() => {
            return refused(Problems::general("Set a new end, a new priority or the serving state.")).await
        }
        Ok(b) => b,
        Err(errors) => return refused(Problems::of_fields(errors, BULK_SPECS)).await,
    };
    let mut errors = Vec::new();
    bulk.check(&mut errors);
    let outcome = if errors.is_empty() {
        usecases::bulk::goals(&st, &a.id, &bulk.ids, &bulk.set).await
    } else {
        Err(crate::domain_error::DomainError::Validation(errors).into())
    };
    match outcome {
        Ok(done) => Ok(redirect(&format!("/console/campaigns/{id}?edited={}", done.len()))),
        Err(e) => {
            let p = form::problems(e, BULK_SPECS)?;
            let named = name_goals(&st, user.account.id.as_ref(), &id, p).await;
            refused(named).await
        }
    }
}

/// Each failing goal named by its name: the use case names it by id in the error's field
/// (`goals[<id>].end`).
async fn name_goals(st: &AppState, account: &str, campaign: &str, mut p: Problems) -> Problems {
    let Ok((_, goals)) = usecases::goals::of_campaign(st, &account.into(), campaign).await else { return p };
    for e in &mut p.list {
        let Some(goal_id) = e.field.strip_prefix("goals[").and_then(|rest| rest.split(']').next()) else { continue };
        if let Some(g) = goals.iter().find(|g| g.id == goal_id) {
            let name = g.name.clone().unwrap_or_else(|| g.id.clone());
            e.message = format!("Goal “{name}”: {}", e.message);
        }
    }
    p
}

#[derive(serde::Deserialize, Default)]
pub struct DuplicateForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    shift: String,
}

const DUPLICATE_SPECS: &[Spec] = &[
    Spec { name: "dup-name", label: "Name of the copy", api: &["name"] },
    Spec { name: "dup-shift", label: "Shift every date by (days)", api: &["shiftDays"] },
];

/// Copies the campaign with its goals, ads and rules, every date moved by `shift` days.
pub async fn duplicate(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(f): ConsoleForm<DuplicateForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let shift = match f.shift.trim() {
        "" => Ok(0),
        raw => raw.parse::<i64>().map_err(|_| {
            vec![FieldError::new("shiftDays", Rule::Integer, format!("shiftDays must be a whole number of days (got {raw:?})"))]
        }),
    };
    let body = match shift {
        Ok(shift_days) => DuplicateBody { name: Some(f.name.trim().to_string()).filter(|n| !n.is_empty()), shift_days },
        Err(errors) => return render_with(&st, &user, &id, None, Some(Problems::of_fields(errors, DUPLICATE_SPECS)), None).await,
    };
    let outcome = match body.checked() {
        Ok(d) => usecases::duplicate::campaign(&st, &user.account.id, &id, d.name, d.shift_days).await,
        Err(e) => Err(e.into()),
    };
    match outcome {
        Ok(d) => Ok(redirect(&format!("/console/campaigns/{}?saved=1", d.campaign_id))),
        Err(e) => {
            let p = form::problems(e, DUPLICATE_SPECS)?;
            render_with(&st, &user, &id, None, Some(p), None).await
        }
    }
}

/// Saves the campaign form over the stored campaign at the form's version (a newer version,
/// or a form without one, is refused); the form again with its problems when refused.
pub async fn update(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(f): ConsoleForm<CampaignForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let a = &user.account;
    let Some(expected) = form::version(&f.version) else { return render(&st, &user, &id, Some((f, Problems::no_version()))).await };
    let stored = campaigns::get(&st, &a.id, &id).await?;
    let input = match f.command(CampaignInput::of(&stored.value)) {
        Ok(i) => i,
        Err(errors) => return render(&st, &user, &id, Some((f, Problems::of_fields(errors, SPECS)))).await,
    };
    match campaigns::update(&st, a, &id, Some(expected), input.checked()).await {
        Ok(()) => Ok(redirect(&format!("/console/campaigns/{id}?saved=1"))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            render(&st, &user, &id, Some((f, p))).await
        }
    }
}

/// Goals whose pacing charts the campaign page shows (each chart replays the traffic model).
pub const PACING_CHARTS: usize = 6;

/// A goal's pacing chart (`/v3/goals/{id}/pacing.svg`) with the link to its table by day.
pub fn pacing_figure(id: &str, name: &str) -> maud::Markup {
    html! {
        figure.pacing {
            img.chart src={ "/v3/goals/" (id) "/pacing.svg" } alt={ "Pacing chart of " (name) ": plan, delivered and projected; its numbers by day are on its pacing page." } width="760" height="340";
            figcaption { a href={ "/console/goals/" (id) "/pacing" } { "Pacing of " (name) " by day" } }
        }
    }
}
