//! Bids (docs/programmatic.md, "Bids" and "Clearing price"), pure: each bid checked in
//! order against the marketplace (the first rule it breaks is its OpenRTB 2.6 loss
//! reason), then the winner and its clearing price.

use super::openrtb::{Bid, BidResponse};
use crate::delivery::markup::{self as adm, Markup};
use crate::delivery::programmatic::{micros, DealEntry, Market};
use crate::model::marketplace::AuctionType;

/// The one impression of a bid request.
pub const IMP_ID: &str = "1";

pub use crate::model::bid_loss::Loss;

/// A bid that may compete.
#[derive(Debug, Clone, PartialEq)]
pub struct Valid {
    /// The bidder (an index into `Demand::bidders`).
    pub bidder: u32,
    pub seat: Option<String>,
    pub bid: Bid,
    pub price_micros: i64,
    /// The deal it bid on (an index into `Market::deals`).
    pub deal: Option<usize>,
    /// The floor that applied to it (the deal's, else the marketplace's).
    pub floor_micros: i64,
    /// Its markup; `None`: it comes from the `nurl` (fetched when it wins).
    pub markup: Option<Markup>,
}

/// One bid's verdict.
#[derive(Debug, Clone, PartialEq)]
pub enum Checked {
    Valid(Box<Valid>),
    Invalid { bid: Box<Bid>, seat: Option<String>, loss: Loss, detail: String },
}

fn domain_blocked(domain: &str, blocked: &[String]) -> bool {
    let d = domain.trim().trim_end_matches('.').to_ascii_lowercase();
    blocked.iter().any(|b| d == *b || d.ends_with(&format!(".{b}")))
}

/// Checks one bid of `bidder` (docs/programmatic.md, "Bids", rules 1-10).
pub fn check(bidder: u32, seat: Option<&str>, bid: &Bid, cur: &str, m: &Market, guaranteed: bool) -> Checked {
    let bad = |loss: Loss, detail: String| Checked::Invalid { bid: Box::new(bid.clone()), seat: seat.map(str::to_string), loss, detail };
    if bid.impid != IMP_ID {
        return bad(Loss::InvalidResponse, format!("impid {:?} is not the impression asked for ({IMP_ID:?})", bid.impid));
    }
    if !(bid.price.is_finite() && bid.price > 0.0) {
        return bad(Loss::MissingPrice, format!("price {} is not a positive price", bid.price));
    }
    if cur != m.currency {
        return bad(Loss::Currency, format!("the response's currency {cur} is not the marketplace's {}", m.currency));
    }
    let deal: Option<(usize, &DealEntry)> = match bid.dealid.as_deref().filter(|d| !d.is_empty()) {
        None => None,
        Some(id) => match m.deals.iter().enumerate().find(|(_, d)| d.id == id) {
            None => return bad(Loss::InvalidDeal, format!("dealid {id:?} is not a deal of the marketplace")),
            Some((_, d)) if !d.seats.is_empty() && !seat.is_some_and(|s| d.seats.iter().any(|x| x == s)) => {
                return bad(Loss::InvalidDeal, format!("seat {seat:?} may not bid on deal {id:?}"))
            }
            Some(found) => Some(found),
        },
    };
    if deal.is_none() && (m.private || guaranteed || m.auction == AuctionType::FixedPrice) {
        return bad(Loss::NotInDeal, "only the marketplace's deals may bid here".into());
    }
    let price = micros(bid.price);
    let floor = deal.map_or(m.floor_micros, |(_, d)| d.floor_micros);
    if price < floor {
        let loss = if deal.is_some() { Loss::BelowDealFloor } else { Loss::BelowFloor };
        return bad(loss, format!("price {} is below the floor {}", bid.price, floor as f64 / 1e6));
    }
    if let Some(d) = bid.adomain.iter().find(|d| domain_blocked(d, &m.blocked_domains)) {
        return bad(Loss::BlockedAdvertiser, format!("advertiser domain {d:?} is blocked"));
    }
    if let Some(c) = bid.cat.iter().find(|c| m.blocked_categories.contains(c)) {
        return bad(Loss::BlockedCategory, format!("category {c:?} is blocked"));
    }
    let markup = match (bid.adm.as_deref().filter(|a| !a.trim().is_empty()), bid.nurl.as_deref().filter(|n| !n.is_empty())) {
        (Some(a), _) => match adm::parse(a) {
            Ok(m) => Some(m),
            Err(e) => return bad(Loss::BadCreative, e),
        },
        (None, Some(_)) => None,
        (None, None) => return bad(Loss::MissingMarkup, "neither adm nor nurl".into()),
    };
    Checked::Valid(Box::new(Valid {
        bidder,
        seat: seat.map(str::to_string),
        bid: bid.clone(),
        price_micros: price,
        deal: deal.map(|(i, _)| i),
        floor_micros: floor,
        markup,
    }))
}

/// Every bid of a response, checked.
pub fn check_response(bidder: u32, r: &BidResponse, m: &Market, guaranteed: bool) -> Vec<Checked> {
    let cur = r.cur.as_deref().filter(|c| !c.is_empty()).unwrap_or(crate::model::currency::DEFAULT);
    r.seatbid
        .iter()
        .flat_map(|sb| sb.bid.iter().map(move |b| (sb.seat.as_deref(), b)))
        .take(MAX_BIDS_PER_RESPONSE)
        .map(|(seat, b)| check(bidder, seat, b, cur, m, guaranteed))
        .collect()
}

/// The bids one response may hold that are considered: the first, in order; the rest are
/// neither checked nor told anything (one bid an impression is what a bidder sends; a
/// response of thousands is a bidder misbehaving).
pub const MAX_BIDS_PER_RESPONSE: usize = 20;

/// The bids of a response (all of them, considered or not).
pub fn bid_count(r: &BidResponse) -> usize {
    r.seatbid.iter().map(|s| s.bid.len()).sum()
}

/// The winner (an index into `valid`) and its clearing price in micros: the highest price
/// (ties: the earlier, which is the marketplace's partner order); first price pays the
/// bid, second price the higher of the second bid and the winner's floor plus 0.01 (never
/// above the bid), a fixed-price deal its price.
pub fn clear(valid: &[Valid], m: &Market) -> Option<(usize, i64)> {
    let mut order: Vec<usize> = (0..valid.len()).collect();
    order.sort_by(|a, b| valid[*b].price_micros.cmp(&valid[*a].price_micros).then(a.cmp(b)));
    let w = *order.first()?;
    let win = &valid[w];
    let price = match m.auction {
        AuctionType::FirstPrice => win.price_micros,
        AuctionType::FixedPrice => win.deal.map_or(win.price_micros, |d| m.deals[d].floor_micros),
        AuctionType::SecondPrice => {
            let second = order.get(1).map_or(0, |i| valid[*i].price_micros);
            (second.max(win.floor_micros) + 10_000).min(win.price_micros)
        }
    };
    Some((w, price))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::programmatic::Demand;
    use crate::model::marketplace::{parse_write, Marketplace};
    use chrono::Utc;
    use serde_json::json;

    const ADM: &str = r#"<VAST version="3.0"><Ad><Wrapper><VASTAdTagURI>https://dsp.example/v</VASTAdTagURI></Wrapper></Ad></VAST>"#;

    fn market(body: serde_json::Value) -> Market {
        let now = Utc::now();
        let m = Marketplace::from_input("m".into(), parse_write(&body, None).unwrap(), now, now);
        Demand::compile(&[], &[m]).markets.remove(0)
    }

    fn bid(price: f64, deal: Option<&str>) -> Bid {
        Bid { id: "b".into(), impid: "1".into(), price, adm: Some(ADM.into()), dealid: deal.map(str::to_string), ..Bid::default() }
    }

    fn loss(c: Checked) -> Option<Loss> {
        match c {
            Checked::Invalid { loss, .. } => Some(loss),
            Checked::Valid(_) => None,
        }
    }

    #[test]
    fn each_bid_is_checked_in_order() {
        let m = market(json!({"name": "m", "demandPartnerIds": ["p"], "auctionType": "SECOND_PRICE", "floorCpm": 2,
            "deals": [{"id": "d1", "floorCpm": 5, "seats": ["s1"]}], "blockedDomains": ["bad.example"], "blockedCategories": ["IAB25"]}));
        let c = |b: Bid, seat: Option<&str>, cur: &str| loss(check(0, seat, &b, cur, &m, false));
        assert_eq!(c(bid(3.0, None), None, "USD"), None);
        assert_eq!(c(Bid { impid: "2".into(), ..bid(3.0, None) }, None, "USD"), Some(Loss::InvalidResponse));
        assert_eq!(c(bid(0.0, None), None, "USD"), Some(Loss::MissingPrice));
        assert_eq!(c(bid(3.0, None), None, "EUR"), Some(Loss::Currency));
        assert_eq!(c(bid(9.0, Some("nope")), Some("s1"), "USD"), Some(Loss::InvalidDeal));
        assert_eq!(c(bid(9.0, Some("d1")), Some("s2"), "USD"), Some(Loss::InvalidDeal), "a seat the deal does not allow");
        assert_eq!(c(bid(4.0, Some("d1")), Some("s1"), "USD"), Some(Loss::BelowDealFloor));
        assert_eq!(c(bid(1.0, None), None, "USD"), Some(Loss::BelowFloor));
        assert_eq!(c(Bid { adomain: vec!["shop.Bad.example".into()], ..bid(3.0, None) }, None, "USD"), Some(Loss::BlockedAdvertiser));
        assert_eq!(c(Bid { cat: vec!["IAB25".into()], ..bid(3.0, None) }, None, "USD"), Some(Loss::BlockedCategory));
        assert_eq!(c(Bid { adm: None, ..bid(3.0, None) }, None, "USD"), Some(Loss::MissingMarkup));
        assert_eq!(c(Bid { adm: None, nurl: Some("https://dsp.example/win".into()), ..bid(3.0, None) }, None, "USD"), None);
        assert_eq!(c(Bid { adm: Some("<html/>".into()), ..bid(3.0, None) }, None, "USD"), Some(Loss::BadCreative));
        // A programmatic guaranteed goal takes deal bids only.
        assert_eq!(loss(check(0, None, &bid(3.0, None), "USD", &m, true)), Some(Loss::NotInDeal));
        assert_eq!(Loss::BelowFloor.code(), 100);
    }

    #[test]
    fn a_response_is_considered_up_to_its_bound() {
        let m = market(json!({"name": "m", "demandPartnerIds": ["p"], "auctionType": "FIRST_PRICE", "floorCpm": 2}));
        let many = crate::demand::openrtb::BidResponse {
            seatbid: vec![crate::demand::openrtb::SeatBid { bid: vec![bid(0.5, None); 2_500], seat: None }],
            ..Default::default()
        };
        assert_eq!(bid_count(&many), 2_500);
        assert_eq!(check_response(0, &many, &m, false).len(), MAX_BIDS_PER_RESPONSE);
    }

    fn valid(prices: &[(f64, Option<&str>)], m: &Market) -> Vec<Valid> {
        prices
            .iter()
            .enumerate()
            .map(|(i, (p, d))| match check(i as u32, Some("s1"), &bid(*p, *d), "USD", m, false) {
                Checked::Valid(v) => *v,
                Checked::Invalid { detail, .. } => panic!("{detail}"),
            })
            .collect()
    }

    #[test]
    fn the_clearing_price_follows_the_auction_type() {
        let body = |at: &str| json!({"name": "m", "demandPartnerIds": ["p"], "auctionType": at, "floorCpm": 2, "deals": [{"id": "d1", "floorCpm": 7.5}]});
        let first = market(body("FIRST_PRICE"));
        assert_eq!(clear(&valid(&[(3.0, None), (5.0, None), (4.0, None)], &first), &first), Some((1, 5_000_000)));
        let second = market(body("SECOND_PRICE"));
        assert_eq!(clear(&valid(&[(3.0, None), (5.0, None), (4.0, None)], &second), &second), Some((1, 4_010_000)));
        // Alone: the floor plus 0.01; never above the bid.
        assert_eq!(clear(&valid(&[(5.0, None)], &second), &second), Some((0, 2_010_000)));
        assert_eq!(clear(&valid(&[(2.0, None)], &second), &second), Some((0, 2_000_000)));
        assert_eq!(clear(&valid(&[(8.0, Some("d1"))], &second), &second), Some((0, 7_510_000)), "the deal's floor");
        // Ties go to the earlier partner.
        assert_eq!(clear(&valid(&[(5.0, None), (5.0, None)], &first), &first), Some((0, 5_000_000)));
        let fixed = market(body("FIXED_PRICE"));
        assert_eq!(clear(&valid(&[(9.0, Some("d1"))], &fixed), &fixed), Some((0, 7_500_000)));
        assert_eq!(clear(&[], &fixed), None);
    }
}
