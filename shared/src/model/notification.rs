//! Campaign notifications (seed 001 §2.5), computed from the campaign's state on each read.
//! The rules are listed in docs/api.md.

use chrono::{DateTime, Utc};

use super::campaign::Campaign;
use crate::xml::XmlOut;

/// What a notification needs to know about one goal of the campaign.
#[derive(Debug, Clone, PartialEq)]
pub struct GoalSummary {
    pub id: String,
    pub name: String,
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
    pub ads_total: usize,
    pub ads_enabled: usize,
    /// Enabled ads that cannot play now, with why (`Asset::not_playable`): (ad name, reason).
    pub ads_without_media: Vec<(String, String)>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub concerned_id: String,
    pub concerned_type: &'static str,
    pub level: &'static str,
    pub message: String,
    pub related_id: String,
    pub related_type: &'static str,
}

pub fn notifications(c: &Campaign, goals: &[GoalSummary], now: DateTime<Utc>) -> Vec<Notification> {
    let mut out = Vec::new();
    if c.is_archived() || c.deleted_at.is_some() {
        return out;
    }
    let on_campaign = |level, message: String| Notification {
        concerned_id: c.id.clone(),
        concerned_type: "CAMPAIGN",
        level,
        message,
        related_id: c.id.clone(),
        related_type: "CAMPAIGN",
    };
    if goals.is_empty() {
        out.push(on_campaign("WARNING", "Campaign has no goals; it cannot deliver until a goal with an ad is added.".into()));
        return out;
    }
    let live = goals.iter().any(|g| g.end.is_none_or(|e| e > now));
    if !c.enabled && live {
        out.push(on_campaign("WARNING", "Campaign is disabled; its goals will not deliver until it is enabled.".into()));
    }
    for g in goals {
        let on_goal = |level, message: String| Notification {
            concerned_id: g.id.clone(),
            concerned_type: "GOAL",
            level,
            message,
            related_id: c.id.clone(),
            related_type: "CAMPAIGN",
        };
        let ended = g.end.is_some_and(|e| e <= now);
        if ended {
            let when = g.end.map(|e| e.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_default();
            out.push(on_goal("INFO", format!("Goal '{}' ended at {when}.", g.name)));
            continue;
        }
        if g.ads_total == 0 {
            out.push(on_goal("WARNING", format!("Goal '{}' has no ads; it cannot deliver.", g.name)));
        } else if g.ads_enabled == 0 {
            out.push(on_goal("WARNING", format!("Goal '{}' has ads but none is enabled.", g.name)));
        }
        for (ad, why) in &g.ads_without_media {
            out.push(on_goal("WARNING", format!("Ad '{ad}' of goal '{}' is not served: {why}.", g.name)));
        }
    }
    out
}

/// The `map` response: one `entry` per campaign.
pub fn write_map(o: &mut XmlOut, entries: &[(String, Vec<Notification>)]) {
    o.open("map");
    for (campaign_id, list) in entries {
        o.open_attr("entry", "key", campaign_id).open("notificationList");
        for n in list {
            o.open("notificationBeans");
            o.open("concernedResource").leaf("id", &n.concerned_id).leaf("type", n.concerned_type).close("concernedResource");
            o.leaf("level", n.level).leaf("message", &n.message);
            o.open("relatedResources").leaf("id", &n.related_id).leaf("type", n.related_type).close("relatedResources");
            o.close("notificationBeans");
        }
        o.close("notificationList").close("entry");
    }
    o.close("map");
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::campaign::parse_bean;
    use crate::xml::parse;
    use chrono::{Duration, TimeZone};

    fn campaign(enabled: bool) -> Campaign {
        let xml = format!("<campaignBean><name>C</name><advertiserId>a</advertiserId><enabled>{enabled}</enabled></campaignBean>");
        let i = parse_bean(&parse(xml.as_bytes()).unwrap()).unwrap();
        Campaign::from_input("c1".into(), &i, Utc::now())
    }

    fn goal(id: &str, end_in_days: i64, ads: usize, enabled: usize, now: DateTime<Utc>) -> GoalSummary {
        GoalSummary {
            id: id.into(),
            name: id.to_uppercase(),
            start: Some(now - Duration::days(30)),
            end: Some(now + Duration::days(end_in_days)),
            ads_total: ads,
            ads_enabled: enabled,
            ads_without_media: Vec::new(),
        }
    }

    #[test]
    fn ads_without_media_are_named() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let mut g = goal("g1", 5, 2, 2, now);
        g.ads_without_media = vec![("Spot".into(), "waiting for its media: the renditions are being made".into())];
        let n = notifications(&campaign(true), &[g], now);
        assert_eq!(n.len(), 1);
        assert_eq!((n[0].concerned_id.as_str(), n[0].level), ("g1", "WARNING"));
        assert_eq!(n[0].message, "Ad 'Spot' of goal 'G1' is not served: waiting for its media: the renditions are being made.");
    }

    #[test]
    fn no_goals_warns_on_the_campaign() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let n = notifications(&campaign(true), &[], now);
        assert_eq!(n.len(), 1);
        assert_eq!((n[0].concerned_type, n[0].level), ("CAMPAIGN", "WARNING"));
        assert!(n[0].message.contains("no goals"));
    }

    #[test]
    fn goal_rules() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let goals = [goal("g1", 5, 0, 0, now), goal("g2", 5, 2, 0, now), goal("g3", -1, 0, 0, now), goal("g4", 5, 1, 1, now)];
        let n = notifications(&campaign(true), &goals, now);
        let got: Vec<(&str, &str, &str)> = n.iter().map(|x| (x.concerned_id.as_str(), x.concerned_type, x.level)).collect();
        assert_eq!(got, vec![("g1", "GOAL", "WARNING"), ("g2", "GOAL", "WARNING"), ("g3", "GOAL", "INFO")]);
        assert!(n[0].message.contains("no ads") && n[1].message.contains("none is enabled") && n[2].message.contains("ended"));
        assert!(n.iter().all(|x| x.related_id == "c1" && x.related_type == "CAMPAIGN"));
    }

    #[test]
    fn disabled_campaign_with_live_goals_warns_archived_is_silent() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let goals = [goal("g4", 5, 1, 1, now)];
        let n = notifications(&campaign(false), &goals, now);
        assert_eq!(n.len(), 1);
        assert!(n[0].message.contains("disabled"));
        let mut archived = campaign(false);
        archived.archived_at = Some(now);
        assert!(notifications(&archived, &goals, now).is_empty());
    }
}
