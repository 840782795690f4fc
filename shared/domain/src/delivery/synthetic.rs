//! Synthetic accounts and traffic for the engine's tests and benchmarks: record builders
//! and a deterministic generator of an account with mixed targeting (categories, tags,
//! partners, locations, time rules, frequency caps, audience, custom parameters).

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use serde_json::json;

use super::decide::Rng;
use super::request::AdRequest;
use super::snapshot::{AdFormat, Input};
use crate::model::account::{Account, Category};
use crate::model::ad::Ad;
use crate::model::campaign::{Campaign, GoalFlight};
use crate::model::goal::Goal;
use crate::model::rules::{Parent, Rules};

/// The records of account `acc` with one enabled campaign `c` holding `goals` and `ads`.
pub fn input(goals: Vec<Goal>, ads: Vec<Ad>, now: DateTime<Utc>) -> Input {
    Input {
        account: Some(account("acc")),
        campaigns: vec![campaign("c", now)],
        goals,
        ads,
        media_base: "https://m".into(),
        ..Input::default()
    }
}

pub fn account(id: &str) -> Account {
    serde_json::from_value(json!({"id": id, "name": id, "globalPriority": 5, "globalFrontload": 0})).expect("account")
}

pub fn campaign(id: &str, now: DateTime<Utc>) -> Campaign {
    serde_json::from_value(json!({"id": id, "name": id, "advertiserId": "adv", "enabled": true, "exclusive": false,
        "includeInForecast": true, "vastEnabled": true, "created": now, "modified": now}))
    .expect("campaign")
}

/// A goal of `kind` (`IMPRESSION`, `SHARE_OF_VOICE`, …) with `value`, flying `start..end`.
pub fn goal(id: &str, campaign: &str, kind: &str, value: f64, start: DateTime<Utc>, end: DateTime<Utc>) -> Goal {
    serde_json::from_value(json!({"id": id, "campaignId": campaign, "type": kind, "variant": "NORMAL", "goalValue": value,
        "start": start, "end": end, "pricingModel": "CPM", "created": start, "modified": start}))
    .expect("goal")
}

/// An enabled IPTV ad (plays without an asset) of `format` (preroll, midroll, postroll).
pub fn ad(id: &str, goal: &str, format: &str, weight: Option<f64>, now: DateTime<Utc>) -> Ad {
    serde_json::from_value(json!({"id": id, "goalId": goal, "name": id, "enabled": true, "weight": weight,
        "creative": {"type": "iptv", "insertionPoint": format, "videoCreativeId": format!("vc-{id}"), "clickDestinationUri": "https://example.com/"},
        "created": now, "modified": now, "creativeModified": now}))
    .expect("ad")
}

/// The largest generated account (`admin seed-synthetic`, the scale benchmarks).
pub const MAX_GOALS: usize = 100_000;
pub const MAX_ADS: usize = 500_000;

/// The size and mix of a generated account.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    pub goals: usize,
    pub ads: usize,
    pub seed: u64,
}

/// The most archived goals `admin seed-synthetic --archived` adds (the history benchmark).
pub const MAX_ARCHIVED: usize = 1_000_000;
/// Archived goals per archived campaign.
pub const ARCHIVED_PER_CAMPAIGN: usize = 50;

/// Years of a publisher's past: `n` goals, one ad each, in archived campaigns of
/// [`ARCHIVED_PER_CAMPAIGN`], their flights long over. One campaign at a time, so a large
/// history is written without holding it.
pub fn archived(n: usize, now: DateTime<Utc>) -> impl Iterator<Item = Input> {
    let campaigns = n.div_ceil(ARCHIVED_PER_CAMPAIGN);
    (0..campaigns).map(move |ci| {
        let id = format!("arch-c{ci}");
        let mut c = campaign(&id, now);
        let start = now - Duration::days(400 + (ci % 300) as i64);
        let end = start + Duration::days(30);
        let mut goals = Vec::new();
        let mut ads = Vec::new();
        for gi in (ci * ARCHIVED_PER_CAMPAIGN)..((ci + 1) * ARCHIVED_PER_CAMPAIGN).min(n) {
            let mut g = goal(&format!("arch-g{gi}"), &id, "IMPRESSION", 10_000.0, start, end);
            let a = ad(&format!("arch-a{gi}"), &g.id, FORMATS[gi % FORMATS.len()], None, start);
            g.ads.push(a.summary());
            c.set_goal(GoalFlight { id: g.id.clone(), start, end: Some(end), deleted: false });
            goals.push(g);
            ads.push(a);
        }
        c.archived_at = Some(end + Duration::days(7));
        c.archive_month = Some((end + Duration::days(7)).format("%Y-%m").to_string());
        Input { campaigns: vec![c], goals, ads, ..Input::default() }
    })
}

pub const CATEGORY_ROOTS: usize = 10;
pub const CATEGORY_CHILDREN: usize = 4;
pub const TAGS: usize = 40;
pub const PARTNERS: usize = 12;
pub const LOCATIONS: usize = 30;
pub const FORMATS: [&str; 3] = ["preroll", "midroll", "postroll"];

fn category_id(root: usize, child: Option<usize>) -> String {
    match child {
        None => format!("cat-{root}"),
        Some(c) => format!("cat-{root}-{c}"),
    }
}

fn categories() -> Vec<Category> {
    let mut out = Vec::new();
    for r in 0..CATEGORY_ROOTS {
        out.push(serde_json::from_value(json!({"id": category_id(r, None), "name": "c"})).expect("category"));
        for c in 0..CATEGORY_CHILDREN {
            out.push(
                serde_json::from_value(json!({"id": category_id(r, Some(c)), "name": "c", "parents": [category_id(r, None)]}))
                    .expect("category"),
            );
        }
    }
    out
}

fn rule(kind: &str, id: String, rule_type: &str) -> serde_json::Value {
    json!({"resourceId": id, "ruleType": rule_type, "variableType": kind})
}

/// An account of `spec.goals` active goals (priorities 1-10, 5 % share of voice, flights
/// around `now`) and `spec.ads` ads over three formats, with mixed targeting.
pub fn generate(spec: Spec, now: DateTime<Utc>) -> Input {
    let mut rng = Rng::new(spec.seed);
    let campaigns_n = (spec.goals / 4).max(1);
    let mut campaigns = Vec::new();
    let mut rules: Vec<(crate::model::rules::Owner, Rules)> = Vec::new();
    for c in 0..campaigns_n {
        let id = format!("c{c}");
        campaigns.push(campaign(&id, now));
        // A third of the campaigns target a category root.
        if rng.below(3) == 0 {
            let r: Rules = serde_json::from_value(json!({"parentId": id,
                "content": [rule("SITE", category_id(rng.below(CATEGORY_ROOTS), None), "AT_LEAST_ONE_OF")]}))
            .expect("rules");
            rules.push(((Parent::Campaign, id.clone()), r));
        }
    }
    let mut goals = Vec::new();
    for g in 0..spec.goals {
        let id = format!("g{g}");
        let c = format!("c{}", g % campaigns_n);
        let start = now - Duration::days(1 + rng.below(10) as i64);
        let end = now + Duration::days(5 + rng.below(60) as i64);
        let sov = rng.below(20) == 0;
        let mut goal = if sov {
            self::goal(&id, &c, "SHARE_OF_VOICE", 0.02 + rng.unit() * 0.1, start, end)
        } else {
            self::goal(&id, &c, "IMPRESSION", 10_000.0 + rng.below(1_000_000) as f64, start, end)
        };
        goal.priority = Some(1 + rng.below(10) as u8);
        goal.front_load_factor = Some(10 * rng.below(11) as u8);
        let mut r = json!({"parentId": id});
        let pick = rng.below(100);
        if pick < 35 {
            let n = 1 + rng.below(3);
            r["content"] = (0..n)
                .map(|_| rule("SITE", category_id(rng.below(CATEGORY_ROOTS), Some(rng.below(CATEGORY_CHILDREN))), "AT_LEAST_ONE_OF"))
                .collect();
        } else if pick < 45 {
            r["content"] = json!([rule("SITE", category_id(rng.below(CATEGORY_ROOTS), None), "NONE_OF")]);
        }
        let tags = rng.below(100);
        if tags < 25 {
            r["tags"] = json!([
                rule("TAG", format!("tag-{}", rng.below(TAGS)), "AT_LEAST_ONE_OF"),
                rule("TAG", format!("tag-{}", rng.below(TAGS)), "AT_LEAST_ONE_OF")
            ]);
        } else if tags < 35 {
            r["tags"] = json!([rule("CONTENT_PARTNER", format!("cp-{}", rng.below(PARTNERS)), "AT_LEAST_ONE_OF")]);
        } else if tags < 40 {
            r["tags"] = json!([rule("TAG", format!("tag-{}", rng.below(TAGS)), "NONE_OF")]);
        }
        if rng.below(5) == 0 {
            r["locations"] = json!([{"allowed": true, "id": format!("loc-{}", rng.below(LOCATIONS)), "locationType": "COUNTRY"}]);
        }
        if rng.below(10) == 0 {
            r["timeRestrictions"] = json!([{"active": true, "days": ["MONDAY", "TUESDAY", "WEDNESDAY", "THURSDAY", "FRIDAY"], "fromHour": 6, "fromMinute": 0, "toHour": 23, "toMinute": 0}]);
        }
        if rng.below(10) == 0 {
            r["frequencyCappings"] = json!([{"impressions": 3, "timeUnit": "DAY"}]);
        }
        if rng.below(20) == 0 {
            r["audienceRules"] = json!([{"segmentId": format!("p[age]={}", rng.below(4)), "ruleType": "AT_LEAST_ONE_OF"}]);
        }
        if rng.below(10) == 0 {
            r["accountCustomParameters"] =
                json!([{"ignoreParent": false, "parameterName": "acp.genre", "rules": [{"ruleType": "NONE_OF", "value": "horror"}]}]);
        }
        rules.push(((Parent::Goal, id.clone()), serde_json::from_value(r).expect("rules")));
        campaigns[g % campaigns_n].set_goal(GoalFlight { id: goal.id.clone(), start, end: Some(end), deleted: false });
        goals.push(goal);
    }
    let mut ads = Vec::new();
    for a in 0..spec.ads {
        let g = a % spec.goals.max(1);
        let format = FORMATS[(a / spec.goals.max(1) + g) % FORMATS.len()];
        let weight = (rng.below(4) == 0).then(|| 10.0 + rng.below(50) as f64);
        let ad = ad(&format!("a{a}"), &format!("g{g}"), format, weight, now);
        if let Some(goal) = goals.get_mut(g) {
            goal.ads.push(ad.summary());
        }
        ads.push(ad);
    }
    Input {
        account: Some(self::account("bench")),
        version: 1,
        campaigns,
        goals,
        ads,
        assets: HashMap::new(),
        rules,
        linked: HashMap::new(),
        categories: categories(),
        partners: Vec::new(),
        device_containers: Vec::new(),
        policies: Vec::new(),
        media_base: "https://media.example".into(),
        demand_partners: Vec::new(),
        marketplaces: Vec::new(),
    }
}

/// `n` ad requests of a traffic mix: category (mostly a leaf), a few tags, a partner, a
/// location, a viewer id, a browser, over the three linear formats.
pub fn requests(n: usize, seed: u64, now: DateTime<Utc>) -> Vec<AdRequest> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let format = [AdFormat::Preroll, AdFormat::Midroll, AdFormat::Postroll][rng.below(3)];
            let mut r = AdRequest::new(format, now + Duration::seconds(i as i64 % 3600), rng.next_u64());
            r.category = Some(category_id(rng.below(CATEGORY_ROOTS), Some(rng.below(CATEGORY_CHILDREN))));
            r.tags = (0..rng.below(4)).map(|_| format!("tag-{}", rng.below(TAGS))).collect();
            r.partner = Some(format!("cp-{}", rng.below(PARTNERS)));
            r.locations = vec![format!("loc-{}", rng.below(LOCATIONS))];
            r.viewer = Some(format!("viewer-{}", rng.below(100_000)));
            r.user_agent = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0 Safari/537.36".into();
            r.ip = Some(std::net::Ipv4Addr::new(10, 0, rng.below(256) as u8, rng.below(256) as u8));
            r.acp = vec![("genre".into(), ["drama", "horror", "news"][rng.below(3)].into())];
            r
        })
        .collect()
}
