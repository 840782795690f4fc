//! An ad request as the decision sees it, and its translation into the snapshot's symbols
//! (`Ctx`): done once per request, so goal checks compare integers only.

use chrono::{DateTime, Datelike, Timelike, Utc};

use super::snapshot::{Format, Snapshot, Sym};
use super::targeting::parse_user_agent;
use crate::model::enums::{Browser, Day, OperatingSystem};

/// One ad request (docs/delivery.md lists the query parameters it is read from).
#[derive(Debug, Clone)]
pub struct AdRequest {
    pub format: Format,
    /// Mid-roll break number (1 is the first); other formats: 1.
    pub break_number: u32,
    pub category: Option<String>,
    pub partner: Option<String>,
    pub tags: Vec<String>,
    pub device_container: Option<String>,
    pub viewer: Option<String>,
    pub locations: Vec<String>,
    pub now: DateTime<Utc>,
    pub user_agent: String,
    pub ip: Option<std::net::Ipv4Addr>,
    /// Account custom parameters without `acp.`.
    pub acp: Vec<(String, String)>,
    /// The exported VAST URL's ad: only this ad may be served.
    pub forced_ad: Option<String>,
    /// Seed of the decision's random draws (same seed, same snapshot: same decision).
    pub seed: u64,
}

impl AdRequest {
    pub fn new(format: Format, now: DateTime<Utc>, seed: u64) -> AdRequest {
        AdRequest {
            format,
            break_number: 1,
            category: None,
            partner: None,
            tags: Vec::new(),
            device_container: None,
            viewer: None,
            locations: Vec::new(),
            now,
            user_agent: String::new(),
            ip: None,
            acp: Vec::new(),
            forced_ad: None,
            seed,
        }
    }
}

/// What the store knows of the viewer: audience segments and recent impressions.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ViewerState {
    /// Segment ids `<provider>[<segmentation>]=<segment>`.
    pub segments: Vec<String>,
    pub freq: super::freq::FreqState,
}

/// The request in the snapshot's terms.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub now: i64,
    /// Local day and minute of the day (account time zone) for time rules.
    pub day: Day,
    pub minute: u32,
    pub categories: Vec<Sym>,
    pub partner: Vec<Sym>,
    pub tags: Vec<Sym>,
    pub locations: Vec<Sym>,
    pub segments: Vec<Sym>,
    pub acp: Vec<(Sym, Sym)>,
    pub device_container: Option<Sym>,
    pub ip: Option<u32>,
    pub browser: Browser,
    pub os: OperatingSystem,
    pub has_viewer: bool,
}

pub fn day_of(weekday: chrono::Weekday) -> Day {
    match weekday {
        chrono::Weekday::Mon => Day::Monday,
        chrono::Weekday::Tue => Day::Tuesday,
        chrono::Weekday::Wed => Day::Wednesday,
        chrono::Weekday::Thu => Day::Thursday,
        chrono::Weekday::Fri => Day::Friday,
        chrono::Weekday::Sat => Day::Saturday,
        chrono::Weekday::Sun => Day::Sunday,
    }
}

impl Ctx {
    pub fn new(s: &Snapshot, r: &AdRequest, viewer: &ViewerState) -> Ctx {
        let local = r.now.with_timezone(&s.zone);
        let categories = match &r.category {
            Some(c) => {
                let sym = s.syms.get(c);
                s.lineage.get(&sym).cloned().unwrap_or_else(|| vec![sym])
            }
            None => Vec::new(),
        };
        let (browser, os) = parse_user_agent(&r.user_agent);
        Ctx {
            now: r.now.timestamp(),
            day: day_of(local.weekday()),
            minute: local.hour() * 60 + local.minute(),
            categories,
            partner: r.partner.iter().map(|p| s.syms.get(p)).collect(),
            tags: r.tags.iter().map(|t| s.syms.get(t)).collect(),
            locations: r.locations.iter().map(|l| s.syms.get(l)).collect(),
            segments: viewer.segments.iter().map(|g| s.syms.get(g)).collect(),
            acp: r.acp.iter().map(|(n, v)| (s.syms.get(n), s.syms.get(v))).collect(),
            device_container: r.device_container.as_ref().map(|d| s.syms.get(d)),
            ip: r.ip.map(u32::from),
            browser,
            os,
            has_viewer: r.viewer.is_some(),
        }
    }
}
