//! What the events worker counts and how the metrics are computed from it (pure): a stored
//! counter is a valid event's `Counter` or an invalid reason's tally; `Counters` holds one
//! record's (or report row's) sums; the rates and eCPM have one formula each here
//! (docs/queries.md, docs/reports.md).

use crate::delivery::ivt::Reason;
use crate::model::bid_loss::Loss;
use crate::model::enums::{Counter, PricingModel};
use crate::model::goal::Goal;

/// One stored counter of a metric record or a report cell: a valid event's counter (its
/// name) or an invalid reason's (`invalid_<reason>`). The names are the stored attribute
/// names, unchanged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    Valid(Counter),
    Invalid(Reason),
    /// A bid refused by a rule (`invalidBid_<rule>`, docs/programmatic.md).
    Rejected(Loss),
}

impl Slot {
    /// The stored attribute name.
    pub fn name(self) -> &'static str {
        match self {
            Slot::Valid(c) => c.as_str(),
            Slot::Invalid(r) => r.stored(),
            Slot::Rejected(l) => l.stored(),
        }
    }

    /// The slot of a stored attribute name (`None`: not a counter).
    pub fn parse(name: &str) -> Option<Slot> {
        Counter::parse(name)
            .map(Slot::Valid)
            .or_else(|| Reason::ALL.iter().find(|r| r.stored() == name).map(|r| Slot::Invalid(*r)))
            .or_else(|| Loss::INVALID.iter().find(|l| l.stored() == name).map(|l| Slot::Rejected(*l)))
    }
}

/// The counters of one record or report row: every valid counter and every invalid reason.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counters {
    valid: [i64; Counter::ALL.len()],
    invalid: [i64; Reason::ALL.len()],
    rejected: [i64; Loss::ALL.len()],
}

impl Counters {
    pub fn get(&self, c: Counter) -> i64 {
        self.valid[c as usize]
    }

    /// Invalid events of one reason.
    pub fn invalid(&self, r: Reason) -> i64 {
        self.invalid[r as usize]
    }

    /// Bids refused by rule `l`.
    pub fn rejected(&self, l: Loss) -> i64 {
        self.rejected[l as usize]
    }

    /// Invalid events of every reason.
    pub fn invalid_total(&self) -> i64 {
        self.invalid.iter().sum()
    }

    pub fn add(&mut self, slot: Slot, n: i64) {
        match slot {
            Slot::Valid(c) => self.valid[c as usize] += n,
            Slot::Invalid(r) => self.invalid[r as usize] += n,
            Slot::Rejected(l) => self.rejected[l as usize] += n,
        }
    }

    /// Adds a stored attribute; a name that is no counter is left out (`false`).
    pub fn add_stored(&mut self, name: &str, n: i64) -> bool {
        match Slot::parse(name) {
            Some(s) => {
                self.add(s, n);
                true
            }
            None => false,
        }
    }

    /// Adds another record's counters.
    pub fn merge(&mut self, other: &Counters) {
        for (a, b) in self.valid.iter_mut().zip(other.valid) {
            *a += b;
        }
        for (a, b) in self.invalid.iter_mut().zip(other.invalid) {
            *a += b;
        }
        for (a, b) in self.rejected.iter_mut().zip(other.rejected) {
            *a += b;
        }
    }

    /// Clicks per impression.
    pub fn ctr(&self) -> f64 {
        ratio(self.get(Counter::ClickThrough), self.get(Counter::Impression))
    }

    /// Completes per start.
    pub fn completion_rate(&self) -> f64 {
        ratio(self.get(Counter::Complete), self.get(Counter::Start))
    }

    /// Bids that won per bid received (programmatic).
    pub fn win_rate(&self) -> f64 {
        ratio(self.get(Counter::Wins), self.get(Counter::Bids))
    }

    /// Impressions per auction (programmatic).
    pub fn fill_rate(&self) -> f64 {
        ratio(self.get(Counter::Impression), self.get(Counter::Auctions))
    }

    /// Programmatic revenue per thousand impressions.
    pub fn revenue_ecpm(&self) -> f64 {
        let imps = self.get(Counter::Impression);
        if imps == 0 {
            0.0
        } else {
            (self.revenue() / imps as f64 * 1000.0 * 100.0).round() / 100.0
        }
    }

    /// Programmatic revenue (the clearing prices of the valid impressions / 1,000), in
    /// the marketplace's currency, to six decimals.
    pub fn revenue(&self) -> f64 {
        self.get(Counter::RevenueMicros) as f64 / 1e6
    }

    /// Revenue per thousand impressions: a programmatic goal's from its clearing prices,
    /// any other's from its pricing.
    pub fn ecpm(&self, g: &Goal) -> f64 {
        if g.marketplace_id.is_some() {
            return self.revenue_ecpm();
        }
        let price = g.pricing_value.unwrap_or(0.0);
        let per_thousand = |events: i64| events as f64 * price / 1000.0;
        let revenue = match g.pricing_model {
            PricingModel::Cpm => per_thousand(self.get(Counter::Impression)),
            PricingModel::Cpmv25 => per_thousand(self.get(Counter::FirstQuartile)),
            PricingModel::Cpmv50 => per_thousand(self.get(Counter::Midpoint)),
            PricingModel::Cpmv75 => per_thousand(self.get(Counter::ThirdQuartile)),
            PricingModel::Cpmv100 => per_thousand(self.get(Counter::Complete)),
            PricingModel::Cpc => self.get(Counter::ClickThrough) as f64 * price,
            PricingModel::Budget => {
                g.goal_value.map_or(0.0, |v| if v > 0.0 { price * (self.get(Counter::Delivered) as f64 / v).min(1.0) } else { 0.0 })
            }
            PricingModel::NoPricing => 0.0,
        };
        let imps = self.get(Counter::Impression);
        if imps == 0 {
            0.0
        } else {
            ((revenue / imps as f64 * 1000.0) * 100.0).round() / 100.0
        }
    }
}

/// `a / b` rounded to four decimals; 0 when nothing was counted.
pub fn ratio(a: i64, b: i64) -> f64 {
    if b == 0 {
        0.0
    } else {
        ((a as f64 / b as f64) * 10_000.0).round() / 10_000.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_slot_reads_back_from_its_stored_name() {
        let slots = Counter::ALL
            .iter()
            .map(|c| Slot::Valid(*c))
            .chain(Reason::ALL.iter().map(|r| Slot::Invalid(*r)))
            .chain(Loss::INVALID.iter().map(|l| Slot::Rejected(*l)));
        for s in slots {
            assert_eq!(Slot::parse(s.name()), Some(s));
        }
        assert_eq!(Slot::parse("invalid_"), None);
        assert_eq!(Slot::parse("bogus"), None);
    }

    #[test]
    fn rates_are_computed_once() {
        let mut c = Counters::default();
        assert!(c.add_stored("impression", 3));
        c.add(Slot::Valid(Counter::ClickThrough), 1);
        c.add(Slot::Valid(Counter::Start), 4);
        c.add(Slot::Valid(Counter::Complete), 3);
        c.add(Slot::Invalid(Reason::Crawler), 2);
        assert!(!c.add_stored("bogus", 9));
        assert_eq!((c.ctr(), c.completion_rate(), c.invalid_total()), (0.3333, 0.75, 2));
        let mut sum = Counters::default();
        sum.merge(&c);
        sum.merge(&c);
        assert_eq!((sum.get(Counter::Impression), sum.invalid(Reason::Crawler)), (6, 4));
        assert_eq!(Counters::default().ctr(), 0.0);
    }
}
