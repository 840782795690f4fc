//! What needs attention in an account (the console's home): its goals behind pace, ended
//! under their target, with no playable ad, and programmatic goals whose buyers send no
//! bid, worst first. Read from the account's compiled snapshot and its pace records (in
//! memory after the first read) and today's report partition: no replay, no record read
//! per goal, so an account of 10,000 goals answers in milliseconds.

use std::collections::HashMap;

use super::UseCaseResult;
use crate::delivery::pacing::{ideal_delivery, pace_state, Pace, PaceState};
use crate::delivery::programmatic::Fill;
use crate::delivery::snapshot::Snapshot;
use crate::model::account::Account;
use crate::state::AppState;

/// Items the list holds (the worst).
pub const MAX_ITEMS: usize = 100;
/// A goal ended under its target is listed this long after its end.
pub const ENDED_WITHIN_DAYS: i64 = 14;

/// Why a goal is listed, in the order of the list's sections.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Concern {
    /// It serves nothing: no ad of its own can play.
    NoPlayableAd,
    /// Programmatic, its buyers were asked today and sent no bid.
    NoBids,
    BehindPace,
    EndedUnderTarget,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Item {
    pub concern: Concern,
    pub goal_id: String,
    pub goal_name: Option<String>,
    pub campaign_id: String,
    /// How bad, 0-1 (the share of the target missing, or 1 when it serves nothing).
    pub severity: f64,
    pub message: String,
}

/// The list from a snapshot, its goals' paces, the programmatic goals' bid requests
/// without a bid today, at `now`: worst first, at most `MAX_ITEMS`.
pub fn attention(s: &Snapshot, pace: &[Pace], silent: &HashMap<String, i64>, now: i64) -> (Vec<Item>, usize) {
    let mut out = Vec::new();
    for (i, g) in s.goals.iter().enumerate() {
        let delivered = pace.get(i).map_or(0, |p| p.delivered) as f64;
        let item = |concern, severity: f64, message: String| Item {
            concern,
            goal_id: g.id.clone(),
            goal_name: g.name.clone(),
            campaign_id: g.campaign_id.clone(),
            severity: severity.clamp(0.0, 1.0),
            message,
        };
        let ended = g.end.is_some_and(|e| e <= now);
        if ended {
            if let (Some(t), Some(e)) = (g.target, g.end) {
                if delivered < t && now - e <= ENDED_WITHIN_DAYS * 86_400 {
                    out.push(item(
                        Concern::EndedUnderTarget,
                        (t - delivered) / t.max(1.0),
                        format!("ended under its target: {} of {} ({:.0} %)", delivered.round(), t.round(), 100.0 * delivered / t.max(1.0)),
                    ));
                }
            }
            continue;
        }
        match g.fill {
            Fill::Ads if g.start <= now && g.ads.iter().all(Vec::is_empty) => {
                out.push(item(Concern::NoPlayableAd, 1.0, "no ad with playable media: it serves nothing".into()));
                continue;
            }
            Fill::Auction { .. } => {
                if let Some(n) = silent.get(&g.id) {
                    out.push(item(Concern::NoBids, 0.9, format!("{n} bid requests today and no bid")));
                }
            }
            Fill::Ads | Fill::Nothing => {}
        }
        let f = g.flight();
        if let Some(plan) = ideal_delivery(&f, now.min(f.end.unwrap_or(i64::MAX))) {
            if pace_state(delivered, plan) == Some(PaceState::Behind) {
                let t = f.target.unwrap_or(plan).max(1.0);
                out.push(item(
                    Concern::BehindPace,
                    (plan - delivered) / t,
                    format!("behind pace: delivered {} of the {} planned by now", delivered.round(), plan.round()),
                ));
            }
        }
    }
    for l in s.left_out.iter().filter(|l| l.kind == "goal" && l.reason == crate::delivery::verdict::LeftOut::NoMarketplace) {
        out.push(Item {
            concern: Concern::NoPlayableAd,
            goal_id: l.id.clone(),
            goal_name: None,
            campaign_id: String::new(),
            severity: 1.0,
            message: "filled from a marketplace and has none: it serves nothing".into(),
        });
    }
    let total = out.len();
    out.sort_by(|a, b| a.concern.cmp(&b.concern).then(b.severity.total_cmp(&a.severity)).then(a.goal_id.cmp(&b.goal_id)));
    out.truncate(MAX_ITEMS);
    (out, total)
}

/// The account's list now, and how many items there were before the bound.
pub async fn of_account(st: &AppState, a: &Account) -> UseCaseResult<(Vec<Item>, usize)> {
    let now = st.clock.now();
    let (snapshot, pace) = st.delivery.latest(&st.store, &st.blobs, &a.id, &st.settings, now).await?;
    let silent = super::notifications::silent_goals(st, &a.id, &snapshot, now).await;
    Ok(attention(&snapshot, &pace, &silent, now.timestamp()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::snapshot::compile;
    use crate::delivery::synthetic::{self, ad, goal};
    use chrono::{Duration, Utc};

    #[test]
    fn goals_serving_nothing_come_first_then_behind_pace_then_ended_under_target() {
        let now = Utc::now();
        let g =
            |id: &str, start: i64, end: i64| goal(id, "c", "IMPRESSION", 1000.0, now + Duration::days(start), now + Duration::days(end));
        let goals = vec![
            g("adless", -1, 9),
            g("behind", -5, 5),
            g("on-pace", -5, 5),
            g("ended", -10, -1),
            g("long-ended", -60, -30),
            g("future", 3, 9),
        ];
        let ads = ["behind", "on-pace", "ended", "long-ended", "future"]
            .iter()
            .map(|id| ad(&format!("ad-{id}"), id, "preroll", None, now))
            .collect();
        let s = compile(synthetic::input(goals, ads, now), now);
        let delivered = |id: &str| match id {
            "behind" => 100,
            "on-pace" => 500,
            "ended" => 400,
            _ => 0,
        };
        let pace: Vec<Pace> = s.goals.iter().map(|g| Pace { delivered: delivered(&g.id), ..Pace::default() }).collect();
        let (items, total) = attention(&s, &pace, &HashMap::new(), now.timestamp());
        let listed: Vec<(&str, Concern)> = items.iter().map(|i| (i.goal_id.as_str(), i.concern)).collect();
        assert_eq!(listed, [("adless", Concern::NoPlayableAd), ("behind", Concern::BehindPace), ("ended", Concern::EndedUnderTarget)]);
        assert_eq!(total, 3);
        assert!(items[2].message.contains("400 of 1000"), "{}", items[2].message);
    }

    #[test]
    fn a_direct_goal_on_pace_is_not_listed_whatever_its_bid_requests() {
        let now = Utc::now();
        let g = goal("g", "c", "IMPRESSION", 1000.0, now - Duration::days(1), now + Duration::days(9));
        let s = compile(synthetic::input(vec![g], vec![ad("a", "g", "preroll", None, now)], now), now);
        let pace = vec![Pace { delivered: 1000, ..Pace::default() }];
        // A direct goal is never listed for bids, whatever today's cells say.
        let silent = HashMap::from([("g".to_string(), 25)]);
        assert!(attention(&s, &pace, &silent, now.timestamp()).0.is_empty());
    }
}
