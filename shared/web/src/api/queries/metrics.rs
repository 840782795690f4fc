//! The `/v3` metrics object (docs/queries.md): the counters, rates and eCPM a `metrics=`
//! list names, and the invalid traffic apart, typed. Members are declared in name order,
//! as the object has always listed them.

use serde::Serialize;

use crate::delivery::counters::Counters;
use crate::delivery::ivt::Reason;
use crate::model::enums::{Counter, Metric};
use crate::model::goal::Goal;

/// The counters and rates named by `metrics=` (a name not asked for is absent).
#[derive(Debug, Default, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MetricsOut {
    /// Clicks counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub click_through: Option<i64>,
    /// Completes counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub complete: Option<i64>,
    /// Completes per start.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub completion_rate: Option<f64>,
    /// Clicks per impression.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ctr: Option<f64>,
    /// Events of the goal's own kind (its delivery).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub delivered: Option<i64>,
    /// Revenue per thousand impressions from the goal's pricing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ecpm: Option<f64>,
    /// First quartiles counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_quartile: Option<i64>,
    /// Impressions counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub impression: Option<i64>,
    /// The invalid traffic filtered from the valid counters.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid: Option<InvalidOut>,
    /// Midpoints counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub midpoint: Option<i64>,
    /// Programmatic revenue: the clearing CPMs of the valid impressions / 1,000, in the
    /// marketplace's currency (0 for direct goals).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revenue: Option<f64>,
    /// Of the impressions, those a registered stitcher fired (server-side ad insertion).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub server_initiated: Option<i64>,
    /// Starts counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub start: Option<i64>,
    /// Third quartiles counted.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub third_quartile: Option<i64>,
}

/// Invalid events in all and per reason (docs/traffic-quality.md); never part of the
/// other metrics.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvalidOut {
    /// The address block had spent its share of the goal's cap.
    pub address_goal_cap: i64,
    /// The address block fired more impressions a minute than a shared network does.
    pub address_rate: i64,
    /// A known crawler, spider or monitoring bot.
    pub crawler: i64,
    /// The link was fired before (a replay).
    pub duplicate: i64,
    /// The link was older than a link lives.
    pub expired: i64,
    /// No impression was counted for the event's impression id.
    pub no_impression: i64,
    /// A non-browser client or headless automation, or no User-Agent.
    pub non_browser: i64,
    /// Invalid events of every reason.
    pub total: i64,
    /// The viewer had spent its share of the goal's cap.
    pub viewer_goal_cap: i64,
    /// The viewer fired more impressions a minute than a person watches.
    pub viewer_rate: i64,
}

impl InvalidOut {
    fn of(c: &Counters) -> InvalidOut {
        let n = |r| c.invalid(r);
        InvalidOut {
            address_goal_cap: n(Reason::AddressGoalCap),
            address_rate: n(Reason::AddressRate),
            crawler: n(Reason::Crawler),
            duplicate: n(Reason::Duplicate),
            expired: n(Reason::Expired),
            no_impression: n(Reason::NoImpression),
            non_browser: n(Reason::NonBrowser),
            total: c.invalid_total(),
            viewer_goal_cap: n(Reason::ViewerGoalCap),
            viewer_rate: n(Reason::ViewerRate),
        }
    }
}

impl MetricsOut {
    /// The metrics `names` of a record's counters (`goal`: its pricing, for eCPM).
    pub fn of(c: &Counters, names: &[Metric], goal: Option<&Goal>) -> MetricsOut {
        let mut m = MetricsOut::default();
        for name in names {
            match name {
                Metric::Impression => m.impression = Some(c.get(Counter::Impression)),
                Metric::ClickThrough => m.click_through = Some(c.get(Counter::ClickThrough)),
                Metric::Start => m.start = Some(c.get(Counter::Start)),
                Metric::FirstQuartile => m.first_quartile = Some(c.get(Counter::FirstQuartile)),
                Metric::Midpoint => m.midpoint = Some(c.get(Counter::Midpoint)),
                Metric::ThirdQuartile => m.third_quartile = Some(c.get(Counter::ThirdQuartile)),
                Metric::Complete => m.complete = Some(c.get(Counter::Complete)),
                Metric::Delivered => m.delivered = Some(c.get(Counter::Delivered)),
                Metric::ServerInitiated => m.server_initiated = Some(c.get(Counter::ServerInitiated)),
                Metric::Revenue => m.revenue = Some(c.revenue()),
                Metric::Ctr => m.ctr = Some(c.ctr()),
                Metric::CompletionRate => m.completion_rate = Some(c.completion_rate()),
                Metric::Ecpm => m.ecpm = Some(goal.map_or(0.0, |g| c.ecpm(g))),
                Metric::Invalid => m.invalid = Some(InvalidOut::of(c)),
            }
        }
        m
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::delivery::counters::Slot;

    #[test]
    fn the_object_lists_what_was_asked_in_name_order() {
        let mut c = Counters::default();
        c.add(Slot::Valid(Counter::Impression), 4);
        c.add(Slot::Valid(Counter::ClickThrough), 1);
        c.add(Slot::Invalid(Reason::NonBrowser), 2);
        let m = MetricsOut::of(&c, &[Metric::Invalid, Metric::Ctr, Metric::Impression], None);
        let text = serde_json::to_string(&m).unwrap();
        assert!(text.starts_with(r#"{"ctr":0.25,"impression":4,"invalid":{"addressGoalCap":0,"#), "{text}");
        assert!(text.contains(r#""nonBrowser":2,"total":2,"#), "{text}");
        // Every reason has its member, and the members are in name order as JSON maps sort.
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let keys: Vec<&String> = v["invalid"].as_object().unwrap().keys().collect();
        assert_eq!(keys.len(), Reason::ALL.len() + 1);
        let all = MetricsOut::of(&c, Metric::ALL, None);
        let text = serde_json::to_string(&all).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        let sorted: Vec<&String> = v.as_object().unwrap().keys().collect();
        assert_eq!(sorted.len(), Metric::ALL.len());
        assert!(text.starts_with(&format!("{{\"{}\"", sorted[0])), "{text}");
    }
}
