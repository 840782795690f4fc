//! The decision, explained (the ad-request inspector, docs/inspector.md): for one break,
//! what `decide` served and, for every goal of the snapshot, the first rule that kept it
//! out, or what it lost to. It runs the same checks as the decision (`decide::Env`), in
//! the same order, and the decision itself, so the two cannot disagree.

use super::decide::{decide, Decision, Empty, Env};
use super::pacing::Pace;
use super::request::{AdRequest, ViewerState};
use super::snapshot::Snapshot;
use super::verdict::{AdExcluded, GoalExcluded};

/// What became of one goal for this break.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    /// One of its ads is in the break.
    Served,
    /// A rule of the goal keeps it out.
    Excluded(GoalExcluded),
    /// It has no ad of the break's format.
    NoAdOfFormat,
    /// It has ads of the format, and none fits (each ad's reason is listed).
    NoAdFits,
    /// It could have served and another took the break.
    Lost(Lost),
}

/// What an eligible goal lost to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lost {
    /// The break is closed (policy) or too soon for this viewer: no goal serves.
    BreakClosed,
    /// The request names an ad (`ad=`) of another goal.
    AnotherAdRequested,
    /// Another sponsor (bumper) goal opened the break.
    AnotherSponsor,
    /// Share of voice: the draw fell on another goal's share or on the rest.
    ShareOfVoiceDraw,
    /// The break's ads went to goals of a higher priority or earlier in the rotation.
    PriorityOrRotation,
}

impl Lost {
    pub fn code(self) -> &'static str {
        match self {
            Lost::BreakClosed => "BREAK_CLOSED",
            Lost::AnotherAdRequested => "ANOTHER_AD_REQUESTED",
            Lost::AnotherSponsor => "LOST_TO_SPONSOR",
            Lost::ShareOfVoiceDraw => "LOST_SHARE_OF_VOICE_DRAW",
            Lost::PriorityOrRotation => "LOST_TO_PRIORITY",
        }
    }

    pub fn message(self) -> &'static str {
        match self {
            Lost::BreakClosed => "the break itself is empty (see the request's empty reason)",
            Lost::AnotherAdRequested => "the request names an ad of another goal (ad=)",
            Lost::AnotherSponsor => "another sponsor goal opened the break",
            Lost::ShareOfVoiceDraw => "eligible, and the share-of-voice draw went to another goal or to the rest of the traffic",
            Lost::PriorityOrRotation => {
                "eligible, and the break's ads went to goals of a higher priority or earlier in this request's rotation"
            }
        }
    }
}

/// One goal's verdict, with each of its ads' when it was eligible itself.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalVerdict {
    pub goal: u32,
    pub outcome: Outcome,
    /// Its ads (every format) and the first rule that keeps each out of this break.
    pub ads: Vec<(u32, Option<AdExcluded>)>,
}

/// A break, explained.
#[derive(Debug, Clone, PartialEq)]
pub struct Explanation {
    pub decision: Decision,
    pub ads_per_break: usize,
    pub time_limit: Option<i64>,
    pub goals: Vec<GoalVerdict>,
}

/// Explains one break: the decision `decide` makes for these inputs, and every goal's verdict.
pub fn explain(s: &Snapshot, r: &AdRequest, v: &ViewerState, pace: &[Pace]) -> Explanation {
    let decision = decide(s, r, v, pace);
    let env = Env::new(s, r, v, pace);
    let forced_goal = r.forced_ad.as_ref().and_then(|id| s.ad_index.get(id)).map(|ai| s.ads[*ai as usize].goal);
    let sponsor_served = decision.picks.iter().any(|p| s.goals[p.goal as usize].sponsor);
    let mut goals = Vec::with_capacity(s.goals.len());
    for gi in 0..s.goals.len() as u32 {
        let g = &s.goals[gi as usize];
        let mut ads: Vec<(u32, Option<AdExcluded>)> = g.ads.iter().flatten().map(|(ai, _)| (*ai, env.ad_check(*ai).err())).collect();
        ads.sort_unstable_by_key(|(ai, _)| *ai);
        let of_format = &g.ads[r.format.index()];
        // A programmatic goal needs no ad of its own in a linear break (its auction fills it).
        let auction = matches!(g.fill, super::programmatic::Fill::Auction { .. }) && r.format.insertion_point().is_some();
        // Share-of-voice goals are not paced (their share is the rule).
        let outcome = if decision.picks.iter().any(|p| p.goal == gi) {
            Outcome::Served
        } else if let Err(e) = env.goal_check(gi, g.sov <= 0.0) {
            Outcome::Excluded(e)
        } else if auction {
            Outcome::Lost(lost(&decision, forced_goal, gi, g.sponsor, g.sov > 0.0, sponsor_served))
        } else if of_format.is_empty() {
            Outcome::NoAdOfFormat
        } else if !of_format.iter().any(|(ai, _)| env.ad_check(*ai).is_ok()) {
            Outcome::NoAdFits
        } else {
            Outcome::Lost(lost(&decision, forced_goal, gi, g.sponsor, g.sov > 0.0, sponsor_served))
        };
        goals.push(GoalVerdict { goal: gi, outcome, ads });
    }
    Explanation { decision, ads_per_break: env.settings.ads, time_limit: env.settings.time_limit, goals }
}

fn lost(d: &Decision, forced_goal: Option<u32>, gi: u32, sponsor: bool, sov: bool, sponsor_served: bool) -> Lost {
    if matches!(d.empty, Some(Empty::BreakDisabled | Empty::TooSoon)) {
        Lost::BreakClosed
    } else if forced_goal.is_some_and(|f| f != gi) {
        Lost::AnotherAdRequested
    } else if sponsor && sponsor_served {
        Lost::AnotherSponsor
    } else if sov {
        Lost::ShareOfVoiceDraw
    } else {
        Lost::PriorityOrRotation
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::pacing::local_day_hour;
    use crate::delivery::snapshot::{compile, AdFormat, Input};
    use crate::delivery::synthetic::{self, ad, campaign, goal};
    use crate::delivery::targeting::{Dimension, RuleLevel};
    use crate::delivery::verdict::LeftOut;
    use chrono::{Duration, Utc};

    fn live(id: &str) -> crate::model::goal::Goal {
        let now = Utc::now();
        goal(id, "c", "IMPRESSION", 1000.0, now - Duration::days(1), now + Duration::days(9))
    }

    fn outcome_of(e: &Explanation, s: &Snapshot, id: &str) -> Outcome {
        e.goals.iter().find(|v| s.goals[v.goal as usize].id == id).map(|v| v.outcome.clone()).expect("goal listed")
    }

    #[test]
    fn every_goal_gets_the_first_rule_that_kept_it_out() {
        let now = Utc::now();
        let mut ended = live("ended");
        ended.end = Some(now - Duration::hours(1));
        let mut paced = live("paced");
        paced.priority = Some(9);
        let mut targeted = live("targeted");
        targeted.priority = Some(9);
        let mut low = live("low");
        low.priority = Some(1);
        let winner = live("winner");
        let mut rules = crate::model::rules::Rules::default();
        rules.content.push(crate::model::rules::ResourceRule {
            resource_id: "sports".into(),
            rule_type: crate::model::enums::RuleType::AllOf,
            variable_type: crate::model::enums::VariableType::Tag,
        });
        let mut input = Input {
            account: Some(synthetic::account("acc")),
            campaigns: vec![campaign("c", now)],
            goals: vec![ended, paced, targeted, low, winner, live("midroll-only")],
            ads: vec![
                ad("a-ended", "ended", "preroll", None, now),
                ad("a-paced", "paced", "preroll", None, now),
                ad("a-targeted", "targeted", "preroll", None, now),
                ad("a-low", "low", "preroll", None, now),
                ad("a-winner", "winner", "preroll", None, now),
                ad("a-mid", "midroll-only", "midroll", None, now),
                {
                    let mut off = ad("a-off", "winner", "preroll", None, now);
                    off.enabled = false;
                    off
                },
            ],
            media_base: "https://m".into(),
            ..Input::default()
        };
        input.rules.push(((crate::model::rules::Parent::Goal, "targeted".into()), rules));
        let s = compile(input, now);
        // "paced" has delivered far ahead of its curve.
        let (day, hour) = local_day_hour(now.timestamp(), 0);
        let mut pace = vec![Pace::default(); s.goals.len()];
        pace[s.goal_index["paced"] as usize].add(day, hour, 900, 900);
        let r = AdRequest::new(AdFormat::Preroll, now, 3);
        let e = explain(&s, &r, &ViewerState::default(), &pace);
        assert_eq!(e.decision, decide(&s, &r, &ViewerState::default(), &pace), "the same decision");
        let served: Vec<&str> = e.decision.picks.iter().map(|p| s.goals[p.goal as usize].id.as_str()).collect();
        assert_eq!(served, vec!["winner"]);
        assert_eq!(outcome_of(&e, &s, "winner"), Outcome::Served);
        assert_eq!(outcome_of(&e, &s, "ended"), Outcome::Excluded(GoalExcluded::Ended));
        assert_eq!(outcome_of(&e, &s, "paced"), Outcome::Excluded(GoalExcluded::Paced(crate::delivery::pacing::Held::AheadOfPlan)));
        assert_eq!(
            outcome_of(&e, &s, "targeted"),
            Outcome::Excluded(GoalExcluded::Targeting(crate::delivery::targeting::Refusal {
                level: RuleLevel::Goal,
                dimension: Dimension::Content
            }))
        );
        assert_eq!(outcome_of(&e, &s, "low"), Outcome::Lost(Lost::PriorityOrRotation));
        assert_eq!(outcome_of(&e, &s, "midroll-only"), Outcome::NoAdOfFormat);
        let mid = e.goals.iter().find(|v| s.goals[v.goal as usize].id == "midroll-only").expect("listed");
        assert_eq!(mid.ads[0].1, Some(AdExcluded::Format));
        assert!(s.left_out.iter().any(|l| l.id == "a-off" && l.reason == LeftOut::AdDisabled));
    }
}
