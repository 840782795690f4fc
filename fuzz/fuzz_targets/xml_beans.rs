//! XML bodies (seed 001 beans) into every XML write: never a panic, never a 5xx.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else { return };
    let h = fuzz::harness();
    let path = match pick % 8 {
        0 => "/api/1.0/client".to_string(),
        1 => "/api/1.0/contact".to_string(),
        2 => "/api/1.0/campaign".to_string(),
        3 => "/api/1.0.cpvext/goal".to_string(),
        4 => format!("/api/1.0/campaign/rules/by_campaign_id;id={}", h.campaign),
        5 => format!("/api/1.0.cpvext/goal/rules/by_goal_id;id={}", h.goal),
        6 => format!("/api/1.0/campaign/by_campaign_id;id={}", h.campaign),
        _ => format!("/api/1.0.cpvext/goal/by_goal_id;id={}", h.goal),
    };
    let method = if pick % 8 < 4 { "POST" } else { "PUT" };
    h.call(method, &path, "application/xml", body);
});
