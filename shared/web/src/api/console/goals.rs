//! A goal's page (its delivery, targeting, ads and form) and the new-goal form, over the
//! goal use cases. The form carries the goal's version: a save over a newer version is
//! refused, and the page says who changed the goal and when.

use axum::extract::{Form, Path, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};

use super::campaigns::{delivered, pace};
use super::form::{self, Field, Problems, Select};
use super::{bean, page, redirect, targeting, ConsoleUser};
use crate::api::Within;
use crate::model::account::Account;
use crate::model::enums::{CapKind, GoalType};
use crate::model::goal::{parse_bean, Goal};
use crate::model::marketplace::Marketplace;
use crate::model::rules::Parent;
use crate::state::AppState;
use crate::usecases::{collection, goals, overview, v3};
use crate::xml::{Element, XmlOut};

/// The goal form's fields.
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

    /// The form's fields over a goal bean (other caps are kept).
    fn apply(&self, el: &mut Element, a: &Account) {
        bean::set(el, "name", Some(&self.name));
        bean::set(el, "type", Some(&self.kind));
        bean::set(el, "start", Some(&form::from_local(a, &self.start)));
        bean::set(el, "end", Some(&form::from_local(a, &self.end)));
        bean::set(el, "goalValue", Some(&self.value));
        bean::set(el, "priority", Some(&self.priority));
        bean::set(el, "marketplaceId", Some(&self.marketplace));
        // The caps the form shows replace theirs; the goal's other caps stay.
        let mut caps = el.child("caps").cloned().unwrap_or(Element { name: "caps".into(), ..Element::default() });
        for (kind, value) in [(CapKind::DailyCap, &self.daily_cap), (CapKind::HourlyCap, &self.hourly_cap)] {
            caps.children.retain(|c| c.child("type").and_then(Element::value) != Some(kind.as_str()));
            if !value.trim().is_empty() {
                caps.children.push(bean::bean("cap", &[("type", kind.as_str()), ("value", value)]));
            }
        }
        bean::put(el, "caps", (!caps.children.is_empty()).then_some(caps));
    }
}

fn cap_of(g: &Goal, kind: CapKind) -> String {
    g.caps.iter().find(|c| c.kind == kind).map(|c| c.value.to_string()).unwrap_or_default()
}

/// The API fields each form field shows the errors of.
const SHOWN: &[&str] = &["name", "type", "start", "end", "goalValue", "priority", "caps", "marketplaceId"];

async fn marketplaces(st: &AppState, a: &Account) -> Result<Vec<(String, String)>, Response> {
    let list = collection::list::<Marketplace>(st, &a.id).await.map_err(form::fail)?;
    Ok(list.into_iter().map(|e| (e.record.id.clone(), e.record.name.clone())).collect())
}

fn goal_form(user: &ConsoleUser, action: &str, f: &GoalForm, p: &Problems, markets: &[(String, String)]) -> Markup {
    let zone = form::zone_name(&user.account);
    let date_hint = format!("In {zone}");
    let types: Vec<(String, String)> = GoalType::ALL.iter().map(|t| (t.as_str().to_string(), t.as_str().to_string())).collect();
    let markets: Vec<(String, String)> = std::iter::once((String::new(), "None".to_string())).chain(markets.iter().cloned()).collect();
    html! {
        (form::summary(p, SHOWN))
        form.stack method="post" action=(action) novalidate {
            (form::csrf(user))
            input type="hidden" name="version" value=(f.version);
            (Field { label: "Name", name: "name", kind: "text", value: &f.name, errors_of: &["name"], required: true, hint: None }.render(p))
            (Select { label: "Type", name: "type", options: &types, selected: &f.kind, errors_of: &["type"], hint: None }.render(p))
            (Field { label: "Start", name: "start", kind: "datetime-local", value: &f.start, errors_of: &["start"], required: true, hint: Some(&date_hint) }.render(p))
            (Field { label: "End", name: "end", kind: "datetime-local", value: &f.end, errors_of: &["end"], required: false, hint: Some(&date_hint) }.render(p))
            (Field { label: "Goal value", name: "value", kind: "number", value: &f.value, errors_of: &["goalValue"], required: false, hint: Some("Impressions or events to deliver; a share of voice is 0.01 to 1") }.render(p))
            (Field { label: "Priority", name: "priority", kind: "number", value: &f.priority, errors_of: &["priority"], required: false, hint: Some("1 (highest) to 10; empty: the campaign's") }.render(p))
            (Field { label: "Daily cap", name: "daily_cap", kind: "number", value: &f.daily_cap, errors_of: &["caps"], required: false, hint: Some("Impressions a day at most; empty: none") }.render(p))
            (Field { label: "Hourly cap", name: "hourly_cap", kind: "number", value: &f.hourly_cap, errors_of: &[], required: false, hint: Some("Impressions an hour at most; empty: none") }.render(p))
            (Select { label: "Marketplace", name: "marketplace", options: &markets, selected: &f.marketplace, errors_of: &["marketplaceId"], hint: Some("Programmatic goals (IMPRESSION or RTB) are filled from it") }.render(p))
            button type="submit" { "Save" }
        }
    }
}

#[derive(serde::Deserialize, Default)]
pub struct Notice {
    #[serde(default)]
    saved: Option<String>,
}

pub async fn show(Within(st): Within, user: ConsoleUser, Path(id): Path<String>, Query(n): Query<Notice>) -> Response {
    render(&st, &user, &id, None, n.saved.is_some()).await
}

async fn render(st: &AppState, user: &ConsoleUser, id: &str, refused: Option<(GoalForm, Problems)>, saved: bool) -> Response {
    let a = &user.account;
    let (g, c, d) = match overview::goal(st, a, id).await {
        Ok(found) => found,
        Err(e) => return form::fail(e),
    };
    let rules = match targeting::sentence(st, a, Parent::Goal, id).await {
        Ok(s) => s,
        Err(r) => return r,
    };
    let ads = match v3::ads_with_parents(st, &a.id, Some(id)).await {
        Ok(list) => list,
        Err(e) => return form::fail(e),
    };
    let markets = if user.writes() {
        match marketplaces(st, a).await {
            Ok(m) => m,
            Err(r) => return r,
        }
    } else {
        Vec::new()
    };
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
    page::with_status(page::page(&name, Some(user), body), status)
}

/// The goal as its bean, to change: what it inherits stays inherited.
fn stored_bean(g: &Goal, c: &crate::model::campaign::Campaign, a: &Account) -> Element {
    let mut out = XmlOut::new();
    g.write(&mut out, c, a);
    let mut el = bean::written(&out.finish());
    bean::set(&mut el, "frontLoadFactor", g.front_load_factor.map(|v| v.to_string()).as_deref());
    bean::set(&mut el, "priority", g.priority.map(|v| v.to_string()).as_deref());
    el
}

pub async fn update(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(id): Path<String>,
    Form(f): Form<GoalForm>,
) -> Response {
    if let Err(r) = form::guard(&user, &headers, &f.csrf) {
        return r;
    }
    let a = &user.account;
    let (g, c) = match goals::get(&st, &a.id, &id).await {
        Ok(found) => found,
        Err(e) => return form::fail(e),
    };
    let mut el = stored_bean(&g.value, &c.value, a);
    f.apply(&mut el, a);
    // The version the form was read at: a newer one is refused (412), never overwritten.
    let expected = Some(f.version.parse::<u64>().unwrap_or(0));
    match goals::update(&st, &a.id, &id, expected, parse_bean(&el)).await {
        Ok(()) => redirect(&format!("/console/goals/{id}?saved=1")),
        Err(e) => match form::problems(e) {
            Ok(p) => render(&st, &user, &id, Some((f, p)), false).await,
            Err(r) => r,
        },
    }
}

pub async fn new_form(Within(st): Within, user: ConsoleUser, Path(campaign): Path<String>) -> Response {
    new_page(&st, &user, &campaign, GoalForm { kind: GoalType::Impression.as_str().into(), ..GoalForm::default() }, Problems::default())
        .await
}

async fn new_page(st: &AppState, user: &ConsoleUser, campaign: &str, f: GoalForm, p: Problems) -> Response {
    if !user.writes() {
        return page::forbidden("Creating a goal needs the TRAFFICKER role.");
    }
    let c = match crate::usecases::campaigns::get(st, &user.account.id, campaign).await {
        Ok(c) => c.value,
        Err(e) => return form::fail(e),
    };
    let markets = match marketplaces(st, &user.account).await {
        Ok(m) => m,
        Err(r) => return r,
    };
    let status = if p.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    let body = html! {
        p { a href={ "/console/campaigns/" (c.id) } { "← " (c.name) } }
        h1 { "New goal" }
        (goal_form(user, &format!("/console/campaigns/{campaign}/goals"), &f, &p, &markets))
    };
    page::with_status(page::page("New goal", Some(user), body), status)
}

pub async fn create(
    Within(st): Within,
    user: ConsoleUser,
    headers: HeaderMap,
    Path(campaign): Path<String>,
    Form(f): Form<GoalForm>,
) -> Response {
    if let Err(r) = form::guard(&user, &headers, &f.csrf) {
        return r;
    }
    let a = &user.account;
    let mut el = bean::bean("goalBean", &[("campaignId", &campaign), ("variant", "NORMAL")]);
    f.apply(&mut el, a);
    let made = match parse_bean(&el) {
        Ok(input) => goals::create(&st, &a.id, input).await.map(|g| g.id),
        Err(e) => Err(e.into()),
    };
    match made {
        Ok(id) => redirect(&format!("/console/goals/{id}")),
        Err(e) => match form::problems(e) {
            Ok(p) => new_page(&st, &user, &campaign, f, p).await,
            Err(r) => r,
        },
    }
    .into_response()
}
