//! Dates: the fast parser of the service's own timestamps agrees with chrono's RFC 3339
//! parser on every string it accepts; date query parameters never cause a 5xx.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(s) = std::str::from_utf8(data) else { return };
    if let Some(fast) = web::fasttime::parse_canonical(s) {
        let slow = chrono::DateTime::parse_from_rfc3339(s).map(|d| d.with_timezone(&chrono::Utc));
        assert_eq!(Ok(fast), slow, "{s:?}");
    }
    let _ = web::fasttime::parse(s);
    if s.len() < 200 {
        let q: String = percent_encoding::utf8_percent_encode(s, percent_encoding::NON_ALPHANUMERIC).to_string();
        let h = fuzz::harness();
        h.call("GET", &format!("/v1/ads?created.after={q}"), "application/json", b"");
        h.call("GET", &format!("/api/1.0/campaign/archived?year={q}&month=1"), "application/xml", b"");
    }
});
