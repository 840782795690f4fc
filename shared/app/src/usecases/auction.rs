//! The auction of a programmatic goal's pick (docs/programmatic.md, "The auction in the ad
//! request"): one OpenRTB 2.6 bid request to each enabled partner of the marketplace, all
//! at once, each bounded by its own timeout and the request's deadline; every bid checked;
//! the winner cleared; its markup fetched from its `nurl` when it sent none. Pure of
//! notices: `notices` queues them for a live request (never for the inspector).

use std::collections::HashMap;
use std::sync::Arc;

use std::net::IpAddr;
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::delivery::decide::{BreakSettings, Pick};
use crate::delivery::markup::{self as adm, MAX_ADM_BYTES};
use crate::delivery::programmatic::{Fill, WonAd};
use crate::delivery::request::AdRequest;
use crate::delivery::snapshot::Snapshot;
use crate::delivery::tracking::Sale;
use crate::demand::bids::{self, Checked, Loss, Valid};
use crate::demand::client::{Answer, Call, CallError};
use crate::demand::macros::{self, Values};
use crate::demand::openrtb::BidResponse;
use crate::demand::request::{self, Break};
use crate::demand::signals::Signals;
use crate::jobs::Notice;
use crate::state::AppState;

/// A bid response is read to at most this many bytes.
pub const MAX_BID_RESPONSE_BYTES: usize = 256 * 1024;

/// How one partner answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Answered {
    Bid,
    NoBid,
    Timeout,
    Error,
    InvalidResponse,
}

/// One partner asked.
#[derive(Debug, Clone)]
pub struct Asked {
    /// An index into `Demand::bidders`.
    pub bidder: u32,
    pub answered: Answered,
    pub detail: Option<String>,
    pub latency: Duration,
    pub bids: Vec<Checked>,
}

/// The winner.
#[derive(Debug, Clone)]
pub struct Winner {
    pub valid: Valid,
    pub price_micros: i64,
    pub ad: WonAd,
    /// Its markup came from its `nurl`: the win notice is given already.
    pub nurl_fetched: bool,
}

/// One auction.
#[derive(Debug, Clone)]
pub struct Auction {
    pub id: String,
    pub goal: u32,
    pub market: u32,
    pub asked: Vec<Asked>,
    pub winner: Option<Winner>,
    /// Why no partner was asked (the request is invalid traffic before any bid).
    pub not_asked: Option<&'static str>,
}

/// What an auction is run for.
pub struct Ask<'a> {
    pub snapshot: &'a Snapshot,
    pub pick: &'a Pick,
    pub request: &'a AdRequest,
    pub settings: BreakSettings,
    pub signals: &'a Signals,
    /// The viewer's address (v4 or v6), as the invalid-traffic rules see it.
    pub ip: Option<IpAddr>,
    /// The inspector's request as its user describes it: one without a User-Agent is asked
    /// (a live request without one is a script's, as after the auction).
    pub described: bool,
}

/// How long the auctions of a request may take: the slowest asked partner's timeout and
/// the margin.
pub fn budget(st: &AppState, s: &Snapshot, goals: impl Iterator<Item = u32>) -> Duration {
    let slowest = goals
        .filter_map(|g| match s.goals.get(g as usize).map(|g| g.fill) {
            Some(Fill::Auction { market, .. }) => s.demand.markets.get(market as usize),
            _ => None,
        })
        .flat_map(|m| m.bidders.iter().filter_map(|b| s.demand.bidders.get(*b as usize)).map(|b| b.timeout_ms))
        .max()
        .unwrap_or(0);
    Duration::from_millis(u64::from(slowest)) + st.settings.auction_margin
}

fn answer(bidder: u32, started: Instant, r: Result<Answer, CallError>, check: impl Fn(&BidResponse) -> Vec<Checked>) -> Asked {
    let asked = |answered, detail: Option<String>, bids| Asked { bidder, answered, detail, latency: started.elapsed(), bids };
    match r {
        Err(CallError::Timeout) => asked(Answered::Timeout, None, Vec::new()),
        Err(CallError::TooLarge(n)) => asked(Answered::InvalidResponse, Some(format!("the response is larger than {n} bytes")), Vec::new()),
        Err(CallError::Failed(m)) => asked(Answered::Error, Some(m), Vec::new()),
        Ok(a) if a.status == 204 || (a.status == 200 && a.body.iter().all(u8::is_ascii_whitespace)) => {
            asked(Answered::NoBid, None, Vec::new())
        }
        Ok(a) if a.status != 200 => asked(Answered::Error, Some(format!("HTTP {}", a.status)), Vec::new()),
        Ok(a) => match serde_json::from_slice::<BidResponse>(&a.body) {
            Err(e) => asked(Answered::InvalidResponse, Some(format!("not an OpenRTB bid response: {e}")), Vec::new()),
            Ok(r) if r.seatbid.iter().all(|s| s.bid.is_empty()) => asked(Answered::NoBid, None, Vec::new()),
            Ok(r) => {
                let n = bids::bid_count(&r);
                let detail = (n > bids::MAX_BIDS_PER_RESPONSE)
                    .then(|| format!("{n} bids in one response: the first {} considered, the rest ignored", bids::MAX_BIDS_PER_RESPONSE));
                asked(Answered::Bid, detail, check(&r))
            }
        },
    }
}

/// Runs the auction of `ask.pick` (a programmatic goal's), waiting until `deadline` at most.
pub async fn run(st: &AppState, ask: &Ask<'_>, deadline: Instant) -> Option<Auction> {
    let s = ask.snapshot;
    let g = s.goals.get(ask.pick.goal as usize)?;
    let Fill::Auction { market, guaranteed } = g.fill else { return None };
    let m = s.demand.markets.get(market as usize)?;
    let id = crate::ids::new_id();
    let r = ask.request;
    // Pre-bid invalid traffic: a known crawler's or script's request, or a live one without
    // a User-Agent, is never offered to a bidder (its impression would not count anyway).
    // The inspector's, when its user describes no User-Agent, is asked.
    let undescribed = ask.described && r.user_agent.trim().is_empty();
    if !undescribed && crate::delivery::ivt::classify_agent(&r.user_agent).is_some() {
        let why = "the request's User-Agent is a known crawler's or script's: no bidder is asked";
        return Some(Auction { id, goal: ask.pick.goal, market, asked: Vec::new(), winner: None, not_asked: Some(why) });
    }
    let b = Break {
        account: &s.account,
        auction_id: &id,
        format: r.format,
        break_number: r.break_number,
        settings: ask.settings,
        skip: ask.pick.skip,
        category: r.category.as_deref(),
        content_partner: r.partner.as_deref(),
        user_agent: &r.user_agent,
        ip: ask.ip,
        viewer: r.viewer.as_deref(),
        signals: ask.signals,
        ad_system_domain: &st.settings.ad_system_domain,
    };
    let allow_private = st.settings.demand_allow_private_urls;
    let needs_secrets = m.bidders.iter().any(|bi| s.demand.bidders.get(*bi as usize).is_some_and(|b| b.auth));
    let secrets = if needs_secrets { bidder_secrets(st, &s.account).await } else { Arc::default() };
    let secrets = &secrets;
    let calls = m.bidders.iter().filter_map(|bi| Some((*bi, s.demand.bidders.get(*bi as usize)?))).map(|(bi, bidder)| {
        let body = serde_json::to_string(&request::build(&b, m, bidder, guaranteed)).unwrap_or_default();
        async move {
            let started = Instant::now();
            let left = deadline.saturating_duration_since(started);
            let timeout = Duration::from_millis(u64::from(bidder.timeout_ms)).min(left);
            let auth: Vec<(&str, &str)> =
                secrets.get(&bidder.id).filter(|_| bidder.auth).map(|h| (h.name.as_str(), h.value.as_str())).into_iter().collect();
            let call =
                Call { url: &bidder.endpoint, json: Some(body), headers: &auth, timeout, max_bytes: MAX_BID_RESPONSE_BYTES, allow_private };
            answer(bi, started, st.bidders.call(call).await, |resp| bids::check_response(bi, resp, m, guaranteed))
        }
    });
    let mut asked: Vec<Asked> = futures_util::future::join_all(calls).await;
    let winner = clear(st, s, &id, m, &mut asked, r.format, deadline).await;
    Some(Auction { id, goal: ask.pick.goal, market, asked, winner, not_asked: None })
}

/// The winner among the valid bids; a winner whose markup must come from its `nurl` is
/// fetched within the deadline, and one whose fetch fails is invalid (the next one wins).
async fn clear(
    st: &AppState,
    s: &Snapshot,
    auction: &str,
    m: &crate::delivery::programmatic::Market,
    asked: &mut [Asked],
    format: crate::delivery::snapshot::AdFormat,
    deadline: Instant,
) -> Option<Winner> {
    loop {
        let valid: Vec<(usize, usize, &Valid)> = asked
            .iter()
            .enumerate()
            .flat_map(|(ai, a)| {
                a.bids.iter().enumerate().filter_map(move |(bi, c)| match c {
                    Checked::Valid(v) => Some((ai, bi, v.as_ref())),
                    Checked::Invalid { .. } => None,
                })
            })
            .collect();
        let list: Vec<Valid> = valid.iter().map(|(_, _, v)| (*v).clone()).collect();
        let (w, price) = bids::clear(&list, m)?;
        let (ai, bi, _) = valid[w];
        let mut win = list[w].clone();
        let values = values(auction, &win, &m.currency, Some(price), 0);
        let mut nurl_fetched = false;
        if win.markup.is_none() {
            let url = macros::substitute(win.bid.nurl.as_deref().unwrap_or_default(), &values);
            match fetch_markup(st, &url, deadline).await {
                Ok(markup) => {
                    win.markup = Some(markup);
                    nurl_fetched = true;
                }
                Err(detail) => {
                    let loss = if detail.contains("in time") { Loss::Expired } else { Loss::BadCreative };
                    asked[ai].bids[bi] = Checked::Invalid { bid: Box::new(win.bid.clone()), seat: win.seat.clone(), loss, detail };
                    continue;
                }
            }
        }
        let bidder = s.demand.bidders.get(win.bidder as usize)?;
        let markup = win.markup.clone()?;
        let ad_id = [win.bid.crid.as_deref(), win.bid.adid.as_deref(), Some(win.bid.id.as_str())]
            .into_iter()
            .flatten()
            .find(|x| !x.is_empty() && x.len() <= 64)
            .unwrap_or("programmatic")
            .to_string();
        let ad = WonAd {
            ad_id,
            system: bidder.name.clone(),
            format,
            sale: Sale { partner: bidder.id.clone(), market: m.id.clone(), price_micros: price },
            markup,
        };
        return Some(Winner { valid: win, price_micros: price, ad, nurl_fetched });
    }
}

/// The account's demand partners' auth headers by partner id, read from where they are
/// kept apart (`repo::secrets`: a partition only serving and the demand function may read)
/// at most once per `DELIVERY_REFRESH_MS` by this process. A store that cannot be read
/// leaves the headers out of this auction.
pub async fn bidder_secrets(st: &AppState, account: &str) -> Arc<HashMap<String, crate::model::stitcher::SecretHeader>> {
    if let Some(found) = st.bidder_secrets.get(&account.to_string(), st.clock.instant()) {
        return found;
    }
    match crate::repo::secrets::read(st.store.as_ref(), account, crate::repo::demand::PARTNER_SECRETS).await {
        Ok(map) => {
            let map = Arc::new(map);
            st.bidder_secrets.put(account.to_string(), map.clone(), st.clock.instant());
            map
        }
        Err(e) => {
            tracing::warn!(account, error = %e, "the demand partners' auth headers could not be read");
            Arc::default()
        }
    }
}

/// The markup a `nurl` answers with (the win notice, for a bid without `adm`).
async fn fetch_markup(st: &AppState, url: &str, deadline: Instant) -> Result<adm::Markup, String> {
    let left = deadline.saturating_duration_since(Instant::now());
    let call = Call {
        url,
        json: None,
        headers: &[],
        timeout: left,
        max_bytes: MAX_ADM_BYTES,
        allow_private: st.settings.demand_allow_private_urls,
    };
    match st.bidders.call(call).await {
        Ok(a) if a.status == 200 => adm::parse(&String::from_utf8_lossy(&a.body)),
        Ok(a) => Err(format!("the nurl answered HTTP {} instead of the markup", a.status)),
        Err(CallError::Timeout) => Err("the nurl did not answer in time".into()),
        Err(e) => Err(format!("the nurl's markup could not be fetched: {e}")),
    }
}

fn values<'a>(auction: &'a str, v: &'a Valid, currency: &'a str, price: Option<i64>, loss: u16) -> Values<'a> {
    Values {
        auction_id: auction,
        bid_id: &v.bid.id,
        imp_id: bids::IMP_ID,
        seat_id: v.seat.as_deref().unwrap_or(""),
        ad_id: v.bid.adid.as_deref().or(v.bid.crid.as_deref()).unwrap_or(""),
        currency,
        price_micros: price,
        loss,
    }
}

/// The loss notices one auction queues at most (the bids considered are bounded per
/// response already; this bounds an auction of many bidders too).
pub const MAX_LOSS_NOTICES: usize = 20;

/// The auction's notices (a live request only): the winner's `nurl` unless its markup came
/// from it, and every loser's `lurl` with its loss reason, at most [`MAX_LOSS_NOTICES`];
/// they are queued after the answer (`bid_notices::queue_all`). The win record of
/// impression `impression` (its `burl`, fired when the impression counts) is kept here,
/// before the answer leaves.
pub async fn notices(st: &AppState, s: &Snapshot, a: &Auction, impression: Option<&str>) -> Vec<Notice> {
    let mut out = Vec::new();
    let Some(m) = s.demand.markets.get(a.market as usize) else { return out };
    let partner = |b: u32| s.demand.bidders.get(b as usize).map(|p| p.id.clone()).unwrap_or_default();
    let notice = |kind: &str, bidder: u32, url: String, about: &str| Notice {
        account: s.account.clone(),
        about: about.to_string(),
        kind: kind.to_string(),
        partner: partner(bidder),
        url,
    };
    let won_bid = a.winner.as_ref().map(|w| (&w.valid.bid.id, w.valid.bidder));
    let mut losses = 0usize;
    for asked in &a.asked {
        for c in &asked.bids {
            if losses >= MAX_LOSS_NOTICES {
                break;
            }
            let (bid, seat, loss) = match c {
                Checked::Valid(v) if won_bid == Some((&v.bid.id, v.bidder)) => continue,
                Checked::Valid(v) => (&v.bid, v.seat.as_deref(), Loss::LostToHigherBid),
                Checked::Invalid { bid, seat, loss, .. } => (bid.as_ref(), seat.as_deref(), *loss),
            };
            if let Some(lurl) = bid.lurl.as_deref().filter(|u| !u.is_empty()) {
                let v = Values {
                    auction_id: &a.id,
                    bid_id: &bid.id,
                    imp_id: bids::IMP_ID,
                    seat_id: seat.unwrap_or(""),
                    ad_id: bid.adid.as_deref().unwrap_or(""),
                    currency: &m.currency,
                    price_micros: None,
                    loss: loss.code(),
                };
                let about = format!("{}.{}", a.id, bid.id);
                losses += 1;
                out.push(notice("lurl", asked.bidder, macros::substitute(lurl, &v), &about));
            }
        }
    }
    // The winner's notices only when it is served (`impression`): a winner a later round
    // left out was not sold.
    let (Some(w), Some(impression)) = (&a.winner, impression) else { return out };
    let v = values(&a.id, &w.valid, &m.currency, Some(w.price_micros), 0);
    if !w.nurl_fetched {
        if let Some(nurl) = w.valid.bid.nurl.as_deref().filter(|u| !u.is_empty()) {
            out.push(notice("nurl", w.valid.bidder, macros::substitute(nurl, &v), &a.id));
        }
    }
    let win = crate::repo::notices::Win {
        auction: a.id.clone(),
        partner: partner(w.valid.bidder),
        burl: w.valid.bid.burl.as_deref().filter(|u| !u.is_empty()).map(|b| macros::substitute(b, &v)),
    };
    if let Err(e) = crate::repo::notices::put_win(st.store.as_ref(), &s.account, impression, &win, st.clock.now().timestamp()).await {
        tracing::warn!(error = %e, "a win record was not kept: its billing notice will not be sent");
    }
    out
}

/// What an auction's counters are kept under: the request's report dimensions and time.
pub struct Counted<'a> {
    pub dims: crate::delivery::tracking::RequestDims<'a>,
    pub at: i64,
    /// The winner was served (its partner's `wins`).
    pub served: bool,
}

/// Adds an auction (a live request's) to the report cells: the marketplace's `auctions`,
/// each partner's bid request and its answer, refused bids by rule, and the win.
pub fn count(st: &AppState, s: &Snapshot, a: &Auction, c: &Counted<'_>) {
    use crate::delivery::counters::Slot;
    use crate::model::enums::Counter;
    let (Some(g), Some(m)) = (s.goals.get(a.goal as usize), s.demand.markets.get(a.market as usize)) else { return };
    if a.not_asked.is_some() {
        return;
    }
    let format = a.winner.as_ref().map_or("-", |w| w.ad.format.as_str());
    let offset = s.zone.offset_at(c.at);
    let base = crate::repo::reports::AuctionCell {
        account: &s.account,
        at: c.at,
        offset,
        campaign: &g.campaign_id,
        goal: &g.id,
        format,
        category: c.dims.category,
        partner: c.dims.partner,
        device_container: c.dims.device_container,
        demand_partner: None,
        marketplace: &m.id,
    };
    st.auction_stats.add(st.store.clone(), &base, &[(Slot::Valid(Counter::Auctions), 1)]);
    for asked in &a.asked {
        let Some(p) = s.demand.bidders.get(asked.bidder as usize) else { continue };
        let mut d: Vec<(Slot, i64)> = vec![(Slot::Valid(Counter::BidRequests), 1)];
        let answer = match asked.answered {
            Answered::Bid => Counter::Bids,
            Answered::NoBid => Counter::NoBids,
            Answered::Timeout => Counter::Timeouts,
            Answered::Error | Answered::InvalidResponse => Counter::Errors,
        };
        d.push((Slot::Valid(answer), if answer == Counter::Bids { asked.bids.len() as i64 } else { 1 }));
        for b in &asked.bids {
            if let Checked::Invalid { loss, .. } = b {
                d.push((Slot::Valid(Counter::InvalidBids), 1));
                d.push((Slot::Rejected(*loss), 1));
            }
        }
        if c.served && a.winner.as_ref().is_some_and(|w| w.valid.bidder == asked.bidder) {
            d.push((Slot::Valid(Counter::Wins), 1));
        }
        st.auction_stats.add(st.store.clone(), &crate::repo::reports::AuctionCell { demand_partner: Some(&p.id), ..base }, &d);
    }
}
