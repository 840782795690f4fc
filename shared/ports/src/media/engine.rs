//! The transcoder port (docs/media.md, "Engines"): what reads a master and makes its
//! renditions. ffmpeg/ffprobe on this machine (`local.rs`), AWS Elemental MediaConvert on
//! AWS (`mediaconvert.rs`); the asset worker sees only this trait.

use std::path::Path;

use async_trait::async_trait;

use super::probe::ProbeError;
use crate::blobs::Blobs;
use crate::model::asset::{Probe, Rendition, Still};

/// A master to transcode: where it is and what the probe read of it.
#[derive(Debug, Clone)]
pub struct Order {
    pub account: String,
    pub asset: String,
    pub master_key: String,
    pub probe: Probe,
}

/// What a finished transcode made.
#[derive(Debug, Clone, PartialEq)]
pub struct Made {
    pub renditions: Vec<Rendition>,
    pub still: Option<Still>,
}

/// How a transcode started.
#[derive(Debug, Clone, PartialEq)]
pub enum Started {
    /// Made here and now (ffmpeg).
    Done(Made),
    /// Submitted to a service under this job id; its completion arrives on the assets queue.
    Submitted(String),
}

#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EngineError {
    /// The file cannot be transcoded (the asset is FAILED with this reason).
    #[error("{0}")]
    Media(String),
    /// The engine or the bucket failed (the message comes back).
    #[error("transcoder unavailable: {0}")]
    Service(String),
}

#[async_trait]
pub trait MediaEngine: Send + Sync {
    /// Reads the master at `key` in the bucket; `local` is a copy of it on this disk when
    /// the worker has one (a download it just made).
    async fn probe(&self, blobs: &dyn Blobs, key: &str, local: Option<&Path>) -> Result<Probe, ProbeError>;
    /// Makes (or submits) the renditions and the still of `order`.
    async fn transcode(&self, blobs: &dyn Blobs, order: &Order) -> Result<Started, EngineError>;
    fn kind(&self) -> &'static str;
}

/// The engine of a function that transcodes nothing (every function but the asset
/// worker): it refuses, and the function links no ffmpeg or MediaConvert code.
pub struct NoMedia;

#[async_trait]
impl MediaEngine for NoMedia {
    async fn probe(&self, _: &dyn Blobs, key: &str, _: Option<&Path>) -> Result<Probe, ProbeError> {
        Err(ProbeError::Tool(format!("this function has no media engine (probing {key})")))
    }
    async fn transcode(&self, _: &dyn Blobs, order: &Order) -> Result<Started, EngineError> {
        Err(EngineError::Service(format!("this function has no media engine (transcoding {})", order.asset)))
    }
    fn kind(&self) -> &'static str {
        "none"
    }
}
