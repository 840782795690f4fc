//! The local transcoder: ffmpeg makes each rendition of the ladder and a still from a
//! master on the local disk (Debian's `ffmpeg`; `FFMPEG` names another binary).

use std::path::{Path, PathBuf};

use super::ladder::{Container, Spec, AUDIO_KBPS};

/// Where the still is taken: 1 s in, or the middle of a shorter clip.
pub fn still_at_ms(duration_ms: u64) -> u64 {
    1000.min(duration_ms / 2)
}

/// The ffmpeg arguments that make every spec of `specs` from `master` in one run (the
/// master is decoded once), each into `dir` under its file name (pure: tested as such).
pub fn transcode_args(master: &Path, specs: &[Spec], has_audio: bool, dir: &Path) -> Vec<String> {
    let mut a: Vec<String> = vec!["-hide_banner".into(), "-loglevel".into(), "error".into(), "-y".into(), "-i".into()];
    a.push(master.display().to_string());
    for spec in specs {
        a.extend(output_args(spec, has_audio, &output(dir, spec)));
    }
    a
}

/// The arguments of one output of [`transcode_args`].
pub fn output_args(spec: &Spec, has_audio: bool, out: &Path) -> Vec<String> {
    let mut a: Vec<String> = vec!["-map".into(), "0:v:0".into()];
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
    a.push(out.display().to_string());
    a
}

/// The ffmpeg arguments of the still (a JPEG of the frame at `at_ms`, `width`×`height`).
pub fn still_args(master: &Path, at_ms: u64, (width, height): (u32, u32), out: &Path) -> Vec<String> {
    vec![
        "-hide_banner".into(),
        "-loglevel".into(),
        "error".into(),
        "-y".into(),
        "-ss".into(),
        format!("{}.{:03}", at_ms / 1000, at_ms % 1000),
        "-i".into(),
        master.display().to_string(),
        "-frames:v".into(),
        "1".into(),
        "-vf".into(),
        format!("scale={width}:{height},setsar=1"),
        "-q:v".into(),
        "3".into(),
        out.display().to_string(),
    ]
}

/// Runs ffmpeg with `args`; the error holds the end of what it printed.
pub async fn run(ffmpeg: &str, args: &[String]) -> Result<(), String> {
    let out = tokio::process::Command::new(ffmpeg)
        .args(args)
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|e| format!("ffmpeg could not be run: {e}"))?;
    if out.status.success() {
        return Ok(());
    }
    let err = String::from_utf8_lossy(&out.stderr);
    let tail: String = err.chars().rev().take(400).collect::<Vec<_>>().into_iter().rev().collect();
    Err(format!("ffmpeg failed: {}", tail.trim()))
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
        let a = transcode_args(Path::new("/t/m.mov"), &[spec, webm], true, Path::new("/t"));
        let s = a.join(" ");
        assert_eq!(a.iter().filter(|x| *x == "-i").count(), 1, "the master is read once: {s}");
        assert!(s.contains("-vf scale=1280:720,setsar=1") && s.contains("-c:v libx264") && s.contains("-movflags +faststart"), "{s}");
        assert!(s.contains("-b:v 2800k") && s.contains("-c:a aac") && s.contains("/t/720p.mp4 "), "{s}");
        assert!(s.contains("-c:v libvpx-vp9") && s.contains("-c:a libopus") && s.ends_with("/t/720p.webm"), "{s}");
        let silent = output_args(&spec, false, Path::new("/t/o.mp4")).join(" ");
        assert!(!silent.contains("0:a:0") && !silent.contains("-c:a"), "{silent}");
        assert_eq!(still_at_ms(30_000), 1000);
        assert_eq!(still_at_ms(600), 300);
        let still = still_args(Path::new("m"), 1500, (640, 360), Path::new("s.jpg")).join(" ");
        assert!(still.contains("-ss 1.500") && still.contains("scale=640:360"), "{still}");
    }
}
