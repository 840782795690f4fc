//! General invalid traffic (docs/traffic-quality.md §1): a User-Agent from the maintained
//! list (`ivt_agents.txt`) marks a request as a known crawler or a non-browser client; an
//! address is reduced to its block (/24 for IPv4, /56 for IPv6) for the rate and per-goal
//! rules the events worker applies.

use std::net::IpAddr;
use std::sync::OnceLock;

/// Why an event is not counted as valid (the `/v3` `invalid` reasons). Stored as the
/// counter `invalid_<reason>`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Reason {
    /// A known crawler, spider or monitoring bot (User-Agent list).
    Crawler,
    /// A non-browser client or headless automation, or no User-Agent at all.
    NonBrowser,
    /// The viewer fired more impressions a minute than a person watches.
    ViewerRate,
    /// The address block fired more impressions a minute than a shared network does.
    AddressRate,
    /// The viewer already spent its share of the goal's cap.
    ViewerGoalCap,
    /// The address block already spent its share of the goal's cap.
    AddressGoalCap,
    /// The link was fired before (a replay).
    Duplicate,
    /// The link is older than a link lives.
    Expired,
    /// No impression was counted for the event's impression id.
    NoImpression,
}

impl Reason {
    pub const ALL: [Reason; 9] = [
        Reason::Crawler,
        Reason::NonBrowser,
        Reason::ViewerRate,
        Reason::AddressRate,
        Reason::ViewerGoalCap,
        Reason::AddressGoalCap,
        Reason::Duplicate,
        Reason::Expired,
        Reason::NoImpression,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Crawler => "crawler",
            Reason::NonBrowser => "nonBrowser",
            Reason::ViewerRate => "viewerRate",
            Reason::AddressRate => "addressRate",
            Reason::ViewerGoalCap => "viewerGoalCap",
            Reason::AddressGoalCap => "addressGoalCap",
            Reason::Duplicate => "duplicate",
            Reason::Expired => "expired",
            Reason::NoImpression => "noImpression",
        }
    }

    pub fn parse(s: &str) -> Option<Reason> {
        Reason::ALL.into_iter().find(|r| r.as_str() == s)
    }

    /// The stored counter of this reason on metric records and report cells
    /// (`invalid_<reason>`).
    pub fn stored(self) -> &'static str {
        match self {
            Reason::Crawler => "invalid_crawler",
            Reason::NonBrowser => "invalid_nonBrowser",
            Reason::ViewerRate => "invalid_viewerRate",
            Reason::AddressRate => "invalid_addressRate",
            Reason::ViewerGoalCap => "invalid_viewerGoalCap",
            Reason::AddressGoalCap => "invalid_addressGoalCap",
            Reason::Duplicate => "invalid_duplicate",
            Reason::Expired => "invalid_expired",
            Reason::NoImpression => "invalid_noImpression",
        }
    }
}

/// Impressions a minute one viewer may fire before the rest are `viewerRate`.
pub const VIEWER_PER_MINUTE: u64 = 12;
/// Impressions a minute one address block may fire before the rest are `addressRate`.
pub const BLOCK_PER_MINUTE: u64 = 120;
/// A viewer or block spends at most this share of a goal's total cap …
pub const GOAL_TOTAL_SHARE: f64 = 0.01;
/// … and of its daily cap …
pub const GOAL_DAILY_SHARE: f64 = 0.05;
/// … but never less than this many impressions.
pub const GOAL_MIN_SPEND: u64 = 3;

/// How many impressions of a goal one viewer or address block may make valid under a cap
/// (`None`: no cap, no limit).
pub fn spend_limit(cap: Option<f64>, share: f64) -> Option<u64> {
    cap.map(|c| ((c * share).floor().max(0.0) as u64).max(GOAL_MIN_SPEND))
}

struct Agents {
    crawler: Vec<String>,
    client: Vec<String>,
}

fn agents() -> &'static Agents {
    static A: OnceLock<Agents> = OnceLock::new();
    A.get_or_init(|| {
        let mut a = Agents { crawler: Vec::new(), client: Vec::new() };
        for line in include_str!("ivt_agents.txt").lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            match line.split_once(' ') {
                Some(("crawler", t)) => a.crawler.push(t.trim().to_ascii_lowercase()),
                Some(("client", t)) => a.client.push(t.trim().to_ascii_lowercase()),
                _ => {}
            }
        }
        a
    })
}

/// The verdict on a User-Agent: `None` for a browser or app player.
pub fn classify_agent(ua: &str) -> Option<Reason> {
    let ua = ua.trim();
    if ua.is_empty() {
        return Some(Reason::NonBrowser);
    }
    let lower = ua.to_ascii_lowercase();
    let a = agents();
    if a.crawler.iter().any(|t| lower.contains(t.as_str())) {
        Some(Reason::Crawler)
    } else if a.client.iter().any(|t| lower.contains(t.as_str())) {
        Some(Reason::NonBrowser)
    } else {
        None
    }
}

/// The address bucket of a tracking call whose address is not known: the address rules
/// count such calls together (docs/traffic-quality.md, "The viewer's address").
pub const UNKNOWN_BLOCK: &str = "unknown";

/// The address block an address belongs to (`203.0.113.0/24`, `2001:db8:0:ab00::/56`).
pub fn block_of(ip: IpAddr) -> String {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            format!("{}.{}.{}.0/24", o[0], o[1], o[2])
        }
        IpAddr::V6(v6) => {
            let s = v6.segments();
            format!("{:x}:{:x}:{:x}:{:x}::/56", s[0], s[1], s[2], s[3] & 0xff00)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agents_are_classified() {
        let chrome = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0 Safari/537.36";
        assert_eq!(classify_agent(chrome), None);
        assert_eq!(classify_agent("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)"), Some(Reason::Crawler));
        assert_eq!(classify_agent("Mozilla/5.0 (compatible; SomeNewBot/1.0)"), Some(Reason::Crawler));
        assert_eq!(classify_agent("curl/8.5.0"), Some(Reason::NonBrowser));
        assert_eq!(classify_agent("python-requests/2.31"), Some(Reason::NonBrowser));
        assert_eq!(classify_agent("Mozilla/5.0 HeadlessChrome/120.0"), Some(Reason::NonBrowser));
        assert_eq!(classify_agent("  "), Some(Reason::NonBrowser));
        // A word containing "bot" that is not a bot token stays valid.
        assert_eq!(classify_agent("Mozilla/5.0 (Linux; Android 14; Robotics Phone) Chrome/131.0"), None);
    }

    #[test]
    fn blocks_and_limits() {
        assert_eq!(block_of("203.0.113.77".parse().unwrap()), "203.0.113.0/24");
        assert_eq!(block_of("2001:db8:1:abcd::1".parse().unwrap()), "2001:db8:1:ab00::/56");
        assert_eq!(spend_limit(Some(1000.0), GOAL_TOTAL_SHARE), Some(10));
        assert_eq!(spend_limit(Some(100.0), GOAL_TOTAL_SHARE), Some(3));
        assert_eq!(spend_limit(None, GOAL_TOTAL_SHARE), None);
        for r in Reason::ALL {
            assert_eq!(Reason::parse(r.as_str()), Some(r));
            assert_eq!(r.stored(), format!("invalid_{}", r.as_str()));
        }
    }
}
