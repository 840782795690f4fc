//! The JSON request bodies as the parsers accept them, for the OpenAPI document. The
//! parsers (`ObjReader` with a field list) collect every field error at once, so they do
//! not deserialize into these types; the tests below tie each type's properties to its
//! parser's field list, so a field added to one and not the other fails the build's tests.

#![allow(dead_code)]

use chrono::{DateTime, Utc};
use utoipa::ToSchema;

/// `POST /api/2.0/forecast/inventory` (seed 002 §2.5).
#[derive(ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InventoryForecastBody {
    #[schema(max_length = 255)]
    pub name: Option<String>,
    /// NORMAL or BUMPER.
    pub variant: String,
    pub start_date: DateTime<Utc>,
    /// After startDate, at most a year after it.
    pub end_date: DateTime<Utc>,
    #[schema(minimum = 0, maximum = 10_000_000_000_i64)]
    pub traffic_estimate: Option<i64>,
    /// PREROLL, MIDROLL, POSTROLL, SEEKROLL, OVERLAY, COMPANION_BANNER, PAUSE_AD.
    #[schema(max_items = 32)]
    pub format_types: Option<Vec<String>>,
    #[schema(max_items = 64)]
    pub device_containers: Option<Vec<String>>,
    /// Required (`{}` for none; targetingTemplates may be null).
    pub targeting: ForecastTargeting,
}

/// `POST /api/2.0/forecast/campaign` (seed 002 §2.4): `{"campaign": {...}}`.
#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignForecastBody {
    pub campaign: ForecastCampaign,
}

#[derive(ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForecastCampaign {
    pub advertiser: Option<String>,
    pub agency: Option<String>,
    pub brand: Option<String>,
    pub custom_id: Option<String>,
    #[schema(max_length = 255)]
    pub name: Option<String>,
    /// 0-100 (%).
    #[schema(minimum = 0, maximum = 100)]
    pub frontload: Option<u8>,
    #[schema(minimum = 1, maximum = 10)]
    pub priority: Option<u8>,
    pub targeting: Option<ForecastTargeting>,
    #[schema(min_items = 1, max_items = 50)]
    pub goals: Vec<ForecastGoal>,
}

#[derive(ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForecastGoal {
    pub custom_id: Option<String>,
    #[schema(max_length = 255)]
    pub name: String,
    pub start_date: DateTime<Utc>,
    /// Must be present; null only for an RTB goal (then 100 days from today).
    #[schema(required = true)]
    pub end_date: Option<DateTime<Utc>>,
    #[schema(minimum = 1, maximum = 10)]
    pub priority: Option<u8>,
    #[schema(minimum = 0, maximum = 100)]
    pub frontload: Option<u8>,
    pub targeting: Option<ForecastTargeting>,
    /// NORMAL or BUMPER.
    pub variant: String,
    /// ANY, FIRST, LAST, FIRST_OR_LAST, BREAK_EXCLUSIVE.
    pub position_restriction: Option<String>,
    pub delivery_goal: DeliveryGoal,
    #[schema(min_items = 1)]
    pub ads: Vec<ForecastAd>,
    #[schema(minimum = 0, maximum = 4294967295_i64)]
    pub sequence: Option<i64>,
    #[schema(minimum = 0)]
    pub daily_cap: Option<i64>,
    pub marketplace_id: Option<String>,
}

#[derive(ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeliveryGoal {
    pub value: f64,
    /// IMPRESSION, COMPLETE, FIRST_QUARTILE, SECOND_QUARTILE, THIRD_QUARTILE, RTB.
    #[serde(rename = "type")]
    pub kind: String,
}

#[derive(ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForecastAd {
    pub name: String,
    pub custom_id: Option<String>,
    /// preroll_standard, midroll_standard, ... (seed 002 §2.4).
    pub format: String,
    /// Device container ids of the account.
    pub device_containers: Vec<String>,
    pub start_date: Option<DateTime<Utc>>,
    pub end_date: Option<DateTime<Utc>>,
}

#[derive(ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForecastTargeting {
    /// Ids of the account's targeting templates (may be null).
    pub targeting_templates: Option<Vec<String>>,
    /// The rules of a targeting template (`GET .../targeting-template/{id}/rules`).
    #[schema(value_type = Option<crate::model::rules_view::RulesView>)]
    pub targeting_rules: Option<serde_json::Value>,
    pub parent_overrides: Option<ParentOverrides>,
}

/// true ignores the parent's rules of that kind (frequencyRules: not for inventory).
#[derive(ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ParentOverrides {
    pub content_rules: Option<bool>,
    pub tag_and_partner_rules: Option<bool>,
    pub frequency_rules: Option<bool>,
    pub location_rules: Option<bool>,
    pub audience_rules: Option<bool>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use utoipa::openapi::schema::Schema;
    use utoipa::openapi::RefOr;
    use utoipa::PartialSchema;

    fn properties<T: PartialSchema>() -> Vec<String> {
        match T::schema() {
            RefOr::T(Schema::Object(o)) => {
                let mut v: Vec<String> = o.properties.keys().cloned().collect();
                v.sort();
                v
            }
            _ => panic!("not an object schema"),
        }
    }

    fn sorted(list: &[&str]) -> Vec<String> {
        let mut v: Vec<String> = list.iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn every_body_lists_exactly_what_its_parser_accepts() {
        assert_eq!(properties::<crate::model::ad_write::AdInput>(), sorted(crate::model::ad_write::FIELDS));
        assert_eq!(properties::<crate::model::asset_write::AssetUrlInput>(), sorted(crate::model::asset_write::URL_FIELDS));
        assert_eq!(properties::<crate::model::template_write::TemplateInput>(), sorted(crate::model::template_write::TEMPLATE_FIELDS));
        assert_eq!(properties::<crate::model::policy::RankingInput>(), sorted(crate::model::policy::RANKING_FIELDS));
        assert_eq!(properties::<InventoryForecastBody>(), sorted(crate::forecast::request::INVENTORY_FIELDS));
        assert_eq!(properties::<ForecastCampaign>(), sorted(crate::forecast::request::CAMPAIGN_FIELDS));
        assert_eq!(properties::<ForecastGoal>(), sorted(crate::forecast::request::GOAL_FIELDS));
        assert_eq!(properties::<ForecastAd>(), sorted(crate::forecast::request::AD_FIELDS));
        assert_eq!(properties::<ForecastTargeting>(), sorted(crate::forecast::request::TARGETING_FIELDS));
        assert_eq!(properties::<crate::model::contact::Association>(), sorted(crate::model::contact::ASSOCIATE_FIELDS));
        assert_eq!(properties::<ParentOverrides>(), sorted(<crate::model::enums::ParentOverride as crate::model::enums::WireEnum>::NAMES));
        assert_eq!(properties::<crate::model::creative::TrackerInput>(), sorted(crate::model::creative::TRACKER_FIELDS));
    }
}
