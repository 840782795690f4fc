//! Delivery reports (docs/reports.md): the report cells of a range of local days, grouped by
//! the asked dimensions and by day, hour or in total, summed. A report reads one partition
//! per day (`repo::reports`), never the events.

use crate::ids::AccountId;
use crate::rule::Rule;
use std::collections::HashMap;

use chrono::NaiveDate;
use futures_util::{stream, StreamExt, TryStreamExt};

use super::{UseCaseError, UseCaseResult};
use crate::delivery::counters::Counters;
use crate::domain_error::FieldError;
use crate::model::enums::{Granularity, ReportDimension};
use crate::repo::reports::{self, Cell};
use crate::state::AppState;

/// Days a report by hour may cover (a quarter), and by day or in total (a year).
pub const MAX_DAYS_BY_HOUR: i64 = 93;
pub const MAX_DAYS: i64 = 366;
/// Rows a report may have (JSON or CSV).
pub const MAX_ROWS: usize = 5_000;
/// Day partitions read at once.
const READS_AT_ONCE: usize = 8;

/// What a report asks for (checked by the caller's parameter reader).
#[derive(Debug, Clone)]
pub struct Spec {
    pub from: NaiveDate,
    pub to: NaiveDate,
    pub granularity: Granularity,
    pub group_by: Vec<ReportDimension>,
    pub campaign: Option<String>,
    pub goal: Option<String>,
    pub ad: Option<String>,
}

impl Spec {
    /// The range's bounds: `to` not before `from`, at most 93 days by hour, 366 otherwise.
    pub fn check(&self) -> Result<(), FieldError> {
        let days = (self.to - self.from).num_days() + 1;
        let max = if self.granularity == Granularity::Hour { MAX_DAYS_BY_HOUR } else { MAX_DAYS };
        if days < 1 {
            return Err(FieldError::new("to", Rule::NotBeforeFrom, format!("to ({}) must not be before from ({})", self.to, self.from)));
        }
        if days > max {
            return Err(FieldError::new(
                "to",
                Rule::MaxDays,
                format!("a report {} covers at most {max} days (asked: {days})", if max == MAX_DAYS { "by day" } else { "by hour" }),
            ));
        }
        Ok(())
    }
}

/// One row: its day and hour (by granularity), its dimension values, its counters.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub date: Option<NaiveDate>,
    pub hour: Option<u32>,
    pub dims: Vec<(ReportDimension, String)>,
    pub counters: Counters,
}

fn value(c: &Cell, d: ReportDimension) -> &str {
    match d {
        ReportDimension::Campaign => &c.at.campaign,
        ReportDimension::Goal => &c.at.goal,
        ReportDimension::Ad => &c.at.ad,
        ReportDimension::Format => &c.at.format,
        ReportDimension::Category => &c.at.category,
        ReportDimension::ContentPartner => &c.at.partner,
        ReportDimension::DeviceContainer => &c.at.device_container,
        ReportDimension::DemandPartner => &c.at.demand_partner,
        ReportDimension::Marketplace => &c.at.marketplace,
    }
}

/// The rows of a report from its cells: filtered, grouped, summed, in (date, hour,
/// dimensions) order; more than `MAX_ROWS` is 400 naming `groupBy`.
pub fn group(spec: &Spec, cells: &[Cell]) -> UseCaseResult<Vec<Row>> {
    // Hashed while summing (a cell's values are shared, not copied), sorted once at the end.
    type Group<'a> = (Option<NaiveDate>, Option<u32>, Vec<&'a str>);
    let mut rows: HashMap<Group, Counters> = HashMap::new();
    let keep = |want: &Option<String>, v: &str| want.as_deref().is_none_or(|w| w == v);
    for c in cells {
        if !(keep(&spec.campaign, &c.at.campaign) && keep(&spec.goal, &c.at.goal) && keep(&spec.ad, &c.at.ad)) {
            continue;
        }
        let date = (spec.granularity != Granularity::Total).then_some(c.day);
        let hour = (spec.granularity == Granularity::Hour).then_some(c.at.hour);
        let dims = spec.group_by.iter().map(|d| value(c, *d)).collect();
        rows.entry((date, hour, dims)).or_default().merge(&c.counters);
        if rows.len() > MAX_ROWS {
            return Err(UseCaseError::validation(vec![FieldError::new(
                "groupBy",
                Rule::MaxRows,
                format!(
                    "the report has more than {MAX_ROWS} rows: group by fewer dimensions, use a coarser granularity or a shorter range"
                ),
            )]));
        }
    }
    let mut sorted: Vec<(Group, Counters)> = rows.into_iter().collect();
    sorted.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    Ok(sorted
        .into_iter()
        .map(|((date, hour, dims), counters)| Row {
            date,
            hour,
            dims: spec.group_by.iter().copied().zip(dims.into_iter().map(str::to_string)).collect(),
            counters,
        })
        .collect())
}

/// The report cells of the local days `from..=to`, their partitions read a few at once.
pub async fn cells(st: &AppState, account: &AccountId, from: NaiveDate, to: NaiveDate) -> UseCaseResult<Vec<Cell>> {
    let days: Vec<NaiveDate> = from.iter_days().take_while(|d| *d <= to).collect();
    let store = st.store.as_ref();
    let per_day: Vec<Vec<Cell>> = stream::iter(days).map(|d| reports::day(store, account, d)).buffered(READS_AT_ONCE).try_collect().await?;
    Ok(per_day.concat())
}

/// The report of an account: its day partitions read, then grouped.
pub async fn report(st: &AppState, account: &AccountId, spec: &Spec) -> UseCaseResult<Vec<Row>> {
    spec.check().map_err(|e| UseCaseError::validation(vec![e]))?;
    group(spec, &cells(st, account, spec.from, spec.to).await?)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::enums::Counter;
    use crate::repo::reports::Coords;

    fn cell(day: u32, hour: u32, ad: &str, category: &str, counters: &[(&str, i64)]) -> Cell {
        Cell {
            day: NaiveDate::from_ymd_opt(2026, 11, day).unwrap(),
            at: Coords {
                hour,
                campaign: "c".into(),
                goal: "g".into(),
                ad: ad.into(),
                format: "preroll".into(),
                category: category.into(),
                partner: "-".into(),
                device_container: "-".into(),
                demand_partner: "-".into(),
                marketplace: "-".into(),
            },
            counters: {
                let mut c = Counters::default();
                for (k, v) in counters {
                    assert!(c.add_stored(k, *v), "{k}");
                }
                c
            },
        }
    }

    fn spec(granularity: Granularity, group_by: &[ReportDimension]) -> Spec {
        Spec {
            from: NaiveDate::from_ymd_opt(2026, 11, 1).unwrap(),
            to: NaiveDate::from_ymd_opt(2026, 11, 30).unwrap(),
            granularity,
            group_by: group_by.to_vec(),
            campaign: None,
            goal: None,
            ad: None,
        }
    }

    #[test]
    fn cells_sum_into_rows_by_day_hour_and_dimension() {
        let cells = [
            cell(2, 10, "a1", "sports", &[("impression", 3), ("invalid_nonBrowser", 1)]),
            cell(2, 11, "a2", "sports", &[("impression", 2)]),
            cell(3, 10, "a1", "news", &[("impression", 5), ("complete", 4)]),
        ];
        let by_day = group(&spec(Granularity::Day, &[ReportDimension::Category]), &cells).unwrap();
        assert_eq!(by_day.len(), 2);
        assert_eq!(
            (by_day[0].dims[0].1.as_str(), by_day[0].counters.get(Counter::Impression), by_day[0].counters.invalid_total()),
            ("sports", 5, 1)
        );
        assert_eq!(by_day[0].counters.invalid(crate::delivery::ivt::Reason::NonBrowser), 1);
        let by_hour = group(&spec(Granularity::Hour, &[]), &cells).unwrap();
        assert_eq!(
            by_hour.iter().map(|r| (r.hour, r.counters.get(Counter::Impression))).collect::<Vec<_>>(),
            [(Some(10), 3), (Some(11), 2), (Some(10), 5)]
        );
        let total = group(&spec(Granularity::Total, &[ReportDimension::Ad]), &cells).unwrap();
        assert_eq!(total.iter().map(|r| (r.date, r.counters.get(Counter::Impression))).collect::<Vec<_>>(), [(None, 8), (None, 2)]);
        let mut only = spec(Granularity::Total, &[]);
        only.ad = Some("a2".into());
        assert_eq!(group(&only, &cells).unwrap()[0].counters.get(Counter::Impression), 2);
    }

    #[test]
    fn ranges_and_rows_are_bounded() {
        let mut s = spec(Granularity::Hour, &[]);
        assert!(s.check().is_ok());
        s.to = s.from + chrono::Duration::days(MAX_DAYS_BY_HOUR);
        assert_eq!(s.check().unwrap_err().rule, "maxDays");
        s.granularity = Granularity::Day;
        assert!(s.check().is_ok());
        s.to = s.from - chrono::Duration::days(1);
        assert_eq!(s.check().unwrap_err().rule, "notBeforeFrom");
        let many: Vec<Cell> = (0..=MAX_ROWS).map(|i| cell(2, 1, &format!("a{i}"), "-", &[("impression", 1)])).collect();
        let err = group(&spec(Granularity::Day, &[ReportDimension::Ad]), &many).unwrap_err();
        assert!(format!("{err:?}").contains("MaxRows"), "{err:?}");
    }
}
