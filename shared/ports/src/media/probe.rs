//! Reading a media file's streams with ffprobe (`ffprobe -print_format json -show_format
//! -show_streams`), into the asset's `Probe`. The JSON reading is pure (`parse`), so it is
//! tested without the binary; `run` is the process adapter.
//!
//! The sandbox (docs/media.md, "The sandbox"): ffprobe reads the local file only
//! (`-protocol_whitelist file`) with the demuxers of the containers masters come in
//! (`-format_whitelist`, [`DEMUXERS`]), so a playlist or manifest never makes it open another
//! file; a meta-format is named by its first bytes ([`sniff`]) before ffprobe runs; a run
//! has a wall-clock bound.

use std::path::Path;

use serde::Deserialize;

use crate::model::asset::Probe;

#[derive(Debug, Deserialize)]
struct Output {
    #[serde(default)]
    streams: Vec<Stream>,
    format: Option<Format>,
}

#[derive(Debug, Deserialize)]
struct Stream {
    #[serde(default)]
    codec_type: String,
    #[serde(default)]
    codec_name: String,
    width: Option<u32>,
    height: Option<u32>,
    avg_frame_rate: Option<String>,
    bit_rate: Option<String>,
    duration: Option<String>,
    #[serde(default)]
    disposition: Disposition,
}

#[derive(Debug, Default, Deserialize)]
struct Disposition {
    #[serde(default)]
    attached_pic: u8,
}

#[derive(Debug, Deserialize)]
struct Format {
    #[serde(default)]
    format_name: String,
    duration: Option<String>,
    bit_rate: Option<String>,
}

/// The demuxers ffprobe and ffmpeg may use: the containers masters come in (MP4/MOV/3GP,
/// Matroska/WebM, MPEG-TS, AVI, MXF, FLV). Never a meta-format (HLS, DASH, concat, image
/// sequences), which would open other files.
pub const DEMUXERS: &str = "mov,matroska,mpegts,avi,mxf,flv";

/// The demuxer to force on a transcode for a probed container (the first name ffprobe
/// gave); `None` for one this engine does not read.
pub fn demuxer(container: &str) -> Option<&'static str> {
    DEMUXERS.split(',').find(|d| *d == container)
}

/// How long one ffprobe run may take.
pub const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);

/// Why a file is not a playable video (the asset's `failureReason`: the messages below are
/// the documented list, docs/media.md "Why an asset FAILED").
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeError {
    #[error("not a video file: ffprobe could not read it")]
    Unreadable,
    /// A playlist, manifest or file list: names other files instead of holding the video.
    #[error("not a video file: {0} (upload the video itself)")]
    MetaFormat(&'static str),
    #[error("no video stream in the file")]
    NoVideo,
    #[error("the video stream has no size")]
    NoSize,
    #[error("the file has no duration")]
    NoDuration,
    /// ffprobe itself could not be run (a fault of the service, not of the file).
    #[error("ffprobe could not be run: {0}")]
    Tool(String),
}

fn rate(s: &str) -> Option<f64> {
    let (n, d) = s.split_once('/')?;
    let (n, d): (f64, f64) = (n.parse().ok()?, d.parse().ok()?);
    (d > 0.0 && n > 0.0).then_some(n / d)
}

/// The probe of ffprobe's JSON output.
pub fn parse(json: &[u8]) -> Result<Probe, ProbeError> {
    let out: Output = serde_json::from_slice(json).map_err(|_| ProbeError::Unreadable)?;
    let format = out.format.ok_or(ProbeError::Unreadable)?;
    let video = out.streams.iter().find(|s| s.codec_type == "video" && s.disposition.attached_pic == 0).ok_or(ProbeError::NoVideo)?;
    let audio = out.streams.iter().find(|s| s.codec_type == "audio");
    let (width, height) = match (video.width, video.height) {
        (Some(w), Some(h)) if w > 0 && h > 0 => (w, h),
        _ => return Err(ProbeError::NoSize),
    };
    let seconds = format
        .duration
        .as_deref()
        .or(video.duration.as_deref())
        .and_then(|d| d.parse::<f64>().ok())
        .filter(|d| d.is_finite() && *d > 0.0)
        .ok_or(ProbeError::NoDuration)?;
    let bitrate = format.bit_rate.as_deref().or(video.bit_rate.as_deref()).and_then(|b| b.parse::<u64>().ok()).unwrap_or(0);
    Ok(Probe {
        container: format.format_name.split(',').next().unwrap_or("").to_string(),
        video_codec: video.codec_name.clone(),
        audio_codec: audio.map(|a| a.codec_name.clone()),
        duration_ms: (seconds * 1000.0).round() as u64,
        width,
        height,
        bitrate,
        frame_rate: video.avg_frame_rate.as_deref().and_then(rate).map(|r| (r * 1000.0).round() / 1000.0),
    })
}

/// The meta-format a file's first bytes announce, if any: such a file names other files
/// (segments, representations, a list) and is refused before any tool reads it.
pub fn sniff(head: &[u8]) -> Option<&'static str> {
    let text = String::from_utf8_lossy(head);
    let t = text.trim_start_matches('\u{feff}').trim_start();
    if t.starts_with("#EXTM3U") || t.starts_with("#EXTINF") {
        Some("an HLS or M3U playlist")
    } else if t.starts_with("ffconcat") || t.starts_with("file '") || t.starts_with("file \"") {
        Some("a concat list")
    } else if t.contains("<MPD") {
        Some("a DASH manifest")
    } else if t.starts_with("<?xml") || t.starts_with("<smil") || t.starts_with("[playlist]") {
        Some("a playlist or manifest")
    } else {
        None
    }
}

/// The ffprobe arguments for a local file (pure: tested as such).
pub fn args(file: &Path) -> Vec<String> {
    let mut a: Vec<String> = ["-v", "error", "-protocol_whitelist", "file", "-format_whitelist", DEMUXERS]
        .into_iter()
        .chain(["-print_format", "json", "-show_format", "-show_streams"])
        .map(String::from)
        .collect();
    a.push(format!("file:{}", file.display()));
    a
}

/// Probes a local file with the `ffprobe` binary (`FFPROBE`, default `ffprobe`).
pub async fn run(ffprobe: &str, file: &Path) -> Result<Probe, ProbeError> {
    let mut head = [0u8; 512];
    let n = read_head(file, &mut head).await.map_err(|e| ProbeError::Tool(e.to_string()))?;
    if let Some(kind) = sniff(&head[..n]) {
        return Err(ProbeError::MetaFormat(kind));
    }
    let run = tokio::process::Command::new(ffprobe).args(args(file)).kill_on_drop(true).output();
    let out = match tokio::time::timeout(PROBE_TIMEOUT, run).await {
        Ok(out) => out.map_err(|e| ProbeError::Tool(e.to_string()))?,
        Err(_) => {
            tracing::warn!(file = %file.display(), "ffprobe ran past its bound; stopped");
            return Err(ProbeError::Unreadable);
        }
    };
    if !out.status.success() {
        tracing::info!(stderr = %String::from_utf8_lossy(&out.stderr).trim(), "ffprobe refused the file");
        return Err(ProbeError::Unreadable);
    }
    let probe = parse(&out.stdout)?;
    // Defence in depth: the whitelist already kept every other demuxer out.
    if demuxer(&probe.container).is_none() {
        return Err(ProbeError::Unreadable);
    }
    Ok(probe)
}

async fn read_head(file: &Path, buf: &mut [u8]) -> std::io::Result<usize> {
    use tokio::io::AsyncReadExt;
    let mut f = tokio::fs::File::open(file).await?;
    let mut n = 0;
    while n < buf.len() {
        match f.read(&mut buf[n..]).await? {
            0 => break,
            k => n += k,
        }
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_mp4_reads_into_its_probe() {
        let json = br#"{"streams":[{"codec_type":"video","codec_name":"h264","width":1920,"height":1080,"avg_frame_rate":"30000/1001","bit_rate":"4000000"},
            {"codec_type":"audio","codec_name":"aac"}],"format":{"format_name":"mov,mp4,m4a,3gp,3g2,mj2","duration":"30.030000","bit_rate":"4128000"}}"#;
        let p = parse(json).unwrap();
        assert_eq!((p.width, p.height, p.duration_ms, p.bitrate), (1920, 1080, 30030, 4_128_000));
        assert_eq!((p.container.as_str(), p.video_codec.as_str(), p.audio_codec.as_deref()), ("mov", "h264", Some("aac")));
        assert_eq!(p.frame_rate, Some(29.97));
    }

    #[test]
    fn meta_formats_are_named_by_their_first_bytes_and_never_reach_ffprobe() {
        assert_eq!(sniff(b"#EXTM3U\n#EXTINF:2,\n/data/x.ts\n"), Some("an HLS or M3U playlist"));
        assert_eq!(sniff(b"\xef\xbb\xbf  #EXTM3U"), Some("an HLS or M3U playlist"));
        assert_eq!(sniff(b"ffconcat version 1.0\nfile 'a.mp4'"), Some("a concat list"));
        assert_eq!(sniff(b"<?xml version=\"1.0\"?><MPD xmlns=\"urn:mpeg:dash\">"), Some("a DASH manifest"));
        assert_eq!(sniff(b"\x00\x00\x00\x18ftypmp42"), None);
        assert_eq!(sniff(b"\x1a\x45\xdf\xa3"), None);
        let a = args(Path::new("/t/master")).join(" ");
        assert!(a.contains("-protocol_whitelist file -format_whitelist mov,matroska,mpegts,avi,mxf,flv"), "{a}");
        assert!(a.ends_with(" file:/t/master"), "{a}");
        assert_eq!((demuxer("mov"), demuxer("matroska"), demuxer("hls"), demuxer("concat")), (Some("mov"), Some("matroska"), None, None));
    }

    #[test]
    fn what_is_not_a_video_is_named() {
        assert_eq!(parse(b"not json"), Err(ProbeError::Unreadable));
        assert_eq!(
            parse(br#"{"streams":[{"codec_type":"audio","codec_name":"mp3"}],"format":{"format_name":"mp3","duration":"3"}}"#),
            Err(ProbeError::NoVideo)
        );
        // A cover picture is not a video stream.
        let art = br#"{"streams":[{"codec_type":"video","codec_name":"mjpeg","width":500,"height":500,"disposition":{"attached_pic":1}}],"format":{"format_name":"mp3","duration":"3"}}"#;
        assert_eq!(parse(art), Err(ProbeError::NoVideo));
        assert_eq!(
            parse(br#"{"streams":[{"codec_type":"video","codec_name":"h264","width":2,"height":2}],"format":{"format_name":"mp4"}}"#),
            Err(ProbeError::NoDuration)
        );
    }
}
