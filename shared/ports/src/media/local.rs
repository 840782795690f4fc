//! The local media engine: ffprobe reads a master, ffmpeg makes the ladder in one run and a
//! still, each output stored under the asset's `r/` prefix (Debian's `ffmpeg`; `FFMPEG` and
//! `FFPROBE` name other binaries). Used by the local server and every test.

use std::path::{Path, PathBuf};

use async_trait::async_trait;

use super::engine::{EngineError, Made, MediaEngine, Order, Started};
use super::ffmpeg;
use super::ladder::{plan, Spec};
use super::probe::{self, ProbeError};
use crate::blobs::Blobs;
use crate::model::asset::{Asset, Probe, Rendition, Still};

pub struct Ffmpeg {
    pub ffmpeg: String,
    pub ffprobe: String,
    /// Where masters and outputs are kept while they are worked on.
    pub tmp: PathBuf,
    /// Transcodes at once in this process (`TRANSCODES_PER_PROCESS`, default 2): the others
    /// wait their turn, so a burst of links cannot start one ffmpeg per message.
    slots: tokio::sync::Semaphore,
}

/// Transcodes one process runs at once unless `TRANSCODES_PER_PROCESS` says otherwise.
pub const TRANSCODES_PER_PROCESS: usize = 2;

impl Ffmpeg {
    pub fn new(tmp: PathBuf) -> Ffmpeg {
        let slots = std::env::var("TRANSCODES_PER_PROCESS").ok().and_then(|v| v.parse().ok()).filter(|n| *n > 0);
        Ffmpeg {
            ffmpeg: std::env::var("FFMPEG").unwrap_or_else(|_| "ffmpeg".into()),
            ffprobe: std::env::var("FFPROBE").unwrap_or_else(|_| "ffprobe".into()),
            tmp,
            slots: tokio::sync::Semaphore::new(slots.unwrap_or(TRANSCODES_PER_PROCESS)),
        }
    }

    fn work_dir(&self, what: &str) -> PathBuf {
        self.tmp.join(format!("media-{what}-{}", uuid::Uuid::new_v4().simple()))
    }
}

/// Copies the object at `key` into `path` (streamed).
async fn fetch(blobs: &dyn Blobs, key: &str, path: &Path) -> Result<(), String> {
    let mut r = blobs.open_from(key, 0).await.map_err(|e| e.to_string())?.ok_or_else(|| format!("the master {key} is gone"))?;
    let mut f = tokio::fs::File::create(path).await.map_err(|e| e.to_string())?;
    tokio::io::copy(&mut r, &mut f).await.map_err(|e| e.to_string())?;
    Ok(())
}

/// The still's size: that of the first rendition at or below 720 lines (the last otherwise).
pub fn still_size(specs: &[Spec]) -> (u32, u32) {
    specs.iter().find(|s| s.height <= 720).or(specs.last()).map_or((2, 2), |s| (s.width, s.height))
}

/// The average bitrate of a file of `size` bytes lasting `duration_ms` (bits per second).
pub fn average_bitrate(size: u64, duration_ms: u64) -> u64 {
    size.saturating_mul(8_000) / duration_ms.max(1)
}

impl Ffmpeg {
    async fn run(&self, blobs: &dyn Blobs, order: &Order, dir: &Path) -> Result<Made, EngineError> {
        let master = dir.join("master");
        fetch(blobs, &order.master_key, &master).await.map_err(EngineError::Service)?;
        let specs = plan(&order.probe);
        let has_audio = order.probe.audio_codec.is_some();
        // The demuxer the probe found is the one used (a master probed by another engine
        // in a container this one does not read is not the file's fault to retry).
        let demuxer = super::probe::demuxer(&order.probe.container).ok_or(EngineError::Media(ffmpeg::Failure::Undecodable.to_string()))?;
        let src = ffmpeg::Source { master: &master, demuxer, duration_ms: order.probe.duration_ms };
        let bound = ffmpeg::time_bound(order.probe.duration_ms);
        let outputs: Vec<PathBuf> = specs.iter().map(|s| ffmpeg::output(dir, s)).collect();
        self.ffmpeg(&ffmpeg::transcode_args(&src, &specs, has_audio, dir), bound, &outputs).await?;
        let (w, h) = still_size(&specs);
        let still_file = dir.join("still.jpg");
        let at = ffmpeg::still_at_ms(order.probe.duration_ms);
        self.ffmpeg(&ffmpeg::still_args(&src, at, (w, h), &still_file), bound, std::slice::from_ref(&still_file)).await?;
        let prefix = Asset::renditions_prefix(&order.account, &order.asset);
        let mut renditions = Vec::with_capacity(specs.len());
        for spec in &specs {
            let key = format!("{prefix}{}", spec.file_name());
            let mime = spec.container.mime();
            let size = blobs.put_file(&key, &ffmpeg::output(dir, spec), mime).await.map_err(|e| EngineError::Service(e.to_string()))?;
            renditions.push(rendition(spec, key, size, order.probe.duration_ms));
        }
        let still_key = format!("{prefix}still.jpg");
        blobs.put_file(&still_key, &still_file, "image/jpeg").await.map_err(|e| EngineError::Service(e.to_string()))?;
        Ok(Made { renditions, still: Some(Still { key: still_key, width: w, height: h }) })
    }
}

impl Ffmpeg {
    async fn ffmpeg(&self, args: &[String], bound: std::time::Duration, outputs: &[PathBuf]) -> Result<(), EngineError> {
        match ffmpeg::run(&self.ffmpeg, args, bound, outputs).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(failure)) => Err(EngineError::Media(failure.to_string())),
            Err(ffmpeg::NotRun(e)) => Err(EngineError::Service(e)),
        }
    }
}

/// The record of a made rendition (its bitrate measured from its size).
pub fn rendition(spec: &Spec, key: String, size: u64, duration_ms: u64) -> Rendition {
    Rendition {
        key,
        mime: spec.container.mime().into(),
        codecs: spec.container.codecs().into(),
        width: spec.width,
        height: spec.height,
        bitrate: average_bitrate(size, duration_ms),
        size,
    }
}

#[async_trait]
impl MediaEngine for Ffmpeg {
    async fn probe(&self, blobs: &dyn Blobs, key: &str, local: Option<&Path>) -> Result<Probe, ProbeError> {
        if let Some(path) = local {
            return probe::run(&self.ffprobe, path).await;
        }
        let dir = self.work_dir("probe");
        tokio::fs::create_dir_all(&dir).await.map_err(|e| ProbeError::Tool(e.to_string()))?;
        let path = dir.join("master");
        let out = match fetch(blobs, key, &path).await {
            Ok(()) => probe::run(&self.ffprobe, &path).await,
            Err(e) => Err(ProbeError::Tool(e)),
        };
        let _ = tokio::fs::remove_dir_all(&dir).await;
        out
    }

    async fn transcode(&self, blobs: &dyn Blobs, order: &Order) -> Result<Started, EngineError> {
        let _turn = self.slots.acquire().await.map_err(|e| EngineError::Service(e.to_string()))?;
        let dir = self.work_dir(&order.asset);
        tokio::fs::create_dir_all(&dir).await.map_err(|e| EngineError::Service(e.to_string()))?;
        let out = self.run(blobs, order, &dir).await;
        let _ = tokio::fs::remove_dir_all(&dir).await;
        out.map(Started::Done)
    }

    fn kind(&self) -> &'static str {
        "ffmpeg"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::media::ladder::Container;

    #[test]
    fn the_still_and_the_measured_bitrate() {
        let s = |h, w| Spec { container: Container::Mp4, width: w, height: h, video_kbps: 1 };
        assert_eq!(still_size(&[s(1080, 1920), s(720, 1280), s(480, 854)]), (1280, 720));
        assert_eq!(still_size(&[s(1080, 1920)]), (1920, 1080));
        assert_eq!(average_bitrate(1_000_000, 10_000), 800_000);
        assert_eq!(average_bitrate(5, 0), 40_000);
    }
}
