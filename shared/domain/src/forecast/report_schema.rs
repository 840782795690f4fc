//! The reports' shapes (seed 002 §2.7) as types: `report.rs` builds them, the job record
//! stores them, the API serialises them, the charts read them, and the OpenAPI document
//! describes them (the HTTP tests read every report back into them, unknown fields
//! refused). The keys of the `...ByDate` maps are the start of each local day (ISO-8601
//! with the account's offset). The echoed parts of a campaign report (rules, delivery goal,
//! ads) are the client's JSON as submitted.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use utoipa::ToSchema;

use crate::model::enums::FormatType;

/// InventoryForecastResultBean.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InventoryReport {
    pub total_inventory: InventorySide,
    /// What booked goals leave.
    pub unused_inventory: InventorySide,
    pub name: Option<String>,
    pub job_id: String,
    /// The traffic replayed: `recorded` (the last 14 local days of sampled requests) or
    /// `profile` (the account's traffic profile, or the default one, when none was recorded).
    pub traffic_source: String,
    /// How booked programmatic goals were filled (a bidder is never asked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programmatic_basis: Vec<ProgrammaticBasis>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InventorySide {
    pub total: f64,
    pub inventory_by_date: BTreeMap<String, InventoryDay>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InventoryDay {
    pub total: f64,
    pub low: f64,
    pub high: f64,
    /// The hours of this local day the window covers, when it covers part of it (the
    /// window's first or last day: a UTC-midnight end is a one-hour last day at UTC+1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hours: Option<u32>,
    /// By format type (PREROLL, MIDROLL, POSTROLL, PAUSE_AD).
    #[schema(value_type = BTreeMap<String, FormatTotal>)]
    pub inventory_by_format: BTreeMap<FormatType, FormatTotal>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct FormatTotal {
    pub total: f64,
}

/// FeasibilityForecastResultBean: the submitted campaign echoed (unset values null, every
/// rule array present), each goal followed by its forecast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
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
    /// As the inventory report's: `recorded` or `profile`.
    pub traffic_source: String,
    /// How the forecast's programmatic goals were filled (a bidder is never asked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub programmatic_basis: Vec<ProgrammaticBasis>,
}

/// How a marketplace's goals were filled in a forecast: at its recorded fill rate (wins per
/// auction over the last 7 days, from 100 auctions on), or, without one, in every break
/// they were picked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProgrammaticBasis {
    /// The marketplace.
    pub marketplace_id: String,
    /// FILL_RATE or UNLIMITED.
    pub basis: String,
    /// The fill rate used (FILL_RATE only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fill_rate: Option<f64>,
    /// The auctions it was recorded over.
    pub auctions: i64,
}

/// A targeting object as submitted; `targetingRules` has every rule array.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct EchoedTargeting {
    pub targeting_templates: Option<Vec<String>>,
    #[schema(value_type = Object)]
    pub targeting_rules: Value,
    #[schema(value_type = Option<Object>)]
    pub parent_overrides: Value,
}

/// A goal as submitted (the fields of the request, null when unset) and its forecast.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct GoalReport {
    pub custom_id: Option<String>,
    pub name: Option<String>,
    /// As submitted: an ISO-8601 string or epoch milliseconds (null when unset).
    #[schema(value_type = Option<String>)]
    pub start_date: Value,
    #[schema(value_type = Option<String>)]
    pub end_date: Value,
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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
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
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub competing_goals: Option<Vec<CompetingGoal>>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeliveryDay {
    pub units: f64,
    pub low: f64,
    pub high: f64,
    /// As `InventoryDay::hours`: set on a partly covered first or last day.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hours: Option<u32>,
}

/// A booked goal that takes units from the proposed one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
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
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ToSchema)]
#[serde(untagged)]
pub enum Report {
    Inventory(InventoryReport),
    Campaign(CampaignReport),
}

impl Report {
    /// The report without competing goals (`exclude-competing-goals=true`).
    pub fn without_competing(mut self) -> Report {
        if let Report::Campaign(c) = &mut self {
            for g in &mut c.goals {
                g.forecast.competing_goals = None;
            }
        }
        self
    }
}
