use super::*;
use crate::delivery::snapshot::{compile, Input};
use crate::delivery::synthetic::{self, ad, goal};
use chrono::{Duration, Utc};

fn input(goals: Vec<crate::model::goal::Goal>, ads: Vec<crate::model::ad::Ad>) -> Input {
    synthetic::input(goals, ads, Utc::now())
}

fn live(id: &str, kind: &str, value: f64) -> crate::model::goal::Goal {
    let now = Utc::now();
    goal(id, "c", kind, value, now - Duration::days(1), now + Duration::days(9))
}

fn ids(s: &Snapshot, d: &Decision) -> Vec<String> {
    d.picks.iter().map(|p| s.ads[p.ad as usize].id.clone()).collect()
}

fn run(s: &Snapshot, seed: u64, f: impl Fn(&mut AdRequest)) -> Decision {
    let mut r = AdRequest::new(AdFormat::Preroll, Utc::now(), seed);
    f(&mut r);
    decide(s, &r, &ViewerState::default(), &[])
}

#[test]
fn priority_then_share_of_voice_and_the_same_seed_gives_the_same_picks() {
    let now = Utc::now();
    let (mut low, mut high) = (live("low", "IMPRESSION", 1e6), live("high", "IMPRESSION", 1e6));
    low.priority = Some(3);
    high.priority = Some(8);
    let sov = live("sov", "SHARE_OF_VOICE", 0.25);
    let s = compile(
        input(
            vec![low, high, sov],
            vec![
                ad("a-low", "low", "preroll", None, now),
                ad("a-high", "high", "preroll", None, now),
                ad("a-sov", "sov", "preroll", None, now),
            ],
        ),
        now,
    );
    let mut count = HashMapCount::default();
    for seed in 0..4000 {
        let d = run(&s, seed, |_| {});
        assert_eq!(d, run(&s, seed, |_| {}), "deterministic");
        count.add(ids(&s, &d));
    }
    assert_eq!(count.get("a-low"), 0, "a lower priority never wins over an eligible higher one");
    let sov_share = count.get("a-sov") as f64 / 4000.0;
    assert!((sov_share - 0.25).abs() < 0.03, "{sov_share}");
}

#[derive(Default)]
struct HashMapCount(std::collections::HashMap<String, usize>);
impl HashMapCount {
    fn add(&mut self, ids: Vec<String>) {
        for i in ids {
            *self.0.entry(i).or_default() += 1;
        }
    }
    fn get(&self, id: &str) -> usize {
        self.0.get(id).copied().unwrap_or(0)
    }
}

fn policy(json: serde_json::Value) -> Policy {
    let mut base = serde_json::to_value(Policy::default()).unwrap();
    merge(&mut base, json);
    serde_json::from_value(base).unwrap()
}

fn merge(a: &mut serde_json::Value, b: serde_json::Value) {
    match (a, b) {
        (serde_json::Value::Object(a), serde_json::Value::Object(b)) => {
            for (k, v) in b {
                merge(a.entry(k).or_insert(serde_json::Value::Null), v);
            }
        }
        (a, b) => *a = b,
    }
}

#[test]
fn insertion_policy_break_settings_skip_button_and_time_limits() {
    let now = Utc::now();
    let goals = vec![live("g1", "IMPRESSION", 1e6), live("g2", "IMPRESSION", 1e6), live("g3", "IMPRESSION", 1e6)];
    let mut long = ad("long", "g3", "preroll", None, now);
    long.creative.estimated_ad_duration = Some(60);
    let mut short = ad("short", "g2", "preroll", None, now);
    short.creative.estimated_ad_duration = Some(15);
    let ads = vec![ad("no-duration", "g1", "preroll", None, now), short, long];
    let mut inp = input(goals, ads);
    inp.policies = vec![policy(serde_json::json!({"id": "p", "name": "p",
        "globalSettings": {"skipButton": {"showWhen": "ALWAYS", "skipOffset": {"value": 5, "unit": "SECONDS"}}, "minimumTimeBetweenAds": 0},
        "adBreakSettings": {"preroll": {"enabled": true, "adsPerBreak": 3, "timeLimit": {"enabled": true, "seconds": 20}}}}))];
    let s = compile(inp, now);
    let d = run(&s, 1, |_| {});
    // Only the IPTV ad whose duration fits the 20 s break; the skip button after 5 s.
    assert_eq!(ids(&s, &d), vec!["short"]);
    assert_eq!(d.picks[0].skip, Some(Skip { value: 5, percent: false }));
    assert_eq!(d.policy, Some(0));
    // Mid-roll is disabled by the policy (default), so the break is empty.
    assert_eq!(run(&s, 1, |r| r.format = AdFormat::Midroll).empty, Some(Empty::BreakDisabled));
}

#[test]
fn ads_per_break_takes_distinct_goals_and_sponsors_open_the_break() {
    let now = Utc::now();
    let mut bumper = live("bumper", "IMPRESSION", 1e6);
    bumper.variant = crate::model::enums::GoalVariant::Bumper;
    let goals = vec![live("g1", "IMPRESSION", 1e6), live("g2", "IMPRESSION", 1e6), bumper];
    let ads = vec![
        ad("a1", "g1", "midroll", None, now),
        ad("a1b", "g1", "midroll", None, now),
        ad("a2", "g2", "midroll", None, now),
        ad("sp", "bumper", "midroll", None, now),
    ];
    let mut inp = input(goals, ads);
    inp.policies = vec![policy(serde_json::json!({"id": "p", "name": "p", "globalSettings": {"minimumTimeBetweenAds": 0},
        "adBreakSettings": {"midroll": {"enabled": true, "adsPerBreak": 2}}}))];
    let s = compile(inp, now);
    let d = run(&s, 7, |r| r.format = AdFormat::Midroll);
    let got = ids(&s, &d);
    assert_eq!(got.len(), 3, "{got:?}");
    assert_eq!(got[0], "sp");
    let goals: Vec<u32> = d.picks.iter().map(|p| p.goal).collect();
    assert!(goals[1] != goals[2], "two ads of one goal in a break");
    // adsPerBreak 0: only the sponsor.
    let mut inp = input(
        vec![live("g1", "IMPRESSION", 1e6), {
            let mut b = live("b", "IMPRESSION", 1e6);
            b.variant = crate::model::enums::GoalVariant::Bumper;
            b
        }],
        vec![ad("a1", "g1", "midroll", None, now), ad("sp", "b", "midroll", None, now)],
    );
    inp.policies = vec![policy(
        serde_json::json!({"id": "p", "name": "p", "globalSettings": {"minimumTimeBetweenAds": 0}, "adBreakSettings": {"midroll": {"enabled": true, "adsPerBreak": 0}}}),
    )];
    let s = compile(inp, now);
    assert_eq!(ids(&s, &run(&s, 1, |r| r.format = AdFormat::Midroll)), vec!["sp"]);
}

#[test]
fn the_forced_ad_is_served_only_when_eligible() {
    let now = Utc::now();
    let mut early = live("g2", "IMPRESSION", 1e6);
    early.start = now + Duration::days(1);
    let s = compile(
        input(vec![live("g1", "IMPRESSION", 1e6), early], vec![ad("a1", "g1", "preroll", None, now), ad("a2", "g2", "preroll", None, now)]),
        now,
    );
    assert_eq!(ids(&s, &run(&s, 1, |r| r.forced_ad = Some("a1".into()))), vec!["a1"]);
    assert_eq!(run(&s, 1, |r| r.forced_ad = Some("a2".into())).empty, Some(Empty::NothingEligible));
    assert_eq!(run(&s, 1, |r| r.forced_ad = Some("nope".into())).empty, Some(Empty::UnknownAd));
}

#[test]
fn caps_and_pacing_use_the_pace_records() {
    let now = Utc::now();
    let mut capped = live("g1", "IMPRESSION", 1e6);
    capped.caps = vec![crate::model::goal::Cap { kind: crate::model::enums::CapKind::HourlyCap, value: 10.0 }];
    let s = compile(input(vec![capped], vec![ad("a1", "g1", "preroll", None, now)]), now);
    let (day, hour) = crate::delivery::pacing::local_day_hour(now.timestamp(), 0);
    let mut p = Pace::default();
    p.add(day, hour, 10, 10);
    let r = AdRequest::new(AdFormat::Preroll, now, 1);
    assert!(decide(&s, &r, &ViewerState::default(), std::slice::from_ref(&p)).picks.is_empty());
    // The next hour the cap has room again; far ahead of the ideal curve, pacing holds it.
    let later = AdRequest::new(AdFormat::Preroll, now + Duration::hours(1), 1);
    assert_eq!(decide(&s, &later, &ViewerState::default(), std::slice::from_ref(&p)).picks.len(), 1);
    let mut ahead = Pace::default();
    ahead.add(day, hour - 5, 900_000, 900_000);
    assert!(decide(&s, &later, &ViewerState::default(), &[ahead]).picks.is_empty(), "ahead of its curve");
}

#[test]
fn a_generated_account_serves_matching_formats_only() {
    let now = Utc::now();
    let s = compile(synthetic::generate(synthetic::Spec { goals: 200, ads: 1000, seed: 3 }, now), now);
    let mut served = 0;
    for r in synthetic::requests(2000, 9, now) {
        let d = decide(&s, &r, &ViewerState::default(), &[]);
        for p in &d.picks {
            assert_eq!(s.ads[p.ad as usize].format, r.format);
            assert_eq!(s.ads[p.ad as usize].goal, p.goal);
        }
        served += d.picks.len();
    }
    assert!(served > 1000, "{served} of 2000 requests filled");
}
