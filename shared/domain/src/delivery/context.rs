//! The request in a snapshot's terms: its local time, and its category, partner, tags,
//! locations, segments and custom parameters as the snapshot's symbols.

use chrono::{Datelike, Timelike};

use super::request::{day_of, parse_user_agent, AdRequest, ViewerState};
use super::snapshot::Snapshot;
use super::targeting::Ctx;

impl Snapshot {
    /// The request in this snapshot's symbols (once per request: goal checks then compare
    /// integers only).
    pub fn ctx(&self, r: &AdRequest, viewer: &ViewerState) -> Ctx {
        let local = r.now.with_timezone(&self.zone);
        let categories = match &r.category {
            Some(c) => {
                let sym = self.syms.get(c);
                self.lineage.get(&sym).cloned().unwrap_or_else(|| vec![sym])
            }
            None => Vec::new(),
        };
        let (browser, os) = parse_user_agent(&r.user_agent);
        Ctx {
            now: r.now.timestamp(),
            day: day_of(local.weekday()),
            minute: local.hour() * 60 + local.minute(),
            categories,
            partner: r.partner.iter().map(|p| self.syms.get(p)).collect(),
            tags: r.tags.iter().map(|t| self.syms.get(t)).collect(),
            locations: r.locations.iter().map(|l| self.syms.get(l)).collect(),
            segments: viewer.segments.iter().map(|g| self.syms.get(g)).collect(),
            acp: r.acp.iter().map(|(n, v)| (self.syms.get(n), self.syms.get(v))).collect(),
            device_container: r.device_container.as_ref().map(|d| self.syms.get(d)),
            ip: r.ip.map(u32::from),
            browser,
            os,
            has_viewer: r.viewer.is_some(),
        }
    }
}
