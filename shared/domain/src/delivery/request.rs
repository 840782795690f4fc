//! An ad request as the decision sees it, and what the store knows of its viewer. The
//! snapshot translates both into symbols once per request (`Snapshot::ctx`).

use chrono::{DateTime, Utc};

use super::symbols::AdFormat;
use crate::model::enums::{Browser, Day, OperatingSystem};

/// One ad request (docs/delivery.md lists the query parameters it is read from).
#[derive(Debug, Clone)]
pub struct AdRequest {
    pub format: AdFormat,
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
    /// Programmatic goals (indices) whose auction had no valid bid for this break: not
    /// eligible when it is decided again (docs/programmatic.md).
    pub no_bid: Vec<u32>,
}

impl AdRequest {
    pub fn new(format: AdFormat, now: DateTime<Utc>, seed: u64) -> AdRequest {
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
            no_bid: Vec::new(),
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

/// Browser and operating system from a User-Agent header (the families of the rules).
pub fn parse_user_agent(ua: &str) -> (Browser, OperatingSystem) {
    let has = |s: &str| ua.contains(s);
    let os = if has("Android") {
        OperatingSystem::Android
    } else if has("iPhone") || has("iPad") || has("iPod") {
        OperatingSystem::Ios
    } else if has("Windows") {
        OperatingSystem::Windows
    } else if has("Mac OS X") || has("Macintosh") {
        OperatingSystem::MacOsX
    } else if has("Linux") || has("X11") {
        OperatingSystem::Linux
    } else {
        OperatingSystem::Other
    };
    let browser = if has("OPR/") || has("Opera") {
        Browser::Opera
    } else if has("Edg/") || has("MSIE") || has("Trident/") {
        Browser::Ie
    } else if has("Firefox/") {
        Browser::Firefox
    } else if has("Chrome/") || has("CriOS/") {
        Browser::Chrome
    } else if has("Safari/") {
        Browser::Safari
    } else {
        Browser::Other
    };
    (browser, os)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn user_agents_map_to_the_rule_families() {
        let chrome_win = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36";
        assert_eq!(parse_user_agent(chrome_win), (Browser::Chrome, OperatingSystem::Windows));
        let safari_ios =
            "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1";
        assert_eq!(parse_user_agent(safari_ios), (Browser::Safari, OperatingSystem::Ios));
        assert_eq!(parse_user_agent("Mozilla/5.0 (X11; Linux x86_64; rv:120.0) Gecko/20100101 Firefox/120.0").0, Browser::Firefox);
        assert_eq!(parse_user_agent("curl/8"), (Browser::Other, OperatingSystem::Other));
        let m = crate::delivery::targeting::AgentMatch { browsers: 1 << (Browser::Chrome as u8), systems: 0 };
        assert!(m.matches(Browser::Chrome, OperatingSystem::Linux) && !m.matches(Browser::Firefox, OperatingSystem::Linux));
    }
}
