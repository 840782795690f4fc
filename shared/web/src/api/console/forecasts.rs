//! Forecasts: a proposed goal of a campaign forecast from the campaign page (its name,
//! flight, delivery goal, format, device and category), run as the API's campaign forecast
//! job (`POST /api/2.0/forecast/campaign`'s body and use case); the job's progress until it
//! is done, then its chart with the band and its numbers; the account's newest jobs listed.
//! Served by the forecast function, which writes and queues the jobs.

use super::error::{ConsoleError, ConsoleResult};
use crate::api::Access;
use axum::extract::{Path, Query};
use axum::http::HeaderMap;
use axum::response::IntoResponse;
use chrono::{Days, NaiveDate, TimeZone, Utc};
use maud::{html, Markup};
use serde_json::{json, Value};

use super::form::{self, Field, Problems, Select, Spec};
use super::{page, redirect, ConsoleForm, ConsoleUser};
use crate::api::Within;
use crate::forecast::report_schema::Report;
use crate::model::enums::{ForecastKind, ForecastStatus};
use crate::state::AppState;
use crate::usecases::forecast::{self as uc, Submit};
use crate::usecases::forecast::{ForecastRequest, Job, RECENT};
use crate::usecases::reference;

/// The formats a proposed ad may have (the engine's breaks).
const FORMATS: &[(&str, &str)] =
    &[("preroll_standard", "Pre-roll"), ("midroll_standard", "Mid-roll"), ("postroll_standard", "Post-roll"), ("pause_ad", "Pause")];
/// The delivery goals a proposed goal may have.
const KINDS: &[(&str, &str)] = &[("IMPRESSION", "Impressions"), ("COMPLETE", "Completes")];

/// The proposed goal's fields, with the API fields whose errors each shows.
/// (`body` puts the proposed goal at `campaign.goals[0]`).
const SPECS: &[Spec] = &[
    Spec { name: "name", label: "Goal name", api: &["campaign.goals[0].name"] },
    Spec { name: "start", label: "Start", api: &["campaign.goals[0].startDate"] },
    Spec { name: "end", label: "End", api: &["campaign.goals[0].endDate"] },
    Spec { name: "kind", label: "Type", api: &["campaign.goals[0].deliveryGoal.type"] },
    Spec { name: "value", label: "Goal value", api: &["campaign.goals[0].deliveryGoal"] },
    Spec { name: "format", label: "Format", api: &["campaign.goals[0].ads[0].format"] },
    Spec { name: "device", label: "Device", api: &["campaign.goals[0].ads[0].deviceContainers"] },
    Spec { name: "category", label: "Category", api: &["campaign.goals[0].targeting"] },
];

#[derive(serde::Deserialize, Default, Clone)]
pub struct ProposedGoal {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    campaign: String,
    #[serde(default)]
    name: String,
    #[serde(default)]
    start: String,
    #[serde(default)]
    end: String,
    #[serde(default)]
    kind: String,
    #[serde(default)]
    value: String,
    #[serde(default)]
    format: String,
    #[serde(default)]
    device: String,
    #[serde(default)]
    category: String,
}

impl ProposedGoal {
    /// The form's first values: a week from the day after tomorrow (a forecast starts at
    /// least a day ahead), 100,000 impressions before the first pre-roll of any device.
    fn fresh(campaign: &str, today: NaiveDate) -> ProposedGoal {
        let start = today.checked_add_days(Days::new(2)).unwrap_or(today);
        ProposedGoal {
            campaign: campaign.to_string(),
            name: "Proposed goal".into(),
            start: start.to_string(),
            end: start.checked_add_days(Days::new(7)).unwrap_or(start).to_string(),
            kind: "IMPRESSION".into(),
            value: "100000".into(),
            format: "preroll_standard".into(),
            ..ProposedGoal::default()
        }
    }
}

#[derive(serde::Deserialize, Default)]
pub struct ListQuery {
    #[serde(default)]
    campaign: String,
}

fn today(st: &AppState, a: &crate::model::account::Account) -> NaiveDate {
    st.clock.now().with_timezone(a.tz()).date_naive()
}

/// A local date's midnight in the account's zone, as a forecast date; the text as typed
/// when it is not a date (the request reader then names the field).
fn forecast_date(a: &crate::model::account::Account, v: &str) -> Value {
    let midnight = NaiveDate::parse_from_str(v.trim(), "%Y-%m-%d").ok().and_then(|d| d.and_hms_opt(0, 0, 0));
    match midnight.and_then(|n| a.tz().from_local_datetime(&n).earliest()) {
        Some(t) => json!(t.with_timezone(&Utc).to_rfc3339_opts(chrono::SecondsFormat::Millis, true)),
        None => json!(v.trim()),
    }
}

/// The API's campaign forecast body of the form: one proposed goal in the campaign (its
/// name and priority), with one ad of the format for the device.
fn body(a: &crate::model::account::Account, c: &crate::model::campaign::Campaign, f: &ProposedGoal) -> Value {
    let value = f.value.trim().replace(',', "");
    let value = value.parse::<f64>().map(|v| json!(v)).unwrap_or_else(|_| if value.is_empty() { Value::Null } else { json!(value) });
    let mut goal = json!({
        "name": f.name.trim(),
        "startDate": forecast_date(a, &f.start),
        "endDate": forecast_date(a, &f.end),
        "variant": "NORMAL",
        "deliveryGoal": { "type": f.kind, "value": value },
        "ads": [{ "name": format!("{} ad", f.name.trim()), "format": f.format, "deviceContainers": [f.device] }],
    });
    if !f.category.is_empty() {
        goal["targeting"] = json!({ "targetingRules": { "categoryRules": [{ "categoryId": f.category, "ruleType": "AT_LEAST_ONE_OF" }] } });
    }
    json!({ "campaign": { "name": c.name, "priority": c.priority, "goals": [goal] } })
}

fn status_words(j: &Job) -> String {
    match j.status {
        ForecastStatus::Queued => "Queued: waiting for the forecast worker.".into(),
        ForecastStatus::Preparing => "Preparing: reading the account's records and traffic.".into(),
        ForecastStatus::Processing => format!("Running: {} % done.", j.progress),
        ForecastStatus::Finished => "Done.".into(),
        ForecastStatus::Failed => format!("Failed: {}", j.message.as_deref().unwrap_or("the forecast could not run")),
        ForecastStatus::Cancelled => "Cancelled.".into(),
    }
}

fn done(j: &Job) -> bool {
    matches!(j.status, ForecastStatus::Finished | ForecastStatus::Failed | ForecastStatus::Cancelled)
}

fn job_name(j: &Job) -> String {
    let name = match &j.request {
        ForecastRequest::Campaign(c) if c.replaces.is_some() => c.name.clone(),
        ForecastRequest::Campaign(c) => c.goals.first().map(|g| g.name.clone()).or_else(|| c.name.clone()),
        ForecastRequest::Inventory(i) => i.name.clone(),
    };
    name.unwrap_or_else(|| format!("Forecast {}", j.id))
}

/// The devices and categories a proposed goal may target, as the form's choices.
type Options = (Vec<(String, String)>, Vec<(String, String)>);

async fn options(st: &AppState, a: &crate::model::account::Account) -> ConsoleResult<Options> {
    let devices = reference::device_containers(st, &a.id).await?;
    let cats = reference::categories(st, &a.id).await?;
    Ok((
        devices.into_iter().map(|d| (d.id, d.name)).collect(),
        std::iter::once((String::new(), "Any category".to_string())).chain(cats.into_iter().map(|c| (c.id, c.name))).collect(),
    ))
}

async fn campaign_of(st: &AppState, a: &crate::model::account::Account, id: &str) -> Option<crate::model::campaign::Campaign> {
    if id.is_empty() || !crate::ids::plausible_id(id) {
        return None;
    }
    crate::usecases::campaigns::get(st, &a.id, id).await.ok().map(|c| c.value)
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter().map(|(v, t)| (v.to_string(), t.to_string())).collect()
}

async fn render(st: &AppState, user: &ConsoleUser, f: &ProposedGoal, p: &Problems) -> ConsoleResult {
    let a = &user.account;
    let campaign = campaign_of(st, a, &f.campaign).await;
    let jobs = uc::recent(st, &a.id).await?;
    let (devices, cats) = options(st, a).await?;
    let body = html! {
        h1 { "Forecasts" }
        // A forecast is a read (the API lets a VIEWER run one): every role may run one.
        @match &campaign {
            Some(c) => {
                h2 { "Forecast " (c.name) }
                p { "Its goals proposed again from a day ahead to their ends, for what each has left to deliver, with their targeting; the campaign's own goals leave the competition." }
                form method="post" action=(form::action(user, "/console/forecasts/campaign")) {
                    (form::csrf(user))
                    input type="hidden" name="campaign" value=(c.id);
                    button type="submit" { "Run campaign forecast" }
                }
                h2 { "Forecast a proposed goal of " (c.name) }
                p { "The goal is forecast in this campaign, against everything the account already books. Dates are days of " (form::zone_name(a)) "; a forecast starts at least a day ahead." }
                (form::summary(p))
                form.stack method="post" action=(form::action(user, "/console/forecasts")) {
                    (form::csrf(user))
                    input type="hidden" name="campaign" value=(c.id);
                    (Field { label: "Goal name", name: "name", kind: "text", value: &f.name, required: true, hint: None }.render(p))
                    (Field { label: "Start", name: "start", kind: "date", value: &f.start, required: true, hint: None }.render(p))
                    (Field { label: "End", name: "end", kind: "date", value: &f.end, required: true, hint: Some("The goal ends at this day's start.") }.render(p))
                    (Select { label: "Type", name: "kind", options: &pairs(KINDS), selected: &f.kind, hint: None }.render(p))
                    (Field { label: "Goal value", name: "value", kind: "text", value: &f.value, required: true, hint: None }.render(p))
                    (Select { label: "Format", name: "format", options: &pairs(FORMATS), selected: &f.format, hint: None }.render(p))
                    (Select { label: "Device", name: "device", options: &devices, selected: &f.device, hint: None }.render(p))
                    (Select { label: "Category", name: "category", options: &cats, selected: &f.category, hint: None }.render(p))
                    button type="submit" { "Run forecast" }
                }
            }
            None => p { "To forecast a proposed goal, open its campaign and choose " strong { "Forecasts of this campaign" } ". " a href="/console/campaigns" { "Campaigns" } }
        }
        h2 { "Recent forecasts" }
        @if jobs.is_empty() { p { "No forecasts in the last 14 days." } }
        @else {
            table {
                thead { tr { th scope="col" { "Created" } th scope="col" { "Forecast" } th scope="col" { "Kind" } th scope="col" { "Status" } } }
                tbody { @for j in &jobs {
                    tr {
                        td { (form::local(a, j.created)) }
                        td { a href={ "/console/forecasts/" (j.id) } { (job_name(j)) } }
                        td { (j.kind.as_str()) }
                        td { (status_words(j)) }
                    }
                } }
            }
            p { "The newest " (RECENT) " of the last 14 days; a forecast is kept 14 days after it ends." }
        }
    };
    let res = page::page("Forecasts", Some(user), body);
    Ok(if p.is_empty() { res.into_response() } else { page::with_status(res, axum::http::StatusCode::UNPROCESSABLE_ENTITY) })
}

pub async fn list(Within(st): Within, user: ConsoleUser, Query(q): Query<ListQuery>) -> ConsoleResult {
    let f = ProposedGoal::fresh(&q.campaign, today(&st, &user.account));
    render(&st, &user, &f, &Problems::default()).await
}

pub async fn create(Within(st): Within, user: ConsoleUser, headers: HeaderMap, ConsoleForm(f): ConsoleForm<ProposedGoal>) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let a = &user.account;
    let Some(c) = campaign_of(&st, a, &f.campaign).await else {
        return Err(ConsoleError::Service(crate::api::error::AppError::not_found("campaign", &f.campaign)));
    };
    let body = body(a, &c, &f);
    match uc::submit(&st, Submit { account: &a.id, kind: ForecastKind::Campaign, body: &body }).await {
        Ok(s) => Ok(redirect(&format!("/console/forecasts/{}", s.job.id))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            render(&st, &user, &f, &p).await
        }
    }
}

#[derive(serde::Deserialize, Default)]
pub struct CampaignForm {
    #[serde(default)]
    csrf: String,
    #[serde(default)]
    campaign: String,
}

/// A forecast of the running campaign (`usecases::forecast::running_campaign`).
pub async fn create_for_campaign(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    ConsoleForm(f): ConsoleForm<CampaignForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    match uc::running_campaign(&st, &user.account.id, &f.campaign).await {
        Ok((s, _)) => Ok(redirect(&format!("/console/forecasts/{}", s.job.id))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            render(&st, &user, &ProposedGoal::fresh(&f.campaign, today(&st, &user.account)), &p).await
        }
    }
}

/// The job's state for the page's script (`data-poll`).
pub async fn status(Within(st): Within, user: ConsoleUser, Path(id): Path<String>) -> ConsoleResult {
    let j = uc::status(&st, &user.account.id, &id).await?;
    Ok(page::progress(&status_words(&j), f64::from(j.progress), done(&j)))
}

fn day_table(caption: &str, rows: Vec<(String, f64, f64, f64)>) -> Markup {
    html! {
        table {
            caption { (caption) }
            thead { tr { th scope="col" { "Day" } th.num scope="col" { "Expected" } th.num scope="col" { "Low" } th.num scope="col" { "High" } } }
            tbody { @for (d, v, lo, hi) in rows {
                tr { td { (d) } td.num { (form::number(v.round())) } td.num { (form::number(lo.round())) } td.num { (form::number(hi.round())) } }
            } }
        }
    }
}

fn report_markup(r: &Report) -> Markup {
    match r {
        Report::Campaign(c) => html! {
            h2 { "Expected delivery by goal" }
            @for g in &c.goals {
                @let name = g.name.clone().unwrap_or_else(|| "Proposed goal".into());
                h3 { (name) }
                dl {
                    dt { "Expected" } dd { (form::number(g.forecast.forecasted_units.round())) }
                    @if let Some(t) = g.forecast.target { dt { "Target" } dd { (form::number(t.round())) } }
                    @if let Some(s) = g.forecast.share_of_target { dt { "Share of the target" } dd { (format!("{s:.1} %")) } }
                    dt { "Requests its targeting matches" } dd { (form::number(g.forecast.matched_units.round())) }
                    dt { "Its ads can fill" } dd { (form::number(g.forecast.possible_units.round())) }
                    dt { "Left by higher-priority goals" } dd { (form::number(g.forecast.available_units.round())) }
                }
                (day_table(&format!("{name}: expected delivery by day"), g.forecast.delivery_by_date.iter().map(|(d, v)| (d.get(..10).unwrap_or(d).to_string(), v.units, v.low, v.high)).collect()))
            }
            p { "Traffic replayed: " (c.traffic_source) "." }
        },
        Report::Inventory(i) => html! {
            h2 { "Ad opportunities" }
            (day_table("Ad opportunities by day", i.total_inventory.inventory_by_date.iter().map(|(d, v)| (d.get(..10).unwrap_or(d).to_string(), v.total, v.low, v.high)).collect()))
            p { "Traffic replayed: " (i.traffic_source) "." }
        },
    }
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path(id): Path<String>) -> ConsoleResult {
    let a = &user.account;
    let j = uc::status(&st, &a.id, &id).await?;
    let report = if j.status == ForecastStatus::Finished {
        match uc::report(&st, &a.id, j.kind, &id).await {
            Ok(r) => Some(r),
            Err(e) => return Err(e.into()),
        }
    } else {
        None
    };
    let name = job_name(&j);
    let body = html! {
        p { a href="/console/forecasts" { "← Forecasts" } }
        h1 { (name) }
        p { "A " (j.kind.as_str()) " forecast, created " (form::local(a, j.created)) " (" (form::zone_name(a)) ")." }
        div data-poll=[(!done(&j)).then(|| format!("/console/forecasts/{id}/status"))] {
            p role="status" aria-live="polite" { span data-poll-text { (status_words(&j)) } }
            @if !done(&j) {
                progress max="100" value=(j.progress) aria-label="Forecast progress" { (j.progress) " %" }
                p { a href={ "/console/forecasts/" (id) } { "Reload" } " to see it now." }
            }
        }
        @if let Some(r) = &report {
            figure {
                img.chart src={ "/api/2.0/forecast/report/" (j.kind.as_str()) "/" (id) "/chart.svg" } alt={ "Forecast chart of " (name) ": the numbers are below." } width="760" height="340";
                figcaption { "Expected delivery with its band (low to high)." }
            }
            (report_markup(r))
        }
    };
    Ok(page::page(&name, Some(&user), body).into_response())
}

/// The pages the forecast function serves.
pub fn router() -> crate::api::Routes {
    use axum::routing::get;
    crate::api::Routes::console_reading()
        .route("/console/forecasts", Access::VIEWER, get(list).post(create))
        .route("/console/forecasts/campaign", Access::VIEWER, axum::routing::post(create_for_campaign))
        .route("/console/forecasts/{id}", Access::RECORDS, get(show))
        .route("/console/forecasts/{id}/status", Access::RECORDS, get(status))
}
