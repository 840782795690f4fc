//! A viewer's frequency state: the impressions counted per campaign and goal scope, read
//! by the decision (frequency caps, minimum time between ads, the skip button's "after
//! first unique") and written by the event worker when an impression is counted.
//!
//! Bounded record (docs/delivery.md): per scope the last `MAX_RECENT` impression times
//! within `KEEP_SECS` and a lifetime count; at most `MAX_SCOPES` scopes, the least
//! recently seen dropped first.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::model::enums::TimeUnit;

/// Impression times kept per scope: sliding-window caps above this count at most this many.
pub const MAX_RECENT: usize = 128;
/// Scopes kept per viewer.
pub const MAX_SCOPES: usize = 200;
/// The longest sliding window (MONTH, 30 days) plus a day.
pub const KEEP_SECS: i64 = 31 * 86_400;

/// Where a viewer's impressions are counted: per campaign and per goal. Its key is the
/// scope's name in the stored frequency state (`c:<campaign>`, `g:<goal>`), spelled here only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope<'a> {
    Campaign(&'a str),
    Goal(&'a str),
}

impl Scope<'_> {
    pub fn key(self) -> String {
        match self {
            Scope::Campaign(id) => format!("c:{id}"),
            Scope::Goal(id) => format!("g:{id}"),
        }
    }
}

/// A frequency cap of a goal (its own, or its campaign's unless ignored).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FreqCap {
    /// `c:<campaign id>` or `g:<goal id>`: the scope the viewer's impressions are counted in.
    pub scope: String,
    pub limit: u32,
    /// Sliding window in seconds; `None`: the lifetime of the campaign or goal.
    pub window: Option<i64>,
}

impl FreqCap {
    /// Appends `rules`' frequency caps, counted in `scope` (its key is made only when there
    /// is a cap: most goals have none).
    pub fn append(out: &mut Vec<FreqCap>, rules: &crate::model::rules::Rules, scope: Scope) {
        if rules.frequency_cappings.is_empty() {
            return;
        }
        let key = scope.key();
        out.extend(rules.frequency_cappings.iter().map(|f| FreqCap {
            scope: key.clone(),
            limit: f.impressions,
            window: window_secs(f.time_unit),
        }));
    }
}

/// Seconds of a frequency cap's period (sliding windows; docs/delivery.md).
pub fn window_secs(u: TimeUnit) -> Option<i64> {
    Some(match u {
        TimeUnit::FiveMinutes => 300,
        TimeUnit::TenMinutes => 600,
        TimeUnit::QuarterHour => 900,
        TimeUnit::HalfHour => 1800,
        TimeUnit::Hour => 3600,
        TimeUnit::Day => 86_400,
        TimeUnit::Week => 7 * 86_400,
        TimeUnit::Month => 30 * 86_400,
        TimeUnit::CampaignLifetime | TimeUnit::GoalLifetime => return None,
    })
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ScopeCount {
    #[serde(default)]
    pub life: u64,
    /// Epoch seconds, ascending.
    #[serde(default)]
    pub recent: Vec<i64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FreqState {
    #[serde(default)]
    pub scopes: BTreeMap<String, ScopeCount>,
    /// The viewer's last counted impression (minimum time between ads).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last: Option<i64>,
}

impl FreqState {
    /// Impressions in `scope` within the last `window` seconds (lifetime when `None`).
    pub fn count(&self, scope: &str, window: Option<i64>, now: i64) -> u64 {
        let Some(s) = self.scopes.get(scope) else { return 0 };
        match window {
            None => s.life,
            Some(w) => {
                let from = now - w;
                (s.recent.len() - s.recent.partition_point(|t| *t <= from)) as u64
            }
        }
    }

    pub fn allows(&self, caps: &[FreqCap], now: i64) -> bool {
        caps.iter().all(|c| self.count(&c.scope, c.window, now) < u64::from(c.limit))
    }

    /// Whether the viewer saw an impression of `scope` within `secs`.
    pub fn seen_within(&self, scope: &str, secs: i64, now: i64) -> bool {
        self.count(scope, Some(secs), now) > 0
    }

    /// Counts one impression at `at` in each scope.
    pub fn record(&mut self, scopes: &[String], at: i64) {
        for scope in scopes {
            let s = self.scopes.entry(scope.clone()).or_default();
            s.life += 1;
            let pos = s.recent.partition_point(|t| *t <= at);
            s.recent.insert(pos, at);
            let from = at - KEEP_SECS;
            let old = s.recent.partition_point(|t| *t <= from);
            s.recent.drain(..old);
            if s.recent.len() > MAX_RECENT {
                let extra = s.recent.len() - MAX_RECENT;
                s.recent.drain(..extra);
            }
        }
        self.last = Some(self.last.map_or(at, |l| l.max(at)));
        while self.scopes.len() > MAX_SCOPES {
            let stalest = self.scopes.iter().min_by_key(|(_, s)| s.recent.last().copied().unwrap_or(i64::MIN)).map(|(k, _)| k.clone());
            match stalest {
                Some(k) => self.scopes.remove(&k),
                None => break,
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sliding_windows_and_lifetime() {
        let mut f = FreqState::default();
        f.record(&["c:1".into(), "g:1".into()], 1000);
        f.record(&["c:1".into()], 1200);
        assert_eq!(f.count("c:1", Some(300), 1250), 2);
        assert_eq!(f.count("c:1", Some(100), 1250), 1);
        assert_eq!(f.count("c:1", None, 99_999_999), 2);
        assert_eq!(f.count("g:1", Some(300), 1400), 0);
        let cap = FreqCap { scope: "c:1".into(), limit: 2, window: Some(3600) };
        assert!(!f.allows(std::slice::from_ref(&cap), 1300));
        assert!(f.allows(&[cap], 1000 + 3600 + 1 + 200));
        assert_eq!(f.last, Some(1200));
    }

    #[test]
    fn the_record_stays_bounded() {
        let mut f = FreqState::default();
        for i in 0..1000 {
            f.record(&[format!("g:{}", i % 300)], i64::from(i));
        }
        assert_eq!(f.scopes.len(), MAX_SCOPES);
        for _ in 0..500 {
            f.record(&["g:x".into()], 5000);
        }
        assert_eq!(f.scopes["g:x"].recent.len(), MAX_RECENT);
        assert_eq!(f.scopes["g:x"].life, 500);
        assert!(serde_json::to_string(&f).unwrap().len() < 100_000);
    }
}
