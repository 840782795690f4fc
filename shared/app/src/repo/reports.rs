//! Delivery report cells (docs/store.md "Delivery reports", docs/reports.md): one item per
//! (local hour, campaign, goal, ad, format, category, content partner, device container)
//! the account's counted events have, `A#<a>#RPT#<yyyy-mm-dd> / <HH>#<campaign>#<goal>#<ad>#
//! <format>#<category>#<partner>#<device container>`, its counters only ever changed by
//! `ADD` in the events worker's transaction (so the once-only markers make them exact).
//! A report reads one partition per local day.

use crate::rule::Rule;
use std::collections::{BTreeMap, HashSet};
use std::sync::Arc;

use chrono::NaiveDate;

use super::{RepoError, RepoResult};
use crate::delivery::counters::{Counters, Slot};
use crate::domain_error::FieldError;
use crate::jobs::Event;
use crate::store::{Cond, Key, Query, Store, TxOp};

/// A dimension the request did not send.
pub const NONE: &str = "-";
/// At most this many cells are read for one day of a report (about 2 MB of items).
pub const MAX_CELLS_PER_DAY: usize = 10_000;

/// A cell's coordinates: its local hour and the event's dimensions. A day's cells share
/// their dimension values (`Arc<str>`, one allocation per distinct value a day read): a
/// 90-day report reads tens of thousands of cells.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Coords {
    pub hour: u32,
    pub campaign: Arc<str>,
    pub goal: Arc<str>,
    pub ad: Arc<str>,
    pub format: Arc<str>,
    pub category: Arc<str>,
    pub partner: Arc<str>,
    pub device_container: Arc<str>,
    /// The demand partner and marketplace of a programmatic ad's events and of auctions
    /// (`-` otherwise; cells written before programmatic demand have neither).
    pub demand_partner: Arc<str>,
    pub marketplace: Arc<str>,
}

/// A cell as read: where, which local day, and its counters.
#[derive(Debug, Clone)]
pub struct Cell {
    pub day: NaiveDate,
    pub at: Coords,
    pub counters: Counters,
}

pub fn day_partition(account: &str, day: NaiveDate) -> String {
    format!("A#{account}#RPT#{}", day.format("%Y-%m-%d"))
}

/// A value as a key part: ids and reference ids are kept; anything else (which a signed
/// link never carries) is `~`, so a part never holds the separator.
fn part(v: Option<&str>) -> &str {
    match v {
        None => NONE,
        Some(v) if v == crate::delivery::snapshot::OTHER || crate::ids::plausible_id(v) => v,
        Some(_) => crate::delivery::snapshot::OTHER,
    }
}

/// The local day and hour of an instant at a zone offset (seconds east of UTC).
pub fn local_day_hour(at: i64, offset: i32) -> (NaiveDate, u32) {
    let (day, hour) = crate::delivery::pacing::local_day_hour(at, offset);
    let date = NaiveDate::from_num_days_from_ce_opt(i32::try_from(day + 719_163).unwrap_or(719_163)).unwrap_or_default();
    (date, hour.rem_euclid(24) as u32)
}

/// The cell an event counts in.
pub fn cell_key(e: &Event, offset: i32) -> Key {
    let (day, hour) = local_day_hour(e.at, offset);
    let d = e.dims.as_ref();
    let sk = [
        part(Some(&e.campaign)),
        part(Some(&e.goal)),
        part(Some(&e.ad)),
        part(d.map(|d| d.format.as_str())),
        part(d.and_then(|d| d.category.as_deref())),
        part(d.and_then(|d| d.partner.as_deref())),
        part(d.and_then(|d| d.device_container.as_deref())),
    ]
    .join("#");
    // A programmatic ad's events add its partner and marketplace (a direct ad's cells keep
    // the layout they always had).
    match d.and_then(|d| d.sale.as_ref()) {
        Some(s) => Key::new(day_partition(&e.account, day), format!("{hour:02}#{sk}#{}#{}", part(Some(&s.partner)), part(Some(&s.market)))),
        None => Key::new(day_partition(&e.account, day), format!("{hour:02}#{sk}")),
    }
}

/// The cell of an auction's counters: its local hour, goal, the break's format and the
/// request's dimensions, and the partner (`None`: the marketplace's own counters).
pub struct AuctionCell<'a> {
    pub account: &'a str,
    pub at: i64,
    pub offset: i32,
    pub campaign: &'a str,
    pub goal: &'a str,
    pub format: &'a str,
    pub category: Option<&'a str>,
    pub partner: Option<&'a str>,
    pub device_container: Option<&'a str>,
    pub demand_partner: Option<&'a str>,
    pub marketplace: &'a str,
}

impl AuctionCell<'_> {
    pub fn key(&self) -> Key {
        let (day, hour) = local_day_hour(self.at, self.offset);
        let sk = [
            part(Some(self.campaign)),
            part(Some(self.goal)),
            NONE,
            part(Some(self.format)),
            part(self.category),
            part(self.partner),
            part(self.device_container),
            part(self.demand_partner),
            part(Some(self.marketplace)),
        ]
        .join("#");
        Key::new(day_partition(self.account, day), format!("{hour:02}#{sk}"))
    }
}

/// The additions to the cells of counted events: (event, counter, amount) summed per
/// cell, one action per cell.
pub fn add_ops<'a>(counted: impl Iterator<Item = (&'a Event, Slot, i64)>, offset_at: &dyn Fn(i64) -> i32) -> Vec<TxOp> {
    let mut cells: BTreeMap<Key, BTreeMap<Slot, i64>> = BTreeMap::new();
    for (e, slot, n) in counted {
        *cells.entry(cell_key(e, offset_at(e.at))).or_default().entry(slot).or_insert(0) += n;
    }
    cells.into_iter().map(|(k, d)| TxOp::Add(k, d.into_iter().map(|(s, n)| (s.name().to_string(), n)).collect(), Cond::None)).collect()
}

fn coords(sk: &str, seen: &mut HashSet<Arc<str>>) -> Option<Coords> {
    let mut it = sk.split('#');
    let hour = it.next()?.parse().ok()?;
    let mut next = || {
        let v = it.next()?;
        Some(match seen.get(v) {
            Some(shared) => shared.clone(),
            None => {
                let fresh: Arc<str> = Arc::from(v);
                seen.insert(fresh.clone());
                fresh
            }
        })
    };
    let (campaign, goal, ad, format, category, partner, device_container) = (next()?, next()?, next()?, next()?, next()?, next()?, next()?);
    let demand_partner = next().unwrap_or_else(|| Arc::from(NONE));
    let marketplace = next().unwrap_or_else(|| Arc::from(NONE));
    Some(Coords { hour, campaign, goal, ad, format, category, partner, device_container, demand_partner, marketplace })
}

/// Every cell of one local day (at most `MAX_CELLS_PER_DAY`, else 400 naming the day).
pub async fn day(store: &dyn Store, account: &str, day: NaiveDate) -> RepoResult<Vec<Cell>> {
    let q = Query::partition(day_partition(account, day));
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut cursor = None;
    loop {
        let page = store.query(q.clone().after(cursor)).await?;
        for item in page.items {
            if let Some(at) = coords(&item.sk, &mut seen) {
                let mut counters = Counters::default();
                for (name, n) in &item.counters {
                    counters.add_stored(name, *n);
                }
                out.push(Cell { day, at, counters });
            }
        }
        if out.len() > MAX_CELLS_PER_DAY {
            return Err(RepoError::validation(vec![FieldError::new(
                "from",
                Rule::MaxCells,
                format!(
                    "{day} has more than {MAX_CELLS_PER_DAY} report cells (hour × ad × format × category × partner × device \
                     container); ask for fewer days at a time"
                ),
            )]));
        }
        match page.next {
            Some(c) => cursor = Some(c),
            None => return Ok(out),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::tracking::Dims;

    fn event(at: i64, dims: Option<Dims>) -> Event {
        Event {
            account: "acc".into(),
            campaign: "c1".into(),
            goal: "g1".into(),
            ad: "ad1".into(),
            impression: "i".into(),
            counter: crate::model::enums::Counter::Impression,
            delivered: true,
            viewer: None,
            at,
            id: "x".into(),
            invalid: None,
            block: None,
            dims,
            server: false,
            message: 0,
        }
    }

    #[test]
    fn a_cell_is_the_local_hour_and_the_dimensions() {
        // 2026-11-24T23:30Z is 2026-11-25 00:30 at UTC+1.
        let at = 1_795_564_800 - 1800;
        assert_eq!(local_day_hour(at, 0), (NaiveDate::from_ymd_opt(2026, 11, 24).unwrap(), 23));
        assert_eq!(local_day_hour(at, 3600), (NaiveDate::from_ymd_opt(2026, 11, 25).unwrap(), 0));
        let (d, h) = local_day_hour(at, 0);
        let dims = Dims {
            format: "preroll".into(),
            category: Some("sports".into()),
            partner: Some("a#b".into()),
            device_container: None,
            sale: None,
        };
        let k = cell_key(&event(at, Some(dims)), 0);
        assert_eq!(k.pk, format!("A#acc#RPT#{d}"));
        assert_eq!(k.sk, format!("{h:02}#c1#g1#ad1#preroll#sports#~#-"));
        assert_eq!(coords(&k.sk, &mut HashSet::new()).map(|c| (c.hour, c.partner, c.device_container)), Some((h, "~".into(), "-".into())));
        // A version-2 link's event: no dimensions.
        assert!(cell_key(&event(at, None), 0).sk.ends_with("#ad1#-#-#-#-"));
    }

    #[test]
    fn events_of_one_cell_share_one_addition() {
        let evs = [event(1_795_564_800, None), event(1_795_564_801, None), event(1_795_564_800 + 3600, None)];
        let ops = add_ops(evs.iter().map(|e| (e, Slot::Valid(crate::model::enums::Counter::Impression), 1)), &|_| 0);
        assert_eq!(ops.len(), 2);
        match &ops[0] {
            TxOp::Add(_, d, _) => assert_eq!(d, &vec![("impression".to_string(), 2)]),
            other => panic!("{other:?}"),
        }
    }
}
