//! The queue message contracts: what the API (and the S3 notification) sends and the
//! workers read. Below both `api/`/`usecases/` and `workers/`, so neither imports the other
//! for a message type. Each parse is total: a malformed body is an `Err` with the reason
//! (the worker drops it; it can never succeed).

use serde::{Deserialize, Serialize};

pub mod audience;

/// A video asset to download (assets queue).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AssetJob {
    pub account: String,
    pub asset: String,
}

impl AssetJob {
    pub fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body).map_err(|e| format!("malformed asset job: {e}"))
    }
}

/// A forecast job to run (forecast queue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ForecastMessage {
    pub account: String,
    pub job: String,
}

impl ForecastMessage {
    pub fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body).map_err(|e| format!("malformed forecast message: {e}"))
    }
}

/// One counted playback event (the tracking endpoint's message on the events queue).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub account: String,
    pub campaign: String,
    pub goal: String,
    pub ad: String,
    pub impression: String,
    /// The `/v3` counter (`impression`, `start`, …, `clickThrough`).
    pub counter: String,
    /// Whether this event is the goal's delivery (adds to `delivered` and the pace record).
    pub delivered: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub viewer: Option<String>,
    /// Epoch seconds of the event.
    pub at: i64,
    /// This tracking call's id: a redelivery of its message has the same id, a replay of
    /// the link another (then it is a duplicate).
    #[serde(default)]
    pub id: String,
    /// The verdict made when the call arrived (`crawler`, `nonBrowser`, `expired`), if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invalid: Option<String>,
    /// The caller's address block (`203.0.113.0/24`), when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block: Option<String>,
    /// The report dimensions the link carried (version-3 links; none before).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dims: Option<crate::delivery::tracking::Dims>,
    /// Which message of a batch the event came in (not sent: the worker sets it).
    #[serde(skip)]
    pub message: usize,
}

/// A message holds one event or several.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum EventMessage {
    Many(Vec<Event>),
    One(Box<Event>),
}

impl Event {
    /// The events of one message (one event or a JSON array of them).
    pub fn parse_message(body: &str) -> Result<Vec<Event>, String> {
        match serde_json::from_str::<EventMessage>(body) {
            Ok(EventMessage::Many(v)) => Ok(v),
            Ok(EventMessage::One(e)) => Ok(vec![*e]),
            Err(e) => Err(format!("malformed event message: {e}")),
        }
    }
}
