//! A campaign's page: what it is and how it delivers, its goals (selected for a bulk edit),
//! its targeting in words, its form, and a duplicate with a date shift.

use axum::extract::{Form, Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::Response;
use maud::html;
use serde_json::{json, Map, Value};

use super::campaigns::{delivered, flight, form_markup, pace, state_words, CampaignForm};
use super::form::{self, Problems};
use super::{bean, page, redirect, targeting, ConsoleUser};
use crate::api::Within;
use crate::model::bulk;
use crate::model::campaign::parse_bean;
use crate::model::rules::Parent;
use crate::state::AppState;
use crate::usecases::{self, campaigns, overview};

#[derive(serde::Deserialize, Default)]
pub struct Notice {
    #[serde(default)]
    saved: Option<String>,
    #[serde(default)]
    edited: Option<String>,
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path(id): Path<String>, Query(n): Query<Notice>) -> Response {
    let notice = if n.saved.is_some() {
        Some("Saved.".to_string())
    } else {
        n.edited.as_deref().and_then(|k| k.parse::<usize>().ok()).map(|k| format!("{k} goal{} changed.", if k == 1 { "" } else { "s" }))
    };
    render_with(&st, &user, &id, None, None, notice).await
}

/// The page, with the campaign form's refused input when there is one.
pub async fn render(st: &AppState, user: &ConsoleUser, id: &str, refused: Option<(CampaignForm, Problems)>) -> Response {
    render_with(st, user, id, refused, None, None).await
}

async fn render_with(
    st: &AppState,
    user: &ConsoleUser,
    id: &str,
    refused: Option<(CampaignForm, Problems)>,
    bulk_problems: Option<Problems>,
    notice: Option<String>,
) -> Response {
    let a = &user.account;
    let (c, advertiser, goals) = match overview::campaign(st, a, id).await {
        Ok(found) => found,
        Err(e) => return form::fail(e),
    };
    let rules = match targeting::sentence(st, a, Parent::Campaign, id).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let status = if refused.is_some() || bulk_problems.is_some() { StatusCode::UNPROCESSABLE_ENTITY } else { StatusCode::OK };
    let stale = match &refused {
        Some((_, p)) if p.stale => Some(super::changes::last_change(st, user, id).await),
        _ => None,
    };
    let (f, p) =
        refused.unwrap_or_else(|| (CampaignForm { version: c.version().to_string(), ..CampaignForm::of(&c.value) }, Problems::default()));
    let campaign_form = if user.writes() {
        match form_markup(st, user, &format!("/console/campaigns/{id}"), &f, &p).await {
            Ok(m) => Some(m),
            Err(r) => return r,
        }
    } else {
        None
    };
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
        (form::summary(&bp, &[]))
        @if user.writes() {
            form method="post" action={ "/console/campaigns/" (id) "/bulk" } {
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
            form.stack method="post" action={ "/console/campaigns/" (id) "/duplicate" } {
                (form::csrf(user))
                label for="dup-name" { "Name of the copy" }
                input #dup-name type="text" name="name" value={ (cv.name) " (copy)" };
                label for="dup-shift" { "Shift every date by (days)" }
                input #dup-shift type="number" name="shift" value="0" min="-3660" max="3660";
                button type="submit" { "Duplicate" }
            }
        }
    };
    page::with_status(page::page(&cv.name, Some(user), body), status)
}

/// The bulk edit form: the selected goals and what to set.
#[derive(Default)]
struct BulkForm {
    csrf: String,
    goals: Vec<String>,
    end: String,
    priority: String,
    enabled: String,
}

fn bulk_form(pairs: Vec<(String, String)>) -> BulkForm {
    let mut f = BulkForm::default();
    for (k, v) in pairs {
        match k.as_str() {
            "csrf" => f.csrf = v,
            "goal" => f.goals.push(v),
            "end" => f.end = v,
            "priority" => f.priority = v,
            "enabled" => f.enabled = v,
            _ => {}
        }
    }
    f
}

/// Sets the selected goals' end, priority or serving in one all-or-nothing edit; refused,
/// the page names every failing goal and nothing changed.
pub async fn bulk_edit(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(pairs): Form<Vec<(String, String)>>,
) -> Response {
    let f = bulk_form(pairs);
    if let Err(r) = form::guard(&user, &headers, &f.csrf) {
        return r;
    }
    let a = &user.account;
    let mut set = Map::new();
    if !f.end.trim().is_empty() {
        set.insert("end".into(), Value::String(form::from_local(a, &f.end)));
    }
    if !f.priority.trim().is_empty() {
        set.insert(
            "priority".into(),
            f.priority.trim().parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::String(f.priority.clone())),
        );
    }
    if !f.enabled.is_empty() {
        set.insert("enabled".into(), Value::Bool(f.enabled == "true"));
    }
    let refused = |p: Problems| async { render_with(&st, &user, &id, None, Some(p), None).await };
    if f.goals.is_empty() {
        return refused(Problems::general("Select at least one goal.")).await;
    }
    if set.is_empty() {
        return refused(Problems::general("Set a new end, a new priority or the serving state.")).await;
    }
    let body = json!({ "ids": f.goals, "set": set });
    let outcome = match bulk::parse_goals(&body) {
        Ok((ids, set)) => usecases::bulk::goals(&st, &a.id, &ids, &set).await,
        Err(e) => Err(e.into()),
    };
    match outcome {
        Ok(done) => redirect(&format!("/console/campaigns/{id}?edited={}", done.len())),
        Err(e) => match form::problems(e) {
            Ok(p) => {
                let named = name_goals(&st, user.account.id.as_ref(), &id, p).await;
                refused(named).await
            }
            Err(r) => r,
        },
    }
}

/// Each failing goal named by its name (the use case names it by id: `goals[<id>].end`).
async fn name_goals(st: &AppState, account: &str, campaign: &str, mut p: Problems) -> Problems {
    let Ok((_, goals)) = usecases::goals::of_campaign(st, &account.into(), campaign).await else { return p };
    for e in &mut p.fields {
        if let Some(g) = goals.iter().find(|g| e.field.contains(&g.id) || e.message.contains(&g.id)) {
            let name = g.name.clone().unwrap_or_else(|| g.id.clone());
            e.message = format!("Goal “{name}”: {}", e.message.replace(&format!("goals[{}].", g.id), ""));
        }
    }
    p.general.retain(|m| !m.is_empty());
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

/// Copies the campaign with its goals, ads and rules, every date moved by `shift` days.
pub async fn duplicate(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(f): Form<DuplicateForm>,
) -> Response {
    if let Err(r) = form::guard(&user, &headers, &f.csrf) {
        return r;
    }
    let shift = f.shift.trim();
    let body = json!({
        "name": if f.name.trim().is_empty() { Value::Null } else { Value::String(f.name.trim().to_string()) },
        "shiftDays": if shift.is_empty() { Value::from(0) } else { shift.parse::<i64>().map(Value::from).unwrap_or_else(|_| Value::String(shift.to_string())) },
    });
    let outcome = match bulk::parse_duplicate(&body) {
        Ok(d) => usecases::duplicate::campaign(&st, &user.account.id, &id, d.name, d.shift_days).await,
        Err(e) => Err(e.into()),
    };
    match outcome {
        Ok(d) => redirect(&format!("/console/campaigns/{}?saved=1", d.campaign_id)),
        Err(e) => match form::problems(e) {
            Ok(p) => render_with(&st, &user, &id, None, Some(p), None).await,
            Err(r) => r,
        },
    }
}

/// Saves the campaign form over the stored campaign (at the form's version); the form again
/// with its problems when refused.
pub async fn update(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(f): Form<CampaignForm>,
) -> Response {
    if let Err(r) = form::guard(&user, &headers, &f.csrf) {
        return r;
    }
    let a = &user.account;
    let stored = match campaigns::get(&st, &a.id, &id).await {
        Ok(c) => c,
        Err(e) => return form::fail(e),
    };
    let mut out = crate::xml::XmlOut::new();
    stored.value.write(&mut out, a, st.clock.now());
    let mut el = bean::written(&out.finish());
    // What the record inherits stays inherited unless the form sets it.
    bean::set(&mut el, "frontLoadFactor", stored.value.front_load_factor.map(|v| v.to_string()).as_deref());
    f.apply(&mut el);
    let expected = f.version.parse::<u64>().ok();
    match campaigns::update(&st, a, &id, expected, parse_bean(&el)).await {
        Ok(()) => redirect(&format!("/console/campaigns/{id}?saved=1")),
        Err(e) => match form::problems(e) {
            Ok(p) => render(&st, &user, &id, Some((f, p))).await,
            Err(r) => r,
        },
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
