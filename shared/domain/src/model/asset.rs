//! Video assets (seed 000 §3, §4.4a; choices in docs/goals-ads-assets.md).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::enums::AssetSource;

pub const VIDEO_EXTENSIONS: &[&str] = &["mp4", "m4v", "mov", "webm", "mkv", "avi", "wmv", "flv", "mpg", "mpeg", "ts", "3gp"];

pub use super::enums::AssetStatus;
pub const PENDING: AssetStatus = AssetStatus::Pending;
pub const DOWNLOADING: AssetStatus = AssetStatus::Downloading;
pub const READY: AssetStatus = AssetStatus::Ready;
pub const FAILED: AssetStatus = AssetStatus::Failed;
pub const TRANSCODING: AssetStatus = AssetStatus::Transcoding;
pub const TRANSCODED: AssetStatus = AssetStatus::Transcoded;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Asset {
    pub id: String,
    pub name: String,
    /// `url` or `upload`.
    pub source: AssetSource,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub download_uri: Option<String>,
    pub status: AssetStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_type: Option<String>,
    /// Where the bytes are in the bucket (once READY).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub object_key: Option<String>,
    pub linked: bool,
    /// What the probe read of the master (once READY).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<Probe>,
    /// The web-playable files made from the master (once TRANSCODED), best first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub renditions: Vec<Rendition>,
    /// A frame of the master as a JPEG (pause ads' image; once TRANSCODED).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub still: Option<Still>,
    /// The transcoding engine's job while TRANSCODING (a MediaConvert job id; `local` for ffmpeg).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcode_job: Option<String>,
    /// Unlinked assets are gone after this (404); cleared when an ad links the asset.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<DateTime<Utc>>,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

/// What ffprobe (or MediaConvert) read of a media file (docs/media.md).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Probe {
    /// The container's short name (`mov`, `matroska`, `avi`, ...).
    pub container: String,
    pub video_codec: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audio_codec: Option<String>,
    pub duration_ms: u64,
    pub width: u32,
    pub height: u32,
    /// The whole file's bitrate, bits per second (0 when unknown).
    pub bitrate: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub frame_rate: Option<f64>,
}

/// One web-playable file made from the master (docs/media.md, "The ladder").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Rendition {
    /// The object's key in the bucket (served under `MEDIA_BASE_URL`).
    pub key: String,
    /// `video/mp4` or `video/webm`.
    pub mime: String,
    /// The RFC 6381 codecs string (VAST 3 `codec`).
    pub codecs: String,
    pub width: u32,
    pub height: u32,
    /// Video plus audio, bits per second (the VAST `bitrate` is this in kb/s).
    pub bitrate: u64,
    /// Bytes.
    pub size: u64,
}

/// A JPEG frame of the master.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Still {
    pub key: String,
    pub width: u32,
    pub height: u32,
}

/// At most this many renditions per asset (5 MP4 heights and one WebM).
pub const MAX_RENDITIONS: usize = 6;

/// The bounds of a playable master (docs/media.md, "Bounds").
pub const MIN_DURATION_MS: u64 = 1_000;
pub const MAX_DURATION_MS: u64 = 180_000;
pub const MAX_WIDTH: u32 = 3840;
pub const MAX_HEIGHT: u32 = 3840;
pub const MAX_PIXELS: u64 = 3840 * 2160;
/// Frames per second a master may have (high-frame-rate sport is 120 at most).
pub const MAX_FRAME_RATE: f64 = 120.0;

impl Probe {
    /// Whether the master is within the bounds; the reason (a `failureReason`) when not.
    pub fn check_bounds(&self) -> Result<(), String> {
        let secs = self.duration_ms as f64 / 1000.0;
        if self.duration_ms < MIN_DURATION_MS {
            return Err(format!("too short: {secs:.1} s (at least {} s)", MIN_DURATION_MS / 1000));
        }
        if self.duration_ms > MAX_DURATION_MS {
            return Err(format!("too long: {secs:.1} s (at most {} s)", MAX_DURATION_MS / 1000));
        }
        if self.width > MAX_WIDTH || self.height > MAX_HEIGHT || u64::from(self.width) * u64::from(self.height) > MAX_PIXELS {
            return Err(format!("too large: {}x{} (at most 3840x2160)", self.width, self.height));
        }
        if let Some(fps) = self.frame_rate.filter(|f| *f > MAX_FRAME_RATE) {
            return Err(format!("frame rate too high: {fps} fps (at most {MAX_FRAME_RATE} fps)"));
        }
        Ok(())
    }
}

impl Asset {
    /// The objects a player fetches once the asset is TRANSCODED: the master (the VAST
    /// Mezzanine), the renditions and the still.
    pub fn served_keys(&self) -> Vec<&str> {
        let master = self.object_key.as_deref();
        let still = self.still.as_ref().map(|s| s.key.as_str());
        master.into_iter().chain(self.renditions.iter().map(|r| r.key.as_str())).chain(still).collect()
    }

    /// Whether `key` may be served: one of the asset's served objects, and the asset is
    /// TRANSCODED (a FAILED, unlinked or still transcoding upload is never served).
    pub fn serves(&self, key: &str) -> bool {
        self.status == AssetStatus::Transcoded && self.served_keys().contains(&key)
    }

    /// A new asset record: PENDING, nothing arrived yet, not linked, not expiring (the
    /// caller sets what it knows).
    pub fn new(id: &str, name: &str, source: AssetSource, now: DateTime<Utc>) -> Asset {
        Asset {
            id: id.to_string(),
            name: name.to_string(),
            source,
            download_uri: None,
            status: AssetStatus::Pending,
            failure_reason: None,
            size: None,
            content_type: None,
            object_key: None,
            linked: false,
            probe: None,
            renditions: Vec::new(),
            still: None,
            transcode_job: None,
            expires: None,
            created: now,
            modified: now,
        }
    }

    /// The file arrived and was probed: READY, or TRANSCODING at once when an ad linked the
    /// asset meanwhile. An asset in a final state does not change (a redelivery).
    pub fn probed(&mut self, probe: Probe) {
        if self.status.is_final() {
            return;
        }
        self.probe = Some(probe);
        self.failure_reason = None;
        self.status = if self.linked { AssetStatus::Transcoding } else { AssetStatus::Ready };
    }

    /// FAILED with its reason, unless it reached a final state already.
    pub fn fail(&mut self, reason: &str) {
        if !self.status.is_final() {
            self.status = AssetStatus::Failed;
            self.failure_reason = Some(reason.to_string());
        }
    }

    /// Whether this asset waits for that transcode (`engine_job`: a submitted job's id;
    /// `None`: one made in this process).
    pub fn awaits_transcode(&self, engine_job: Option<&str>) -> bool {
        self.status == AssetStatus::Transcoding && (engine_job.is_none() || self.transcode_job.as_deref() == engine_job)
    }

    /// A transcode's outcome: TRANSCODED with the renditions and the still, or FAILED with
    /// the reason; only when the asset still waits for it (`awaits_transcode`).
    pub fn transcoded(&mut self, engine_job: Option<&str>, outcome: &Result<(Vec<Rendition>, Option<Still>), String>) {
        if !self.awaits_transcode(engine_job) {
            return;
        }
        self.transcode_job = None;
        match outcome {
            Ok((renditions, still)) => {
                self.status = AssetStatus::Transcoded;
                self.renditions = renditions.clone();
                self.still = still.clone();
            }
            Err(reason) => {
                self.status = AssetStatus::Failed;
                self.failure_reason = Some(reason.clone());
            }
        }
    }

    pub fn visible(&self, now: DateTime<Utc>) -> bool {
        self.linked || self.expires.is_none_or(|e| now < e)
    }

    /// Where the renditions and the still of an asset go: `<account>/assets/<asset>/r/`.
    pub fn renditions_prefix(account: &str, id: &str) -> String {
        format!("{account}/assets/{id}/r/")
    }

    /// Why an ad linking this asset cannot be served now, when it cannot (the campaign
    /// notifications say it; the engine skips the ad).
    pub fn not_playable(&self) -> Option<String> {
        match self.status {
            AssetStatus::Transcoded => None,
            AssetStatus::Failed => {
                Some(format!("media failed: {}", self.failure_reason.as_deref().unwrap_or("the file could not be processed")))
            }
            AssetStatus::Pending | AssetStatus::Downloading => Some("waiting for its media: the file is still arriving".into()),
            AssetStatus::Ready | AssetStatus::Transcoding => Some("waiting for its media: the renditions are being made".into()),
        }
    }

    pub fn object_key(account: &str, id: &str, name: &str) -> String {
        let safe: String = name.chars().map(|c| if c.is_ascii_alphanumeric() || ".-_".contains(c) { c } else { '_' }).collect();
        format!("{account}/assets/{id}/{safe}")
    }
}

/// `name` must end in a video file extension.
pub fn check_name(name: &str) -> Result<(), String> {
    let ext = name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase());
    match ext {
        Some(e) if VIDEO_EXTENSIONS.contains(&e.as_str()) && name.len() > e.len() + 1 => Ok(()),
        _ => Err(format!("name must end in a video file extension ({}) (got {name:?})", VIDEO_EXTENSIONS.join(", "))),
    }
}

pub fn content_type_for(name: &str) -> &'static str {
    match name.rsplit_once('.').map(|(_, e)| e.to_ascii_lowercase()).as_deref() {
        Some("mp4") | Some("m4v") => "video/mp4",
        Some("mov") => "video/quicktime",
        Some("webm") => "video/webm",
        Some("mkv") => "video/x-matroska",
        Some("avi") => "video/x-msvideo",
        Some("wmv") => "video/x-ms-wmv",
        Some("flv") => "video/x-flv",
        Some("mpg") | Some("mpeg") => "video/mpeg",
        Some("ts") => "video/mp2t",
        Some("3gp") => "video/3gpp",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_need_a_video_extension() {
        for ok in ["spot.mp4", "Spot.MOV", "a.b.webm", "x.3gp"] {
            assert!(check_name(ok).is_ok(), "{ok}");
        }
        for bad in ["spot", "spot.jpg", ".mp4", "spot.mp4.exe", "spot."] {
            assert!(check_name(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_bounds_of_a_master() {
        let p = |ms, w, h| Probe {
            container: "mov".into(),
            video_codec: "h264".into(),
            audio_codec: None,
            duration_ms: ms,
            width: w,
            height: h,
            bitrate: 0,
            frame_rate: None,
        };
        assert!(p(30_000, 1920, 1080).check_bounds().is_ok());
        assert!(p(30_000, 1080, 1920).check_bounds().is_ok(), "portrait 1080p");
        assert_eq!(p(500, 640, 360).check_bounds(), Err("too short: 0.5 s (at least 1 s)".into()));
        assert_eq!(p(412_000, 640, 360).check_bounds(), Err("too long: 412.0 s (at most 180 s)".into()));
        assert_eq!(p(30_000, 4096, 2304).check_bounds(), Err("too large: 4096x2304 (at most 3840x2160)".into()));
        let fast = |fps| Probe { frame_rate: Some(fps), ..p(30_000, 1920, 1080) };
        assert!(fast(119.88).check_bounds().is_ok());
        assert_eq!(fast(240.0).check_bounds(), Err("frame rate too high: 240 fps (at most 120 fps)".into()));
    }

    #[test]
    fn object_keys_are_safe() {
        assert_eq!(Asset::object_key("a", "i", "my clip (final).mp4"), "a/assets/i/my_clip__final_.mp4");
    }
}
