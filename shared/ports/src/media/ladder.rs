//! The rendition ladder (docs/media.md): what a master becomes. Pure: the same plan drives
//! ffmpeg locally and the MediaConvert job settings on AWS.

use crate::model::asset::Probe;

/// The ladder's heights, best first, with their H.264 video bitrates (kb/s).
pub const LADDER: &[(u32, u32)] = &[(1080, 5000), (720, 2800), (480, 1200), (360, 700), (240, 400)];
/// The WebM rendition is made at the highest ladder height at or below this.
pub const WEBM_MAX_HEIGHT: u32 = 720;
/// AAC/Opus audio bitrate (kb/s).
pub const AUDIO_KBPS: u32 = 128;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Container {
    /// H.264 High + AAC-LC, `+faststart`.
    Mp4,
    /// VP9 + Opus.
    WebM,
}

impl Container {
    pub fn mime(self) -> &'static str {
        match self {
            Container::Mp4 => "video/mp4",
            Container::WebM => "video/webm",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Container::Mp4 => "mp4",
            Container::WebM => "webm",
        }
    }

    /// The RFC 6381 codecs string (VAST 3 `codec`).
    pub fn codecs(self) -> &'static str {
        match self {
            Container::Mp4 => "avc1.640028,mp4a.40.2",
            Container::WebM => "vp09.00.40.08,opus",
        }
    }
}

/// One rendition to make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Spec {
    pub container: Container,
    pub width: u32,
    pub height: u32,
    /// Video bitrate, kb/s.
    pub video_kbps: u32,
}

impl Spec {
    /// The file name under the asset's `r/` prefix.
    pub fn file_name(&self) -> String {
        format!("{}p.{}", self.height, self.container.extension())
    }
}

/// Even (H.264 with 4:2:0 needs even sizes), at least 2.
fn even(v: f64) -> u32 {
    ((v / 2.0).round() as u32 * 2).max(2)
}

/// The renditions of a master: every ladder height not above the source's (aspect kept), at
/// a bitrate never above the source's; a source below the ladder gets one rendition at its
/// own (even) height; plus one WebM at the highest height ≤ [`WEBM_MAX_HEIGHT`].
pub fn plan(p: &Probe) -> Vec<Spec> {
    let aspect = f64::from(p.width) / f64::from(p.height.max(1));
    let source_kbps = u32::try_from(p.bitrate / 1000).unwrap_or(u32::MAX);
    let cap = |kbps: u32| if source_kbps > 0 { kbps.min(source_kbps.max(200)) } else { kbps };
    let mut heights: Vec<(u32, u32)> = LADDER.iter().copied().filter(|(h, _)| *h <= p.height).collect();
    if heights.is_empty() {
        let (_, lowest) = LADDER[LADDER.len() - 1];
        heights.push((even(f64::from(p.height)), lowest));
    }
    let spec = |container, (h, kbps): (u32, u32)| Spec { container, width: even(f64::from(h) * aspect), height: h, video_kbps: cap(kbps) };
    let mut out: Vec<Spec> = heights.iter().map(|hk| spec(Container::Mp4, *hk)).collect();
    if let Some(hk) = heights.iter().find(|(h, _)| *h <= WEBM_MAX_HEIGHT) {
        out.push(spec(Container::WebM, *hk));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn probe(w: u32, h: u32, bitrate: u64) -> Probe {
        Probe {
            container: "mov".into(),
            video_codec: "prores".into(),
            audio_codec: None,
            duration_ms: 30_000,
            width: w,
            height: h,
            bitrate,
            frame_rate: Some(25.0),
        }
    }

    #[test]
    fn a_1080p_master_gets_the_whole_ladder_and_a_webm() {
        let p = plan(&probe(1920, 1080, 150_000_000));
        let mp4: Vec<(u32, u32)> = p.iter().filter(|s| s.container == Container::Mp4).map(|s| (s.width, s.height)).collect();
        assert_eq!(mp4, vec![(1920, 1080), (1280, 720), (854, 480), (640, 360), (426, 240)]);
        let webm: Vec<_> = p.iter().filter(|s| s.container == Container::WebM).collect();
        assert_eq!((webm.len(), webm[0].height), (1, 720));
    }

    #[test]
    fn never_upscaled_aspect_kept_bitrate_capped() {
        let p = plan(&probe(640, 480, 800_000));
        assert!(p.iter().all(|s| s.height <= 480));
        assert_eq!(p[0], Spec { container: Container::Mp4, width: 640, height: 480, video_kbps: 800 });
        // Portrait (9:16) keeps its aspect.
        let v = plan(&probe(1080, 1920, 0));
        assert_eq!((v[0].width, v[0].height), (608, 1080));
        // Below the ladder: one rendition at its own size.
        let tiny = plan(&probe(160, 120, 100_000));
        assert_eq!(tiny.iter().map(|s| (s.width, s.height)).collect::<Vec<_>>(), vec![(160, 120), (160, 120)]);
    }
}
