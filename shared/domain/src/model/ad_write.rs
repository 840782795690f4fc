//! The write side of ads (seed 000 §2.1-§2.4): the request types of `POST`, `PUT` and
//! `PATCH /v1/ads` as their parsers fill them (the OpenAPI document shows these types), and
//! the rules that turn one into a stored `Ad` (`Ad::created`, `Ad::replaced`, `Ad::apply`).

use chrono::{DateTime, Utc};
use serde::Deserialize;
use serde_json::Value;

use super::ad::Ad;
use super::creative::{check_creative, check_trackers, Creative, Tracker, TrackerInput};
use crate::domain_error::{DomainError, FieldError};
use crate::ids::new_id;
use crate::json::{Ignored, Keyed};
use crate::limits::MAX_TRACKERS;
use crate::rule::Rule;
use crate::wire_schema::{bounded_list, Id};

/// The lightest and heaviest explicit weight of an ad (§2.3).
pub const MIN_WEIGHT: f64 = 0.01;
pub const MAX_WEIGHT: f64 = 100.0;

/// The most device containers an ad may name (an account has a handful).
pub const MAX_DEVICE_CONTAINERS: usize = 100;

bounded_list!(
    /// An ad's external trackers.
    Trackers, TrackerInput, 0, MAX_TRACKERS
);
bounded_list!(
    /// Device container ids of the account.
    DeviceContainerIds, Id, 0, MAX_DEVICE_CONTAINERS
);

/// An explicit weight: 0.01 to 100.
pub struct Weight;
impl utoipa::PartialSchema for Weight {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, Type};
        ObjectBuilder::new().schema_type(Type::Number).minimum(Some(MIN_WEIGHT)).maximum(Some(MAX_WEIGHT)).into()
    }
}
impl utoipa::ToSchema for Weight {}

/// `POST /v1/ads` (without `id`) and `PUT /v1/ads` (with it): a whole ad.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[schema(as = AdWrite)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AdInput {
    /// Only on PUT: the ad replaced.
    #[schema(value_type = Option<crate::wire_schema::Id>, inline)]
    pub id: Option<String>,
    #[schema(value_type = crate::wire_schema::RecordName, inline)]
    pub name: String,
    /// The goal the ad is in; it cannot change.
    #[schema(value_type = crate::wire_schema::Id, inline)]
    pub goal_id: String,
    #[schema(value_type = Option<crate::wire_schema::Short>, inline)]
    pub custom_id: Option<String>,
    #[schema(value_type = Option<crate::wire_schema::Text>, inline)]
    pub description: Option<String>,
    pub enabled: Option<bool>,
    /// Absent: an equal share of what explicit weights leave.
    #[schema(value_type = Option<Weight>, inline)]
    pub weight: Option<f64>,
    /// The fields a creative type requires (docs/goals-ads-assets.md); others are refused.
    pub creative: Creative,
    pub start: Option<DateTime<Utc>>,
    /// After start.
    pub end: Option<DateTime<Utc>>,
    #[serde(default)]
    #[schema(value_type = Option<Trackers>, inline)]
    pub external_trackers: Vec<TrackerInput>,
    /// Absent: all of the account's.
    #[schema(value_type = Option<DeviceContainerIds>, inline)]
    pub device_containers: Option<Vec<String>>,
    /// Read-only (a GET sent back): accepted and ignored.
    #[serde(default)]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub created: Ignored,
    /// Read-only (a GET sent back): accepted and ignored.
    #[serde(default)]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub modified: Ignored,
}

/// A `PATCH /v1/ads` body: the id and the fields to change, each `Some(None)` when sent as
/// null (which clears it). goalId, creative, externalTrackers and deviceContainers are
/// ignored, as is any other field.
#[derive(Debug, Clone, Default, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AdPatch {
    #[schema(value_type = crate::wire_schema::Id, inline)]
    pub id: String,
    #[serde(default)]
    #[schema(value_type = crate::wire_schema::RecordName, inline)]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<crate::wire_schema::Short>, inline)]
    pub custom_id: Option<Option<String>>,
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<crate::wire_schema::Text>, inline)]
    pub description: Option<Option<String>>,
    pub enabled: Option<bool>,
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub start: Option<Option<DateTime<Utc>>>,
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<DateTime<Utc>>)]
    pub end: Option<Option<DateTime<Utc>>>,
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<Weight>, inline)]
    pub weight: Option<Option<f64>>,
}

/// Parses a POST/PUT body: every field error at once.
pub fn parse_write(v: &Value) -> Result<AdInput, Vec<FieldError>> {
    crate::json::read(v, |b: &mut AdInput, errors| {
        if let (Some(s), Some(e)) = (b.start, b.end) {
            if e <= s {
                errors.push(FieldError::new("end", Rule::AfterStart, "end must be after start"));
            }
        }
        check_creative(&b.creative, errors);
        check_trackers(&b.external_trackers, b.creative.kind, errors);
        if let Some(list) = &mut b.device_containers {
            for (i, c) in list.iter().enumerate().filter(|(_, c)| c.is_empty()) {
                errors.push(FieldError::new(
                    format!("deviceContainers[{i}]"),
                    Rule::Type,
                    format!("deviceContainers[{i}] must be a device container id ({c:?})"),
                ));
            }
            let mut seen = std::collections::HashSet::new();
            list.retain(|c| seen.insert(c.clone()));
        }
    })
}

/// Parses a PUT body: its id (required), then the whole ad.
pub fn parse_replace(v: &Value) -> Result<Keyed<AdInput>, DomainError> {
    let Some(id) = v.get("id").and_then(Value::as_str) else {
        return Err(DomainError::field("id", Rule::Required, "id is required: PUT /v1/ads carries the ad's id in the body"));
    };
    Ok(Keyed { id: id.to_string(), body: parse_write(v).map_err(DomainError::Validation) })
}

/// Parses a PATCH body: its id (required), then the fields to change.
pub fn parse_modify(v: &Value) -> Result<Keyed<AdPatch>, DomainError> {
    let Some(id) = v.get("id").and_then(Value::as_str) else {
        return Err(DomainError::Validation(
            parse_patch(v).err().unwrap_or_else(|| vec![FieldError::new("id", Rule::Required, "id is required")]),
        ));
    };
    Ok(Keyed { id: id.to_string(), body: parse_patch(v).map_err(DomainError::Validation) })
}

/// Parses a PATCH body (goalId, creative, externalTrackers, deviceContainers and anything
/// else are ignored).
pub fn parse_patch(v: &Value) -> Result<AdPatch, Vec<FieldError>> {
    crate::json::read(v, |_: &mut AdPatch, _| {})
}

/// Trackers of a write: one the ad had (same url and event) keeps its id.
fn trackers(input: &[TrackerInput], previous: &[Tracker]) -> Vec<Tracker> {
    input
        .iter()
        .map(|t| {
            let id = previous.iter().find(|p| p.url == t.url && p.event == t.event).map(|p| p.id.clone()).unwrap_or_else(new_id);
            Tracker { id, url: t.url.clone(), event: t.event }
        })
        .collect()
}

fn build(id: String, i: &AdInput, prev: Option<&Ad>, now: DateTime<Utc>) -> Ad {
    // The creative's dates move only when the creative changes.
    let creative_modified = match prev {
        Some(p) if p.creative == i.creative => p.creative_modified,
        _ => now,
    };
    Ad {
        id,
        goal_id: i.goal_id.clone(),
        name: i.name.clone(),
        custom_id: i.custom_id.clone(),
        description: i.description.clone(),
        enabled: i.enabled.unwrap_or(false),
        weight: i.weight,
        creative: i.creative.clone(),
        start: i.start,
        end: i.end,
        external_trackers: trackers(&i.external_trackers, prev.map(|p| p.external_trackers.as_slice()).unwrap_or(&[])),
        device_containers: i.device_containers.clone(),
        created: prev.map_or(now, |p| p.created),
        modified: now,
        creative_modified,
    }
}

impl Ad {
    /// A new ad from a POST body.
    pub fn created(id: String, i: &AdInput, now: DateTime<Utc>) -> Ad {
        build(id, i, None, now)
    }

    /// This ad replaced by a PUT body: it stays in its goal; trackers and the creative's
    /// dates carry over where unchanged.
    pub fn replaced(&self, i: &AdInput, now: DateTime<Utc>) -> Result<Ad, DomainError> {
        if i.goal_id != self.goal_id {
            return Err(DomainError::field(
                "goalId",
                Rule::Immutable,
                "goalId cannot change: an ad stays in its goal (create a new ad instead)",
            ));
        }
        Ok(build(self.id.clone(), i, Some(self), now))
    }

    /// This ad with a PATCH body's fields; `None` when nothing changes.
    pub fn apply(&self, p: &AdPatch, now: DateTime<Utc>) -> Option<Ad> {
        let mut ad = self.clone();
        if let Some(n) = &p.name {
            ad.name = n.clone();
        }
        if let Some(c) = &p.custom_id {
            ad.custom_id = c.clone();
        }
        if let Some(d) = &p.description {
            ad.description = d.clone();
        }
        if let Some(e) = p.enabled {
            ad.enabled = e;
        }
        if let Some(s) = p.start {
            ad.start = s;
        }
        if let Some(e) = p.end {
            ad.end = e;
        }
        if let Some(w) = p.weight {
            ad.weight = w;
        }
        if &ad == self {
            return None;
        }
        ad.modified = now;
        Some(ad)
    }
}
