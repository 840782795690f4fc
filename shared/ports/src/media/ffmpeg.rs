//! The local transcoder: ffmpeg makes each rendition of the ladder and a still from a
//! master on the local disk (Debian's `ffmpeg`; `FFMPEG` names another binary).
//!
//! Every run is sandboxed and bounded (docs/media.md, "The sandbox"): the local file only
//! (`-protocol_whitelist file`), the demuxer the probe found forced (`-f`), the stream the
//! probe checked mapped (`0:V:0`: the first video stream that is not a cover picture), the
//! input read for the probed duration at most (`-t`), a thread count, an output size cap
//! (`-fs`) and a wall-clock timeout. ffmpeg's own words go to the log; the asset's reason
//! is one of [`Failure`]'s.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::ladder::{Container, Spec, AUDIO_KBPS};

/// Threads one ffmpeg run may use.
pub const THREADS: u32 = 2;
/// The largest file one output may grow to (`-fs`): far above any rendition of a master
/// within the bounds (180 s at the ladder's top bitrate is about 150 MB).
pub const MAX_OUTPUT_BYTES: u64 = 512 * 1024 * 1024;

/// Why a transcode made nothing (the asset's `failureReason`, after "transcode failed: ").
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Failure {
    #[error("the video could not be decoded")]
    Undecodable,
    #[error("it ran past its time bound")]
    TimedOut,
    #[error("a rendition grew past its size bound")]
    TooLarge,
}

/// The wall-clock bound of a run over `duration_ms` of video: a minute plus ten times
/// the duration (the ladder is made at several times real time on one core).
pub fn time_bound(duration_ms: u64) -> Duration {
    Duration::from_secs(60) + Duration::from_millis(duration_ms.saturating_mul(10))
}

/// The input options every run shares: the sandbox and the bounds.
fn input(master: &Path, demuxer: &str, duration_ms: u64) -> Vec<String> {
    let mut a: Vec<String> = ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", "-threads"].map(String::from).to_vec();
    a.push(THREADS.to_string());
    a.extend(["-protocol_whitelist".into(), "file".into(), "-f".into(), demuxer.into(), "-t".into(), seconds(duration_ms)]);
    a.extend(["-i".into(), format!("file:{}", master.display())]);
    a
}

fn seconds(ms: u64) -> String {
    format!("{}.{:03}", ms / 1000, ms % 1000)
}

/// Where the still is taken: 1 s in, or the middle of a shorter clip.
pub fn still_at_ms(duration_ms: u64) -> u64 {
    1000.min(duration_ms / 2)
}

/// What one transcode reads: the master, its demuxer and its probed length.
pub struct Source<'a> {
    pub master: &'a Path,
    pub demuxer: &'a str,
    pub duration_ms: u64,
}

/// The ffmpeg arguments that make every spec of `specs` from the master in one run (the
/// master is decoded once), each into `dir` under its file name (pure: tested as such).
pub fn transcode_args(src: &Source, specs: &[Spec], has_audio: bool, dir: &Path) -> Vec<String> {
    let mut a = input(src.master, src.demuxer, src.duration_ms);
    for spec in specs {
        a.extend(output_args(spec, has_audio, &output(dir, spec)));
    }
    a
}

/// The arguments of one output of [`transcode_args`].
pub fn output_args(spec: &Spec, has_audio: bool, out: &Path) -> Vec<String> {
    let mut a: Vec<String> = vec!["-map".into(), "0:V:0".into()];
    if has_audio {
        a.extend(["-map".into(), "0:a:0".into()]);
    }
    a.extend(["-vf".into(), format!("scale={}:{},setsar=1", spec.width, spec.height)]);
    let kbps = spec.video_kbps;
    match spec.container {
        Container::Mp4 => {
            a.extend(
                ["-c:v", "libx264", "-profile:v", "high", "-pix_fmt", "yuv420p", "-preset", "veryfast", "-movflags", "+faststart"]
                    .map(String::from),
            );
            a.extend([
                "-b:v".into(),
                format!("{kbps}k"),
                "-maxrate".into(),
                format!("{}k", kbps * 3 / 2),
                "-bufsize".into(),
                format!("{}k", kbps * 2),
            ]);
            if has_audio {
                a.extend(["-c:a".into(), "aac".into(), "-b:a".into(), format!("{AUDIO_KBPS}k"), "-ac".into(), "2".into()]);
            }
        }
        Container::WebM => {
            a.extend(
                ["-c:v", "libvpx-vp9", "-row-mt", "1", "-deadline", "realtime", "-cpu-used", "8", "-pix_fmt", "yuv420p"].map(String::from),
            );
            a.extend(["-b:v".into(), format!("{kbps}k")]);
            if has_audio {
                a.extend(["-c:a".into(), "libopus".into(), "-b:a".into(), format!("{AUDIO_KBPS}k")]);
            }
        }
    }
    a.extend(["-fs".into(), MAX_OUTPUT_BYTES.to_string()]);
    a.push(format!("file:{}", out.display()));
    a
}

/// The ffmpeg arguments of the still (a JPEG of the frame at `at_ms`, `width`×`height`).
pub fn still_args(src: &Source, at_ms: u64, (width, height): (u32, u32), out: &Path) -> Vec<String> {
    let mut a: Vec<String> = vec!["-ss".into(), seconds(at_ms)];
    a.splice(0..0, input(src.master, src.demuxer, src.duration_ms).into_iter().take_while(|x| x != "-i"));
    a.extend(["-i".into(), format!("file:{}", src.master.display())]);
    a.extend(["-map".into(), "0:V:0".into(), "-frames:v".into(), "1".into(), "-vf".into()]);
    a.extend([format!("scale={width}:{height},setsar=1"), "-q:v".into(), "3".into()]);
    a.extend(["-fs".into(), MAX_OUTPUT_BYTES.to_string(), format!("file:{}", out.display())]);
    a
}

/// What went wrong with a run that is not the file's fault (the message comes back).
#[derive(Debug)]
pub struct NotRun(pub String);

/// Runs ffmpeg with `args` for at most `bound`. ffmpeg's stderr goes to the log only.
pub async fn run(ffmpeg: &str, args: &[String], bound: Duration, outputs: &[PathBuf]) -> Result<Result<(), Failure>, NotRun> {
    let child = tokio::process::Command::new(ffmpeg).args(args).kill_on_drop(true).output();
    let out = match tokio::time::timeout(bound, child).await {
        Err(_) => {
            tracing::warn!(seconds = bound.as_secs(), "ffmpeg ran past its time bound; stopped");
            return Ok(Err(Failure::TimedOut));
        }
        Ok(out) => out.map_err(|e| NotRun(format!("ffmpeg could not be run: {e}")))?,
    };
    // -fs ends an output at the cap without an error: a file at the cap was cut.
    for path in outputs {
        if tokio::fs::metadata(path).await.is_ok_and(|m| m.len() >= MAX_OUTPUT_BYTES) {
            return Ok(Err(Failure::TooLarge));
        }
    }
    if out.status.success() {
        return Ok(Ok(()));
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let tail: String = err.chars().rev().take(2000).collect::<Vec<_>>().into_iter().rev().collect();
    tracing::warn!(stderr = %tail.trim(), "ffmpeg failed");
    Ok(Err(Failure::Undecodable))
}

/// The output path of a rendition in `dir`.
pub fn output(dir: &Path, spec: &Spec) -> PathBuf {
    dir.join(spec.file_name())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_arguments_of_a_rendition() {
        let spec = Spec { container: Container::Mp4, width: 1280, height: 720, video_kbps: 2800 };
        let webm = Spec { container: Container::WebM, ..spec };
        let src = Source { master: Path::new("/t/m.mov"), demuxer: "mov", duration_ms: 2500 };
        let a = transcode_args(&src, &[spec, webm], true, Path::new("/t"));
        let s = a.join(" ");
        assert_eq!(a.iter().filter(|x| *x == "-i").count(), 1, "the master is read once: {s}");
        assert!(s.contains("-threads 2 -protocol_whitelist file -f mov -t 2.500 -i file:/t/m.mov"), "sandboxed and bounded: {s}");
        assert!(s.contains("-map 0:V:0 -map 0:a:0") && s.contains(&format!("-fs {MAX_OUTPUT_BYTES} file:/t/720p.mp4")), "{s}");
        assert!(s.contains("-vf scale=1280:720,setsar=1") && s.contains("-c:v libx264") && s.contains("-movflags +faststart"), "{s}");
        assert!(s.contains("-b:v 2800k") && s.contains("-c:a aac") && s.contains("/t/720p.mp4 "), "{s}");
        assert!(s.contains("-c:v libvpx-vp9") && s.contains("-c:a libopus") && s.ends_with("file:/t/720p.webm"), "{s}");
        let silent = output_args(&spec, false, Path::new("/t/o.mp4")).join(" ");
        assert!(!silent.contains("0:a:0") && !silent.contains("-c:a"), "{silent}");
        assert_eq!(still_at_ms(30_000), 1000);
        assert_eq!(still_at_ms(600), 300);
        let still = still_args(&src, 1500, (640, 360), Path::new("s.jpg")).join(" ");
        assert!(still.contains("-protocol_whitelist file -f mov -t 2.500 -ss 1.500 -i file:/t/m.mov -map 0:V:0"), "{still}");
        assert!(still.contains("scale=640:360") && still.ends_with("file:s.jpg"), "{still}");
        assert_eq!(time_bound(30_000), Duration::from_secs(360));
    }
}
