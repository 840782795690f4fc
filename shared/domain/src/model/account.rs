//! Accounts, their settings, and their reference data (created by the admin command only).

use serde::{Deserialize, Serialize};

fn utc() -> String {
    "UTC".into()
}
fn five() -> u8 {
    5
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Features {
    #[serde(default)]
    pub insertion_policy: bool,
    #[serde(default)]
    pub ecpm: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Limits {
    pub insertion_policies: u32,
    pub targeting_templates: u32,
    pub audience_provider_integrations: u32,
    pub tags_per_policy: u32,
    pub categories_per_policy: u32,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            insertion_policies: 50,
            targeting_templates: 20,
            audience_provider_integrations: 3,
            tags_per_policy: 20,
            categories_per_policy: 29,
        }
    }
}

/// Ad formats an account can enable.
pub const AD_FORMATS: &[&str] = &["preroll", "midroll", "postroll", "seekroll", "overlay", "pause", "companion"];

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    #[schema(value_type = String)]
    pub id: crate::ids::AccountId,
    pub name: String,
    #[serde(default = "utc")]
    pub time_zone: String,
    /// `time_zone`'s offsets, computed when the account is seeded (model/zone.rs).
    #[serde(default)]
    #[schema(value_type = String)]
    pub zone: super::zone::Zone,
    #[serde(default = "five")]
    pub global_priority: u8,
    #[serde(default)]
    pub global_frontload: u8,
    /// Audience region of the account (`eu`, `asia`), checked by batch uploads.
    #[serde(default)]
    pub region: Option<String>,
    #[serde(default)]
    pub features: Features,
    #[serde(default)]
    pub ad_formats: Vec<String>,
    #[serde(default)]
    pub limits: Limits,
    /// The traffic forecasts assume while the account has no recorded ad requests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub traffic_profile: Option<TrafficProfile>,
}

/// An account's expected ad requests (seed file `trafficProfile`, docs/forecasts.md): used
/// by forecasts until the serving endpoint has recorded two weeks of samples.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TrafficProfile {
    pub requests_per_day: u64,
    /// 24 shares of the day's requests by local hour (default: a viewing-day curve).
    #[serde(default)]
    pub hourly_shares: Vec<f64>,
    /// Share of requests per break: preroll, midroll, postroll, pause.
    #[serde(default)]
    pub format_shares: std::collections::BTreeMap<String, f64>,
    /// Share of requests per category id (the rest carry no category).
    #[serde(default)]
    pub category_shares: std::collections::BTreeMap<String, f64>,
    /// Probability that a request carries each tag.
    #[serde(default)]
    pub tag_shares: std::collections::BTreeMap<String, f64>,
    /// Share of requests per device container id.
    #[serde(default)]
    pub device_container_shares: std::collections::BTreeMap<String, f64>,
}

impl Account {
    /// The account's time zone (its offsets table; UTC when the account has none yet).
    pub fn tz(&self) -> &super::zone::Zone {
        &self.zone
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Category {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
    #[serde(default)]
    pub parents: Vec<String>,
}

fn yes() -> bool {
    true
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContentPartner {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BannerArea {
    pub id: String,
    pub name: String,
    #[serde(default)]
    pub description: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub height: u32,
    pub width: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DeviceContainer {
    pub id: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Segment {
    pub id: String,
    /// The key a batch file uses (case-sensitive).
    pub key: String,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Segmentation {
    pub id: String,
    pub key: String,
    pub name: String,
    #[serde(default)]
    pub segments: Vec<Segment>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AudienceProvider {
    pub id: String,
    pub name: String,
    pub url_identifier: String,
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default)]
    pub segmentations: Vec<Segmentation>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CustomParameter {
    /// The parameter name without the `acp.` prefix.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

/// What a key item points at.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct KeyRecord {
    pub account_id: String,
    #[serde(default)]
    pub label: Option<String>,
    /// When the key was made (keys seeded before this field have none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created: Option<chrono::DateTime<chrono::Utc>>,
    /// What the key may do; keys made before roles are ADMIN (docs/people-and-roles.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<super::access::Role>,
}
