//! An account's time zone as a table of UTC offsets, computed from the IANA database when
//! the account is seeded (`seed.rs`) and stored with the account. The functions that read
//! local dates (archived months, batch days, template timestamps, delivery time rules) use
//! the table, so no Lambda carries the whole time-zone database (~2 MB and ~50,000 start-up
//! relocations; docs/architecture.md).

use chrono::offset::MappedLocalTime;
use chrono::{FixedOffset, NaiveDate, NaiveDateTime, TimeZone};
use serde::{Deserialize, Serialize};

/// `(from, offset)`: from UTC epoch second `from` on (the first entry: from the beginning of
/// time), local time is UTC + `offset` seconds. Ascending by `from`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct Zone {
    #[serde(default)]
    pub transitions: Vec<(i64, i32)>,
}

impl Zone {
    /// A zone that is always `offset` seconds east of UTC.
    pub fn fixed(offset: i32) -> Zone {
        Zone { transitions: vec![(i64::MIN, offset)] }
    }

    /// The offset in force at a UTC epoch second (UTC for an empty table).
    pub fn offset_at(&self, utc: i64) -> i32 {
        match self.transitions.partition_point(|(from, _)| *from <= utc) {
            0 => self.transitions.first().map_or(0, |t| t.1),
            i => self.transitions[i - 1].1,
        }
    }

    fn fixed_offset(secs: i32) -> FixedOffset {
        FixedOffset::east_opt(secs).unwrap_or(FixedOffset::east_opt(0).expect("zero offset"))
    }
}

impl TimeZone for Zone {
    type Offset = FixedOffset;

    fn from_offset(offset: &FixedOffset) -> Zone {
        Zone::fixed(offset.local_minus_utc())
    }

    fn offset_from_local_date(&self, local: &NaiveDate) -> MappedLocalTime<FixedOffset> {
        match local.and_hms_opt(0, 0, 0) {
            Some(midnight) => self.offset_from_local_datetime(&midnight),
            None => MappedLocalTime::None,
        }
    }

    /// A local time maps to no instant in a spring-forward gap, to two in a fall-back overlap.
    fn offset_from_local_datetime(&self, local: &NaiveDateTime) -> MappedLocalTime<FixedOffset> {
        let l = local.and_utc().timestamp();
        let i = self.transitions.partition_point(|(from, _)| *from <= l);
        let mut fits: Vec<i32> = Vec::new();
        for t in &self.transitions[i.saturating_sub(2)..(i + 1).min(self.transitions.len())] {
            let o = t.1;
            if self.offset_at(l - i64::from(o)) == o && !fits.contains(&o) {
                fits.push(o);
            }
        }
        if fits.is_empty() && self.transitions.is_empty() {
            fits.push(0);
        }
        // The earlier instant has the larger offset.
        fits.sort_unstable_by(|a, b| b.cmp(a));
        match fits.as_slice() {
            [] => MappedLocalTime::None,
            [o] => MappedLocalTime::Single(Zone::fixed_offset(*o)),
            [a, b, ..] => MappedLocalTime::Ambiguous(Zone::fixed_offset(*a), Zone::fixed_offset(*b)),
        }
    }

    fn offset_from_utc_date(&self, utc: &NaiveDate) -> FixedOffset {
        let secs = utc.and_hms_opt(0, 0, 0).map_or(0, |d| d.and_utc().timestamp());
        Zone::fixed_offset(self.offset_at(secs))
    }

    fn offset_from_utc_datetime(&self, utc: &NaiveDateTime) -> FixedOffset {
        Zone::fixed_offset(self.offset_at(utc.and_utc().timestamp()))
    }
}

/// The offsets of an IANA time zone from 1970 to 2100 as a transition table: the offset is
/// sampled every six hours (no zone changes twice within that) and each change is narrowed
/// to the second. Before 1970 the 1970 offset applies; after 2100 the last one. An unknown
/// name is UTC (`validate` refuses it). Tables are kept per name for the process.
pub fn zone_table(name: &str) -> Zone {
    static TABLES: std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<String, Zone>>> = std::sync::OnceLock::new();
    let tables = TABLES.get_or_init(Default::default);
    if let Some(z) = tables.lock().ok().and_then(|t| t.get(name).cloned()) {
        return z;
    }
    let z = compute_zone_table(name);
    if let Ok(mut t) = tables.lock() {
        t.insert(name.to_string(), z.clone());
    }
    z
}

fn compute_zone_table(name: &str) -> Zone {
    use chrono::{Offset, TimeZone};
    let Ok(tz) = name.parse::<chrono_tz::Tz>() else { return Zone::fixed(0) };
    let offset = |t: i64| match chrono::DateTime::from_timestamp(t, 0) {
        Some(d) => tz.offset_from_utc_datetime(&d.naive_utc()).fix().local_minus_utc(),
        None => 0,
    };
    let (start, end) = (0i64, 4_102_444_800i64); // 1970-01-01 .. 2100-01-01
    let mut transitions = vec![(i64::MIN, offset(start))];
    let mut t = start;
    while t < end {
        let next = t + 6 * 3600;
        let (a, b) = (offset(t), offset(next));
        if a != b {
            // The first second of the new offset.
            let (mut lo, mut hi) = (t, next);
            while hi - lo > 1 {
                let mid = lo + (hi - lo) / 2;
                if offset(mid) == a {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            transitions.push((hi, b));
        }
        t = next;
    }
    Zone { transitions }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Timelike, Utc};

    /// Stockholm 2026: CET (+1) until 29 March 01:00 UTC, CEST (+2) until 25 October 01:00 UTC.
    fn stockholm() -> Zone {
        Zone { transitions: vec![(i64::MIN, 3600), (1_774_746_000, 7200), (1_792_890_000, 3600)] }
    }

    #[test]
    fn utc_to_local_follows_the_transitions() {
        let z = stockholm();
        let winter = Utc.with_ymd_and_hms(2026, 1, 15, 12, 0, 0).unwrap().with_timezone(&z);
        assert_eq!(winter.hour(), 13);
        let summer = Utc.with_ymd_and_hms(2026, 7, 1, 12, 0, 0).unwrap().with_timezone(&z);
        assert_eq!((summer.hour(), summer.offset().local_minus_utc()), (14, 7200));
        assert_eq!(summer.format("%Y-%m-%dT%H:%M:%S%:z").to_string(), "2026-07-01T14:00:00+02:00");
        // An empty table is UTC.
        assert_eq!(Utc.with_ymd_and_hms(2026, 7, 1, 12, 0, 0).unwrap().with_timezone(&Zone::default()).hour(), 12);
    }

    #[test]
    fn local_times_in_gaps_and_overlaps() {
        let z = stockholm();
        let local = |d, h, m| NaiveDate::from_ymd_opt(2026, 3, d).unwrap().and_hms_opt(h, m, 0).unwrap();
        // 02:30 on 29 March does not exist (clocks jump 02:00 → 03:00).
        assert!(matches!(z.from_local_datetime(&local(29, 2, 30)), MappedLocalTime::None));
        assert_eq!(z.from_local_datetime(&local(29, 3, 30)).single().unwrap().offset().local_minus_utc(), 7200);
        assert_eq!(z.from_local_datetime(&local(28, 0, 0)).single().unwrap().offset().local_minus_utc(), 3600);
        // 02:30 on 25 October happens twice: the earlier instant first.
        let autumn = NaiveDate::from_ymd_opt(2026, 10, 25).unwrap().and_hms_opt(2, 30, 0).unwrap();
        match z.from_local_datetime(&autumn) {
            MappedLocalTime::Ambiguous(a, b) => {
                assert_eq!((a.offset().local_minus_utc(), b.offset().local_minus_utc()), (7200, 3600));
                assert!(a < b);
            }
            other => panic!("expected two instants, got {other:?}"),
        }
    }
}
