//! Reports: the delivery report over a range of the account's local days, by day or hour
//! and by campaign, goal, ad, demand partner or marketplace; its chart (the service's SVG)
//! above its table, `Download CSV` for the same rows (`GET /v3/reports/delivery`). The
//! form's fields are the API's parameters, read by the API's reader; served by the queries
//! function, which reads the report cells.

use super::error::ConsoleResult;
use axum::extract::RawQuery;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use chrono::{Days, NaiveDate};
use maud::{html, Markup};

use super::form::{self, Field, Problems, Select, Spec as FieldSpec};
use super::{page, ConsoleUser};
use crate::api::queries::reports::spec_of;
use crate::api::Within;
use crate::charts::delivery::{delivery_svg, Bucket};
use crate::delivery::counters::Counters;
use crate::model::enums::{Counter, Granularity, ReportDimension};
use crate::usecases::reports::{report, Row, Spec};

/// Rows the page's table shows (the CSV has them all, up to the report's bound).
pub const TABLE_ROWS: usize = 250;

/// The report's scopes a link may carry (a campaign page's report), kept by the form.
const SCOPES: [&str; 3] = ["campaignId", "goalId", "adId"];

/// The groupings the page offers, with their labels.
const GROUPS: &[(&str, &str)] = &[
    ("", "Nothing (totals)"),
    ("campaign", "Campaign"),
    ("goal", "Goal"),
    ("ad", "Ad"),
    ("demandPartner", "Demand partner"),
    ("marketplace", "Marketplace"),
];

fn today(a: &crate::model::account::Account, st: &crate::state::AppState) -> NaiveDate {
    st.clock.now().with_timezone(a.tz()).date_naive()
}

/// The query string of the form as sent (the API's names), or the last 7 days by day.
fn query_of(q: Option<&str>, today: NaiveDate) -> String {
    match q.filter(|q| !q.is_empty()) {
        Some(q) => q.to_string(),
        None => format!("from={}&to={today}&granularity=day", today.checked_sub_days(Days::new(6)).unwrap_or(today)),
    }
}

/// A pair's value in the query string (the form's fields shown as sent).
fn value(q: &str, name: &str) -> String {
    crate::api::query_pairs(Some(q)).ok().and_then(|ps| ps.into_iter().find(|(k, _)| k == name).map(|(_, v)| v)).unwrap_or_default()
}

/// A row's time, as the table and the chart name it.
fn when(r: &Row) -> String {
    match (r.date, r.hour) {
        (Some(d), Some(h)) => format!("{d} {h:02}:00"),
        (Some(d), None) => d.to_string(),
        _ => "total".into(),
    }
}

fn dim_link(d: ReportDimension, v: &str) -> Markup {
    let page = match d {
        ReportDimension::Campaign => "campaigns",
        ReportDimension::Goal => "goals",
        ReportDimension::Ad => "ads",
        _ => "",
    };
    html! {
        @if page.is_empty() || v == "-" || v == "~" { (v) } @else { a href={ "/console/" (page) "/" (v) } { (v) } }
    }
}

/// The chart's buckets: every day (or hour) of the range, the rows summed by their time
/// (all groups together); a day without events is a zero, not a gap.
fn buckets(spec: &Spec, rows: &[Row]) -> Vec<Bucket> {
    let empty = |key: String| Bucket { key, player: 0.0, server: 0.0, invalid: 0.0 };
    let mut out: Vec<Bucket> = match spec.granularity {
        Granularity::Total => vec![empty("total".into())],
        Granularity::Day => spec.from.iter_days().take_while(|d| *d <= spec.to).map(|d| empty(d.to_string())).collect(),
        Granularity::Hour => spec
            .from
            .iter_days()
            .take_while(|d| *d <= spec.to)
            .flat_map(|d| (0..24).map(move |h| format!("{d} {h:02}:00")))
            .map(empty)
            .collect(),
    };
    let at: std::collections::HashMap<String, usize> = out.iter().enumerate().map(|(i, b)| (b.key.clone(), i)).collect();
    for r in rows {
        let c = &r.counters;
        let (server, all) = (c.get(Counter::ServerInitiated) as f64, c.get(Counter::Impression) as f64);
        if let Some(b) = at.get(&when(r)).and_then(|i| out.get_mut(*i)) {
            b.player += all - server;
            b.server += server;
            b.invalid += c.invalid_total() as f64;
        }
    }
    out
}

fn title(spec: &Spec) -> String {
    let by = spec.group_by.first().map(|d| format!(" by {}", d.as_str())).unwrap_or_default();
    format!("Delivery {} to {}{by}", spec.from, spec.to)
}

fn counters_cells(c: &Counters) -> Markup {
    html! {
        td.num { (form::number(c.get(Counter::Impression) as f64)) }
        td.num { (form::number(c.get(Counter::ServerInitiated) as f64)) }
        td.num { (form::number(c.get(Counter::Start) as f64)) }
        td.num { (form::number(c.get(Counter::Complete) as f64)) }
        td.num { (form::number(c.get(Counter::ClickThrough) as f64)) }
        td.num { (format!("{:.2} %", c.ctr() * 100.0)) }
        td.num { (format!("{:.1} %", c.completion_rate() * 100.0)) }
        td.num { (form::number(c.invalid_total() as f64)) }
    }
}

/// The report form's fields: the API's query parameters.
const SPECS: &[FieldSpec] = &[
    FieldSpec { name: "from", label: "From", api: &["from"] },
    FieldSpec { name: "to", label: "To", api: &["to"] },
    FieldSpec { name: "groupBy", label: "Group by", api: &["groupBy"] },
    FieldSpec { name: "granularity", label: "Time unit", api: &["granularity"] },
];

pub async fn show(Within(st): Within, user: ConsoleUser, RawQuery(q): RawQuery) -> ConsoleResult {
    let a = &user.account;
    let asked = q.as_deref().is_some_and(|q| !q.is_empty());
    let q = query_of(q.as_deref(), today(a, &st));
    let (rows, problems, spec) = match spec_of(Some(&q)) {
        Ok(spec) => match report(&st, &a.id, &spec).await {
            Ok(rows) => (rows, Problems::default(), Some(spec)),
            Err(e) => (Vec::new(), form::problems(e, SPECS)?, None),
        },
        Err(fields) => (Vec::new(), Problems::of_fields(fields, SPECS), None),
    };
    let groups: Vec<(String, String)> = GROUPS.iter().map(|(v, t)| (v.to_string(), t.to_string())).collect();
    let units: Vec<(String, String)> = vec![("day".into(), "Day".into()), ("hour".into(), "Hour".into())];
    let (from, to, by, unit) = (value(&q, "from"), value(&q, "to"), value(&q, "groupBy"), value(&q, "granularity"));
    let dim = spec.as_ref().and_then(|s| s.group_by.first().copied());
    let dim_label = GROUPS.iter().find(|(v, _)| dim.is_some_and(|d| d.as_str() == *v)).map_or("", |(_, t)| *t);
    let body = html! {
        h1 { "Reports" }
        p { "Delivery by day or hour in the account's time zone, " (form::zone_name(a)) ". Impressions are the valid ones; those a stitcher fired (server-initiated) and the invalid events are counted apart." }
        @for n in SCOPES {
            @let v = value(&q, n);
            @if !v.is_empty() { p role="status" { "Only the events of " (n.trim_end_matches("Id")) " " (v) ". " a href="/console/reports" { "Report the whole account" } } }
        }
        (form::summary(&problems))
        form.filters method="get" action="/console/reports" {
            (Field { label: "From", name: "from", kind: "date", value: &from, required: true, hint: None }.render(&problems))
            (Field { label: "To", name: "to", kind: "date", value: &to, required: true, hint: None }.render(&problems))
            (Select { label: "Group by", name: "groupBy", options: &groups, selected: &by, hint: None }.render(&problems))
            (Select { label: "Time unit", name: "granularity", options: &units, selected: if unit.is_empty() { "day" } else { &unit }, hint: None }.render(&problems))
            @for n in SCOPES {
                @let v = value(&q, n);
                @if !v.is_empty() { input type="hidden" name=(n) value=(v); }
            }
            button type="submit" { "Run" }
        }
        @if let Some(spec) = &spec {
            p { a.button href={ "/v3/reports/delivery?" (q) "&output=csv" } download { "Download CSV" } }
            @if rows.is_empty() {
                p role="status" { "No events between " (spec.from) " and " (spec.to) "." }
            } @else {
                img.chart src={ "/console/reports/chart.svg?" (q) } alt={ (title(spec)) ": the table below has its numbers." } width="760" height="340";
                @if rows.len() > TABLE_ROWS { p role="status" { "The table shows the first " (TABLE_ROWS) " of " (rows.len()) " rows; the CSV has them all." } }
                table #report {
                    caption { (title(spec)) }
                    thead { tr {
                        th scope="col" data-csv="date" { "Date" }
                        @if spec.granularity == Granularity::Hour { th scope="col" data-csv="hour" { "Hour" } }
                        @if let Some(d) = dim { th scope="col" data-csv=(d.as_str()) { (dim_label) } }
                        th.num scope="col" data-csv="impression" { "Impressions" }
                        th.num scope="col" data-csv="serverInitiated" { "Server-initiated" }
                        th.num scope="col" data-csv="start" { "Starts" }
                        th.num scope="col" data-csv="complete" { "Completes" }
                        th.num scope="col" data-csv="clickThrough" { "Clicks" }
                        th.num scope="col" { "CTR" }
                        th.num scope="col" { "Completion rate" }
                        th.num scope="col" data-csv="invalid" { "Invalid" }
                    } }
                    tbody {
                        @for r in rows.iter().take(TABLE_ROWS) {
                            tr {
                                td { (r.date.map(|d| d.to_string()).unwrap_or_default()) }
                                @if let Some(h) = r.hour { td.num { (h) } }
                                @for (d, v) in &r.dims { td { (dim_link(*d, v)) } }
                                (counters_cells(&r.counters))
                            }
                        }
                    }
                }
            }
        }
    };
    let mut res = page::page("Reports", Some(&user), body).into_response();
    if asked && !problems.is_empty() {
        *res.status_mut() = StatusCode::UNPROCESSABLE_ENTITY;
    }
    Ok(res)
}

/// The report's chart (`img` of the page): the same query, the same rows.
pub async fn chart(Within(st): Within, user: ConsoleUser, RawQuery(q): RawQuery) -> Response {
    let a = &user.account;
    let q = query_of(q.as_deref(), today(a, &st));
    let spec = match spec_of(Some(&q)) {
        Ok(s) => s,
        Err(e) => return crate::api::error::AppError::Validation(e).into_response(),
    };
    match report(&st, &a.id, &spec).await {
        Ok(rows) => crate::charts::svg_response(delivery_svg(&title(&spec), &buckets(&spec, &rows)), 60),
        Err(e) => crate::api::error::AppError::from(e).into_response(),
    }
}
