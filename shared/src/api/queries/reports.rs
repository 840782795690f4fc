//! `GET /v3/reports/delivery` (docs/reports.md): delivery by local day or hour, grouped by
//! campaign, goal, ad, format, category, content partner or device container, as JSON or
//! CSV (`output=csv` or `Accept: text/csv`).

use axum::extract::{RawQuery, State};
use axum::http::{header, HeaderMap};
use axum::response::{IntoResponse, Response};
use axum::Json;
use chrono::NaiveDate;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::params::Params;
use crate::api::Auth;
use crate::error::{AppError, AppResult, FieldError};
use crate::metrics::ratio;
use crate::model::enums::{Granularity, ReportDimension, WireEnum};
use crate::state::AppState;
use crate::usecases::reports::{report, Row, Spec, COUNTERS};

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
    /// delivered), `ctr`, `completionRate`, `invalid` and `invalidByReason`.
    #[schema(value_type = Vec<Object>)]
    pub rows: Vec<Value>,
}

fn date(p: &mut Params, name: &str) -> Option<NaiveDate> {
    let v = p.one(name);
    let Some(v) = v else {
        p.errors.push(FieldError::new(name, "required", format!("{name} is required: a local date, YYYY-MM-DD")));
        return None;
    };
    let d = NaiveDate::parse_from_str(&v, "%Y-%m-%d").ok().filter(|_| v.len() == 10);
    if d.is_none() {
        p.errors.push(FieldError::new(name, "date", format!("{name} must be a date, YYYY-MM-DD (got {v:?})")));
    }
    d
}

fn closed<T: WireEnum>(p: &mut Params, name: &str) -> Vec<T> {
    let mut out = Vec::new();
    for v in p.all(name) {
        match T::parse(&v) {
            Some(t) if !out.iter().any(|o: &T| o.as_str() == t.as_str()) => out.push(t),
            Some(_) => p.errors.push(FieldError::new(name, "unique", format!("{name} names {v} twice"))),
            None => p.errors.push(FieldError::new(name, "enum", format!("{name} must be one of {} (got {v:?})", T::NAMES.join(", ")))),
        }
    }
    out
}

fn read_spec(p: &mut Params) -> Option<Spec> {
    let from = date(p, "from");
    let to = date(p, "to");
    let granularity = match closed::<Granularity>(p, "granularity").as_slice() {
        [] => Some(Granularity::Day),
        [g] => Some(*g),
        _ => {
            p.errors.push(FieldError::new("granularity", "single", "granularity takes one value"));
            None
        }
    };
    let group_by = closed::<ReportDimension>(p, "groupBy");
    let mut id = |name: &str| {
        let v = p.one(name)?;
        if !crate::ids::plausible_id(&v) {
            p.errors.push(FieldError::new(name, "id", format!("{name} must be an id (letters, digits, - and _, at most 64)")));
        }
        Some(v)
    };
    let (campaign, goal, ad) = (id("campaignId"), id("goalId"), id("adId"));
    Some(Spec { from: from?, to: to?, granularity: granularity?, group_by, campaign, goal, ad })
}

fn wants_csv(p: &mut Params, headers: &HeaderMap) -> bool {
    match p.one("output").as_deref() {
        Some("csv") => true,
        Some("json") => false,
        Some(other) => {
            p.errors.push(FieldError::new("output", "enum", format!("output must be json or csv (got {other:?})")));
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
        ("groupBy" = Option<String>, Query, description = "Comma-separated dimensions: campaign, goal, ad, format, category, contentPartner, deviceContainer (none: one row per day or hour)"),
        ("campaignId" = Option<String>, Query, description = "Only this campaign's events"),
        ("goalId" = Option<String>, Query, description = "Only this goal's events"),
        ("adId" = Option<String>, Query, description = "Only this ad's events"),
        ("output" = Option<String>, Query, description = "json (default) or csv; `Accept: text/csv` also asks for CSV")),
    responses((status = 200, description = "The report", body = DeliveryReport),
        (status = 400, description = "A parameter is missing or invalid, the range too long or the report too large (the field and rule named)")))]
pub async fn delivery_report(State(st): State<AppState>, Auth(a): Auth, headers: HeaderMap, RawQuery(q): RawQuery) -> AppResult<Response> {
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
            to_csv(&spec, &rows),
        )
            .into_response());
    }
    Ok(Json(DeliveryReport {
        from: spec.from,
        to: spec.to,
        time_zone: a.time_zone.clone(),
        granularity: spec.granularity.as_str().into(),
        group_by: spec.group_by.iter().map(|d| d.as_str().to_string()).collect(),
        rows: rows.iter().map(row_json).collect(),
    })
    .into_response())
}

fn row_json(r: &Row) -> Value {
    let mut m = Map::new();
    if let Some(d) = r.date {
        m.insert("date".into(), json!(d));
    }
    if let Some(h) = r.hour {
        m.insert("hour".into(), json!(h));
    }
    for (d, v) in &r.dims {
        m.insert(d.as_str().into(), json!(v));
    }
    for c in COUNTERS {
        m.insert((*c).into(), json!(r.get(c)));
    }
    m.insert("ctr".into(), json!(ratio(r.get("clickThrough"), r.get("impression"))));
    m.insert("completionRate".into(), json!(ratio(r.get("complete"), r.get("start"))));
    m.insert("invalid".into(), json!(r.invalid()));
    m.insert("invalidByReason".into(), json!(r.invalid_by_reason()));
    Value::Object(m)
}

/// A CSV field, quoted when it must be (RFC 4180).
fn field(out: &mut String, v: &str) {
    if v.contains([',', '"', '\n', '\r']) {
        out.push('"');
        out.push_str(&v.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(v);
    }
}

fn to_csv(spec: &Spec, rows: &[Row]) -> String {
    let reasons = crate::delivery::ivt::Reason::ALL;
    let mut head: Vec<String> = Vec::new();
    if spec.granularity != Granularity::Total {
        head.push("date".into());
    }
    if spec.granularity == Granularity::Hour {
        head.push("hour".into());
    }
    head.extend(spec.group_by.iter().map(|d| d.as_str().to_string()));
    head.extend(COUNTERS.iter().map(|c| c.to_string()));
    head.extend(["ctr", "completionRate", "invalid"].map(String::from));
    head.extend(reasons.iter().map(|r| format!("invalid.{}", r.as_str())));
    let mut out = head.join(",");
    out.push_str("\r\n");
    for r in rows {
        let mut cells: Vec<String> = Vec::new();
        cells.extend(r.date.map(|d| d.to_string()));
        cells.extend(r.hour.map(|h| h.to_string()));
        cells.extend(r.dims.iter().map(|(_, v)| v.clone()));
        cells.extend(COUNTERS.iter().map(|c| r.get(c).to_string()));
        cells.push(ratio(r.get("clickThrough"), r.get("impression")).to_string());
        cells.push(ratio(r.get("complete"), r.get("start")).to_string());
        cells.push(r.invalid().to_string());
        cells.extend(reasons.iter().map(|x| r.get(&x.counter()).to_string()));
        for (i, c) in cells.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            field(&mut out, c);
        }
        out.push_str("\r\n");
    }
    out
}
