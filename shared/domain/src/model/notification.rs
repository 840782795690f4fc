//! Campaign notifications (seed 001 §2.5), computed from the campaign's state on each read.
//! The rules are listed in docs/api.md.

use chrono::{DateTime, Utc};

use super::campaign::Campaign;
use super::enums::{NotificationLevel, NotificationSubject};
use crate::xml::XmlOut;

/// What delivery says of a goal now (its pace record in the account's snapshot).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoalDelivery {
    /// The goal value it paces towards (impression and event goals).
    pub target: Option<f64>,
    /// Events of its delivered kind so far.
    pub delivered: u64,
    /// What pacing lets it have delivered by now (`delivery::pacing::pacing_plan`: the
    /// front-load curve an hour ahead), when it has a target and an end.
    pub plan_now: Option<f64>,
    /// The projection to its end (`usecases::pacing`: the traffic model replayed, bounded
    /// by the last 24 hours) and what bounded it, in words.
    pub projected: Option<f64>,
    pub projected_from: &'static str,
    /// The share of its flight elapsed, 0-1 (0 without an end).
    pub elapsed: f64,
    /// A cap with no room left now (`TOTAL_CAP`, `DAILY_CAP`, ...).
    pub cap_reached: Option<&'static str>,
    /// Pacing holds it back now: it is ahead of its plan.
    pub ahead_of_plan: bool,
    /// Its ads that can serve (enabled, playable, of a served format).
    pub servable_ads: usize,
}

/// A projection under this share of the target is a shortfall worth a warning, once this
/// much of the flight has passed (earlier, a few hours of traffic say little).
pub const SHORTFALL_BELOW: f64 = 0.95;
pub const SHORTFALL_AFTER_ELAPSED: f64 = 0.1;

/// What a notification needs to know about one goal of the campaign.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct GoalSummary {
    pub id: String,
    pub name: String,
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
    pub ads_total: usize,
    pub ads_enabled: usize,
    /// Enabled ads that cannot play now, with why (`Asset::not_playable`): (ad name, reason).
    pub ads_without_media: Vec<(String, String)>,
    /// Delivery now; `None` when the goal is not in the account's snapshot (its campaign
    /// does not deliver).
    pub delivery: Option<GoalDelivery>,
    /// How the goal is filled when it is programmatic (docs/programmatic.md).
    pub demand: Option<GoalDemand>,
}

/// A programmatic goal's demand, as its notifications need it.
#[derive(Debug, Clone, PartialEq)]
pub enum GoalDemand {
    /// Filled by marketplace `name`'s auction: no ad of its own is needed.
    /// `silent_deals`: a programmatic guaranteed goal whose buyers sent bid requests and no
    /// bid today (its deals' ids, and the requests).
    Auction { marketplace: String, silent: Option<(Vec<String>, i64)> },
    /// An RTB goal without a marketplace, or whose marketplace is gone.
    NoMarketplace,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Notification {
    pub concerned_id: String,
    pub concerned_type: NotificationSubject,
    pub level: NotificationLevel,
    pub message: String,
    pub related_id: String,
    pub related_type: NotificationSubject,
}

/// The warning of a campaign whose account is past the serving bound (`why` names the count
/// and the setting): its changes are not served, the snapshot compiled last is.
pub fn past_bound(c: &Campaign, why: &str) -> Notification {
    Notification {
        concerned_id: c.id.clone(),
        concerned_type: NotificationSubject::Campaign,
        level: NotificationLevel::Warning,
        message: format!("Changes are not served: {why}"),
        related_id: c.id.clone(),
        related_type: NotificationSubject::Campaign,
    }
}

pub fn notifications(c: &Campaign, goals: &[GoalSummary], now: DateTime<Utc>) -> Vec<Notification> {
    let mut out = Vec::new();
    if c.is_archived() || c.deleted_at.is_some() {
        return out;
    }
    let on_campaign = |level, message: String| Notification {
        concerned_id: c.id.clone(),
        concerned_type: NotificationSubject::Campaign,
        level,
        message,
        related_id: c.id.clone(),
        related_type: NotificationSubject::Campaign,
    };
    if goals.is_empty() {
        out.push(on_campaign(
            NotificationLevel::Warning,
            "Campaign has no goals; it cannot deliver until a goal with an ad is added.".into(),
        ));
        return out;
    }
    let live: Vec<&GoalSummary> = goals.iter().filter(|g| g.end.is_none_or(|e| e > now)).collect();
    if !c.enabled && !live.is_empty() {
        out.push(on_campaign(NotificationLevel::Warning, "Campaign is disabled; its goals will not deliver until it is enabled.".into()));
    }
    // Enabled, with live goals that have ads, none of which can serve.
    let with_ads: Vec<&&GoalSummary> = live.iter().filter(|g| g.ads_total > 0 && g.demand.is_none()).collect();
    if c.enabled && !with_ads.is_empty() && with_ads.iter().all(|g| g.delivery.as_ref().is_some_and(|d| d.servable_ads == 0)) {
        out.push(on_campaign(
            NotificationLevel::Warning,
            "No goal of the campaign has an ad that can serve (enabled, with playable media): it delivers nothing.".into(),
        ));
    }
    for g in goals {
        let on_goal = |level, message: String| Notification {
            concerned_id: g.id.clone(),
            concerned_type: NotificationSubject::Goal,
            level,
            message,
            related_id: c.id.clone(),
            related_type: NotificationSubject::Campaign,
        };
        let ended = g.end.is_some_and(|e| e <= now);
        let d = g.delivery.as_ref();
        let of_target =
            |d: &GoalDelivery, t: f64| format!("{} of {} ({:.0} %)", d.delivered, t.round(), 100.0 * d.delivered as f64 / t.max(1.0));
        if ended {
            let when = g.end.map(|e| e.to_rfc3339_opts(chrono::SecondsFormat::Secs, true)).unwrap_or_default();
            match d.and_then(|d| Some((d, d.target?))) {
                Some((d, t)) if (d.delivered as f64) < t => out.push(on_goal(
                    NotificationLevel::Warning,
                    format!(
                        "Goal '{}' ended at {when} under-delivered: {}, short by {}.",
                        g.name,
                        of_target(d, t),
                        (t - d.delivered as f64).round()
                    ),
                )),
                Some((d, t)) => {
                    out.push(on_goal(NotificationLevel::Info, format!("Goal '{}' ended at {when}: delivered {}.", g.name, of_target(d, t))))
                }
                None => out.push(on_goal(NotificationLevel::Info, format!("Goal '{}' ended at {when}.", g.name))),
            }
            continue;
        }
        if let Some(d) = d {
            let started = g.start.is_none_or(|s| s <= now);
            match (d.target, d.cap_reached) {
                (Some(t), _) if d.delivered as f64 >= t => out
                    .push(on_goal(NotificationLevel::Info, format!("Goal '{}' has delivered its target ({}); it serves no more.", g.name, of_target(d, t)))),
                (_, Some(cap)) => out.push(on_goal(
                    NotificationLevel::Info,
                    format!("Goal '{}' reached its {cap}; it serves again when the cap's period turns (account time zone).", g.name),
                )),
                _ if d.ahead_of_plan => out.push(on_goal(
                    NotificationLevel::Info,
                    format!(
                        "Goal '{}' is ahead of its plan (delivered {}, plan within the hour {}); pacing holds it back until the plan catches up.",
                        g.name,
                        d.delivered,
                        d.plan_now.unwrap_or(0.0).round()
                    ),
                )),
                (Some(t), None) if started && d.elapsed >= SHORTFALL_AFTER_ELAPSED => {
                    if let Some(p) = d.projected.filter(|p| *p < SHORTFALL_BELOW * t) {
                        out.push(on_goal(
                            NotificationLevel::Warning,
                            format!(
                                "Goal '{}' is projected to deliver {} of its target {} by its end ({:.0} %): a shortfall of {}{}.",
                                g.name,
                                p.round(),
                                t.round(),
                                100.0 * p / t.max(1.0),
                                (t - p).round(),
                                if d.projected_from.is_empty() { String::new() } else { format!(" ({})", d.projected_from) }
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
        match &g.demand {
            Some(GoalDemand::NoMarketplace) => {
                out.push(on_goal(
                    NotificationLevel::Warning,
                    format!("Goal '{}' is filled from a marketplace and has none (marketplaceId): it serves nothing.", g.name),
                ));
                continue;
            }
            Some(GoalDemand::Auction { marketplace, silent }) => {
                if let Some((deals, requests)) = silent {
                    out.push(on_goal(
                        NotificationLevel::Warning,
                        format!(
                            "Goal '{}' (programmatic guaranteed, marketplace '{marketplace}'): the buyers of deal {} sent no bid to today's {requests} bid requests; it under-delivers.",
                            g.name,
                            deals.join(", ")
                        ),
                    ));
                }
                // Its ads are the auction's: no warning about its own.
                continue;
            }
            None => {}
        }
        if g.ads_total == 0 {
            out.push(on_goal(NotificationLevel::Warning, format!("Goal '{}' has no ads; it cannot deliver.", g.name)));
        } else if g.ads_enabled == 0 {
            out.push(on_goal(NotificationLevel::Warning, format!("Goal '{}' has ads but none is enabled.", g.name)));
        }
        for (ad, why) in &g.ads_without_media {
            out.push(on_goal(NotificationLevel::Warning, format!("Ad '{ad}' of goal '{}' is not served: {why}.", g.name)));
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
            delivery: None,
            demand: None,
        }
    }

    #[test]
    fn ads_without_media_are_named() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let mut g = goal("g1", 5, 2, 2, now);
        g.ads_without_media = vec![("Spot".into(), "waiting for its media: the renditions are being made".into())];
        let n = notifications(&campaign(true), &[g], now);
        assert_eq!(n.len(), 1);
        assert_eq!((n[0].concerned_id.as_str(), n[0].level), ("g1", NotificationLevel::Warning));
        assert_eq!(n[0].message, "Ad 'Spot' of goal 'G1' is not served: waiting for its media: the renditions are being made.");
    }

    #[test]
    fn no_goals_warns_on_the_campaign() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let n = notifications(&campaign(true), &[], now);
        assert_eq!(n.len(), 1);
        assert_eq!((n[0].concerned_type, n[0].level), (NotificationSubject::Campaign, NotificationLevel::Warning));
        assert!(n[0].message.contains("no goals"));
    }

    #[test]
    fn goal_rules() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let goals = [goal("g1", 5, 0, 0, now), goal("g2", 5, 2, 0, now), goal("g3", -1, 0, 0, now), goal("g4", 5, 1, 1, now)];
        let n = notifications(&campaign(true), &goals, now);
        let got: Vec<(&str, NotificationSubject, NotificationLevel)> =
            n.iter().map(|x| (x.concerned_id.as_str(), x.concerned_type, x.level)).collect();
        assert_eq!(
            got,
            vec![
                ("g1", NotificationSubject::Goal, NotificationLevel::Warning),
                ("g2", NotificationSubject::Goal, NotificationLevel::Warning),
                ("g3", NotificationSubject::Goal, NotificationLevel::Info)
            ]
        );
        assert!(n[0].message.contains("no ads") && n[1].message.contains("none is enabled") && n[2].message.contains("ended"));
        assert!(n.iter().all(|x| x.related_id == "c1" && x.related_type == NotificationSubject::Campaign));
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

    fn delivering(target: f64, delivered: u64, elapsed: f64) -> GoalDelivery {
        GoalDelivery {
            target: Some(target),
            delivered,
            elapsed,
            servable_ads: 1,
            projected: Some(delivered as f64 / elapsed.max(0.01)),
            ..GoalDelivery::default()
        }
    }

    #[test]
    fn delivery_situations_are_named() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let with = |id: &str, end: i64, d: GoalDelivery| GoalSummary { delivery: Some(d), ..goal(id, end, 1, 1, now) };
        let capped = GoalDelivery { cap_reached: Some("DAILY_CAP"), ..delivering(1000.0, 300, 0.5) };
        let ahead = GoalDelivery { ahead_of_plan: true, plan_now: Some(4.2), ..delivering(1000.0, 5, 0.001) };
        let goals = [
            with("short", 5, delivering(1000.0, 200, 0.5)),
            with("early", 5, delivering(1000.0, 1, 0.05)),
            with("done", 5, delivering(1000.0, 1000, 0.5)),
            with("capped", 5, capped),
            with("ahead", 5, ahead),
            with("under", -1, delivering(1000.0, 400, 1.0)),
            with("met", -1, delivering(1000.0, 1000, 1.0)),
        ];
        let n = notifications(&campaign(true), &goals, now);
        let got: Vec<(&str, NotificationLevel)> = n.iter().map(|x| (x.concerned_id.as_str(), x.level)).collect();
        assert_eq!(
            got,
            vec![
                ("short", NotificationLevel::Warning),
                ("done", NotificationLevel::Info),
                ("capped", NotificationLevel::Info),
                ("ahead", NotificationLevel::Info),
                ("under", NotificationLevel::Warning),
                ("met", NotificationLevel::Info)
            ],
            "{n:?}"
        );
        assert!(
            n[0].message.contains("projected to deliver 400 of its target 1000") && n[0].message.contains("shortfall of 600"),
            "{}",
            n[0].message
        );
        assert!(n[1].message.contains("delivered its target"));
        assert!(n[2].message.contains("DAILY_CAP"));
        assert!(n[3].message.contains("ahead of its plan"));
        assert!(n[4].message.contains("under-delivered: 400 of 1000 (40 %), short by 600"), "{}", n[4].message);
    }

    #[test]
    fn programmatic_goals_are_warned_about_their_demand_not_their_ads() {
        let now = Utc::now();
        let mut rtb = goal("g1", 5, 0, 0, now);
        rtb.demand = Some(GoalDemand::NoMarketplace);
        let mut pg = goal("g2", 5, 0, 0, now);
        pg.demand = Some(GoalDemand::Auction { marketplace: "Premium".into(), silent: Some((vec!["pg-1".into()], 40)) });
        let mut open = goal("g3", 5, 0, 0, now);
        open.demand = Some(GoalDemand::Auction { marketplace: "Open".into(), silent: None });
        let n = notifications(&campaign(true), &[rtb, pg, open], now);
        let texts: Vec<&str> = n.iter().map(|x| x.message.as_str()).collect();
        assert_eq!(n.len(), 2, "{texts:?}");
        assert!(texts[0].contains("has none (marketplaceId)") && texts[1].contains("deal pg-1 sent no bid to today's 40"), "{texts:?}");
    }

    #[test]
    fn a_campaign_whose_goals_have_no_servable_ad_is_warned() {
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 0, 0, 0).unwrap();
        let none = GoalDelivery { servable_ads: 0, ..GoalDelivery::default() };
        let goals = [GoalSummary { delivery: Some(none), ..goal("g1", 5, 1, 1, now) }];
        let n = notifications(&campaign(true), &goals, now);
        assert_eq!((n[0].concerned_type, n[0].level), (NotificationSubject::Campaign, NotificationLevel::Warning));
        assert!(n[0].message.contains("No goal of the campaign has an ad that can serve"));
    }
}
