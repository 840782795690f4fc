use super::*;
use crate::model::ad_write::{parse_patch, parse_write};
use serde_json::{json, Value};

fn rules(v: Value) -> Vec<String> {
    match parse_write(&v) {
        Ok(_) => vec![],
        Err(e) => e.into_iter().map(|e| format!("{} {}", e.field, e.rule)).collect(),
    }
}

fn base(creative: Value) -> Value {
    json!({"name": "Ad", "goalId": "g1", "creative": creative})
}

#[test]
fn every_creative_type_with_its_required_fields() {
    let ok = [
        json!({"type": "standard", "insertionPoint": "preroll", "assetId": "a1", "clickDestinationUri": "https://x.example"}),
        json!({"type": "pause", "assetId": "a1"}),
        json!({"type": "iptv", "insertionPoint": "midroll", "videoCreativeId": "v", "estimatedAdDuration": 30}),
        json!({"type": "thirdparty", "insertionPoint": "postroll", "vastUri": "https://vast.example/t.xml", "vpaidStrict": true, "vpaidCountdown": false, "estimatedAdDuration": 9999}),
        json!({"type": "placeholder"}),
        json!({"type": "spotPlaceholder", "insertionPoint": "preroll"}),
        json!({"type": "pausePlaceholder", "clickDestinationUri": "http://x.example/c"}),
        json!({"type": "iptvPlaceholder", "insertionPoint": "midroll"}),
    ];
    for c in ok {
        assert!(rules(base(c.clone())).is_empty(), "{c}: {:?}", rules(base(c.clone())));
    }
    assert_eq!(rules(base(json!({"type": "standard", "assetId": "a"}))), vec!["creative.insertionPoint required"]);
    assert_eq!(rules(base(json!({"type": "standard", "insertionPoint": "preroll"}))), vec!["creative.assetId required"]);
    assert_eq!(rules(base(json!({"type": "pause"}))), vec!["creative.assetId required"]);
    assert_eq!(rules(base(json!({"type": "thirdparty", "insertionPoint": "preroll"}))), vec!["creative.vastUri required"]);
    assert_eq!(rules(base(json!({"type": "iptvPlaceholder"}))), vec!["creative.insertionPoint required"]);
    assert_eq!(rules(base(json!({"type": "banner"}))), vec!["creative.type enum"]);
    assert_eq!(rules(base(json!({"insertionPoint": "preroll"}))), vec!["creative.type required"]);
    assert_eq!(rules(json!({"name": "A", "goalId": "g"})), vec!["creative required"]);
}

#[test]
fn fields_of_other_types_and_ranges() {
    assert_eq!(rules(base(json!({"type": "placeholder", "assetId": "a"}))), vec!["creative.assetId notForType"]);
    assert_eq!(
        rules(base(json!({"type": "standard", "insertionPoint": "preroll", "assetId": "a", "estimatedAdDuration": 5}))),
        vec!["creative.estimatedAdDuration notForType"]
    );
    assert_eq!(
        rules(base(json!({"type": "iptv", "insertionPoint": "preroll", "estimatedAdDuration": 0}))),
        vec!["creative.estimatedAdDuration range"]
    );
    assert_eq!(
        rules(base(json!({"type": "iptv", "insertionPoint": "preroll", "estimatedAdDuration": 10000}))),
        vec!["creative.estimatedAdDuration range"]
    );
    assert_eq!(rules(base(json!({"type": "spotPlaceholder", "insertionPoint": "seekroll"}))), vec!["creative.insertionPoint enum"]);
    assert_eq!(
        rules(base(json!({"type": "pausePlaceholder", "clickDestinationUri": "javascript:alert(1)"}))),
        vec!["creative.clickDestinationUri url"]
    );
    let mut v = base(json!({"type": "placeholder"}));
    v["weight"] = json!(0);
    assert_eq!(rules(v.clone()), vec!["weight range"]);
    v["weight"] = json!(100.01);
    assert_eq!(rules(v.clone()), vec!["weight range"]);
    v["weight"] = json!(0.01);
    assert!(rules(v.clone()).is_empty());
    v["name"] = json!("n".repeat(251));
    assert_eq!(rules(v.clone()), vec!["name maxLength"]);
    v["name"] = json!("n".repeat(250));
    v["start"] = json!("2030-01-02T00:00:00Z");
    v["end"] = json!("2030-01-01T00:00:00Z");
    assert_eq!(rules(v), vec!["end afterStart"]);
}

#[test]
fn tracker_events_per_creative_type() {
    let with = |t: &str, ev: &str| {
        let mut c = match t {
            "standard" => json!({"type": t, "insertionPoint": "preroll", "assetId": "a"}),
            "pause" => json!({"type": t, "assetId": "a"}),
            _ => json!({"type": t}),
        };
        if t == "spotPlaceholder" || t == "iptvPlaceholder" || t == "iptv" {
            c["insertionPoint"] = json!("preroll");
        }
        if t == "thirdparty" {
            c["insertionPoint"] = json!("preroll");
            c["vastUri"] = json!("https://v.example/x");
        }
        let mut v = base(c);
        v["externalTrackers"] = json!([{"url": "https://t.example/p", "event": ev}]);
        rules(v)
    };
    for t in ["standard", "iptv", "thirdparty", "spotPlaceholder", "iptvPlaceholder"] {
        assert!(with(t, "SKIP").is_empty(), "{t}");
        assert_eq!(with(t, "EXPAND"), vec!["externalTrackers[0].event event"], "{t}");
    }
    for t in ["pause", "pausePlaceholder"] {
        assert!(with(t, "CLOSE").is_empty(), "{t}");
        assert_eq!(with(t, "AD_START"), vec!["externalTrackers[0].event event"], "{t}");
    }
    assert!(with("placeholder", "EXPAND").is_empty());
    assert_eq!(with("placeholder", "NONSENSE"), vec!["externalTrackers[0].event enum"]);
}

#[test]
fn v3_event_names() {
    assert_eq!(event_v3(TrackerEvent::Impression), "impression");
    assert_eq!(event_v3(TrackerEvent::AdStart), "start");
    assert_eq!(event_v3(TrackerEvent::AdFirstQuartile), "firstQuartile");
    assert_eq!(event_v3(TrackerEvent::ClickThrough), "clickThrough");
    assert_eq!(event_v3(TrackerEvent::Pause), "pause");
}

#[test]
fn proportional_weights() {
    let s = |id: &str, f: &str, w: Option<f64>| AdSummary { id: id.into(), enabled: true, format: AdFormat::parse(f).unwrap(), weight: w };
    // The seed's example: two proportional pre-rolls and one at 50 → 25 each.
    let w = weights(&[s("a", "preroll", None), s("b", "preroll", None), s("c", "preroll", Some(50.0)), s("m", "midroll", None)]);
    assert_eq!(w["a"], Weight { proportional: true, total_overridden: 50.0, value: 25.0 });
    assert_eq!(w["b"].value, 25.0);
    assert_eq!(w["c"], Weight { proportional: false, total_overridden: 50.0, value: 50.0 });
    // Another format is its own pool.
    assert_eq!(w["m"], Weight { proportional: true, total_overridden: 0.0, value: 100.0 });
    let three = weights(&[s("a", "preroll", None), s("b", "preroll", None), s("c", "preroll", None)]);
    assert_eq!(three["a"].value, 33.3333);
    assert_eq!(
        explicit_sum(&[s("a", "preroll", Some(30.0)), s("b", "preroll", Some(20.0)), s("c", "midroll", Some(5.0))], AdFormat::Preroll, "b"),
        30.0
    );
}

#[test]
fn patch_reads_only_its_fields() {
    let p =
        parse_patch(&json!({"id": "x", "name": "N", "customId": null, "weight": 5, "goalId": "ignored", "creative": {"type": "nonsense"}}))
            .unwrap();
    assert_eq!(p.name.as_deref(), Some("N"));
    assert_eq!(p.custom_id, Some(None));
    assert_eq!(p.weight, Some(Some(5.0)));
    assert_eq!(p.description, None);
    assert!(parse_patch(&json!({"name": "N"})).is_err());
    assert!(parse_patch(&json!({"id": "x", "weight": 500})).is_err());
    assert!(parse_patch(&json!({"id": "x", "name": ""})).is_err());
}
