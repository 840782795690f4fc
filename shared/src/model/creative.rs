//! An ad's creative (seed 000 §2.1-§2.2): the eight creative types, the fields each takes,
//! the external tracker events each allows, and their JSON readers.

use crate::rule::Rule;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::enums::{AdFormat, CreativeType, InsertionPoint, TrackerEvent, WireEnum};
use crate::domain_error::FieldError;
use crate::json::ObjReader;
use crate::limits::{ENUM_NAME_MAX, MAX_ID_LEN, MAX_TRACKERS, SHORT_MAX, URL_MAX};

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Creative {
    #[serde(rename = "type")]
    pub kind: CreativeType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub insertion_point: Option<InsertionPoint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub asset_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub click_destination_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub video_creative_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vast_uri: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpaid_strict: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub vpaid_countdown: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
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

/// An external tracker of a write body, as its parser fills it (the OpenAPI document shows
/// this type).
#[derive(Debug, Clone, PartialEq, utoipa::ToSchema)]
#[schema(as = TrackerWrite)]
#[serde(deny_unknown_fields)]
pub struct TrackerInput {
    /// http(s) URL.
    #[schema(value_type = crate::wire_schema::Url, inline)]
    pub url: String,
    /// An event the creative type allows.
    pub event: TrackerEvent,
    /// Accepted and ignored (a GET sent back): trackers are matched by url and event.
    #[schema(value_type = Option<String>)]
    pub id: crate::json::Ignored,
}

/// What an external tracker of a write body may hold.
pub const TRACKER_FIELDS: &[&str] = &["url", "event", "id"];

pub fn check_uri(r: &mut ObjReader, name: &str, v: &Option<String>) {
    if let Some(u) = v {
        let ok = (u.starts_with("http://") || u.starts_with("https://")) && u.len() > 8 && !u.chars().any(char::is_whitespace);
        if !ok {
            let p = r.at(name);
            r.err(name, Rule::Url, format!("{p} must be an http(s) URL (got {u:?})"));
        }
    }
}

pub(super) fn read_creative(v: Option<&Value>, errors: &mut Vec<FieldError>) -> Option<Creative> {
    let Some(v) = v else {
        errors.push(FieldError::new("creative", Rule::Required, "creative is required"));
        return None;
    };
    let raw = v.get("type").and_then(Value::as_str).unwrap_or("");
    let Some(kind) = CreativeType::parse(raw) else {
        let msg = if raw.is_empty() {
            "creative.type is required".to_string()
        } else {
            format!("creative.type must be one of {} (got {raw:?})", <CreativeType as WireEnum>::NAMES.join(", "))
        };
        errors.push(FieldError::new("creative.type", if raw.is_empty() { Rule::Required } else { Rule::Enum }, msg));
        return None;
    };
    let (fields, required) = creative_fields(kind);
    let mut known: Vec<&str> = fields.to_vec();
    known.push("type");
    let mut r = ObjReader::new(v, "creative", &known);
    // Fields of other creative types are refused by name, so a wrong type shows.
    for e in r.errors.iter_mut().filter(|e| e.rule == Rule::Unknown) {
        e.rule = Rule::NotForType;
        e.message = format!("{} does not apply to a {kind} creative", e.field);
    }
    for f in required {
        if r.get(f).is_none() {
            r.err(f, Rule::Required, format!("creative.{f} is required for a {kind} creative"));
        }
    }
    let c = Creative {
        kind,
        insertion_point: r.one_of("insertionPoint", InsertionPoint::ALL),
        asset_id: r.str_opt("assetId", MAX_ID_LEN),
        click_destination_uri: r.str_opt("clickDestinationUri", URL_MAX),
        video_creative_id: r.str_opt("videoCreativeId", SHORT_MAX),
        vast_uri: r.str_opt("vastUri", URL_MAX),
        vpaid_strict: r.bool_opt("vpaidStrict"),
        vpaid_countdown: r.bool_opt("vpaidCountdown"),
        estimated_ad_duration: r.int_opt("estimatedAdDuration", 1, 9999).map(|d| d as u32),
    };
    check_uri(&mut r, "clickDestinationUri", &c.click_destination_uri);
    check_uri(&mut r, "vastUri", &c.vast_uri);
    let ok = r.errors.is_empty();
    errors.append(&mut r.errors);
    ok.then_some(c)
}

pub(super) fn read_trackers(r: &mut ObjReader, creative_type: Option<CreativeType>) -> Vec<TrackerInput> {
    let Some(list) = r.array_opt("externalTrackers") else { return vec![] };
    let mut out = Vec::new();
    for (i, t) in list.iter().enumerate() {
        let path = format!("externalTrackers[{i}]");
        let mut tr = ObjReader::new(t, &path, TRACKER_FIELDS);
        let url = tr.str_req("url", URL_MAX);
        check_uri(&mut tr, "url", &url);
        let raw = tr.str_req("event", ENUM_NAME_MAX);
        let mut event = None;
        if let (Some(e), Some(ct)) = (&raw, creative_type) {
            match TrackerEvent::parse(e).filter(|t| allowed_events(ct).contains(t)) {
                Some(t) => event = Some(t),
                None => {
                    let allowed: Vec<&str> = allowed_events(ct).iter().map(|t| t.as_str()).collect();
                    tr.err(
                        "event",
                        Rule::Event,
                        format!("{path}.event {e} is not allowed for a {ct} creative (allowed: {})", allowed.join(", ")),
                    );
                }
            }
        }
        let ok = tr.errors.is_empty();
        r.errors.append(&mut tr.errors);
        if let (Some(url), Some(event), true) = (url, event, ok) {
            out.push(TrackerInput { url, event, id: crate::json::Ignored });
        }
    }
    if out.len() > MAX_TRACKERS {
        r.err("externalTrackers", Rule::MaxCount, format!("at most {MAX_TRACKERS} external trackers per ad"));
    }
    out
}
