//! The reports' shapes (seed 002 §2.7) as types, for the OpenAPI document and for the
//! tests that read every report the HTTP tests produce into them (unknown fields refused),
//! so `report.rs` (which writes them from the echoed request) cannot drift from the
//! document. The keys of the `...ByDate` maps are the
//! start of each local day (ISO-8601 with the account's offset).

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;
use utoipa::ToSchema;

/// InventoryForecastResultBean.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InventoryReport {
    pub total_inventory: InventorySide,
    /// What booked goals leave.
    pub unused_inventory: InventorySide,
    pub name: Option<String>,
    pub job_id: String,
    /// `samples` (recorded traffic) or `estimate` (trafficEstimate / the account default).
    pub traffic_source: String,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InventorySide {
    pub total: f64,
    pub inventory_by_date: BTreeMap<String, InventoryDay>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InventoryDay {
    pub total: f64,
    pub low: f64,
    pub high: f64,
    /// By format type (PREROLL, MIDROLL, POSTROLL, PAUSE_AD).
    pub inventory_by_format: BTreeMap<String, FormatTotal>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FormatTotal {
    pub total: f64,
}

/// FeasibilityForecastResultBean: the submitted campaign echoed (unset values null, every
/// rule array present), each goal followed by its forecast.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CampaignReport {
    pub advertiser: Option<String>,
    pub agency: Option<String>,
    pub brand: Option<String>,
    pub custom_id: Option<String>,
    pub name: Option<String>,
    pub frontload: Option<u8>,
    pub priority: Option<u8>,
    pub targeting: EchoedTargeting,
    pub goals: Vec<GoalReport>,
    pub job_id: String,
    pub traffic_source: String,
}

/// A targeting object as submitted; `targetingRules` has every rule array.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EchoedTargeting {
    pub targeting_templates: Option<Vec<String>>,
    #[schema(value_type = Object)]
    pub targeting_rules: Value,
    #[schema(value_type = Option<Object>)]
    pub parent_overrides: Value,
}

/// A goal as submitted (the fields of the request, null when unset) and its forecast.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GoalReport {
    pub custom_id: Option<String>,
    pub name: Option<String>,
    pub start_date: Option<String>,
    pub end_date: Option<String>,
    pub priority: Option<u8>,
    pub frontload: Option<u8>,
    pub targeting: EchoedTargeting,
    pub variant: Option<String>,
    pub position_restriction: Option<String>,
    #[schema(value_type = Option<Object>)]
    pub delivery_goal: Value,
    /// The ads as submitted (name, customId, format, deviceContainers, startDate, endDate).
    #[schema(value_type = Vec<Object>)]
    pub ads: Vec<Value>,
    #[schema(value_type = Option<i64>)]
    pub sequence: Value,
    #[schema(value_type = Option<i64>)]
    pub daily_cap: Value,
    #[schema(value_type = Option<String>)]
    pub marketplace_id: Value,
    pub forecast: GoalForecast,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GoalForecast {
    pub forecasted_units: f64,
    pub target: Option<f64>,
    /// forecastedUnits / target, in percent (two decimals).
    pub share_of_target: Option<f64>,
    /// Requests the goal's targeting matches.
    pub matched_units: f64,
    /// Of those, the ones its ads can fill.
    pub possible_units: f64,
    /// Of those, the ones higher-priority booked goals leave.
    pub available_units: f64,
    pub delivery_by_date: BTreeMap<String, DeliveryDay>,
    /// Absent with `exclude-competing-goals=true`.
    #[serde(default)]
    pub competing_goals: Option<Vec<CompetingGoal>>,
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeliveryDay {
    pub units: f64,
    pub low: f64,
    pub high: f64,
}

/// A booked goal that takes units from the proposed one.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CompetingGoal {
    pub goal_id: String,
    pub goal_name: Option<String>,
    pub campaign_id: String,
    pub campaign_name: Option<String>,
    pub priority: u8,
    pub units: f64,
}

/// `GET /api/2.0/forecast/report/{kind}/{id}`: the report of the job's kind.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum Report {
    Inventory(InventoryReport),
    Campaign(CampaignReport),
}
