//! Unit tests of the goal rules.

use super::*;
use crate::xml::parse;
use chrono::{Duration, TimeZone};

fn rules(xml: &str) -> Vec<String> {
    crate::domain_error::rule_list(parse_bean(&parse(xml.as_bytes()).unwrap()))
}

fn bean(kind: &str, extra: &str) -> String {
    format!("<goalBean><campaignId>c</campaignId><type>{kind}</type><variant>NORMAL</variant><start>2030-01-01T00:00:00Z</start>{extra}</goalBean>")
}

#[test]
fn required() {
    assert_eq!(
        rules("<goalBean/>"),
        vec!["goalBean/campaignId required", "goalBean/type required", "goalBean/variant required", "goalBean/start required"]
    );
    assert_eq!(rules(&bean("IMPRESSION", "")), vec!["goalBean/goalValue required"]);
    assert!(rules(&bean("RTB", "")).is_empty());
    assert!(rules(&bean("UNLIMITED_IMPRESSION", "<goalValue>nonsense</goalValue>")).is_empty());
}

#[test]
fn goal_value_ranges() {
    assert!(rules(&bean("SHARE_OF_VOICE", "<goalValue>0.01</goalValue>")).is_empty());
    assert!(rules(&bean("SHARE_OF_VOICE", "<goalValue>1.0</goalValue>")).is_empty());
    assert_eq!(rules(&bean("SHARE_OF_VOICE", "<goalValue>1.5</goalValue>")), vec!["goalBean/goalValue range"]);
    assert_eq!(rules(&bean("SHARE_OF_VOICE", "<goalValue>0</goalValue>")), vec!["goalBean/goalValue range"]);
    for k in ["IMPRESSION", "FIRST_QUARTILE", "SECOND_QUARTILE", "THIRD_QUARTILE", "COMPLETE", "CLICK_THROUGH"] {
        assert!(rules(&bean(k, "<goalValue>5000</goalValue>")).is_empty(), "{k}");
        assert_eq!(rules(&bean(k, "<goalValue>0</goalValue>")), vec!["goalBean/goalValue range"], "{k}");
        assert_eq!(rules(&bean(k, "<goalValue>-3</goalValue>")), vec!["goalBean/goalValue range"], "{k}");
    }
}

#[test]
fn enumerations_and_limits() {
    let v = "<goalValue>10</goalValue>";
    assert_eq!(rules(&bean("VIEWS", v)), vec!["goalBean/type enum"]);
    assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<pricingModel>CPV</pricingModel>"))), vec!["goalBean/pricingModel enum"]);
    assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<name>{}</name>", "n".repeat(256)))), vec!["goalBean/name maxLength"]);
    assert!(rules(&bean("IMPRESSION", &format!("{v}<name>{}</name>", "n".repeat(255)))).is_empty());
    assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<priority>0</priority>"))), vec!["goalBean/priority range"]);
    assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<frontLoadFactor>55</frontLoadFactor>"))), vec!["goalBean/frontLoadFactor step"]);
    assert_eq!(rules(&bean("IMPRESSION", &format!("{v}<end>2029-12-31T00:00:00Z</end>"))), vec!["goalBean/end afterStart"]);
    assert!(rules(&bean("IMPRESSION", &format!("{v}<cpm><value>3</value></cpm><formatType>PREROLL</formatType>"))).is_empty());
}

#[test]
fn caps_per_goal_type() {
    let cap = |t: &str| format!("<goalValue>10</goalValue><caps><cap><type>{t}</type><value>100</value></cap></caps>");
    let table = [
        ("totalCap", vec!["SHARE_OF_VOICE", "FIRST_QUARTILE", "SECOND_QUARTILE", "THIRD_QUARTILE", "COMPLETE", "CLICK_THROUGH"]),
        ("dailyCap", vec!["IMPRESSION", "SHARE_OF_VOICE", "UNLIMITED_IMPRESSION", "RTB"]),
        ("hourlyCap", vec!["IMPRESSION", "SHARE_OF_VOICE", "UNLIMITED_IMPRESSION", "RTB"]),
        ("dailyEventCap", vec!["FIRST_QUARTILE", "SECOND_QUARTILE", "THIRD_QUARTILE", "COMPLETE", "CLICK_THROUGH"]),
        ("hourlyEventCap", vec!["FIRST_QUARTILE", "SECOND_QUARTILE", "THIRD_QUARTILE", "COMPLETE", "CLICK_THROUGH"]),
    ];
    for (c, allowed) in table {
        for gt in <GoalType as crate::model::enums::WireEnum>::NAMES {
            let body = if *gt == "SHARE_OF_VOICE" { cap(c).replace(">10<", ">0.5<") } else { cap(c) };
            let got = rules(&bean(gt, &body));
            if allowed.contains(gt) {
                assert!(got.is_empty(), "{c} on {gt}: {got:?}");
            } else {
                assert_eq!(got, vec!["goalBean/caps/cap[1]/type capType"], "{c} on {gt}");
            }
        }
    }
    let combined = "<goalValue>10</goalValue><caps><cap><type>totalCap</type><value>9</value></cap><cap><type>dailyEventCap</type><value>2</value></cap></caps>";
    assert!(rules(&bean("COMPLETE", combined)).is_empty());
    let twice = "<goalValue>10</goalValue><caps><cap><type>dailyCap</type><value>9</value></cap><cap><type>dailyCap</type><value>2</value></cap></caps>";
    assert_eq!(rules(&bean("IMPRESSION", twice)), vec!["goalBean/caps/cap[2]/type single"]);
    let zero = "<goalValue>10</goalValue><caps><cap><type>dailyCap</type><value>0</value></cap></caps>";
    assert_eq!(rules(&bean("IMPRESSION", zero)), vec!["goalBean/caps/cap[1]/value range"]);
}

#[test]
fn midroll_breaks() {
    let n = |k: usize| (1..=k).map(|i| format!("<midrollBreakNumber>{i}</midrollBreakNumber>")).collect::<String>();
    let v = "<goalValue>10</goalValue>";
    assert!(rules(&bean("IMPRESSION", &format!("{v}<midrollBreakTargeting>{}</midrollBreakTargeting>", n(10)))).is_empty());
    assert_eq!(
        rules(&bean("IMPRESSION", &format!("{v}<midrollBreakTargeting>{}</midrollBreakTargeting>", n(11)))),
        vec!["goalBean/midrollBreakTargeting/midrollBreakNumber maxCount"]
    );
    assert_eq!(
        rules(&bean(
            "IMPRESSION",
            &format!("{v}<midrollBreakTargeting><midrollBreakNumber>0</midrollBreakNumber></midrollBreakTargeting>")
        )),
        vec!["goalBean/midrollBreakTargeting/midrollBreakNumber range"]
    );
}

#[test]
fn start_rules() {
    let now = Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap();
    let d = Duration::days;
    // Rule 1.
    assert_eq!(start_on_create(now - d(3), Some(now + d(3)), now), now);
    assert_eq!(start_on_create(now - d(3), None, now), now);
    assert_eq!(start_on_create(now - d(3), Some(now - d(1)), now), now - d(3));
    assert_eq!(start_on_create(now + d(1), None, now), now + d(1));
    let i = parse_bean(&parse(bean("RTB", "").as_bytes()).unwrap()).unwrap();
    let mut g = Goal::from_input("g".into(), &i, now);
    // Rule 2: active goal.
    g.start = now - d(2);
    g.end = Some(now + d(2));
    assert!(check_start_update(&g, now - d(2), now).is_ok());
    assert!(check_start_update(&g, now + d(1), now).is_ok());
    assert!(check_start_update(&g, now - d(1), now).is_err());
    // Rule 3: upcoming goal.
    g.start = now + d(2);
    assert!(check_start_update(&g, now + d(1), now).is_ok());
    assert!(check_start_update(&g, now - d(1), now).is_err());
    // Ended goals are not constrained.
    g.start = now - d(9);
    g.end = Some(now - d(1));
    assert!(check_start_update(&g, now - d(5), now).is_ok());
}

#[test]
fn active_start_compared_at_the_shown_precision() {
    let now = Utc.with_ymd_and_hms(2026, 5, 1, 12, 0, 0).unwrap();
    let created = now - Duration::hours(1) + Duration::nanoseconds(123_456_789);
    // A goal created now stores the start it will show.
    assert_eq!(start_on_create(now - Duration::days(1), None, created), to_millis(created));
    let i = parse_bean(&parse(bean("RTB", "").as_bytes()).unwrap()).unwrap();
    let mut g = Goal::from_input("g".into(), &i, now);
    // A record stored before that (sub-millisecond start) accepts its shown value back.
    g.start = created;
    let shown = DateTime::parse_from_rfc3339(&created.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)).unwrap().with_timezone(&Utc);
    assert!(check_start_update(&g, shown, now).is_ok());
    assert!(check_start_update(&g, shown - Duration::milliseconds(1), now).is_err());
}

#[test]
fn cpm_and_format() {
    let now = Utc::now();
    let i = parse_bean(
        &parse(
            bean(
                "IMPRESSION",
                "<goalValue>200000</goalValue><pricingModel>BUDGET</pricingModel><pricingValue><value>1000</value></pricingValue>",
            )
            .as_bytes(),
        )
        .unwrap(),
    )
    .unwrap();
    let mut g = Goal::from_input("g".into(), &i, now);
    assert_eq!(g.cpm(), Some(5.0));
    g.pricing_model = PricingModel::Cpmv75;
    assert_eq!(g.cpm(), Some(1000.0));
    g.pricing_model = PricingModel::Cpc;
    assert_eq!(g.cpm(), None);
    assert_eq!(g.format_type(), None);
    g.ads = vec![AdSummary { id: "a".into(), enabled: true, format: AdFormat::Midroll, weight: None }];
    assert_eq!(g.format_type().as_deref(), Some("MIDROLL"));
    g.ads.push(AdSummary { id: "b".into(), enabled: true, format: AdFormat::Preroll, weight: None });
    assert_eq!(g.format_type(), None);
}
