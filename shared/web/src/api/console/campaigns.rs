//! The campaigns list (paged from the name index, searched by name, filtered by state) and
//! the campaign form (create and edit), over the campaign use cases.

use axum::extract::Query;
use axum::http::{HeaderMap, StatusCode};
use axum::response::IntoResponse;
use maud::{html, Markup};

use super::error::{ConsoleError, ConsoleResult};
use super::form::{self, Field, Problems, Select, Spec};
use super::{page, redirect, ConsoleForm, ConsoleUser};
use crate::api::Within;
use crate::delivery::pacing::PaceState;
use crate::domain_error::FieldError;
use crate::model::campaign::{Campaign, CampaignInput};
use crate::model::client::ClientInput;
use crate::model::common::PRIORITY;
use crate::model::enums::{CampaignState, ClientType};
use crate::rule::Rule;
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

pub async fn list(Within(st): Within, user: ConsoleUser, Query(q): Query<ListQuery>) -> ConsoleResult {
    let search: String = q.q.trim().chars().take(SEARCH_MAX).collect();
    let state = STATES.iter().find(|(k, _, _)| *k == q.status);
    let number = q.page.parse::<usize>().ok().filter(|n| (1..=10_000).contains(n)).unwrap_or(1);
    let f = CampaignFilter {
        name: (!search.is_empty()).then(|| search.to_lowercase()),
        states: state.map(|(_, _, s)| vec![*s]).unwrap_or_default(),
        ..CampaignFilter::default()
    };
    let (total, lines) = overview::campaigns(&st, &user.account, &f, PAGE_SIZE, number).await?;
    let a = &user.account;
    let pages = total.div_ceil(PAGE_SIZE).max(1);
    let link = |n: usize| format!("/console/campaigns?q={}&status={}&page={n}", enc(&search), enc(&q.status));
    Ok(page::page(
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
    .into_response())
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

/// The campaign form's fields as the browser sends them.
#[derive(serde::Deserialize, Default, Clone)]
pub struct CampaignForm {
    #[serde(default)]
    pub csrf: String,
    #[serde(default)]
    pub name: String,
    #[serde(default)]
    pub advertiser: String,
    /// A new advertiser's name (made with the campaign, when no advertiser is chosen).
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

/// The campaign form's fields, with the API fields whose errors each shows.
pub const SPECS: &[Spec] = &[
    Spec { name: "name", label: "Name", api: &["campaignBean/name"] },
    Spec { name: "advertiser", label: "Advertiser", api: &["campaignBean/advertiserId"] },
    Spec { name: "new_advertiser", label: "New advertiser", api: &["clientBean"] },
    Spec { name: "state", label: "State", api: &["campaignBean/enabled"] },
    Spec { name: "priority", label: "Priority", api: &["campaignBean/priority"] },
    Spec { name: "description", label: "Description", api: &["campaignBean/description"] },
];

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

    /// The campaign this form asks for, over `base` (the stored campaign as its input, or
    /// a new campaign's): the fields the form shows are set from it, every other kept.
    pub fn command(&self, mut base: CampaignInput) -> Result<CampaignInput, Vec<FieldError>> {
        base.name = self.name.trim().to_string();
        base.advertiser_id = self.advertiser.trim().to_string();
        base.enabled = self.state != "paused";
        base.description = Some(self.description.trim().to_string()).filter(|d| !d.is_empty());
        match self.priority.trim() {
            "" => base.priority = None,
            p => match p.parse::<u8>().ok().filter(|p| PRIORITY.contains(p)) {
                Some(p) => base.priority = Some(p),
                None => {
                    return Err(vec![FieldError::new(
                        "campaignBean/priority",
                        Rule::Range,
                        format!("campaignBean/priority must be a whole number from {} to {} (got {p})", PRIORITY.start(), PRIORITY.end()),
                    )])
                }
            },
        }
        Ok(base)
    }
}

/// The campaign form: a new campaign's (`action` is the list) or the campaign's.
pub async fn form_markup(st: &AppState, user: &ConsoleUser, action: &str, f: &CampaignForm, p: &Problems) -> ConsoleResult<Markup> {
    let mut advertisers = vec![(String::new(), "Choose an advertiser".to_string())];
    let list = clients::list(st, &user.account.id).await?;
    advertisers.extend(list.into_iter().filter(|c| c.kind == ClientType::Advertiser).map(|c| (c.id, c.name)));
    let states = [("live".to_string(), "Live (serves in its goals' flights)".to_string()), ("paused".into(), "Paused".into())];
    Ok(html! {
        (form::summary(p))
        form.stack method="post" action=(form::action(user, action)) novalidate {
            (form::csrf(user))
            input type="hidden" name="version" value=(f.version);
            (Field { label: "Name", name: "name", kind: "text", value: &f.name, required: true, hint: None }.render(p))
            (Select { label: "Advertiser", name: "advertiser", options: &advertisers, selected: &f.advertiser, hint: None }.render(p))
            (Field { label: "New advertiser", name: "new_advertiser", kind: "text", value: &f.new_advertiser, required: false, hint: Some("Or name a new advertiser: it is created with the campaign") }.render(p))
            (Select { label: "State", name: "state", options: &states, selected: &f.state, hint: None }.render(p))
            (Field { label: "Priority", name: "priority", kind: "number", value: &f.priority, required: false, hint: Some("1 (highest) to 10; empty: the account's") }.render(p))
            (Field { label: "Description", name: "description", kind: "text", value: &f.description, required: false, hint: None }.render(p))
            button type="submit" { "Save" }
        }
    })
}

async fn new_page(st: &AppState, user: &ConsoleUser, f: &CampaignForm, p: &Problems) -> ConsoleResult {
    if !user.writes() {
        return Err(ConsoleError::Forbidden("Creating a campaign needs the TRAFFICKER role.".into()));
    }
    let m = form_markup(st, user, "/console/campaigns", f, p).await?;
    let status = if p.is_empty() { StatusCode::OK } else { StatusCode::UNPROCESSABLE_ENTITY };
    Ok(page::with_status(page::page("New campaign", Some(user), html! { h1 { "New campaign" } (m) }), status))
}

pub async fn new_form(Within(st): Within, user: ConsoleUser) -> ConsoleResult {
    new_page(&st, &user, &CampaignForm { state: "live".into(), ..CampaignForm::default() }, &Problems::default()).await
}

/// A new campaign from the form; with a new advertiser, both are made in one use case
/// (both records or neither).
pub async fn create(Within(st): Within, user: ConsoleUser, headers: HeaderMap, ConsoleForm(f): ConsoleForm<CampaignForm>) -> ConsoleResult {
    form::guard(&user, &headers, &f.csrf)?;
    let a = &user.account;
    let blank = CampaignInput {
        id: None,
        name: String::new(),
        advertiser_id: String::new(),
        agency_id: None,
        brand_id: None,
        budget: None,
        custom_id: None,
        description: None,
        enabled: true,
        exclusive: false,
        front_load_factor: None,
        goal_total: None,
        goal_type: None,
        include_in_forecast: true,
        priority: None,
        vast_enabled: false,
        status: None,
    };
    let input = match f.command(blank) {
        Ok(i) => i,
        Err(errors) => return new_page(&st, &user, &f, &Problems::of_fields(errors, SPECS)).await,
    };
    let new_advertiser = input.advertiser_id.is_empty() && !f.new_advertiser.trim().is_empty();
    let made = if new_advertiser {
        match ClientInput::advertiser(&f.new_advertiser) {
            Ok(client) => campaigns::create_with_advertiser(&st, a, client, input).await.map(|(c, _)| c),
            Err(e) => Err(e.into()),
        }
    } else {
        match input.checked() {
            Ok(input) => campaigns::create(&st, a, input).await,
            Err(e) => Err(e.into()),
        }
    };
    match made {
        Ok(c) => Ok(redirect(&format!("/console/campaigns/{}", c.id))),
        Err(e) => {
            let p = form::problems(e, SPECS)?;
            new_page(&st, &user, &f, &p).await
        }
    }
}
