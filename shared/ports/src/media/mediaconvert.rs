//! The AWS media engine: AWS Elemental MediaConvert probes the master (`Probe`) and makes
//! the ladder (`CreateJob`, the same `ladder::plan` as ffmpeg); the job's completion is an
//! EventBridge "MediaConvert Job State Change" event that reaches the asset worker through
//! the assets queue (`job_events.rs`). The job settings are pure and tested against
//! recorded SDK traffic (tests/api/mediaconvert.rs, tests/fixtures/mediaconvert/). Behind
//! the default feature `mediaconvert` (the fuzz workspace builds without the SDK).

use std::path::Path;

use async_trait::async_trait;
use aws_sdk_mediaconvert::types as mc;

use super::engine::{EngineError, MediaEngine, Order, Started};
use super::job_events::BASE;
use super::ladder::{plan, Container, Spec, AUDIO_KBPS};
use super::probe::ProbeError;
use crate::blobs::Blobs;
use crate::model::asset::{Asset, Probe};

pub struct MediaConvert {
    pub client: aws_sdk_mediaconvert::Client,
    /// The role MediaConvert assumes to read the master and write the renditions.
    pub role_arn: String,
    pub bucket: String,
}

fn s3(bucket: &str, key: &str) -> String {
    format!("s3://{bucket}/{key}")
}

/// The name modifier of a rendition's output (`_720p`, `_720p_webm`): the file is
/// `r/v_720p.mp4` or `r/v_720p_webm.webm`.
fn modifier(spec: &Spec) -> String {
    match spec.container {
        Container::Mp4 => format!("_{}p", spec.height),
        Container::WebM => format!("_{}p_webm", spec.height),
    }
}

fn output(spec: &Spec, audio: bool) -> mc::Output {
    let bps = spec.video_kbps as i32 * 1000;
    let (container, video, sound) = match spec.container {
        Container::Mp4 => (
            mc::ContainerSettings::builder()
                .container(mc::ContainerType::Mp4)
                .mp4_settings(mc::Mp4Settings::builder().moov_placement(mc::Mp4MoovPlacement::ProgressiveDownload).build())
                .build(),
            mc::VideoCodecSettings::builder()
                .codec(mc::VideoCodec::H264)
                .h264_settings(
                    mc::H264Settings::builder()
                        .codec_profile(mc::H264CodecProfile::High)
                        .rate_control_mode(mc::H264RateControlMode::Vbr)
                        .bitrate(bps)
                        .max_bitrate(bps * 3 / 2)
                        .build(),
                )
                .build(),
            mc::AudioCodecSettings::builder()
                .codec(mc::AudioCodec::Aac)
                .aac_settings(
                    mc::AacSettings::builder()
                        .bitrate(AUDIO_KBPS as i32 * 1000)
                        .coding_mode(mc::AacCodingMode::CodingMode20)
                        .sample_rate(48_000)
                        .build(),
                )
                .build(),
        ),
        Container::WebM => (
            mc::ContainerSettings::builder().container(mc::ContainerType::Webm).build(),
            mc::VideoCodecSettings::builder()
                .codec(mc::VideoCodec::Vp9)
                .vp9_settings(mc::Vp9Settings::builder().rate_control_mode(mc::Vp9RateControlMode::Vbr).bitrate(bps).build())
                .build(),
            mc::AudioCodecSettings::builder()
                .codec(mc::AudioCodec::Opus)
                .opus_settings(mc::OpusSettings::builder().bitrate(AUDIO_KBPS as i32 * 1000).channels(2).sample_rate(48_000).build())
                .build(),
        ),
    };
    let mut o = mc::Output::builder().name_modifier(modifier(spec)).container_settings(container).video_description(
        mc::VideoDescription::builder().width(spec.width as i32).height(spec.height as i32).codec_settings(video).build(),
    );
    if audio {
        o = o.audio_descriptions(mc::AudioDescription::builder().codec_settings(sound).build());
    }
    o.build()
}

/// The still: a frame capture at 1 fps, two frames, the second (1 s in) kept.
fn still_output((w, h): (u32, u32)) -> mc::Output {
    mc::Output::builder()
        .name_modifier("_still")
        .container_settings(mc::ContainerSettings::builder().container(mc::ContainerType::Raw).build())
        .video_description(
            mc::VideoDescription::builder()
                .width(w as i32)
                .height(h as i32)
                .codec_settings(
                    mc::VideoCodecSettings::builder()
                        .codec(mc::VideoCodec::FrameCapture)
                        .frame_capture_settings(
                            mc::FrameCaptureSettings::builder()
                                .framerate_numerator(1)
                                .framerate_denominator(1)
                                .max_captures(2)
                                .quality(80)
                                .build(),
                        )
                        .build(),
                )
                .build(),
        )
        .build()
}

/// The job settings of an order: one file group under the asset's `r/` prefix with every
/// rendition of the ladder and the still.
pub fn job_settings(order: &Order, bucket: &str) -> mc::JobSettings {
    let specs = plan(&order.probe);
    let audio = order.probe.audio_codec.is_some();
    // The input is clipped to the probed duration, so the job's cost follows the probe, not
    // what the file's metadata may claim (docs/media.md, "The sandbox").
    let clip = mc::InputClipping::builder().end_timecode(end_timecode(order.probe.duration_ms, order.probe.frame_rate)).build();
    let mut input = mc::Input::builder()
        .file_input(s3(bucket, &order.master_key))
        .timecode_source(mc::InputTimecodeSource::Zerobased)
        .input_clippings(clip)
        .video_selector(mc::VideoSelector::builder().build());
    if audio {
        input = input.audio_selectors(
            "Audio Selector 1",
            mc::AudioSelector::builder().default_selection(mc::AudioDefaultSelection::Default).build(),
        );
    }
    let destination = s3(bucket, &format!("{}{BASE}", Asset::renditions_prefix(&order.account, &order.asset)));
    let mut group = mc::OutputGroup::builder().name("renditions").output_group_settings(
        mc::OutputGroupSettings::builder()
            .r#type(mc::OutputGroupType::FileGroupSettings)
            .file_group_settings(mc::FileGroupSettings::builder().destination(destination).build())
            .build(),
    );
    for spec in &specs {
        group = group.outputs(output(spec, audio));
    }
    group = group.outputs(still_output(super::local::still_size(&specs)));
    mc::JobSettings::builder().inputs(input.build()).output_groups(group.build()).build()
}

/// The `HH:MM:SS:FF` timecode at the end of `duration_ms` of video at `fps` frames a
/// second (25 when the probe read none), rounded up to the frame that holds the end.
pub fn end_timecode(duration_ms: u64, fps: Option<f64>) -> String {
    let fps = fps.filter(|f| f.is_finite() && *f >= 1.0).unwrap_or(25.0).round() as u64;
    let mut secs = duration_ms / 1000;
    let mut frames = ((duration_ms % 1000) * fps).div_ceil(1000);
    if frames >= fps {
        secs += 1;
        frames = 0;
    }
    format!("{:02}:{:02}:{:02}:{frames:02}", secs / 3600, secs / 60 % 60, secs % 60)
}

/// The probe of MediaConvert's `Probe` answer.
pub fn probe_of(r: &mc::ProbeResult) -> Result<Probe, ProbeError> {
    let c = r.container().ok_or(ProbeError::Unreadable)?;
    let tracks = c.tracks();
    let video = tracks.iter().find(|t| t.track_type() == Some(&mc::TrackType::Video)).ok_or(ProbeError::NoVideo)?;
    let audio = tracks.iter().find(|t| t.track_type() == Some(&mc::TrackType::Audio));
    let vp = video.video_properties().ok_or(ProbeError::NoSize)?;
    let (width, height) = match (vp.width(), vp.height()) {
        (Some(w), Some(h)) if w > 0 && h > 0 => (w as u32, h as u32),
        _ => return Err(ProbeError::NoSize),
    };
    let seconds = c.duration().or(video.duration()).filter(|d| d.is_finite() && *d > 0.0).ok_or(ProbeError::NoDuration)?;
    let frame_rate = vp.frame_rate().and_then(|f| match (f.numerator(), f.denominator()) {
        (Some(n), Some(d)) if n > 0 && d > 0 => Some((f64::from(n) / f64::from(d) * 1000.0).round() / 1000.0),
        _ => None,
    });
    Ok(Probe {
        container: c.format().map(|f| f.as_str().to_ascii_lowercase()).unwrap_or_default(),
        video_codec: video.codec().map(|c| c.as_str().to_ascii_lowercase()).unwrap_or_default(),
        audio_codec: audio.and_then(|a| a.codec()).map(|c| c.as_str().to_ascii_lowercase()),
        duration_ms: (seconds * 1000.0).round() as u64,
        width,
        height,
        bitrate: c.bit_rate().unwrap_or(0).max(0) as u64,
        frame_rate,
    })
}

#[async_trait]
impl MediaEngine for MediaConvert {
    async fn probe(&self, _: &dyn Blobs, key: &str, _: Option<&Path>) -> Result<Probe, ProbeError> {
        let out = self
            .client
            .probe()
            .input_files(mc::ProbeInputFile::builder().file_url(s3(&self.bucket, key)).build())
            .send()
            .await
            .map_err(|e| ProbeError::Tool(format!("{}", aws_sdk_mediaconvert::error::DisplayErrorContext(e))))?;
        probe_of(out.probe_results().first().ok_or(ProbeError::Unreadable)?)
    }

    async fn transcode(&self, _: &dyn Blobs, order: &Order) -> Result<Started, EngineError> {
        let out = self
            .client
            .create_job()
            .role(&self.role_arn)
            .settings(job_settings(order, &self.bucket))
            .user_metadata("account", &order.account)
            .user_metadata("asset", &order.asset)
            // The stack's EventBridge rule matches its own bucket's jobs only.
            .user_metadata("bucket", &self.bucket)
            // A redelivered message submits the same job once (MediaConvert's idempotency token).
            .client_request_token(&order.asset)
            .send()
            .await
            .map_err(|e| EngineError::Service(format!("{}", aws_sdk_mediaconvert::error::DisplayErrorContext(e))))?;
        let id = out.job().and_then(|j| j.id()).ok_or_else(|| EngineError::Service("CreateJob answered no job id".into()))?;
        Ok(Started::Submitted(id.to_string()))
    }

    fn kind(&self) -> &'static str {
        "mediaconvert"
    }
}

#[cfg(test)]
mod tests {
    use super::end_timecode;

    #[test]
    fn the_input_ends_at_the_probed_duration() {
        assert_eq!(end_timecode(30_030, Some(25.0)), "00:00:30:01");
        assert_eq!(end_timecode(2_000, None), "00:00:02:00");
        assert_eq!(end_timecode(179_999, Some(29.97)), "00:03:00:00");
        assert_eq!(end_timecode(61_500, Some(50.0)), "00:01:01:25");
    }
}
