//! JSON bodies (seeds 000, 002) into every JSON write, forecast requests included: never a
//! panic, never a 5xx.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let h = fuzz::harness();
    let (method, path) = match pick % 10 {
        0 => ("POST", "/v1/ads".to_string()),
        1 => ("PUT", "/v1/ads".to_string()),
        2 => ("PATCH", "/v1/ads".to_string()),
        3 => ("POST", "/v1/insertion-policy".to_string()),
        4 => ("PUT", format!("/api/2.0/targeting-template/{}/rules", h.template)),
        5 => ("PUT", format!("/api/2.0/targeting-template/{}", h.template)),
        6 => ("POST", "/v1/assets/video".to_string()),
        7 => ("POST", "/api/2.0/forecast/campaign".to_string()),
        8 => ("POST", "/api/2.0/forecast/inventory".to_string()),
        _ => ("PUT", "/v1/insertion-policy/ranking".to_string()),
    };
    h.call(method, &path, "application/json", body);
});
