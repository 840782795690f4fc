//! An ad's creative (seed 000 §2.1-§2.2): the eight creative types, the fields each takes,
//! the external tracker events each allows, and their JSON readers.

use crate::rule::Rule;
use serde::{Deserialize, Serialize};

use super::enums::{AdFormat, CreativeType, InsertionPoint, TrackerEvent};
use crate::domain_error::FieldError;

const SPOT_EVENTS: &[TrackerEvent] = &[
    TrackerEvent::Impression,
    TrackerEvent::ClickThrough,
    TrackerEvent::AdStart,
    TrackerEvent::AdFirstQuartile,
    TrackerEvent::AdMidpoint,
    TrackerEvent::AdThirdQuartile,
    TrackerEvent::AdComplete,
    TrackerEvent::Close,
    TrackerEvent::Mute,
    TrackerEvent::Unmute,
    TrackerEvent::Pause,
    TrackerEvent::Resume,
    TrackerEvent::Rewind,
    TrackerEvent::Fullscreen,
    TrackerEvent::Skip,
];
const PAUSE_EVENTS: &[TrackerEvent] = &[TrackerEvent::Impression, TrackerEvent::ClickThrough, TrackerEvent::Close];
const PLACEHOLDER_EVENTS: &[TrackerEvent] = &[
    TrackerEvent::Impression,
    TrackerEvent::ClickThrough,
    TrackerEvent::AdStart,
    TrackerEvent::AdFirstQuartile,
    TrackerEvent::AdMidpoint,
    TrackerEvent::AdThirdQuartile,
    TrackerEvent::AdComplete,
    TrackerEvent::Close,
    TrackerEvent::Mute,
    TrackerEvent::Unmute,
    TrackerEvent::Pause,
    TrackerEvent::Resume,
    TrackerEvent::Rewind,
    TrackerEvent::Fullscreen,
    TrackerEvent::Skip,
    TrackerEvent::Expand,
];

/// The external tracker events a creative type allows (§2.2).
pub fn allowed_events(creative_type: CreativeType) -> &'static [TrackerEvent] {
    use CreativeType::*;
    match creative_type {
        Pause | PausePlaceholder => PAUSE_EVENTS,
        Placeholder => PLACEHOLDER_EVENTS,
        Standard | Iptv | Thirdparty | SpotPlaceholder | IptvPlaceholder => SPOT_EVENTS,
    }
}

/// The fields each creative type takes, and which of them are required.
fn creative_fields(t: CreativeType) -> (&'static [&'static str], &'static [&'static str]) {
    use CreativeType::*;
    match t {
        Standard => (&["insertionPoint", "assetId", "clickDestinationUri"], &["insertionPoint", "assetId"]),
        Pause => (&["assetId", "clickDestinationUri"], &["assetId"]),
        Iptv => (&["insertionPoint", "videoCreativeId", "clickDestinationUri", "estimatedAdDuration"], &["insertionPoint"]),
        Thirdparty => {
            (&["insertionPoint", "vastUri", "vpaidStrict", "vpaidCountdown", "estimatedAdDuration"], &["insertionPoint", "vastUri"])
        }
        Placeholder => (&[], &[]),
        SpotPlaceholder => (&["insertionPoint", "clickDestinationUri"], &["insertionPoint"]),
        PausePlaceholder => (&["clickDestinationUri"], &[]),
        IptvPlaceholder => (&["insertionPoint", "clickDestinationUri"], &["insertionPoint"]),
    }
}

/// The v3 name of a tracker event: lower camel case (`AD_FIRST_QUARTILE` → `firstQuartile`).
pub fn event_v3(event: TrackerEvent) -> String {
    let name = event.as_str();
    let base = name.strip_prefix("AD_").unwrap_or(name);
    let mut out = String::new();
    for (i, part) in base.split('_').enumerate() {
        let lower = part.to_lowercase();
        if i == 0 {
            out.push_str(&lower);
        } else {
            let mut c = lower.chars();
            if let Some(f) = c.next() {
                out.extend(f.to_uppercase());
                out.push_str(c.as_str());
            }
        }
    }
    out
}

/// The longest estimated ad duration, seconds.
pub const MAX_AD_DURATION_SECS: u32 = 9999;

crate::wire_schema::bounded_int!(
    /// An estimated ad duration, seconds.
    AdDuration, 1, MAX_AD_DURATION_SECS
);

/// An ad's creative: its type, and the fields that type takes (docs/goals-ads-assets.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Creative {
    #[serde(rename = "type")]
    pub kind: CreativeType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insertion_point: Option<InsertionPoint>,
    /// A ready asset of the account.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::wire_schema::Id>, inline)]
    pub asset_id: Option<String>,
    /// http(s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::wire_schema::Url>, inline)]
    pub click_destination_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::wire_schema::Short>, inline)]
    pub video_creative_id: Option<String>,
    /// http(s).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<crate::wire_schema::Url>, inline)]
    pub vast_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpaid_strict: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpaid_countdown: Option<bool>,
    /// Seconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schema(value_type = Option<AdDuration>, inline)]
    pub estimated_ad_duration: Option<u32>,
}

impl Creative {
    /// The ad format (weights are shared per format): the insertion point, a pause for the
    /// pause types, else a placeholder (every other type requires an insertion point).
    pub fn format(&self) -> AdFormat {
        match (self.insertion_point, self.kind) {
            (Some(p), _) => AdFormat::of_insertion_point(p),
            (None, CreativeType::Pause | CreativeType::PausePlaceholder) => AdFormat::Pause,
            (
                None,
                CreativeType::Standard
                | CreativeType::Iptv
                | CreativeType::Thirdparty
                | CreativeType::Placeholder
                | CreativeType::SpotPlaceholder
                | CreativeType::IptvPlaceholder,
            ) => AdFormat::Placeholder,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Tracker {
    pub id: String,
    pub url: String,
    pub event: TrackerEvent,
}

/// An external tracker of a write body.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[schema(as = TrackerWrite)]
#[serde(deny_unknown_fields)]
pub struct TrackerInput {
    /// http(s) URL.
    #[schema(value_type = crate::wire_schema::Url, inline)]
    pub url: String,
    /// An event the creative type allows.
    pub event: TrackerEvent,
    /// Accepted and ignored (a GET sent back): trackers are matched by url and event.
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub id: crate::json::Ignored,
}

/// The rule of a URL field `at`: http(s), no whitespace.
pub fn check_uri(at: &str, v: Option<&str>, errors: &mut Vec<FieldError>) {
    if let Some(u) = v {
        let ok = (u.starts_with("http://") || u.starts_with("https://")) && u.len() > 8 && !u.chars().any(char::is_whitespace);
        if !ok {
            errors.push(FieldError::new(at, Rule::Url, format!("{at} must be an http(s) URL (got {u:?})")));
        }
    }
}

/// The rules of a creative (its field types and bounds are the schema's): the fields its
/// type takes and requires, and its URLs.
pub(super) fn check_creative(c: &Creative, errors: &mut Vec<FieldError>) {
    let kind = c.kind;
    let (fields, required) = creative_fields(kind);
    let present = [
        ("insertionPoint", c.insertion_point.is_some()),
        ("assetId", c.asset_id.is_some()),
        ("clickDestinationUri", c.click_destination_uri.is_some()),
        ("videoCreativeId", c.video_creative_id.is_some()),
        ("vastUri", c.vast_uri.is_some()),
        ("vpaidStrict", c.vpaid_strict.is_some()),
        ("vpaidCountdown", c.vpaid_countdown.is_some()),
        ("estimatedAdDuration", c.estimated_ad_duration.is_some()),
    ];
    for (f, set) in present {
        if set && !fields.contains(&f) {
            // Fields of other creative types are refused by name, so a wrong type shows.
            errors.push(FieldError::new(
                format!("creative.{f}"),
                Rule::NotForType,
                format!("creative.{f} does not apply to a {kind} creative"),
            ));
        } else if !set && required.contains(&f) {
            errors.push(FieldError::new(
                format!("creative.{f}"),
                Rule::Required,
                format!("creative.{f} is required for a {kind} creative"),
            ));
        }
    }
    check_uri("creative.clickDestinationUri", c.click_destination_uri.as_deref(), errors);
    check_uri("creative.vastUri", c.vast_uri.as_deref(), errors);
}

/// The rules of an ad's external trackers: http(s) URLs, and events its creative type
/// allows.
pub(super) fn check_trackers(trackers: &[TrackerInput], ct: CreativeType, errors: &mut Vec<FieldError>) {
    for (i, t) in trackers.iter().enumerate() {
        let path = format!("externalTrackers[{i}]");
        check_uri(&format!("{path}.url"), Some(&t.url), errors);
        if !allowed_events(ct).contains(&t.event) {
            let allowed: Vec<&str> = allowed_events(ct).iter().map(|t| t.as_str()).collect();
            errors.push(FieldError::new(
                format!("{path}.event"),
                Rule::Event,
                format!("{path}.event {} is not allowed for a {ct} creative (allowed: {})", t.event, allowed.join(", ")),
            ));
        }
    }
}
