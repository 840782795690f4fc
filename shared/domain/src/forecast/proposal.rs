//! What a forecast adds to the account's records before compiling the snapshot: the
//! proposed campaign with its goals and ads (campaign forecast), or a probe goal that holds
//! the inventory request's targeting and never serves (inventory forecast).

use std::collections::HashMap;

use chrono::{DateTime, Utc};

use super::request::{CampaignForecast, InventoryForecast, Targeting};
use crate::delivery::snapshot::{AdFormat, Input};
use crate::delivery::synthetic;
use crate::model::asset::Asset;
use crate::model::enums::{AssetStatus, CapKind, CreativeType, GoalType, ParentOverride};
use crate::model::goal::Cap;
use crate::model::rules::{Parent, Rules};

pub const CAMPAIGN: &str = "forecast-campaign";
pub const PROBE: &str = "forecast-probe";
const PAUSE_ASSET: &str = "forecast-pause-asset";

/// The proposed goal ids of a campaign forecast, in request order.
pub fn goal_id(i: usize) -> String {
    format!("forecast-goal-{i}")
}

/// Rules with the parent overrides of a forecast targeting applied as ignore flags.
fn with_overrides(t: &Targeting, parent: &str) -> Rules {
    let mut r = t.rules.clone();
    r.parent_id = parent.to_string();
    for o in &t.overrides {
        match o {
            ParentOverride::ContentRules => r.ignore_parent_content_rules = true,
            ParentOverride::TagAndPartnerRules => r.ignore_parent_tag_rules = true,
            ParentOverride::FrequencyRules => r.ignore_parent_frequency_rules = true,
            ParentOverride::LocationRules => r.ignore_parent_location_rules = true,
            // Audience rules have no parent flag: the goal's own audience rules apply as given.
            ParentOverride::AudienceRules => {}
        }
    }
    r
}

fn templates_of(t: &Targeting, rules: &HashMap<String, Rules>) -> Vec<Rules> {
    t.templates.iter().filter_map(|id| rules.get(id).cloned()).collect()
}

/// Adds the proposed campaign to `input`; returns the proposed goal ids.
pub fn add_campaign(input: &mut Input, f: &CampaignForecast, templates: &HashMap<String, Rules>, now: DateTime<Utc>) -> Vec<String> {
    let mut c = synthetic::campaign(CAMPAIGN, now);
    c.priority = f.priority;
    c.front_load_factor = f.frontload;
    input.campaigns.push(c);
    input.rules.push(((Parent::Campaign, CAMPAIGN.into()), with_overrides(&f.targeting, CAMPAIGN)));
    input.linked.insert((Parent::Campaign, CAMPAIGN.into()), templates_of(&f.targeting, templates));
    input.assets.insert(
        PAUSE_ASSET.into(),
        Asset {
            status: AssetStatus::Transcoded,
            content_type: Some("image/png".into()),
            object_key: Some("forecast/pause.png".into()),
            linked: true,
            still: Some(crate::model::asset::Still { key: "forecast/pause.jpg".into(), width: 640, height: 360 }),
            ..Asset::new(PAUSE_ASSET, "pause.png", crate::model::enums::AssetSource::Forecast, now)
        },
    );
    let mut ids = Vec::new();
    for (i, g) in f.goals.iter().enumerate() {
        let id = goal_id(i);
        let kind = g.goal_type;
        let value = if kind == GoalType::Rtb { 0.0 } else { g.value };
        let mut goal = synthetic::goal(&id, CAMPAIGN, kind.as_str(), value, g.start, g.end);
        goal.name = Some(g.name.clone());
        goal.priority = g.priority;
        goal.front_load_factor = g.frontload;
        goal.variant = g.variant;
        goal.unlimited_impressions = kind == GoalType::Rtb;
        goal.marketplace_id = g.marketplace_id.clone();
        if let Some(cap) = g.daily_cap {
            goal.caps.push(Cap { kind: CapKind::DailyCap, value: cap as f64 });
        }
        input.goals.push(goal);
        input.rules.push(((Parent::Goal, id.clone()), with_overrides(&g.targeting, &id)));
        for (j, a) in g.ads.iter().enumerate() {
            let Some(format) = a.format.ad_format() else { continue };
            let mut ad = synthetic::ad(&format!("{id}-ad-{j}"), &id, "preroll", None, now);
            ad.name = a.name.clone();
            ad.start = a.start;
            ad.end = a.end;
            ad.device_containers = Some(a.device_containers.clone());
            ad.creative.insertion_point = format.insertion_point();
            if format == AdFormat::Pause {
                ad.creative.kind = CreativeType::Pause;
                ad.creative.asset_id = Some(PAUSE_ASSET.into());
            }
            input.ads.push(ad);
        }
        ids.push(id);
    }
    ids
}

/// Adds the inventory request's probe goal (its targeting, the window, no ads).
pub fn add_probe(input: &mut Input, f: &InventoryForecast, templates: &HashMap<String, Rules>, now: DateTime<Utc>) {
    let campaign = format!("{PROBE}-campaign");
    input.campaigns.push(synthetic::campaign(&campaign, now));
    let mut g = synthetic::goal(PROBE, &campaign, "UNLIMITED_IMPRESSION", 0.0, f.start, f.end);
    g.unlimited_impressions = true;
    input.goals.push(g);
    input.rules.push(((Parent::Goal, PROBE.into()), with_overrides(&f.targeting, PROBE)));
    input.linked.insert((Parent::Goal, PROBE.into()), templates_of(&f.targeting, templates));
}
