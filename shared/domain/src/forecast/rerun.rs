//! A running campaign as a campaign forecast's proposal (the console's "Forecast this
//! campaign"): each goal the forecast can hold, from the forecast's earliest start to its
//! end, for what it has left to deliver, with its targeting, its ads' formats on every
//! device container of the account, and `replacesCampaignId` so that the campaign's own
//! goals leave the competition.

use chrono::{DateTime, Duration, DurationRound, Utc};
use serde_json::{json, Value};

use crate::model::campaign::Campaign;
use crate::model::enums::{AdFormat, GoalType};
use crate::model::goal::Goal;
use crate::model::rules::Rules;
use crate::model::rules_view::rules_view;

/// The forecast's earliest start: a day ahead (the request's rule), on the next whole hour
/// after it, so the body is still valid when it is read a moment later.
pub fn earliest_start(now: DateTime<Utc>) -> DateTime<Utc> {
    let ahead = now + Duration::days(1) + Duration::hours(1);
    ahead.duration_trunc(Duration::hours(1)).unwrap_or(ahead)
}

fn ad_format(f: AdFormat) -> Option<&'static str> {
    match f {
        AdFormat::Preroll => Some("preroll_standard"),
        AdFormat::Midroll => Some("midroll_standard"),
        AdFormat::Postroll => Some("postroll_standard"),
        AdFormat::Pause => Some("pause_ad"),
        AdFormat::Placeholder => None,
    }
}

fn date(t: DateTime<Utc>) -> Value {
    json!(t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
}

/// What a goal becomes in the proposal: its body, or why it is left out.
fn goal_body(g: &Goal, rules: Option<&Rules>, delivered: f64, start: DateTime<Utc>, dcs: &[String]) -> Result<Value, String> {
    let name = g.name.clone().unwrap_or_else(|| format!("Goal {}", g.id));
    let Some(end) = g.end.filter(|e| *e > start) else {
        return Err(format!("{name}: it ends before the forecast can start, or has no end"));
    };
    if !matches!(
        g.kind,
        GoalType::Impression | GoalType::Complete | GoalType::FirstQuartile | GoalType::SecondQuartile | GoalType::ThirdQuartile
    ) {
        return Err(format!("{name}: a {} goal is not forecast", g.kind.as_str()));
    }
    let formats: Vec<&str> = {
        let mut f: Vec<&str> = g.ads.iter().filter(|a| a.enabled).filter_map(|a| ad_format(a.format)).collect();
        f.sort_unstable();
        f.dedup();
        f
    };
    if formats.is_empty() {
        return Err(format!("{name}: no enabled ad of a format the forecast serves"));
    }
    let left = (g.goal_value.unwrap_or(0.0) - delivered).max(1.0).round();
    let mut body = json!({
        "name": name,
        "customId": g.id,
        "startDate": date(g.start.max(start)),
        "endDate": date(end),
        "variant": g.variant.as_str(),
        "deliveryGoal": { "type": g.kind.as_str(), "value": left },
        "ads": formats.iter().map(|f| json!({ "name": format!("{f} ads"), "format": f, "deviceContainers": dcs })).collect::<Vec<_>>(),
    });
    if let Some(p) = g.priority {
        body["priority"] = json!(p);
    }
    if let Some(r) = rules {
        body["targeting"] = json!({ "targetingRules": rules_view(r, &[], &[]) });
    }
    Ok(body)
}

/// The proposal body and the goals left out of it (with why).
pub fn proposal(
    c: &Campaign,
    campaign_rules: Option<&Rules>,
    goals: &[(Goal, Option<Rules>, f64)],
    dcs: &[String],
    now: DateTime<Utc>,
) -> (Value, Vec<String>) {
    let start = earliest_start(now);
    let mut kept = Vec::new();
    let mut left_out = Vec::new();
    for (g, rules, delivered) in goals {
        match goal_body(g, rules.as_ref(), *delivered, start, dcs) {
            Ok(b) => kept.push(b),
            Err(why) => left_out.push(why),
        }
    }
    let mut campaign = json!({ "name": c.name, "replacesCampaignId": c.id, "goals": kept });
    if let Some(p) = c.priority {
        campaign["priority"] = json!(p);
    }
    if let Some(r) = campaign_rules {
        campaign["targeting"] = json!({ "targetingRules": rules_view(r, &[], &[]) });
    }
    (json!({ "campaign": campaign }), left_out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::synthetic::{ad, campaign, goal};

    #[test]
    fn a_running_goal_is_proposed_from_the_earliest_start_for_what_it_has_left() {
        let now = Utc::now();
        let mut g = goal("g1", "c", "IMPRESSION", 1000.0, now - Duration::days(2), now + Duration::days(8));
        g.ads = vec![ad("a1", "g1", "preroll", None, now).summary(), ad("a2", "g1", "preroll", None, now).summary()];
        let over = goal("g2", "c", "IMPRESSION", 1000.0, now - Duration::days(9), now + Duration::hours(3));
        let (body, left_out) = proposal(&campaign("c", now), None, &[(g, None, 400.0), (over, None, 0.0)], &["dc".into()], now);
        let goals = body["campaign"]["goals"].as_array().cloned().unwrap_or_default();
        assert_eq!(goals.len(), 1, "{body}");
        assert_eq!(goals[0]["deliveryGoal"], json!({"type": "IMPRESSION", "value": 600.0}));
        assert_eq!(goals[0]["ads"].as_array().map(Vec::len), Some(1), "one ad a format");
        assert_eq!(goals[0]["startDate"], date(earliest_start(now)));
        assert_eq!(body["campaign"]["replacesCampaignId"], "c");
        assert_eq!(left_out.len(), 1, "{left_out:?}");
        assert!(earliest_start(now) >= now + Duration::days(1));
    }
}
