//! Reading a media file's streams with ffprobe (`ffprobe -print_format json -show_format
//! -show_streams`), into the asset's `Probe`. The JSON reading is pure (`parse`), so it is
//! tested without the binary; `run` is the process adapter.

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

/// Why a file is not a playable video (the asset's `failureReason`).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ProbeError {
    #[error("not a video file: ffprobe could not read it")]
    Unreadable,
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

/// Probes a local file with the `ffprobe` binary (`FFPROBE`, default `ffprobe`).
pub async fn run(ffprobe: &str, file: &Path) -> Result<Probe, ProbeError> {
    let out = tokio::process::Command::new(ffprobe)
        .args(["-v", "error", "-print_format", "json", "-show_format", "-show_streams"])
        .arg(file)
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| ProbeError::Tool(e.to_string()))?;
    if !out.status.success() {
        return Err(ProbeError::Unreadable);
    }
    parse(&out.stdout)
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
