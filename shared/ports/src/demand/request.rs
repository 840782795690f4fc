//! The OpenRTB 2.6 bid request for one linear break (docs/programmatic.md, "The bid
//! request"), pure: the break, the marketplace, the bidder, the viewer and the signals in,
//! the request out.

use std::net::IpAddr;

use sha2::{Digest, Sha256};

use super::openrtb::*;
use super::signals::Signals;
use crate::delivery::decide::{BreakSettings, Skip};
use crate::delivery::programmatic::{Bidder, Market, MICROS};
use crate::delivery::snapshot::AdFormat;

/// The longest ad a break asks for when its policy sets no time limit (seconds).
pub const DEFAULT_MAX_DURATION: u32 = 60;
/// What a player plays when the request does not say.
pub const DEFAULT_MIMES: &[&str] = &["video/mp4", "video/webm"];
/// VAST 2.0, 3.0, 2.0 wrapper, 3.0 wrapper, 4.0, 4.0 wrapper, 4.1, 4.1 wrapper, 4.2, 4.2 wrapper.
pub const PROTOCOLS: &[u8] = &[2, 3, 5, 6, 7, 8, 11, 12, 13, 14];

/// One break's auction as the bid request describes it.
pub struct Break<'a> {
    pub account: &'a str,
    pub auction_id: &'a str,
    pub format: AdFormat,
    pub break_number: u32,
    pub settings: BreakSettings,
    pub skip: Option<Skip>,
    pub category: Option<&'a str>,
    pub content_partner: Option<&'a str>,
    pub user_agent: &'a str,
    pub ip: Option<IpAddr>,
    pub viewer: Option<&'a str>,
    pub signals: &'a Signals,
    /// This service's domain in the supply chain (`schain.nodes[].asi`).
    pub ad_system_domain: &'a str,
}

/// The AdCOM device type a User-Agent says: 3 connected TV, 7 set-top box, 5 tablet, 4
/// phone, 2 personal computer.
pub fn device_type(ua: &str) -> Option<u8> {
    let has = |s: &str| ua.contains(s);
    if ua.is_empty() {
        None
    } else if ["SmartTV", "SMART-TV", "Tizen", "Web0S", "webOS", "BRAVIA", "HbbTV", "CrKey"].iter().any(|s| has(s)) {
        Some(3)
    } else if ["AppleTV", "Roku", "AFT", "Xbox", "PlayStation"].iter().any(|s| has(s)) {
        Some(7)
    } else if has("iPad") || (has("Android") && !has("Mobile")) {
        Some(5)
    } else if has("iPhone") || has("Mobile") {
        Some(4)
    } else {
        Some(2)
    }
}

/// A viewer id the bidder sees: SHA-256 of the account and the id (never the id itself).
pub fn hashed_viewer(account: &str, viewer: &str) -> String {
    let mut h = Sha256::new();
    h.update(account.as_bytes());
    h.update([0]);
    h.update(viewer.as_bytes());
    hex::encode(h.finalize())
}

fn cpm(micros: i64) -> f64 {
    micros as f64 / MICROS
}

/// The bid request `bidder` is sent for break `b` of marketplace `m`.
pub fn build(b: &Break<'_>, m: &Market, bidder: &Bidder, guaranteed: bool) -> BidRequest {
    let s = b.signals;
    let private = m.private || guaranteed || m.auction == crate::model::marketplace::AuctionType::FixedPrice;
    let pod = b.settings.ads > 1;
    let max = b.settings.time_limit.map_or(DEFAULT_MAX_DURATION, |t| u32::try_from(t.max(1)).unwrap_or(DEFAULT_MAX_DURATION));
    let video = Video {
        mimes: if s.mimes.is_empty() { DEFAULT_MIMES.iter().map(|m| m.to_string()).collect() } else { s.mimes.clone() },
        minduration: 1,
        maxduration: max,
        startdelay: match b.format {
            AdFormat::Midroll => -1,
            AdFormat::Postroll => -2,
            _ => 0,
        },
        protocols: PROTOCOLS.to_vec(),
        plcmt: 1,
        linearity: 1,
        skip: b.skip.map(|_| 1),
        skipafter: b.skip.filter(|k| !k.percent).map(|k| u32::try_from(k.value.max(0)).unwrap_or(0)),
        w: s.w,
        h: s.h,
        podid: pod.then(|| format!("{}-{}", b.format.as_str(), b.break_number)),
        slotinpod: pod.then_some(0),
        maxseq: pod.then(|| u32::try_from(b.settings.ads).unwrap_or(u32::MAX)),
        poddur: if pod { b.settings.time_limit.and_then(|t| u32::try_from(t).ok()) } else { None },
    };
    let pmp = (!m.deals.is_empty()).then(|| Pmp {
        private_auction: u8::from(private),
        deals: m
            .deals
            .iter()
            .map(|d| DealOffer {
                id: d.id.clone(),
                bidfloor: cpm(d.floor_micros),
                bidfloorcur: m.currency.clone(),
                wseat: d.seats.clone(),
                at: (m.auction == crate::model::marketplace::AuctionType::FixedPrice).then_some(3),
            })
            .collect(),
    });
    let content = Content {
        cat: b.category.map(|c| vec![c.to_string()]).unwrap_or_default(),
        producer: b.content_partner.map(|p| Producer { id: p.to_string() }),
        ..Content::default()
    };
    let publisher = Publisher { id: b.account.to_string() };
    let (site, app) = match &s.bundle {
        Some(bundle) => (None, Some(App { id: b.account.to_string(), bundle: bundle.clone(), publisher, content })),
        None => {
            let domain =
                s.page.as_deref().and_then(|p| p.split("://").nth(1)).and_then(|r| r.split(['/', '?', ':']).next()).map(str::to_string);
            (Some(Site { id: b.account.to_string(), publisher, page: s.page.clone(), domain, content }), None)
        }
    };
    let (ip, ipv6) = match b.ip {
        Some(IpAddr::V4(a)) => (Some(a.to_string()), None),
        Some(IpAddr::V6(a)) => (None, Some(a.to_string())),
        None => (None, None),
    };
    let regs = Regs { gdpr: s.gdpr, gpp: s.gpp.clone(), gpp_sid: s.gpp_sid.clone(), us_privacy: s.us_privacy.clone() };
    let no_regs = regs == Regs::default();
    BidRequest {
        id: b.auction_id.to_string(),
        imp: vec![Imp {
            id: super::bids::IMP_ID.to_string(),
            video,
            bidfloor: cpm(m.floor_micros),
            bidfloorcur: m.currency.clone(),
            pmp,
            secure: u8::from(s.page.as_deref().is_none_or(|p| p.starts_with("https://"))),
        }],
        site,
        app,
        device: Device {
            ua: (!b.user_agent.is_empty()).then(|| b.user_agent.to_string()),
            ip,
            ipv6,
            devicetype: device_type(b.user_agent),
        },
        user: b.viewer.map(|v| User { id: hashed_viewer(b.account, v), ext: s.consent.clone().map(|consent| UserExt { consent }) }),
        regs: (!no_regs).then_some(regs),
        source: Source {
            tid: b.auction_id.to_string(),
            schain: SupplyChain {
                complete: 1,
                ver: "1.0".into(),
                nodes: vec![SchainNode { asi: b.ad_system_domain.to_string(), sid: b.account.to_string(), hp: 1 }],
            },
        },
        tmax: bidder.timeout_ms,
        cur: vec![m.currency.clone()],
        at: m.auction.at(),
        bcat: m.blocked_categories.clone(),
        badv: m.blocked_domains.clone(),
        test: 0,
    }
}
