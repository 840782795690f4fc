//! Ads of `/v1/ads` (seed 000 §2.1-§2.4, §3, §4.1-§4.4, §6, §8).

use crate::rule::Rule;
use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::asset::{Asset, AssetStatus};
pub use super::creative::{allowed_events, event_v3, Creative, Tracker};
use super::enums::{AdFormat, CreativeType, TrackerEvent};
use super::goal::{AdSummary, Goal};
use crate::domain_error::FieldError;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Ad {
    pub id: String,
    pub goal_id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub enabled: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    pub creative: Creative,
    /// Explicit start; absent: the goal's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "crate::fasttime::opt")]
    pub start: Option<DateTime<Utc>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[serde(deserialize_with = "crate::fasttime::opt")]
    pub end: Option<DateTime<Utc>>,
    #[serde(default)]
    pub external_trackers: Vec<Tracker>,
    /// Explicit device containers; absent: all of the account's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device_containers: Option<Vec<String>>,
    #[serde(deserialize_with = "crate::fasttime::req")]
    pub created: DateTime<Utc>,
    #[serde(deserialize_with = "crate::fasttime::req")]
    pub modified: DateTime<Utc>,
    /// When the creative was last changed (the list item's creative dates).
    #[serde(deserialize_with = "crate::fasttime::req")]
    pub creative_modified: DateTime<Utc>,
}

impl Ad {
    pub fn summary(&self) -> AdSummary {
        AdSummary { id: self.id.clone(), enabled: self.enabled, format: self.creative.format(), weight: self.weight }
    }

    pub fn effective_start(&self, g: &Goal) -> DateTime<Utc> {
        self.start.unwrap_or(g.start)
    }

    pub fn effective_end(&self, g: &Goal) -> Option<DateTime<Utc>> {
        self.end.or(g.end)
    }

    /// The write shape with id (responses of POST, PUT, and GET /v1/ads/{id}).
    /// The device containers the ad runs on: its own list, or every one of the account's
    /// when it names none (seed 000 §2.2: the default is all available device containers).
    pub fn device_containers_or<'a>(&'a self, all: &'a [String]) -> &'a [String] {
        self.device_containers.as_deref().unwrap_or(all)
    }

    pub fn view<'a>(&'a self, g: &Goal, all_containers: &'a [String]) -> AdView<'a> {
        AdView {
            id: &self.id,
            name: &self.name,
            goal_id: &self.goal_id,
            custom_id: self.custom_id.as_deref(),
            description: self.description.as_deref(),
            enabled: self.enabled,
            weight: self.weight,
            creative: &self.creative,
            start: self.effective_start(g),
            end: self.effective_end(g),
            external_trackers: self.external_trackers.iter().map(TrackerView::of).collect(),
            device_containers: self.device_containers_or(all_containers),
            created: self.created,
            modified: self.modified,
        }
    }

    /// The list item of `GET /v1/ads` (§2.4).
    pub fn list_item(&self) -> AdListItem<'_> {
        AdListItem {
            id: &self.id,
            name: &self.name,
            goal_id: &self.goal_id,
            description: self.description.as_deref(),
            enabled: self.enabled,
            created: self.created,
            creative: CreativeSummary {
                kind: self.creative.kind,
                insertion_point: self.creative.insertion_point,
                asset_id: self.creative.asset_id.as_deref(),
                creation_date: self.created,
                modification_date: self.creative_modified,
            },
            external_trackers: self.external_trackers.iter().map(TrackerView::of).collect(),
        }
    }
}

/// An ad as `GET /v1/ads/{id}` and every write answer show it (§2.1): dates and device
/// containers resolved against the goal and the account.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdView<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub goal_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub custom_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    pub enabled: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    pub creative: &'a Creative,
    /// The ad's start, else the goal's.
    pub start: DateTime<Utc>,
    /// The ad's end, else the goal's (absent: open-ended).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub end: Option<DateTime<Utc>>,
    pub external_trackers: Vec<TrackerView<'a>>,
    /// The ad's device containers, else all of the account's.
    pub device_containers: &'a [String],
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

/// An external tracker as the API shows it (its stored id stays inside).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct TrackerView<'a> {
    pub url: &'a str,
    pub event: TrackerEvent,
}

impl<'a> TrackerView<'a> {
    fn of(t: &'a Tracker) -> Self {
        TrackerView { url: &t.url, event: t.event }
    }
}

/// An item of `GET /v1/ads` (§2.4).
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdListItem<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub goal_id: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<&'a str>,
    pub enabled: bool,
    pub created: DateTime<Utc>,
    pub creative: CreativeSummary<'a>,
    pub external_trackers: Vec<TrackerView<'a>>,
}

#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreativeSummary<'a> {
    #[serde(rename = "type")]
    pub kind: CreativeType,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub insertion_point: Option<super::enums::InsertionPoint>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub asset_id: Option<&'a str>,
    pub creation_date: DateTime<Utc>,
    pub modification_date: DateTime<Utc>,
}

/// An ad's share as `/v3` shows it: `{proportional, totalOverridden, value}`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Weight {
    pub proportional: bool,
    /// The sum of the explicit weights among the ads of the same format in the goal.
    pub total_overridden: f64,
    pub value: f64,
}

/// Weights of a goal's ads (§2.3): per format, explicit weights as given; the ads without
/// one share `100 − sum of explicit weights` equally.
pub fn weights(ads: &[AdSummary]) -> HashMap<String, Weight> {
    let mut by_format: HashMap<AdFormat, Vec<&AdSummary>> = HashMap::new();
    for a in ads {
        by_format.entry(a.format).or_default().push(a);
    }
    let mut out = HashMap::new();
    for group in by_format.values() {
        let total: f64 = group.iter().filter_map(|a| a.weight).sum();
        let shares = weight_shares(&group.iter().map(|a| a.weight).collect::<Vec<_>>());
        for (a, share) in group.iter().zip(shares) {
            let w = match a.weight {
                Some(v) => Weight { proportional: false, total_overridden: total, value: v },
                None => Weight { proportional: true, total_overridden: total, value: (share * 10_000.0).round() / 10_000.0 },
            };
            out.insert(a.id.clone(), w);
        }
    }
    out
}

/// Weight shares of one format's ads in a goal (§2.3): explicit weights as given, the
/// rest shared equally by the ads without one; all equal when none has a weight. The one
/// rule the API's weights, the serving engine and the forecast use.
pub fn weight_shares(weights: &[Option<f64>]) -> Vec<f64> {
    let explicit: f64 = weights.iter().flatten().sum();
    let proportional = weights.iter().filter(|w| w.is_none()).count();
    let rest = if proportional > 0 { ((100.0 - explicit).max(0.0)) / proportional as f64 } else { 0.0 };
    weights.iter().map(|w| w.unwrap_or(rest)).collect()
}

/// The device containers an ad names that the account does not have (`known`).
pub fn check_containers(ad: &Ad, known: &[String]) -> Vec<FieldError> {
    let named = ad.device_containers.iter().flatten();
    named
        .filter(|d| !known.contains(d))
        .map(|d| FieldError::new("deviceContainers", Rule::Reference, format!("deviceContainers: no device container {d} in this account")))
        .collect()
}

/// The asset an ad links (`asset`: as stored, `None` when the account does not have it): it
/// must exist, and a failed one cannot be newly linked (an ad that already links it keeps it).
pub fn check_asset(ad: &Ad, current: Option<&Ad>, asset: Option<Option<&Asset>>) -> Vec<FieldError> {
    let (Some(asset_id), Some(asset)) = (&ad.creative.asset_id, asset) else { return Vec::new() };
    match asset {
        None => vec![FieldError::new(
            "creative.assetId",
            Rule::Reference,
            format!("creative.assetId: no asset {asset_id} in this account (or it expired)"),
        )],
        Some(a) if a.status == AssetStatus::Failed && current.is_none_or(|c| c.creative.asset_id.as_ref() != Some(asset_id)) => {
            vec![FieldError::new(
                "creative.assetId",
                Rule::Media,
                format!(
                    "creative.assetId: asset {asset_id} failed ({}); upload the file again",
                    a.failure_reason.as_deref().unwrap_or("the file could not be processed")
                ),
            )]
        }
        Some(_) => Vec::new(),
    }
}

/// The sum of explicit weights of one format in a goal, without the ad `except`.
/// The rules an ad obeys inside its goal (seed 000 §2.3, §3): its flight within the goal's,
/// end after start, explicit weights of one format summing to at most 100, and at most
/// `MAX_ADS_PER_GOAL` ads in a goal (`is_new`: the ad is not in the goal yet).
pub fn check_in_goal(ad: &Ad, g: &Goal, is_new: bool) -> Vec<FieldError> {
    let mut errors: Vec<FieldError> = Vec::new();
    if let Some(s) = ad.start {
        if s < g.start {
            errors.push(FieldError::new(
                "start",
                Rule::WithinGoal,
                format!("start must not be before the goal's start ({})", g.start.to_rfc3339()),
            ));
        }
    }
    if let (Some(e), Some(ge)) = (ad.end, g.end) {
        if e > ge {
            errors.push(FieldError::new("end", Rule::WithinGoal, format!("end must not be after the goal's end ({})", ge.to_rfc3339())));
        }
    }
    if let Some(e) = ad.effective_end(g) {
        if e <= ad.effective_start(g) && errors.is_empty() {
            errors.push(FieldError::new("end", Rule::AfterStart, "end must be after start (with the goal's dates where the ad has none)"));
        }
    }
    if let Some(w) = ad.weight {
        let fmt = ad.creative.format();
        let others = explicit_sum(&g.ads, fmt, &ad.id);
        if others + w > 100.0 + 1e-9 {
            errors.push(FieldError::new(
                "weight",
                Rule::WeightSum,
                format!("the explicit weights of the goal's {fmt} ads would sum to {} (at most 100; the others hold {others})", others + w),
            ));
        }
    }
    if is_new && g.ads.len() >= super::goal::MAX_ADS_PER_GOAL {
        errors.push(FieldError::new("goalId", Rule::MaxAds, format!("a goal holds at most {} ads", super::goal::MAX_ADS_PER_GOAL)));
    }
    errors
}

pub fn explicit_sum(ads: &[AdSummary], format: AdFormat, except: &str) -> f64 {
    ads.iter().filter(|a| a.format == format && a.id != except).filter_map(|a| a.weight).sum()
}

#[cfg(test)]
#[path = "ad_tests.rs"]
mod tests;
