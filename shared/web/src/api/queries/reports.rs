//! `GET /v3/reports/delivery` (docs/reports.md): delivery by local day or hour, grouped by
//! campaign, goal, ad, format, category, content partner or device container, as JSON or
//! CSV (`output=csv` or `Accept: text/csv`).

use crate::api::Within;
use crate::rule::Rule;
use axum::extract::RawQuery;
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::NaiveDate;
use serde::Serialize;
use std::collections::BTreeMap;

use super::params::Params;
use crate::api::error::{AppError, AppResult, FieldError};
use crate::api::Auth;
use crate::delivery::ivt::Reason;
use crate::model::bid_loss::Loss;
use crate::model::enums::{Counter, Granularity, ReportDimension, WireEnum};
use crate::usecases::reports::{report, Row, Spec};

const PARAMS: &[&str] = &["from", "to", "granularity", "groupBy", "campaignId", "goalId", "adId", "output"];

/// A delivery report (the JSON shape; CSV has the same columns, `invalidByReason` as one
/// column per reason).
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DeliveryReport {
    /// The first and last local day of the report (the account's time zone).
    pub from: NaiveDate,
    pub to: NaiveDate,
    /// The account's time zone, in which days and hours are cut.
    pub time_zone: String,
    /// day, hour or total.
    pub granularity: String,
    /// The dimensions each row is grouped by, in the asked order.
    pub group_by: Vec<String>,
    /// One object per (date, hour, dimension values) with events, in that order: `date`
    /// (not in total), `hour` (0-23, by hour only), each dimension's value (`-`: the request
    /// sent none; `~`: a value the account's reference data does not know), the counters
    /// (impression, start, firstQuartile, midpoint, thirdQuartile, complete, clickThrough,
    /// delivered, serverInitiated, and the auctions': auctions, bidRequests, bids, noBids,
    /// timeouts, errors, invalidBids, wins), `ctr`, `completionRate`, `invalid`,
    /// `invalidByReason`, `revenue`, `eCPM`, `winRate`, `fillRate` and `invalidBidsByReason`.
    pub rows: Vec<ReportRow>,
}

fn date(p: &mut Params, name: &str) -> Option<NaiveDate> {
    let v = p.one(name);
    let Some(v) = v else {
        p.errors.push(FieldError::new(name, Rule::Required, format!("{name} is required: a local date, YYYY-MM-DD")));
        return None;
    };
    let d = NaiveDate::parse_from_str(&v, "%Y-%m-%d").ok().filter(|_| v.len() == 10);
    if d.is_none() {
        p.errors.push(FieldError::new(name, Rule::Date, format!("{name} must be a date, YYYY-MM-DD (got {v:?})")));
    }
    d
}

fn closed<T: WireEnum>(p: &mut Params, name: &str) -> Vec<T> {
    let mut out = Vec::new();
    for v in p.all(name) {
        match T::parse(&v) {
            Some(t) if !out.iter().any(|o: &T| o.as_str() == t.as_str()) => out.push(t),
            Some(_) => p.errors.push(FieldError::new(name, Rule::Unique, format!("{name} names {v} twice"))),
            None => p.errors.push(FieldError::new(name, Rule::Enum, format!("{name} must be one of {} (got {v:?})", T::NAMES.join(", ")))),
        }
    }
    out
}

/// The report a query string asks for (the API's parameters; the console's Reports page
/// sends the same), its range checked; or the fields in error.
pub(crate) fn spec_of(q: Option<&str>) -> Result<Spec, Vec<FieldError>> {
    let mut p = match Params::new(q, PARAMS) {
        Ok(p) => p,
        Err(AppError::Validation(e)) => return Err(e),
        Err(_) => return Err(vec![FieldError::new("query", Rule::Format, "the query string is not valid")]),
    };
    let spec = read_spec(&mut p);
    p.one("output");
    match spec {
        Some(s) if p.errors.is_empty() => s.check().map(|_| s).map_err(|e| vec![e]),
        _ => Err(p.errors),
    }
}

fn read_spec(p: &mut Params) -> Option<Spec> {
    let from = date(p, "from");
    let to = date(p, "to");
    let granularity = match closed::<Granularity>(p, "granularity").as_slice() {
        [] => Some(Granularity::Day),
        [g] => Some(*g),
        _ => {
            p.errors.push(FieldError::new("granularity", Rule::Single, "granularity takes one value"));
            None
        }
    };
    let group_by = closed::<ReportDimension>(p, "groupBy");
    let mut id = |name: &str| {
        let v = p.one(name)?;
        if !crate::ids::plausible_id(&v) {
            p.errors.push(FieldError::new(name, Rule::Id, format!("{name} must be an id (letters, digits, - and _, at most 64)")));
        }
        Some(v)
    };
    let (campaign, goal, ad) = (id("campaignId"), id("goalId"), id("adId"));
    Some(Spec { from: from?, to: to?, granularity: granularity?, group_by, campaign, goal, ad })
}

pub(crate) fn wants_csv(p: &mut Params, headers: &HeaderMap) -> bool {
    match p.one("output").as_deref() {
        Some("csv") => true,
        Some("json") => false,
        Some(other) => {
            p.errors.push(FieldError::new("output", Rule::Enum, format!("output must be json or csv (got {other:?})")));
            false
        }
        None => headers.get(header::ACCEPT).and_then(|v| v.to_str().ok()).is_some_and(|a| a.contains("text/csv")),
    }
}

#[utoipa::path(get, path = "/v3/reports/delivery", tag = "queries", summary = "Delivery by day or hour, grouped by dimension (JSON or CSV)",
    description = "Sums the report cells the events worker writes (docs/reports.md): one partition per local day of the account's \
        time zone, so a report costs a few queries whatever the traffic. Counts are the valid events as in `/v3` metrics; invalid \
        traffic is apart (`invalid`, `invalidByReason`). Bounds: 93 days by hour, 366 by day or in total, 5,000 rows, 10,000 cells \
        a day.",
    params(("from" = String, Query, description = "First local day, YYYY-MM-DD (required)"),
        ("to" = String, Query, description = "Last local day, YYYY-MM-DD, inclusive (required)"),
        ("granularity" = Option<Granularity>, Query, description = "day (default), hour (0-23 in the account's zone) or total"),
        ("groupBy" = Option<String>, Query, description = "Comma-separated dimensions: campaign, goal, ad, format, category, contentPartner, deviceContainer, demandPartner, marketplace (none: one row per day or hour)"),
        ("campaignId" = Option<String>, Query, description = "Only this campaign's events"),
        ("goalId" = Option<String>, Query, description = "Only this goal's events"),
        ("adId" = Option<String>, Query, description = "Only this ad's events"),
        ("output" = Option<String>, Query, description = "json (default) or csv; `Accept: text/csv` also asks for CSV")),
    responses((status = 200, description = "The report: JSON, or CSV (one line a row, a header line first, RFC 4180) with `output=csv` or `Accept: text/csv`",
            content((DeliveryReport = "application/json"), (String = "text/csv", example = json!("day,impression,click,start,complete,ctr,completionRate\r\n2026-11-01,1200,12,1180,900,0.01,0.7627\r\n")))),
        (status = 400, description = "A parameter is missing or invalid, the range too long or the report too large (the field and rule named)")))]
pub async fn delivery_report(Within(st): Within, Auth(a): Auth, headers: HeaderMap, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(q.as_deref(), PARAMS)?;
    let spec = read_spec(&mut p);
    let csv = wants_csv(&mut p, &headers);
    let spec = match spec {
        Some(s) if p.errors.is_empty() => s,
        _ => return Err(AppError::Validation(p.errors)),
    };
    let rows = report(&st, &a.id, &spec).await?;
    if csv {
        let name = format!("delivery-{}-{}.csv", spec.from, spec.to);
        return Ok((
            [
                (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
                (header::CONTENT_DISPOSITION, format!("attachment; filename=\"{name}\"")),
            ],
            to_csv(&spec, &rows)?,
        )
            .into_response());
    }
    Ok(Json(DeliveryReport {
        from: spec.from,
        to: spec.to,
        time_zone: a.time_zone.clone(),
        granularity: spec.granularity.as_str().into(),
        group_by: spec.group_by.iter().map(|d| d.as_str().to_string()).collect(),
        rows: rows.iter().map(ReportRow::of).collect(),
    })
    .into_response())
}

/// The counters of a report row, in their column order.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RowCounters {
    /// Impressions counted.
    pub impression: i64,
    /// Starts counted.
    pub start: i64,
    /// First quartiles counted.
    pub first_quartile: i64,
    /// Midpoints counted.
    pub midpoint: i64,
    /// Third quartiles counted.
    pub third_quartile: i64,
    /// Completes counted.
    pub complete: i64,
    /// Clicks counted.
    pub click_through: i64,
    /// Events of each goal's own kind (its delivery).
    pub delivered: i64,
    /// Of the impressions, those a registered stitcher fired (server-side ad insertion).
    pub server_initiated: i64,
    /// Programmatic goals' auctions.
    pub auctions: i64,
    /// Bid requests sent to demand partners.
    pub bid_requests: i64,
    /// Bids received.
    pub bids: i64,
    /// Partners that answered without a bid.
    pub no_bids: i64,
    /// Partners that did not answer in time.
    pub timeouts: i64,
    /// Partners whose answer failed (transport, HTTP status, unreadable).
    pub errors: i64,
    /// Bids refused by a rule (`invalidBidsByReason`).
    pub invalid_bids: i64,
    /// Auctions won (and served).
    pub wins: i64,
}

/// One row of a delivery report.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReportRow {
    /// The local day (not in total).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<NaiveDate>,
    /// The local hour, 0-23 (by hour only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hour: Option<u32>,
    /// The grouped dimensions' values (`-`: the request sent none; `~`: a value the
    /// account's reference data does not know); a dimension not grouped by is absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub campaign: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ad: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content_partner: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_container: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub demand_partner: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marketplace: Option<String>,
    #[serde(flatten)]
    pub counters: RowCounters,
    /// Programmatic revenue: the clearing CPMs of the valid impressions / 1,000.
    pub revenue: f64,
    /// Programmatic revenue per thousand impressions.
    #[serde(rename = "eCPM")]
    pub ecpm: f64,
    /// Wins per bid received.
    pub win_rate: f64,
    /// Impressions per auction.
    pub fill_rate: f64,
    /// Bids refused, by rule (rules with bids only).
    #[schema(value_type = std::collections::BTreeMap<String, i64>)]
    pub invalid_bids_by_reason: BTreeMap<&'static str, i64>,
    /// Clicks per impression.
    pub ctr: f64,
    /// Completes per start.
    pub completion_rate: f64,
    /// Invalid events of every reason (never in the counters).
    pub invalid: i64,
    /// Invalid events by reason (reasons with events only).
    #[schema(value_type = std::collections::BTreeMap<String, i64>)]
    pub invalid_by_reason: BTreeMap<&'static str, i64>,
}

impl ReportRow {
    fn of(r: &Row) -> ReportRow {
        let c = &r.counters;
        let mut out = ReportRow {
            date: r.date,
            hour: r.hour,
            campaign: None,
            goal: None,
            ad: None,
            format: None,
            category: None,
            content_partner: None,
            device_container: None,
            demand_partner: None,
            marketplace: None,
            counters: RowCounters {
                impression: c.get(Counter::Impression),
                start: c.get(Counter::Start),
                first_quartile: c.get(Counter::FirstQuartile),
                midpoint: c.get(Counter::Midpoint),
                third_quartile: c.get(Counter::ThirdQuartile),
                complete: c.get(Counter::Complete),
                click_through: c.get(Counter::ClickThrough),
                delivered: c.get(Counter::Delivered),
                server_initiated: c.get(Counter::ServerInitiated),
                auctions: c.get(Counter::Auctions),
                bid_requests: c.get(Counter::BidRequests),
                bids: c.get(Counter::Bids),
                no_bids: c.get(Counter::NoBids),
                timeouts: c.get(Counter::Timeouts),
                errors: c.get(Counter::Errors),
                invalid_bids: c.get(Counter::InvalidBids),
                wins: c.get(Counter::Wins),
            },
            revenue: c.revenue(),
            ecpm: c.revenue_ecpm(),
            win_rate: c.win_rate(),
            fill_rate: c.fill_rate(),
            invalid_bids_by_reason: Loss::INVALID.iter().map(|x| (x.as_str(), c.rejected(*x))).filter(|(_, n)| *n > 0).collect(),
            ctr: c.ctr(),
            completion_rate: c.completion_rate(),
            invalid: c.invalid_total(),
            invalid_by_reason: Reason::ALL.iter().map(|x| (x.as_str(), c.invalid(*x))).filter(|(_, n)| *n > 0).collect(),
        };
        for (d, v) in &r.dims {
            let slot = match d {
                ReportDimension::Campaign => &mut out.campaign,
                ReportDimension::Goal => &mut out.goal,
                ReportDimension::Ad => &mut out.ad,
                ReportDimension::Format => &mut out.format,
                ReportDimension::Category => &mut out.category,
                ReportDimension::ContentPartner => &mut out.content_partner,
                ReportDimension::DeviceContainer => &mut out.device_container,
                ReportDimension::DemandPartner => &mut out.demand_partner,
                ReportDimension::Marketplace => &mut out.marketplace,
            };
            *slot = Some(v.clone());
        }
        out
    }
}

/// The CSV answer: the JSON rows' columns, `invalidByReason` as one column per reason
/// (`invalid.<reason>`), written by `api::csv_out` (RFC 4180 quoting, CRLF, cells
/// neutralised against formulas).
fn to_csv(spec: &Spec, rows: &[Row]) -> AppResult<String> {
    let mut w = crate::api::csv_out::CsvOut::new();
    let mut head: Vec<String> = Vec::new();
    if spec.granularity != Granularity::Total {
        head.push("date".into());
    }
    if spec.granularity == Granularity::Hour {
        head.push("hour".into());
    }
    head.extend(spec.group_by.iter().map(|d| d.as_str().to_string()));
    head.extend(Counter::REPORTED.iter().map(|c| c.as_str().to_string()));
    head.extend(["ctr", "completionRate", "invalid"].map(String::from));
    head.extend(Reason::ALL.iter().map(|r| format!("invalid.{}", r.as_str())));
    // Programmatic columns after the ones CSV readers already know.
    head.extend(["revenue", "eCPM", "winRate", "fillRate"].map(String::from));
    head.extend(Counter::AUCTION.iter().map(|c| c.as_str().to_string()));
    head.extend(Loss::INVALID.iter().map(|l| format!("invalidBid.{}", l.as_str())));
    w.row(&head)?;
    for r in rows {
        let c = &r.counters;
        let mut cells: Vec<String> = Vec::with_capacity(head.len());
        cells.extend(r.date.map(|d| d.to_string()));
        cells.extend(r.hour.map(|h| h.to_string()));
        cells.extend(r.dims.iter().map(|(_, v)| v.clone()));
        cells.extend(Counter::REPORTED.iter().map(|x| c.get(*x).to_string()));
        cells.push(c.ctr().to_string());
        cells.push(c.completion_rate().to_string());
        cells.push(c.invalid_total().to_string());
        cells.extend(Reason::ALL.iter().map(|x| c.invalid(*x).to_string()));
        cells.extend([c.revenue(), c.revenue_ecpm(), c.win_rate(), c.fill_rate()].map(|x| x.to_string()));
        cells.extend(Counter::AUCTION.iter().map(|x| c.get(*x).to_string()));
        cells.extend(Loss::INVALID.iter().map(|x| c.rejected(*x).to_string()));
        w.row(&cells)?;
    }
    w.finish()
}
