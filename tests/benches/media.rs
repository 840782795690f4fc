//! The media pipeline benchmark: a 30 s 1080p master as agencies deliver it
//! (ProRes 422 in QuickTime, 25 fps, stereo PCM) and a 30 s 1080p H.264 MP4, each made by
//! ffmpeg, stored in a local blob directory, then probed and transcoded by the local engine
//! (`media::local::Ffmpeg`, the ladder of docs/media.md with the x264 `veryfast` and VP9
//! realtime presets) exactly as the asset worker runs it. Prints, per master: its size, the
//! probe time, the transcode wall time and the seconds of transcoding per second of source,
//! every rendition's size and measured bitrate, and the storage per asset (master +
//! renditions + still).
//!
//! Run: `cargo bench -p api-tests --bench media` (or ./scripts/bench.sh). `BENCH_MEDIA_SECONDS`
//! changes the length (default 30).

use std::sync::Arc;
use std::time::Instant;

use web::blobs::{Blobs, LocalBlobs};
use web::media::engine::{MediaEngine, Order, Started};
use web::media::local::Ffmpeg;

fn make(path: &std::path::Path, seconds: u32, codec: &[&str]) {
    let video = format!("testsrc2=size=1920x1080:rate=25:duration={seconds}");
    let audio = format!("sine=frequency=440:duration={seconds}:sample_rate=48000");
    let status = std::process::Command::new("ffmpeg")
        .args(["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", &video, "-f", "lavfi", "-i", &audio, "-ac", "2"])
        .args(codec)
        .arg(path)
        .status()
        .expect("ffmpeg runs (apt-get install ffmpeg)");
    assert!(status.success(), "ffmpeg could not make the master");
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1_000_000.0
}

async fn run(name: &str, file: &str, codec: &[&str], seconds: u32, dir: &std::path::Path) {
    let master = dir.join(file);
    let t = Instant::now();
    make(&master, seconds, codec);
    let made_in = t.elapsed().as_secs_f64();
    let blobs: Arc<dyn Blobs> = Arc::new(LocalBlobs::new(dir.join("bucket")));
    let key = format!("bench/assets/a1/{file}");
    let size = blobs.put_file(&key, &master, "video/quicktime").await.expect("stored");
    let engine = Ffmpeg::new(dir.to_path_buf());
    let t = Instant::now();
    let probe = engine.probe(blobs.as_ref(), &key, None).await.expect("probed");
    let probe_s = t.elapsed().as_secs_f64();
    let order = Order { account: "bench".into(), asset: "a1".into(), master_key: key, probe: probe.clone() };
    let t = Instant::now();
    let Started::Done(made) = engine.transcode(blobs.as_ref(), &order).await.expect("transcoded") else {
        panic!("the local engine makes the renditions at once")
    };
    let wall = t.elapsed().as_secs_f64();
    let source = probe.duration_ms as f64 / 1000.0;
    println!(
        "== {name}: {}x{} {} + {}, {source:.1} s, {:.1} MB (made in {made_in:.1} s)",
        probe.width,
        probe.height,
        probe.video_codec,
        probe.audio_codec.as_deref().unwrap_or("no audio"),
        mb(size)
    );
    println!("   probe (ffprobe, from the bucket): {:.2} s", probe_s);
    println!("   transcode (ladder + still, one ffmpeg run): {wall:.1} s wall = {:.2} s per second of source", wall / source);
    let mut stored = 0;
    for r in &made.renditions {
        println!("   {:>10} {:>4}x{:<4} {:>7.2} MB {:>6} kb/s", r.mime, r.width, r.height, mb(r.size), r.bitrate / 1000);
        stored += r.size;
    }
    let still = match &made.still {
        Some(s) => blobs.size(&s.key).await.ok().flatten().unwrap_or(0),
        None => 0,
    };
    println!("   still {:.3} MB", mb(still));
    println!(
        "   storage per asset: master {:.1} MB + renditions {:.1} MB + still = {:.1} MB (renditions = {:.1} MB per minute of source)",
        mb(size),
        mb(stored),
        mb(size + stored + still),
        mb(stored) * 60.0 / source
    );
}

#[tokio::main]
async fn main() {
    let seconds: u32 = std::env::var("BENCH_MEDIA_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let dir = std::env::temp_dir().join(format!("media-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("bench dir");
    println!("media bench on {} cores ({} s masters)", std::thread::available_parallelism().map_or(1, |n| n.get()), seconds);
    run("ProRes 422 master (.mov)", "master.mov", &["-c:v", "prores_ks", "-profile:v", "2", "-c:a", "pcm_s16le"], seconds, &dir).await;
    run("H.264 master (.mp4)", "master.mp4", &["-c:v", "libx264", "-preset", "medium", "-b:v", "12M", "-c:a", "aac"], seconds, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
}
