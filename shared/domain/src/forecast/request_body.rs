//! The forecast request bodies (seed 002 §2.4-§2.5): serde fills them and the OpenAPI
//! document shows them. `request.rs` checks every rule and every id the body names against
//! the account; the forecast itself runs on the values these convert into
//! (`CampaignForecast`, `InventoryForecast`).

use chrono::{DateTime, TimeZone, Utc};
use serde::{Deserialize, Deserializer};

use crate::model::enums::{ForecastAdFormat, FormatType, GoalType, GoalVariant, ParentOverride, PositionRestriction};
use crate::model::rules_view::RulesView;
use crate::wire_schema::{bounded_list, Id};

/// Most goals a campaign forecast holds, and ads a goal holds.
pub const MAX_GOALS: usize = 50;
pub const MAX_ADS: usize = 50;

bounded_list!(
    /// A campaign forecast's goals.
    ForecastGoals, ForecastGoal, 1, MAX_GOALS
);
bounded_list!(
    /// A forecast goal's ads.
    ForecastAds, ForecastAd, 1, MAX_ADS
);
bounded_list!(
    /// Device container ids of the account.
    ContainerIds, Id, 0, crate::model::ad_write::MAX_DEVICE_CONTAINERS
);

/// A forecast date (§2.6): a `yyyy-MM-ddTHH:mm:ss.sssZ` string or epoch milliseconds, UTC;
/// a blank string is no date.
pub struct ForecastDate;
impl utoipa::PartialSchema for ForecastDate {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, SchemaFormat, SchemaType, Type};
        ObjectBuilder::new()
            .schema_type(SchemaType::from_iter([Type::String, Type::Integer]))
            .format(Some(SchemaFormat::Custom(crate::json::DATE_OR_EPOCH_MS.into())))
            .into()
    }
}
impl utoipa::ToSchema for ForecastDate {}

/// Reads a [`ForecastDate`]: `None` when null or blank (the schema has refused any other
/// string that is not a date).
pub fn forecast_date<'de, D: Deserializer<'de>>(d: D) -> Result<Option<DateTime<Utc>>, D::Error> {
    Ok(match serde_json::Value::deserialize(d)? {
        serde_json::Value::Number(n) => n.as_i64().and_then(|ms| Utc.timestamp_millis_opt(ms).single()),
        serde_json::Value::String(s) => DateTime::parse_from_rfc3339(s.trim()).ok().map(|d| d.with_timezone(&Utc)),
        _ => None,
    })
}

crate::wire_schema::bounded_int!(
    /// A priority.
    Priority, 1, 10
);
/// A frontload: 0 to 100 (%), in steps of 10.
pub struct Frontload;
impl utoipa::PartialSchema for Frontload {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new().schema_type(Type::Integer).minimum(Some(0)).maximum(Some(100)).multiple_of(Some(10)).into()
    }
}
impl utoipa::ToSchema for Frontload {}

/// `POST /api/2.0/forecast/campaign`: `{"campaign": {...}}`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct CampaignForecastBody {
    pub campaign: ForecastCampaign,
}

#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForecastCampaign {
    #[schema(value_type = Option<Id>, inline)]
    pub advertiser: Option<String>,
    #[schema(value_type = Option<Id>, inline)]
    pub agency: Option<String>,
    #[schema(value_type = Option<Id>, inline)]
    pub brand: Option<String>,
    #[schema(value_type = Option<Id>, inline)]
    pub custom_id: Option<String>,
    #[schema(value_type = Option<crate::wire_schema::OptionalName>, inline)]
    pub name: Option<String>,
    /// In steps of 10.
    #[schema(value_type = Option<Frontload>, inline)]
    pub frontload: Option<u8>,
    #[schema(value_type = Option<Priority>, inline)]
    pub priority: Option<u8>,
    pub targeting: Option<ForecastTargeting>,
    #[schema(value_type = ForecastGoals, inline)]
    pub goals: Vec<ForecastGoal>,
    /// An existing campaign of the account this proposal stands in for (a forecast of a
    /// running campaign, its goals proposed again): its own goals are left out of the
    /// competition, so the proposal does not compete with itself.
    #[serde(default)]
    #[schema(value_type = Option<Id>, inline)]
    pub replaces_campaign_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForecastGoal {
    #[schema(value_type = Option<crate::wire_schema::OptionalName>, inline)]
    pub custom_id: Option<String>,
    #[schema(value_type = crate::wire_schema::Name, inline)]
    pub name: String,
    /// At least a day ahead (`yyyy-MM-ddTHH:mm:ss.sssZ` or epoch milliseconds).
    #[serde(deserialize_with = "forecast_date")]
    #[schema(value_type = ForecastDate, inline)]
    pub start_date: Option<DateTime<Utc>>,
    /// Must be present; null or blank only for an RTB goal (then 100 days from today).
    #[serde(deserialize_with = "forecast_date")]
    #[schema(value_type = Option<ForecastDate>, inline, required = true)]
    pub end_date: Option<DateTime<Utc>>,
    #[schema(value_type = Option<Priority>, inline)]
    pub priority: Option<u8>,
    /// In steps of 10.
    #[schema(value_type = Option<Frontload>, inline)]
    pub frontload: Option<u8>,
    pub targeting: Option<ForecastTargeting>,
    pub variant: GoalVariant,
    pub position_restriction: Option<PositionRestriction>,
    pub delivery_goal: DeliveryGoal,
    #[schema(value_type = ForecastAds, inline)]
    pub ads: Vec<ForecastAd>,
    pub sequence: Option<u32>,
    pub daily_cap: Option<u64>,
    /// Only when deliveryGoal.type is IMPRESSION or RTB.
    #[schema(value_type = Option<crate::wire_schema::OptionalName>, inline)]
    pub marketplace_id: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct DeliveryGoal {
    /// Positive; not needed for RTB.
    pub value: Option<f64>,
    /// IMPRESSION, COMPLETE, FIRST_QUARTILE, SECOND_QUARTILE, THIRD_QUARTILE or RTB.
    #[serde(rename = "type")]
    pub kind: GoalType,
}

#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForecastAd {
    #[schema(value_type = crate::wire_schema::Name, inline)]
    pub name: String,
    #[schema(value_type = Option<crate::wire_schema::OptionalName>, inline)]
    pub custom_id: Option<String>,
    pub format: ForecastAdFormat,
    /// Device container ids of the account.
    #[schema(value_type = ContainerIds, inline)]
    pub device_containers: Vec<String>,
    #[serde(default, deserialize_with = "forecast_date")]
    #[schema(value_type = Option<ForecastDate>, inline)]
    pub start_date: Option<DateTime<Utc>>,
    /// After startDate.
    #[serde(default, deserialize_with = "forecast_date")]
    #[schema(value_type = Option<ForecastDate>, inline)]
    pub end_date: Option<DateTime<Utc>>,
}

/// A forecast's targeting: templates of the account and rules, read and checked.
#[derive(Debug, Clone, PartialEq, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ForecastTargeting {
    /// Ids of the account's targeting templates (may be null).
    #[schema(value_type = Option<Vec<Id>>, inline)]
    pub targeting_templates: Option<Vec<String>>,
    /// The rules of a targeting template (`GET .../targeting-template/{id}/rules`).
    pub targeting_rules: Option<RulesView>,
    pub parent_overrides: Option<ParentOverrides>,
}

/// true ignores the parent's rules of that kind (frequencyRules: not for inventory).
#[derive(Debug, Clone, PartialEq, Default, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ParentOverrides {
    pub content_rules: Option<bool>,
    pub tag_and_partner_rules: Option<bool>,
    pub frequency_rules: Option<bool>,
    pub location_rules: Option<bool>,
    pub audience_rules: Option<bool>,
}

impl ParentOverrides {
    fn slot(&mut self, k: ParentOverride) -> &mut Option<bool> {
        match k {
            ParentOverride::ContentRules => &mut self.content_rules,
            ParentOverride::TagAndPartnerRules => &mut self.tag_and_partner_rules,
            ParentOverride::FrequencyRules => &mut self.frequency_rules,
            ParentOverride::LocationRules => &mut self.location_rules,
            ParentOverride::AudienceRules => &mut self.audience_rules,
        }
    }

    pub fn set(&mut self, k: ParentOverride, v: Option<bool>) {
        *self.slot(k) = v;
    }

    /// The kinds set to true, in the order of `ParentOverride::ALL`.
    pub fn set_true(&self) -> Vec<ParentOverride> {
        let mut me = self.clone();
        ParentOverride::ALL.iter().copied().filter(|k| *me.slot(*k) == Some(true)).collect()
    }
}

/// `POST /api/2.0/forecast/inventory`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InventoryForecastBody {
    #[schema(value_type = Option<crate::wire_schema::OptionalName>, inline)]
    pub name: Option<String>,
    pub variant: GoalVariant,
    /// At least a day ahead.
    #[serde(deserialize_with = "forecast_date")]
    #[schema(value_type = ForecastDate, inline)]
    pub start_date: Option<DateTime<Utc>>,
    /// After startDate, at most 100 days from today.
    #[serde(deserialize_with = "forecast_date")]
    #[schema(value_type = ForecastDate, inline)]
    pub end_date: Option<DateTime<Utc>>,
    #[schema(maximum = 10_000_000_000_i64)]
    pub traffic_estimate: Option<u64>,
    /// The formats counted (absent: every format).
    pub format_types: Option<Vec<FormatType>>,
    #[schema(value_type = Option<ContainerIds>, inline)]
    pub device_containers: Option<Vec<String>>,
    /// Required (`{}` for none; targetingTemplates may be null).
    pub targeting: ForecastTargeting,
}
