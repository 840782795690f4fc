//! The campaigns list (paged from the name index, searched by name, filtered by state) and
//! the campaign form (create and edit), over the campaign use cases.

use axum::extract::{Form, Query};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use maud::{html, Markup};

use super::form::{self, Field, Problems, Select};
use super::{bean, page, redirect, ConsoleUser};
use crate::api::Within;
use crate::delivery::pacing::PaceState;
use crate::model::campaign::{parse_bean, Campaign};
use crate::model::enums::{CampaignState, ClientType};
use crate::state::AppState;
use crate::usecases::overview::{self, Delivery};
use crate::usecases::v3_rows::CampaignFilter;
use crate::usecases::{campaigns, clients};

/// Campaigns a list page shows.
pub const PAGE_SIZE: usize = 25;
/// The longest search the list takes (a campaign name's bound).
const SEARCH_MAX: usize = crate::limits::RECORD_NAME_MAX;

#[derive(serde::Deserialize, Default)]
pub struct ListQuery {
    #[serde(default)]
    q: String,
    #[serde(default)]
    status: String,
    #[serde(default)]
    page: String,
}

/// The states the filter offers, as the list names them.
const STATES: &[(&str, &str, CampaignState)] = &[
    ("live", "Live", CampaignState::Enabled),
    ("paused", "Paused", CampaignState::Disabled),
    ("archived", "Archived", CampaignState::Archived),
];

pub async fn list(Within(st): Within, user: ConsoleUser, Query(q): Query<ListQuery>) -> Response {
    let search: String = q.q.trim().chars().take(SEARCH_MAX).collect();
    let state = STATES.iter().find(|(k, _, _)| *k == q.status);
    let number = q.page.parse::<usize>().ok().filter(|n| (1..=10_000).contains(n)).unwrap_or(1);
    let f = CampaignFilter {
        name: (!search.is_empty()).then(|| search.to_lowercase()),
        states: state.map(|(_, _, s)| vec![*s]).unwrap_or_default(),
        ..CampaignFilter::default()
    };
    let (total, lines) = match overview::campaigns(&st, &user.account, &f, PAGE_SIZE, number).await {
        Ok(found) => found,
        Err(e) => return form::fail(e),
    };
    let a = &user.account;
    let pages = total.div_ceil(PAGE_SIZE).max(1);
    let link = |n: usize| format!("/console/campaigns?q={}&status={}&page={n}", enc(&search), enc(&q.status));
    page::page(
        "Campaigns",
        Some(&user),
        html! {
            h1 { "Campaigns" }
            @if user.writes() { p { a.button href="/console/campaigns/new" { "New campaign" } } }
            form.filters role="search" method="get" action="/console/campaigns" {
                div { label for="q" { "Search" } input #q type="search" name="q" value=(search) maxlength=(SEARCH_MAX); }
                div {
                    label for="status" { "Status" }
                    select #status name="status" {
                        option value="" selected[state.is_none()] { "Any (not archived)" }
                        @for (k, label, _) in STATES { option value=(k) selected[q.status == *k] { (label) } }
                    }
                }
                button.secondary type="submit" { "Filter" }
            }
            p { (total) " campaign" @if total != 1 { "s" } @if !search.is_empty() { " named like “" (search) "”" } ". Dates in " span.zone { (form::zone_name(a)) } "." }
            table {
                caption.hint { "Delivered counts impressions that met the goals' terms; the pace compares it with the plan by now." }
                thead { tr { th scope="col" { "Name" } th scope="col" { "Advertiser" } th scope="col" { "State" } th scope="col" { "Flight" } th.num scope="col" { "Delivered / booked" } th scope="col" { "Pace" } } }
                tbody {
                    @for l in &lines {
                        tr {
                            td { a href={ "/console/campaigns/" (l.campaign.id) } { (l.campaign.name) } }
                            td { (l.advertiser.as_deref().unwrap_or("—")) }
                            td { (state_words(&l.campaign)) }
                            td { (flight(a, &l.campaign)) }
                            td.num { (delivered(&l.delivery)) }
                            td { (pace(&l.delivery)) }
                        }
                    }
                }
            }
            @if pages > 1 {
                nav.pager aria-label="Pages" {
                    @if number > 1 { a href=(link(number - 1)) { "Previous page" } }
                    span { "Page " (number) " of " (pages) }
                    @if number < pages { a href=(link(number + 1)) { "Next page" } }
                }
            }
        },
    )
    .into_response()
}

fn enc(s: &str) -> String {
    percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string()
}

pub fn state_words(c: &Campaign) -> &'static str {
    match c.state() {
        CampaignState::Enabled => "Live",
        CampaignState::Disabled => "Paused",
        CampaignState::Archived => "Archived",
    }
}

/// A flight in the account's dates ("2026-12-01 → 2026-12-31", "from 2026-12-01").
pub fn flight(a: &crate::model::account::Account, c: &Campaign) -> String {
    let day = |t: chrono::DateTime<chrono::Utc>| t.with_timezone(a.tz()).format("%Y-%m-%d").to_string();
    match (c.start, c.end) {
        (Some(s), Some(e)) => format!("{} → {}", day(s), day(e)),
        (Some(s), None) => format!("from {}, no end", day(s)),
        _ => "no goals yet".into(),
    }
}

pub fn delivered(d: &Delivery) -> String {
    match d.booked {
        Some(b) => format!("{} / {}", form::number(d.delivered), form::number(b)),
        None => form::number(d.delivered),
    }
}

/// The pace in words and colour (the colour repeats the words, never alone).
pub fn pace(d: &Delivery) -> Markup {
    match d.pace {
        Some(PaceState::Behind) => html! { span.pace-behind { "▼ behind" } },
        Some(PaceState::OnPace) => html! { span.pace-on { "● on pace" } },
        Some(PaceState::Ahead) => html! { span.pace-ahead { "▲ ahead" } },
        None => html! { span { "not paced yet" } },
    }
}

/// The campaign form's fields.
#[derive(serde::Deserialize, Default, Clone)]
pub struct CampaignForm {
    #[serde(default)]
    pub csrf: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub advertiser: String,
    /// A new advertiser's name (made first, when no advertiser is chosen).
    #[serde(default)]
    pub new_advertiser: String,
    #[serde(default)]
    pub state: String,
    #[serde(default)]
    pub priority: String,
    #[serde(default)]
    pub description: String,
    #[serde(default)]
    pub version: String,
}

impl CampaignForm {
    pub fn of(c: &Campaign) -> CampaignForm {
        CampaignForm {
            name: c.name.clone(),
            advertiser: c.advertiser_id.clone(),
            state: if c.enabled { "live".into() } else { "paused".into() },
            priority: c.priority.map(|p| p.to_string()).unwrap_or_default(),
            description: c.description.clone().unwrap_or_default(),
            ..CampaignForm::default()
        }
    }

    /// The fields a campaign bean takes from the form.
    pub fn apply(&self, el: &mut crate::xml::Element) {
        bean::set(el, "name", Some(&self.name));
        bean::set(el, "advertiserId", Some(&self.advertiser));
        bean::set(el, "enabled", Some(if self.state == "paused" { "false" } else { "true" }));
        bean::set(el, "priority", Some(&self.priority));
        bean::set(el, "description", Some(&self.description));
    }
}

const SHOWN: &[&str] = &["name", "advertiserId", "enabled", "priority", "description"];

/// The campaign form: a new campaign's (`action` is the list) or the campaign's.
pub async fn form_markup(st: &AppState, user: &ConsoleUser, action: &str, f: &CampaignForm, p: &Problems) -> Result<Markup, Response> {
    let mut advertisers = vec![(String::new(), "Choose an advertiser".to_string())];
    match clients::list(st, &user.account.id).await {
        Ok(list) => advertisers.extend(list.into_iter().filter(|c| c.kind == ClientType::Advertiser).map(|c| (c.id, c.name))),
        Err(e) => return Err(form::fail(e)),
    };
    let states = [("live".to_string(), "Live (serves in its goals' flights)".to_string()), ("paused".into(), "Paused".into())];
    Ok(html! {
        (form::summary(p, SHOWN))
        form.stack method="post" action=(action) novalidate {
            (form::csrf(user))
            input type="hidden" name="version" value=(f.version);
            (Field { label: "Name", name: "name", kind: "text", value: &f.name, errors_of: &["name"], required: true, hint: None }.render(p))
            (Select { label: "Advertiser", name: "advertiser", options: &advertisers, selected: &f.advertiser, errors_of: &["advertiserId"], hint: None }.render(p))
            (Field { label: "New advertiser", name: "new_advertiser", kind: "text", value: &f.new_advertiser, errors_of: &["clientBean"], required: false, hint: Some("Or name a new advertiser: it is created with the campaign") }.render(p))
            (Select { label: "State", name: "state", options: &states, selected: &f.state, errors_of: &["enabled"], hint: None }.render(p))
            (Field { label: "Priority", name: "priority", kind: "number", value: &f.priority, errors_of: &["priority"], required: false, hint: Some("1 (highest) to 10; empty: the account's") }.render(p))
            (Field { label: "Description", name: "description", kind: "text", value: &f.description, errors_of: &["description"], required: false, hint: None }.render(p))
            button type="submit" { "Save" }
        }
    })
}

pub async fn new_form(Within(st): Within, user: ConsoleUser) -> Response {
    if !user.writes() {
        return page::forbidden("Creating a campaign needs the TRAFFICKER role.");
    }
    let f = CampaignForm { state: "live".into(), ..CampaignForm::default() };
    match form_markup(&st, &user, "/console/campaigns", &f, &Problems::default()).await {
        Ok(m) => page::page("New campaign", Some(&user), html! { h1 { "New campaign" } (m) }).into_response(),
        Err(r) => r,
    }
}

pub async fn create(Within(st): Within, user: ConsoleUser, headers: HeaderMap, Form(f): Form<CampaignForm>) -> Response {
    if let Err(r) = form::guard(&user, &headers, &f.csrf) {
        return r;
    }
    let mut f = f;
    let made = async {
        let mut el = bean::bean("campaignBean", &[]);
        let new_advertiser = f.advertiser.trim().is_empty() && !f.new_advertiser.trim().is_empty();
        if new_advertiser {
            // The campaign's other fields are checked before the advertiser is made.
            bean::set(&mut el, "advertiserId", Some("new"));
            f.apply(&mut el);
            bean::set(&mut el, "advertiserId", Some("new"));
            parse_bean(&el)?;
            let client = bean::bean("clientBean", &[("name", &f.new_advertiser), ("type", ClientType::Advertiser.as_str())]);
            let made = clients::create(&st, &user.account.id, crate::model::client::parse_bean(&client)?).await?;
            f.advertiser = made.id;
            f.new_advertiser.clear();
        }
        f.apply(&mut el);
        campaigns::create(&st, &user.account, parse_bean(&el)?).await.map(|c| c.id)
    };
    let made = made.await;
    match made {
        Ok(id) => redirect(&format!("/console/campaigns/{id}")),
        Err(e) => match form::problems(e) {
            Ok(p) => match form_markup(&st, &user, "/console/campaigns", &f, &p).await {
                Ok(m) => page::with_status(
                    page::page("New campaign", Some(&user), html! { h1 { "New campaign" } (m) }),
                    StatusCode::UNPROCESSABLE_ENTITY,
                ),
                Err(r) => r,
            },
            Err(r) => r,
        },
    }
}
