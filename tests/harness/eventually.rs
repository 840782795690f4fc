//! Waiting for what happens off the request path (workers, buffers, refreshes): one poll
//! loop for every test, with its bound said where it is used.

use std::future::Future;
use std::time::{Duration, Instant};

/// How often `eventually` looks again.
pub const POLL: Duration = Duration::from_millis(25);

/// Polls `check` until it answers `Some`, at most for `stall`; past it, the test fails
/// naming `what` (what it waited for). A stall is generous (the emulator's workers on a
/// loaded 2-core machine): it bounds a failure's wait, not the expected time.
pub async fn eventually<T, F, Fut>(what: &str, stall: Duration, mut check: F) -> T
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Option<T>>,
{
    let start = Instant::now();
    loop {
        if let Some(v) = check().await {
            return v;
        }
        if start.elapsed() >= stall {
            panic!("waited {stall:?} for {what}, in vain");
        }
        tokio::time::sleep(POLL).await;
    }
}
