//! Application state shared by every router: the ports and the clock.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::clock::{Clock, SystemClock};
use crate::model::account::Account;
use crate::store::Store;

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub clock: Arc<dyn Clock>,
    pub(crate) auth_cache: Arc<AuthCache>,
}

impl AppState {
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self::with_clock(store, Arc::new(SystemClock))
    }

    pub fn with_clock(store: Arc<dyn Store>, clock: Arc<dyn Clock>) -> Self {
        AppState { store, clock, auth_cache: Arc::new(AuthCache::new(Duration::from_secs(30))) }
    }
}

/// Resolved keys, kept briefly so a request does not pay two reads for authentication.
pub(crate) struct AuthCache {
    ttl: Duration,
    map: Mutex<HashMap<String, (Instant, Account)>>,
}

impl AuthCache {
    fn new(ttl: Duration) -> Self {
        AuthCache { ttl, map: Mutex::new(HashMap::new()) }
    }

    pub(crate) fn get(&self, key_hash: &str) -> Option<Account> {
        let map = self.map.lock().ok()?;
        map.get(key_hash).filter(|(at, _)| at.elapsed() < self.ttl).map(|(_, a)| a.clone())
    }

    pub(crate) fn put(&self, key_hash: String, a: Account) {
        if let Ok(mut map) = self.map.lock() {
            if map.len() > 10_000 {
                map.clear();
            }
            map.insert(key_hash, (Instant::now(), a));
        }
    }
}
