//! Time is passed in, never read ad hoc, so rules (goal starts, archived months, expiry) can
//! be tested at a pinned instant.

use std::sync::Mutex;

use chrono::{DateTime, Utc};

pub trait Clock: Send + Sync {
    fn now(&self) -> DateTime<Utc>;
}

pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Utc> {
        Utc::now()
    }
}

/// A clock tests can set and move.
pub struct ManualClock(Mutex<DateTime<Utc>>);

impl ManualClock {
    pub fn new(at: DateTime<Utc>) -> Self {
        ManualClock(Mutex::new(at))
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
}
