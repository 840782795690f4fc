//! Time is passed in, never read ad hoc, so rules (goal starts, archived months, expiry) can
//! be tested at a pinned instant.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};

pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;

    /// Monotonic time, what the in-process caches' lifetimes are measured on
    /// (`ttl_cache::TtlCache`): the process's own, moved forward by a test's clock.
    fn instant(&self) -> Instant {
        Instant::now()
    }
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock tests can set and move. Its monotonic time runs with the process's, plus what
/// `skip` added (a cache's lifetime passes without waiting for it).
pub struct ManualClock(Mutex<DateTime<Utc>>, Mutex<Duration>);

impl ManualClock {
    pub fn new(at: DateTime<Utc>) -> Self {
        ManualClock(Mutex::new(at), Mutex::new(Duration::ZERO))
    }
    /// Moves the monotonic time forward by `d` (the business time stays as set).
    pub fn skip(&self, d: Duration) {
        if let Ok(mut g) = self.1.lock() {
            *g += d;
        }
    }
    pub fn set(&self, at: DateTime<Utc>) {
        if let Ok(mut g) = self.0.lock() {
            *g = at;
        }
    }
}

impl Clock for ManualClock {
    fn now(&self) -> DateTime<Utc> {
        self.0.lock().map(|g| *g).unwrap_or_else(|p| *p.into_inner())
    }
    fn instant(&self) -> Instant {
        Instant::now() + self.1.lock().map(|g| *g).unwrap_or_default()
    }
}
