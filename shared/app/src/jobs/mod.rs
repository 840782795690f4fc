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

/// One bidder notice to fire (docs/programmatic.md, "Win records and notices"): its URL
/// with the macros already replaced, and the once-only marker it takes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Notice {
    pub account: String,
    /// The auction (`nurl`, `lurl`) or impression (`burl`) it is about.
    pub about: String,
    /// `nurl`, `burl` or `lurl`.
    pub kind: String,
    /// The demand partner.
    pub partner: String,
    pub url: String,
}

impl Notice {
    pub fn parse(body: &str) -> Result<Self, String> {
        serde_json::from_str(body).map_err(|e| format!("malformed notice message: {e}"))
    }
}

/// One counted playback event (the tracking endpoint's message on the events queue).
pub use crate::delivery::counting::Event;

/// A message holds one event or several.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum EventMessage {
    Many(Vec<Event>),
    One(Box<Event>),
}

/// The events of one message (one event or a JSON array of them).
pub fn parse_events(body: &str) -> Result<Vec<Event>, String> {
    match serde_json::from_str::<EventMessage>(body) {
        Ok(EventMessage::Many(v)) => Ok(v),
        Ok(EventMessage::One(e)) => Ok(vec![*e]),
        Err(e) => Err(format!("malformed event message: {e}")),
    }
}
