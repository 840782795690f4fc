//! The inspector's auctions (docs/inspector.md, "Auctions"): each partner asked with its
//! answer and latency, each bid with its price, deal, advertiser domains and creative or
//! the rule that refused it, and the winner with its clearing price.

use serde::Serialize;

use crate::delivery::snapshot::Snapshot;
use crate::demand::bids::Checked;
use crate::usecases::auction::Auction;

/// A reason: a stable code and a sentence.
#[derive(Serialize, utoipa::ToSchema)]
pub struct InspectedReason {
    /// Stable, e.g. `FLIGHT_ENDED`, `CAP_REACHED:DAILY_CAP`, `PACING_AHEAD_OF_PLAN`,
    /// `TARGETING:goal:content`, `LOST_TO_PRIORITY` (docs/inspector.md lists them all).
    pub code: String,
    /// What it means, in words.
    pub message: String,
}

/// A partner asked.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectedPartner {
    /// The demand partner asked.
    pub demand_partner_id: String,
    pub name: String,
    /// BID, NO_BID, TIMEOUT, ERROR or INVALID_RESPONSE.
    pub status: String,
    /// How long its answer took (ms).
    pub latency_ms: u64,
    /// What went wrong (errors and invalid responses).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

/// A bid.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectedBid {
    /// The partner that bid.
    pub demand_partner_id: String,
    /// The bid's id.
    pub bid_id: String,
    /// CPM, the bidder's currency.
    pub price: f64,
    /// The deal it bid on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deal_id: Option<String>,
    /// The advertiser's domains.
    pub adomain: Vec<String>,
    /// The creative's id.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub crid: Option<String>,
    /// Whether it competed.
    pub valid: bool,
    /// Why not: the rule (`belowFloor`, `blockedAdvertiser`, ...) and what it found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rejected: Option<InspectedReason>,
}

/// The winner.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectedWinner {
    /// The winning partner.
    pub demand_partner_id: String,
    /// The winning bid's id.
    pub bid_id: String,
    /// The bid (CPM).
    pub price: f64,
    /// What it pays (CPM): first price, second price plus 0.01, or the deal's.
    pub clearing_price: f64,
    /// The deal it won on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deal_id: Option<String>,
}

/// One programmatic goal's auction.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectedAuction {
    /// The auction's id (the bid requests' `id`).
    pub auction_id: String,
    pub goal_id: String,
    pub marketplace_id: String,
    /// FIRST_PRICE, SECOND_PRICE or FIXED_PRICE.
    pub auction_type: String,
    /// Each partner asked, with its answer.
    pub partners: Vec<InspectedPartner>,
    /// Each bid received, valid or refused.
    pub bids: Vec<InspectedBid>,
    /// None: no valid bid (the break went to the next goal).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub winner: Option<InspectedWinner>,
    /// Why no partner was asked (pre-bid invalid traffic).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub not_asked: Option<String>,
}

pub fn render(s: &Snapshot, a: &Auction) -> InspectedAuction {
    let partner = |b: u32| s.demand.bidders.get(b as usize);
    let id_of = |b: u32| partner(b).map(|p| p.id.clone()).unwrap_or_default();
    let market = s.demand.markets.get(a.market as usize);
    let mut bids = Vec::new();
    for asked in &a.asked {
        for c in &asked.bids {
            let (bid, valid, rejected) = match c {
                Checked::Valid(v) => (&v.bid, true, None),
                Checked::Invalid { bid, loss, detail, .. } => {
                    (bid.as_ref(), false, Some(InspectedReason { code: loss.as_str().to_string(), message: detail.clone() }))
                }
            };
            bids.push(InspectedBid {
                demand_partner_id: id_of(asked.bidder),
                bid_id: bid.id.clone(),
                price: bid.price,
                deal_id: bid.dealid.clone(),
                adomain: bid.adomain.clone(),
                crid: bid.crid.clone(),
                valid,
                rejected,
            });
        }
    }
    InspectedAuction {
        auction_id: a.id.clone(),
        goal_id: s.goals.get(a.goal as usize).map(|g| g.id.clone()).unwrap_or_default(),
        marketplace_id: market.map(|m| m.id.clone()).unwrap_or_default(),
        auction_type: market.map(|m| m.auction.as_str().to_string()).unwrap_or_default(),
        partners: a
            .asked
            .iter()
            .map(|x| InspectedPartner {
                demand_partner_id: id_of(x.bidder),
                name: partner(x.bidder).map(|p| p.name.clone()).unwrap_or_default(),
                status: serde_json::to_value(x.answered).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
                latency_ms: u64::try_from(x.latency.as_millis()).unwrap_or(u64::MAX),
                detail: x.detail.clone(),
            })
            .collect(),
        bids,
        winner: a.winner.as_ref().map(|w| InspectedWinner {
            demand_partner_id: id_of(w.valid.bidder),
            bid_id: w.valid.bid.id.clone(),
            price: w.valid.bid.price,
            clearing_price: w.price_micros as f64 / 1e6,
            deal_id: w.valid.bid.dealid.clone(),
        }),
        not_asked: a.not_asked.map(str::to_string),
    }
}
