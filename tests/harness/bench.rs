//! Helpers of the bench binaries: peak memory, and a bench run in a fresh child process.

/// This process's peak resident memory (VmHWM) in MB, for the benches.
pub fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|kb| kb.parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

/// Runs this bench binary again as `<exe> --child <arg> <dir>` (a fresh process, so its peak
/// memory is its own) and returns the child's `RESULT ` line without the prefix, or what it
/// printed when it gave none.
pub fn run_bench_child(arg: &str, dir: &std::path::Path) -> Result<String, String> {
    std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(exe).arg("--child").arg(arg).arg(dir).output().map_err(|e| e.to_string())?;
    let text = String::from_utf8_lossy(&out.stdout);
    let _ = std::fs::remove_dir_all(dir);
    match text.lines().find_map(|l| l.strip_prefix("RESULT ")) {
        Some(l) => Ok(l.to_string()),
        None => Err(format!("{text}\n{}", String::from_utf8_lossy(&out.stderr))),
    }
}
