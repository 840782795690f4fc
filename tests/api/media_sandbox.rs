//! The media engine's sandbox (docs/media.md, "The sandbox"): a playlist, manifest or file
//! list uploaded as a video ends FAILED with a plain reason and makes no tool open another
//! file; ffprobe's own whitelist holds even when the first bytes are not looked at; a run
//! is stopped at its time bound, and a transcode reads the probed duration only.

use std::path::Path;
use std::time::Duration;

use api_tests::{both_stores, clip, one_store};
use web::media::{ffmpeg, probe};

/// A scratch directory of this test's own, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let p = std::env::temp_dir().join(format!("media-sandbox-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&p).unwrap();
        Scratch(p)
    }
    fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A local file the attacks name: if any tool opened it, a rendition would hold its frames.
fn secret(dir: &Path) -> std::path::PathBuf {
    let path = dir.join("secret.mp4");
    std::fs::write(&path, clip()).unwrap();
    path
}

both_stores! {
    async fn playlists_manifests_and_lists_end_failed_and_read_no_local_file(app: TestApp) {
        let dir = Scratch::new();
        let target = secret(dir.path());
        let t = target.display();
        let cases = [
            ("hls.mp4", format!("#EXTM3U\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\nfile:{t}\n#EXT-X-ENDLIST\n"), "an HLS or M3U playlist"),
            ("dash.mp4", format!("<?xml version=\"1.0\"?>\n<MPD xmlns=\"urn:mpeg:dash:schema:mpd:2011\"><Period><AdaptationSet><Representation><BaseURL>{t}</BaseURL></Representation></AdaptationSet></Period></MPD>\n"), "a DASH manifest"),
            ("list.mp4", format!("ffconcat version 1.0\nfile '{t}'\n"), "a concat list"),
        ];
        let before = std::fs::metadata(&target).unwrap().accessed().ok();
        for (name, body, kind) in cases {
            let id = app.upload_asset(name, body.as_bytes()).await;
            let v = app.wait_asset(&format!("/v1/assets/video/{id}")).await;
            assert_eq!(v["status"], "FAILED", "{name}: {v}");
            assert_eq!(v["failureReason"], format!("not a video file: {kind} (upload the video itself)"), "{name}: {v}");
            assert!(!v["failureReason"].as_str().unwrap().contains(&t.to_string()), "no local path is shown: {v}");
        }
        // Not read (where the file system keeps access times strictly; relatime may not).
        if let (Some(a), Ok(b)) = (before, std::fs::metadata(&target).and_then(|m| m.accessed())) {
            assert!(b <= a || b.duration_since(a).unwrap_or_default() < Duration::from_secs(1), "the named file was read");
        }
    }
}

one_store! {
    async fn ffprobe_alone_refuses_a_playlist_and_a_run_stops_at_its_bounds(_app: TestApp) {
        let dir = Scratch::new();
        let target = secret(dir.path());
        // The whitelist holds without the first-bytes check: ffprobe itself refuses the HLS
        // demuxer (this is what `probe::run` passes it).
        let playlist = dir.path().join("spot.mp4");
        std::fs::write(&playlist, format!("#EXTM3U\n#EXTINF:2.0,\nfile:{}\n#EXT-X-ENDLIST\n", target.display())).unwrap();
        let out = tokio::process::Command::new("ffprobe").args(probe::args(&playlist)).output().await.unwrap();
        assert!(!out.status.success(), "ffprobe read a playlist: {}", String::from_utf8_lossy(&out.stdout));
        assert!(!String::from_utf8_lossy(&out.stdout).contains("\"hls\""), "{}", String::from_utf8_lossy(&out.stdout));
        // The real clip passes the same arguments.
        let ok = tokio::process::Command::new("ffprobe").args(probe::args(&target)).output().await.unwrap();
        assert!(ok.status.success() && probe::parse(&ok.stdout).is_ok());

        // A transcode reads the probed duration only (-t): a 2 s clip probed (or claiming)
        // 0.5 s gives a 0.5 s rendition.
        let spec = web::media::ladder::Spec { container: web::media::ladder::Container::Mp4, width: 64, height: 36, video_kbps: 100 };
        let src = ffmpeg::Source { master: &target, demuxer: "mov", duration_ms: 500 };
        let outs = vec![ffmpeg::output(dir.path(), &spec)];
        let args = ffmpeg::transcode_args(&src, &[spec], true, dir.path());
        assert_eq!(ffmpeg::run("ffmpeg", &args, Duration::from_secs(60), &outs).await.unwrap(), Ok(()));
        let made = tokio::process::Command::new("ffprobe").args(probe::args(&outs[0])).output().await.unwrap();
        let p = probe::parse(&made.stdout).unwrap();
        assert!(p.duration_ms <= 600, "read past the bound: {} ms", p.duration_ms);

        // A run past its wall-clock bound is stopped and named, not waited for.
        let src = ffmpeg::Source { master: &target, demuxer: "mov", duration_ms: 2000 };
        let args = ffmpeg::transcode_args(&src, &[spec], true, dir.path());
        let started = std::time::Instant::now();
        assert_eq!(ffmpeg::run("ffmpeg", &args, Duration::from_millis(1), &outs).await.unwrap(), Err(ffmpeg::Failure::TimedOut));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
