//! Matrix-parameter path segments and query strings (the ad request and tracking endpoints
//! too): never a panic, never a 5xx.
#![no_main]

use libfuzzer_sys::fuzz_target;
use percent_encoding::{utf8_percent_encode, AsciiSet, CONTROLS};

/// What a client must escape in a path segment (the rest, `;` and `=` included, is sent as is).
const SEGMENT: &AsciiSet =
    &CONTROLS.add(b' ').add(b'"').add(b'#').add(b'<').add(b'>').add(b'?').add(b'`').add(b'{').add(b'}').add(b'/').add(b'%');
const QUERY: &AsciiSet = &CONTROLS.add(b' ').add(b'"').add(b'#').add(b'<').add(b'>').add(b'`').add(b'{').add(b'}').add(b'%');

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else { return };
    let text = String::from_utf8_lossy(rest);
    let seg = utf8_percent_encode(&text, SEGMENT).to_string();
    let q = utf8_percent_encode(&text, QUERY).to_string();
    let h = fuzz::harness();
    let path = match pick % 14 {
        0 => format!("/api/1.0/campaign/{seg}"),
        1 => format!("/api/1.0/client/{seg}"),
        2 => format!("/api/1.0.cpvext/goal/{seg}"),
        3 => format!("/api/1.0/contact/{seg}"),
        4 => format!("/api/1.0/campaign/rules/{seg}"),
        5 => format!("/v3/campaigns?{q}"),
        6 => format!("/v3/goals?{q}"),
        7 => format!("/v3/ads?{q}"),
        8 => format!("/v1/ads?{q}"),
        // The unauthenticated serving and tracking endpoints, and forecast reads.
        9 => format!("/v1/adrequest?account=demo-alpha&{q}"),
        10 => format!("/v1/track/{seg}?{q}"),
        11 => format!("/api/2.0/forecast/job/{seg}"),
        12 => format!("/api/2.0/forecast/report/inventory/{seg}?{q}"),
        _ => format!("/api/1.0/campaign?{q}"),
    };
    web::api::Matrix::parse(&text);
    h.call("GET", &path, "application/xml", b"");
});
