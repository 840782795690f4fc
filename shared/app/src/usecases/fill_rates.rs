//! Programmatic goals in forecasts (docs/programmatic.md, "Forecasts"): never a bidder,
//! but each marketplace's recorded fill rate (wins per auction over the last 7 local days,
//! from the report cells), when it has at least `MIN_AUCTIONS`; without, unlimited.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};

use super::UseCaseResult;
use crate::delivery::programmatic::Fill;
use crate::delivery::snapshot::Snapshot;
use crate::forecast::report_schema::ProgrammaticBasis;
use crate::forecast::simulate::FillRates;
use crate::model::enums::Counter;
use crate::repo::reports::{self, NONE};
use crate::state::AppState;

/// Days of auctions a fill rate is recorded over.
pub const DAYS: i64 = 7;
/// Auctions a fill rate needs.
pub const MIN_AUCTIONS: i64 = 100;

/// The fill rates of the marketplaces `s`'s programmatic goals use, and the basis of each.
pub async fn recorded(st: &AppState, s: &Snapshot, now: DateTime<Utc>) -> UseCaseResult<(FillRates, Vec<ProgrammaticBasis>)> {
    let markets: Vec<&str> = s
        .goals
        .iter()
        .filter_map(|g| match g.fill {
            Fill::Auction { market, .. } => s.demand.markets.get(market as usize).map(|m| m.id.as_str()),
            _ => None,
        })
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    if markets.is_empty() {
        return Ok((FillRates::default(), Vec::new()));
    }
    let (today, _) = reports::local_day_hour(now.timestamp(), s.zone.offset_at(now.timestamp()));
    let cells =
        super::reports::cells(st, &crate::ids::AccountId::from(s.account.as_str()), today - Duration::days(DAYS - 1), today).await?;
    let mut tally: BTreeMap<&str, (i64, i64)> = BTreeMap::new();
    for c in cells.iter().filter(|c| &*c.at.marketplace != NONE) {
        let t = tally.entry(&*c.at.marketplace).or_default();
        t.0 += c.counters.get(Counter::Auctions);
        t.1 += c.counters.get(Counter::Wins);
    }
    let mut rates = FillRates::default();
    let mut basis = Vec::new();
    for m in markets {
        let (auctions, wins) = tally.get(m).copied().unwrap_or_default();
        let rate = (auctions >= MIN_AUCTIONS).then(|| (wins as f64 / auctions as f64).clamp(0.0, 1.0));
        if let Some(r) = rate {
            rates.0.insert(m.to_string(), r);
        }
        basis.push(ProgrammaticBasis {
            marketplace_id: m.to_string(),
            basis: if rate.is_some() { "FILL_RATE" } else { "UNLIMITED" }.into(),
            fill_rate: rate.map(|r| (r * 10_000.0).round() / 10_000.0),
            auctions,
        });
    }
    Ok((rates, basis))
}
