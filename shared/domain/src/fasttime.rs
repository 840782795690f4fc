//! Fast reading of the timestamps the service writes itself (`YYYY-MM-DDTHH:MM:SS[.f]Z`,
//! chrono's RFC 3339 output in UTC) for the hot paths that scan thousands of records;
//! anything else goes through chrono's general parser.

use chrono::{DateTime, NaiveDate, Utc};
use serde::{Deserialize, Deserializer};

fn digits(b: &[u8]) -> Option<u32> {
    b.iter().try_fold(0u32, |acc, c| c.is_ascii_digit().then(|| acc * 10 + u32::from(c - b'0')))
}

/// Parses the canonical UTC form; `None` for anything else.
pub fn parse_canonical(s: &str) -> Option<DateTime<Utc>> {
    let b = s.as_bytes();
    if b.len() < 20 || b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || *b.last()? != b'Z' {
        return None;
    }
    let (y, mo, d) = (digits(&b[0..4])?, digits(&b[5..7])?, digits(&b[8..10])?);
    let (h, mi, sec) = (digits(&b[11..13])?, digits(&b[14..16])?, digits(&b[17..19])?);
    let frac = &b[19..b.len() - 1];
    let nanos = match frac {
        [] => 0,
        [b'.', rest @ ..] if !rest.is_empty() && rest.len() <= 9 => digits(rest)? * 10u32.pow(9 - rest.len() as u32),
        _ => return None,
    };
    let date = NaiveDate::from_ymd_opt(y as i32, mo, d)?;
    Some(date.and_hms_nano_opt(h, mi, sec, nanos)?.and_utc())
}

pub fn parse(s: &str) -> Option<DateTime<Utc>> {
    parse_canonical(s).or_else(|| DateTime::parse_from_rfc3339(s).ok().map(|d| d.with_timezone(&Utc)))
}

/// `#[serde(deserialize_with = "fasttime::opt")]` for `Option<DateTime<Utc>>` fields.
pub fn opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
    let s: Option<std::borrow::Cow<'de, str>> = Option::deserialize(d)?;
    match s {
        None => Ok(None),
        Some(s) => parse(&s).map(Some).ok_or_else(|| serde::de::Error::custom(format!("bad date-time {s:?}"))),
    }
}

/// `#[serde(deserialize_with = "fasttime::req")]` for `DateTime<Utc>` fields.
pub fn req<'de, D: Deserializer<'de>>(d: D) -> Result<DateTime<Utc>, D::Error> {
    let s: std::borrow::Cow<'de, str> = Deserialize::deserialize(d)?;
    parse(&s).ok_or_else(|| serde::de::Error::custom(format!("bad date-time {s:?}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agrees_with_chrono_on_what_chrono_writes() {
        for d in [Utc::now(), DateTime::from_timestamp(1_800_000_000, 0).unwrap(), DateTime::from_timestamp(0, 5_000_000).unwrap()] {
            let s = serde_json::to_string(&d).unwrap();
            let s = s.trim_matches('"');
            assert_eq!(parse_canonical(s), Some(d), "{s}");
        }
        assert_eq!(
            parse("2026-01-31T23:30:00+01:00"),
            DateTime::parse_from_rfc3339("2026-01-31T23:30:00+01:00").ok().map(|d| d.with_timezone(&Utc))
        );
        for bad in [
            "2026-13-01T00:00:00Z",
            "2026-02-30T00:00:00Z",
            "2026-01-01 00:00:00Z",
            "x",
            "2026-01-01T00:00:00.Z",
            "2026-01-01T00:00:00.1234567891Z",
        ] {
            assert!(parse_canonical(bad).is_none(), "{bad}");
        }
    }
}
