//! A goal's page (its delivery, targeting, ads and form) and the new-goal form, over the
//! goal use cases. The form carries the goal's version: a save over a newer version is
//! refused, and the page says who changed the goal and when.

use axum::extract::{Path, Query};
use axum::http::{HeaderMap, StatusCode};
use chrono::{DateTime, Utc};
use maud::{html, Markup};

use super::campaigns::{delivered, pace};
use super::error::ConsoleResult;
use super::form::{self, Field, Problems, Select, Spec};
use super::{page, redirect, targeting, ConsoleForm, ConsoleUser};
use crate::api::Within;
use crate::domain_error::FieldError;
use crate::model::account::Account;
use crate::model::common::PRIORITY;
use crate::model::enums::{CapKind, GoalType, GoalVariant};
use crate::model::goal::{Cap, Goal, GoalInput};
use crate::model::marketplace::Marketplace;
use crate::model::rules::Parent;
use crate::rule::Rule;
use crate::state::AppState;
use crate::usecases::{collection, goals, overview, v3};

/// The goal form's fields as the browser sends them.
#[derive(serde::Deserialize, Default, Clone)]
pub struct GoalForm {
    #[serde(default)]
    pub csrf: String,
    #[serde(default)]
    pub name: String,
    #[serde(default, rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub start: String,
    #[serde(default)]
    pub end: String,
    #[serde(default)]
    pub value: String,
    #[serde(default)]
    pub priority: String,
    #[serde(default)]
    pub daily_cap: String,
    #[serde(default)]
    pub hourly_cap: String,
    #[serde(default)]
    pub marketplace: String,
    #[serde(default)]
    pub version: String,
}

/// The goal form's fields, with the API fields whose errors each shows.
const SPECS: &[Spec] = &[
    Spec { name: "name", label: "Name", api: &["goalBean/name"] },
    Spec { name: "type", label: "Type", api: &["goalBean/type"] },
    Spec { name: "start", label: "Start", api: &["goalBean/start"] },
    Spec { name: "end", label: "End", api: &["goalBean/end"] },
    Spec { name: "value", label: "Goal value", api: &["goalBean/goalValue"] },
    Spec { name: "priority", label: "Priority", api: &["goalBean/priority"] },
    Spec { name: "daily_cap", label: "Daily cap", api: &["goalBean/caps"] },
    Spec { name: "hourly_cap", label: "Hourly cap", api: &[] },
    Spec { name: "marketplace", label: "Marketplace", api: &["goalBean/marketplaceId"] },
];

impl GoalForm {
    fn of(g: &Goal, a: &Account, version: u64) -> GoalForm {
        GoalForm {
            name: g.name.clone().unwrap_or_default(),
            kind: g.kind.as_str().to_string(),
            start: form::local_input(a, Some(g.start)),
            end: form::local_input(a, g.end),
            value: g.goal_value.map(|v| v.to_string()).unwrap_or_default(),
            priority: g.priority.map(|p| p.to_string()).unwrap_or_default(),
            daily_cap: cap_of(g, CapKind::DailyCap),
            hourly_cap: cap_of(g, CapKind::HourlyCap),
            marketplace: g.marketplace_id.clone().unwrap_or_default(),
            version: version.to_string(),
            csrf: String::new(),
        }
    }

    /// The goal this form asks for, over `base` (the stored goal as its input, or a new
    /// goal's): the fields the form shows are set from it, every other field kept. A date
    /// the person did not change keeps its stored instant exactly (the form shows minutes;
    /// the stored start may have seconds and milliseconds).
    fn command(&self, a: &Account, mut base: GoalInput, stored: Option<&Goal>) -> Result<GoalInput, Vec<FieldError>> {
        let mut errors = Vec::new();
        base.name = Some(self.name.trim().to_string()).filter(|n| !n.is_empty());
        match GoalType::parse(self.kind.trim()) {
            Some(k) => base.kind = k,
            None => errors.push(FieldError::new("goalBean/type", Rule::Enum, "choose one of the goal types")),
        }
        match date(a, "start", &self.start, stored.map(|g| g.start)) {
            Ok(Some(t)) => base.start = t,
            Ok(None) => errors.push(FieldError::new("goalBean/start", Rule::Required, "goalBean/start is required")),
            Err(e) => errors.push(e),
        }
        match date(a, "end", &self.end, stored.and_then(|g| g.end)) {
            Ok(t) => base.end = t,
            Err(e) => errors.push(e),
        }
        match number(&self.value, "goalBean/goalValue") {
            Ok(v) => base.goal_value = v,
            Err(e) => errors.push(e),
        }
        match self.priority.trim() {
            "" => base.priority = None,
            p => match p.parse::<u8>().ok().filter(|p| PRIORITY.contains(p)) {
                Some(p) => base.priority = Some(p),
                None => errors.push(FieldError::new(
                    "goalBean/priority",
                    Rule::Range,
                    format!("goalBean/priority must be a whole number from {} to {} (got {p})", PRIORITY.start(), PRIORITY.end()),
                )),
            },
        }
        // The caps the form shows replace theirs; the goal's other caps stay.
        base.caps.retain(|c| c.kind != CapKind::DailyCap && c.kind != CapKind::HourlyCap);
        for (kind, raw) in [(CapKind::DailyCap, &self.daily_cap), (CapKind::HourlyCap, &self.hourly_cap)] {
            match number(raw, "goalBean/caps") {
                Ok(Some(value)) => base.caps.push(Cap { kind, value }),
                Ok(None) => {}
                Err(e) => errors.push(e),
            }
        }
        base.marketplace_id = Some(self.marketplace.trim().to_string()).filter(|m| !m.is_empty());
        if errors.is_empty() {
            Ok(base)
        } else {
            Err(errors)
        }
    }
}

/// A `datetime-local` field in the account's zone: `unchanged` when it still shows the
/// stored instant (to the minute), else the instant typed; blank is none.
fn date(a: &Account, field: &str, raw: &str, stored: Option<DateTime<Utc>>) -> Result<Option<DateTime<Utc>>, FieldError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    if let Some(t) = stored.filter(|t| form::local_input(a, Some(*t)) == raw) {
        return Ok(Some(t));
    }
    form::parse_local(a, raw).map(Some).ok_or_else(|| {
        FieldError::new(
            format!("goalBean/{field}"),
            Rule::DateTime,
            format!("goalBean/{field} must be a date and time such as 2030-01-31T18:00 (got {raw:?})"),
        )
    })
}

/// A number field; blank is none.
fn number(raw: &str, field: &'static str) -> Result<Option<f64>, FieldError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(None);
    }
    raw.parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .map(Some)
        .ok_or_else(|| FieldError::new(field, Rule::Number, format!("{field} must be a number (got {raw:?})")))
}

fn cap_of(g: &Goal, kind: CapKind) -> String {
    g.caps.iter().find(|c| c.kind == kind).map(|c| c.value.to_string()).unwrap_or_default()
}

async fn marketplaces(st: &AppState, a: &Account) -> ConsoleResult<Vec<(String, String)>> {
    let list = collection::list::<Marketplace>(st, &a.id).await?;
    Ok(list.into_iter().map(|e| (e.record.id.clone(), e.record.name.clone())).collect())
}

fn goal_form(user: &ConsoleUser, action: &str, f: &GoalForm, p: &Problems, markets: &[(String, String)]) -> Markup {
    let zone = form::zone_name(&user.account);
    let date_hint = format!("In {zone}");
    let types: Vec<(String, String)> = GoalType::ALL.iter().map(|t| (t.as_str().to_string(), t.as_str().to_string())).collect();
    let markets: Vec<(String, String)> = std::iter::once((String::new(), "None".to_string())).chain(markets.iter().cloned()).collect();
    html! {
        (form::summary(p))
        form.stack method="post" action=(form::action(user, action)) novalidate {
            (form::csrf(user))
            input type="hidden" name="version" value=(f.version);
            (Field { label: "Name", name: "name", kind: "text", value: &f.name, required: true, hint: None }.render(p))
            (Select { label: "Type", name: "type", options: &types, selected: &f.kind, hint: None }.render(p))
            (Field { label: "Start", name: "start", kind: "datetime-local", value: &f.start, required: true, hint: Some(&date_hint) }.render(p))
            (Field { label: "End", name: "end", kind: "datetime-local", value: &f.end, required: false, hint: Some(&date_hint) }.render(p))
            (Field { label: "Goal value", name: "value", kind: "number", value: &f.value, required: false, hint: Some("Impressions or events to deliver; a share of voice is 0.01 to 1") }.render(p))
            (Field { label: "Priority", name: "priority", kind: "number", value: &f.priority, required: false, hint: Some("1 (highest) to 10; empty: the campaign's") }.render(p))
            (Field { label: "Daily cap", name: "daily_cap", kind: "number", value: &f.daily_cap, required: false, hint: Some("Impressions a day at most; empty: none") }.render(p))
            (Field { label: "Hourly cap", name: "hourly_cap", kind: "number", value: &f.hourly_cap, required: false, hint: Some("Impressions an hour at most; empty: none") }.render(p))
            (Select { label: "Marketplace", name: "marketplace", options: &markets, selected: &f.marketplace, hint: Some("Programmatic goals (IMPRESSION or RTB) are filled from it") }.render(p))
            button type="submit" { "Save" }
        }
    }
}

#[derive(serde::Deserialize, Default)]
pub struct Notice {
    #[serde(default)]
    saved: Option<String>,
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path(id): Path<String>, Query(n): Query<Notice>) -> ConsoleResult {
    render(&st, &user, &id, None, n.saved.is_some()).await
}

async fn render(st: &AppState, user: &ConsoleUser, id: &str, refused: Option<(GoalForm, Problems)>, saved: bool) -> ConsoleResult {
    let a = &user.account;
    let (g, c, d) = overview::goal(st, a, id).await?;
    let rules = targeting::sentence(st, a, Parent::Goal, id).await?;
    let ads = v3::ads_with_parents(st, &a.id, Some(id)).await?;
    let markets = if user.writes() { marketplaces(st, a).await? } else { Vec::new() };
    let status = if refused.is_some() { StatusCode::UNPROCESSABLE_ENTITY } else { StatusCode::OK };
    let stale = match &refused {
        Some((_, p)) if p.stale => Some(super::changes::last_change(st, user, id).await),
        _ => None,
    };
    let (f, p) = refused.unwrap_or_else(|| (GoalForm::of(&g.value, a, g.version()), Problems::default()));
    let gv = &g.value;
    let name = gv.name.clone().unwrap_or_else(|| format!("Goal {}", gv.id));
    let body = html! {
        p { a href={ "/console/campaigns/" (c.value.id) } { "← " (c.value.name) } }
        h1 { (name) }
        @if saved { p.notice role="status" { "Saved." } }
        dl {
            dt { "Campaign" } dd { (c.value.name) }
            dt { "Type" } dd { (gv.kind.as_str()) }
            dt { "Flight" } dd { (form::local(a, gv.start)) " → " (gv.end.map(|e| form::local(a, e)).unwrap_or_else(|| "no end".into())) " " span.zone { "(" (form::zone_name(a)) ")" } }
            dt { "Delivered / booked" } dd { (delivered(&d)) }
            dt { "Pace" } dd { (pace(&d)) }
            dt { "Targeting" } dd { (rules) @if user.writes() { " " a href={ "/console/goals/" (id) "/targeting" } { "Edit targeting" } } }
        }
        h2 { "Pacing" }
        (super::campaign_page::pacing_figure(id, &name))
        h2 { "Ads" }
        @if user.writes() { p { a.button href={ "/console/goals/" (id) "/ads/new" } { "New ad" } } }
        @if ads.is_empty() { p { "No ads yet: the goal cannot serve." } }
        @else {
            ul { @for (ad, _, _) in &ads { li { a href={ "/console/ads/" (ad.id) } { (ad.name) } @if !ad.enabled { " (disabled)" } } } }
        }
        @if user.writes() {
            h2 { "Edit goal" }
            @if let Some(s) = &stale { (super::changes::stale_notice(a, s, &format!("/console/goals/{id}"))) }
            (goal_form(user, &format!("/console/goals/{id}"), &f, &p, &markets))
        }
    };
    Ok(page::with_status(page::page(&name, Some(user), body), status))
}

/// Saves the form over the stored goal at the form's version: a newer version, or a form
/// without one, is refused and nothing is overwritten.
pub async fn update(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    ConsoleForm(f): ConsoleForm<GoalForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let a = &user.account;
    let Some(expected) = form::version(&f.version) else { return render(&st, &user, &id, Some((f, Problems::no_version())), false).await };
    let (g, _) = goals::get(&st, &a.id, &id).await?;
    let input = match f.command(a, GoalInput::of(&g.value), Some(&g.value)) {
        Ok(input) => input,
        Err(errors) => return render(&st, &user, &id, Some((f, Problems::of_fields(errors, SPECS))), false).await,
    };
    match goals::update(&st, &a.id, &id, Some(expected), input.checked()).await {
        Ok(()) => Ok(redirect(&format!("/console/goals/{id}?saved=1"))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            render(&st, &user, &id, Some((f, p)), false).await
        }
    }
}

pub async fn new_form(Within(st): Within, user: ConsoleUser, Path(campaign): Path<String>) -> ConsoleResult {
    new_page(&st, &user, &campaign, GoalForm { kind: GoalType::Impression.as_str().into(), ..GoalForm::default() }, Problems::default())
        .await
}

async fn new_page(st: &AppState, user: &ConsoleUser, campaign: &str, f: GoalForm, p: Problems) -> ConsoleResult {
    if !user.writes() {
        return Err(super::error::ConsoleError::Forbidden("Creating a goal needs the TRAFFICKER role.".into()));
    }
    let c = crate::usecases::campaigns::get(st, &user.account.id, campaign).await?.value;
    let markets = marketplaces(st, &user.account).await?;
    let status = if p.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let body = html! {
        p { a href={ "/console/campaigns/" (c.id) } { "← " (c.name) } }
        h1 { "New goal" }
        (goal_form(user, &format!("/console/campaigns/{campaign}/goals"), &f, &p, &markets))
    };
    Ok(page::with_status(page::page("New goal", Some(user), body), status))
}

/// A new goal of the campaign from the form, through the goal use case.
pub async fn create(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(campaign): Path<String>,
    ConsoleForm(f): ConsoleForm<GoalForm>,
) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let a = &user.account;
    let base = GoalInput {
        id: None,
        campaign_id: campaign.clone(),
        kind: GoalType::Impression,
        variant: GoalVariant::Normal,
        goal_value: None,
        start: st.clock.now(),
        end: None,
        pricing_model: None,
        pricing_value: None,
        custom_id: None,
        description: None,
        name: None,
        front_load_factor: None,
        priority: None,
        caps: Vec::new(),
        midroll_breaks: Vec::new(),
        unlimited_impressions: false,
        marketplace_id: None,
        enabled: None,
    };
    let input = match f.command(a, base, None) {
        Ok(input) => input,
        Err(errors) => return new_page(&st, &user, &campaign, f, Problems::of_fields(errors, SPECS)).await,
    };
    let made = match input.checked() {
        Ok(input) => goals::create(&st, &a.id, input).await,
        Err(e) => Err(e.into()),
    };
    match made {
        Ok(g) => Ok(redirect(&format!("/console/goals/{}", g.id))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            new_page(&st, &user, &campaign, f, p).await
        }
    }
}
