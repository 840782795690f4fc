//! The programmatic part of a snapshot (docs/programmatic.md): the account's enabled demand
//! partners and its marketplaces, prices in integer micros, and how each goal is filled.

use std::collections::HashMap;

use crate::model::demand_partner::DemandPartner;
use crate::model::enums::GoalType;
use crate::model::goal::Goal;
use crate::model::marketplace::{AuctionType, Marketplace};

/// At most this many rounds of auctions per request: a goal whose auction had no valid bid
/// is left out and its break decided again, whose new programmatic pick is asked in turn.
pub const MAX_ROUNDS: usize = 3;

/// Micros of a CPM (prices are kept as integers: no rounding drift in clearing).
pub const MICROS: f64 = 1_000_000.0;

pub fn micros(cpm: f64) -> i64 {
    (cpm * MICROS).round() as i64
}

/// A bidder the engine may ask.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Bidder {
    pub id: String,
    pub name: String,
    pub endpoint: String,
    pub timeout_ms: u32,
    pub currency: String,
    /// Whether bid requests carry the partner's auth header. Its value is not in the
    /// snapshot (which other functions read from the bucket): serving reads it from the
    /// partner's record (`usecases::auction::bidder_secrets`).
    pub auth: bool,
}

#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct DealEntry {
    pub id: String,
    pub floor_micros: i64,
    pub seats: Vec<String>,
}

/// A marketplace as the auction reads it.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct Market {
    pub id: String,
    pub name: String,
    /// Indices into `Demand::bidders` (enabled partners only, in the marketplace's order).
    pub bidders: Vec<u32>,
    pub auction: AuctionType,
    pub floor_micros: i64,
    pub currency: String,
    pub deals: Vec<DealEntry>,
    pub private: bool,
    pub blocked_domains: Vec<String>,
    pub blocked_categories: Vec<String>,
}

/// The account's demand.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub struct Demand {
    pub bidders: Vec<Bidder>,
    pub markets: Vec<Market>,
    pub market_index: HashMap<String, u32>,
}

/// A won auction's ad, as the served document carries it: the bidder's markup inside this
/// service's `<Ad>`, with this service's links (docs/programmatic.md, "Serving the winner").
#[derive(Debug, Clone, PartialEq)]
pub struct WonAd {
    /// The `<Ad id>`: the bid's `crid`, else its `adid`, else its `id`.
    pub ad_id: String,
    /// `<AdSystem>`: the demand partner's name.
    pub system: String,
    /// The break's format.
    pub format: super::symbols::AdFormat,
    /// What the links carry: partner, marketplace, clearing price.
    pub sale: super::tracking::Sale,
    pub markup: crate::delivery::markup::Markup,
}

/// How a goal fills a break.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub enum Fill {
    /// Its own ads.
    #[default]
    Ads,
    /// The auction of marketplace `.0` (an index into `Demand::markets`); `guaranteed`: a
    /// programmatic guaranteed (IMPRESSION) goal, where only the deals may bid.
    Auction { market: u32, guaranteed: bool },
    /// Nothing: an RTB goal without a marketplace, or whose marketplace is gone.
    Nothing,
}

impl Demand {
    pub fn compile(partners: &[DemandPartner], markets: &[Marketplace]) -> Demand {
        let mut d = Demand::default();
        let mut index: HashMap<&str, u32> = HashMap::new();
        for p in partners.iter().filter(|p| p.enabled) {
            index.insert(p.id.as_str(), d.bidders.len() as u32);
            d.bidders.push(Bidder {
                id: p.id.clone(),
                name: p.name.clone(),
                endpoint: p.endpoint.clone(),
                timeout_ms: p.timeout_ms,
                currency: p.currency.clone(),
                auth: p.auth_header.is_some(),
            });
        }
        for m in markets {
            d.market_index.insert(m.id.clone(), d.markets.len() as u32);
            d.markets.push(Market {
                id: m.id.clone(),
                name: m.name.clone(),
                bidders: m.demand_partner_ids.iter().filter_map(|p| index.get(p.as_str()).copied()).collect(),
                auction: m.auction_type,
                floor_micros: micros(m.floor_cpm),
                currency: m.currency.clone(),
                deals: m
                    .deals
                    .iter()
                    .map(|x| DealEntry { id: x.id.clone(), floor_micros: micros(x.floor_cpm), seats: x.seats.clone() })
                    .collect(),
                private: m.private_auction,
                blocked_domains: m.blocked_domains.clone(),
                blocked_categories: m.blocked_categories.clone(),
            });
        }
        d
    }

    /// How goal `g` is filled.
    pub fn fill_of(&self, g: &Goal) -> Fill {
        match (g.kind, g.marketplace_id.as_deref().map(|m| self.market_index.get(m))) {
            (GoalType::Rtb, None | Some(None)) => Fill::Nothing,
            (GoalType::Impression, Some(None)) => Fill::Nothing,
            (kind, Some(Some(&market))) => Fill::Auction { market, guaranteed: kind == GoalType::Impression },
            _ => Fill::Ads,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::marketplace::parse_write;
    use chrono::Utc;
    use serde_json::json;

    #[test]
    fn goals_are_filled_by_their_type_and_marketplace() {
        let now = Utc::now();
        let input = parse_write(&json!({"name": "m", "demandPartnerIds": ["p"], "auctionType": "FIRST_PRICE", "floorCpm": 1.25}), None);
        let m = Marketplace::from_input("m1".into(), input.unwrap(), now, now);
        let d = Demand::compile(&[], &[m]);
        assert_eq!((d.markets[0].floor_micros, d.markets[0].bidders.len()), (1_250_000, 0));
        let goal = |kind: GoalType, market: Option<&str>| {
            let mut g = crate::delivery::synthetic::goal("g", "c", kind.as_str(), 10.0, now, now);
            g.marketplace_id = market.map(str::to_string);
            d.fill_of(&g)
        };
        assert_eq!(goal(GoalType::Rtb, Some("m1")), Fill::Auction { market: 0, guaranteed: false });
        assert_eq!(goal(GoalType::Impression, Some("m1")), Fill::Auction { market: 0, guaranteed: true });
        assert_eq!(goal(GoalType::Rtb, None), Fill::Nothing);
        assert_eq!(goal(GoalType::Rtb, Some("gone")), Fill::Nothing);
        assert_eq!(goal(GoalType::Impression, Some("gone")), Fill::Nothing);
        assert_eq!(goal(GoalType::Impression, None), Fill::Ads);
    }
}
