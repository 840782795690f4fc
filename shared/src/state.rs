//! Application state shared by every router and worker: the ports, the clock, settings.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crate::blobs::Blobs;
use crate::clock::{Clock, SystemClock};
use crate::config::env;
use crate::model::account::Account;
use crate::queue::Queue;
use crate::store::Store;

/// Tunables from the environment (README "Configuration").
#[derive(Debug, Clone)]
pub struct Settings {
    /// `ASSET_ALLOW_PRIVATE_URLS=1`: let the downloader reach loopback/private addresses
    /// (local testing only).
    pub asset_allow_private_urls: bool,
    /// `ASSET_MAX_BYTES`: the largest asset downloaded.
    pub asset_max_bytes: u64,
    /// `ASSET_DOWNLOAD_TIMEOUT_SECS`.
    pub asset_download_timeout: Duration,
    /// How long an unlinked asset lives.
    pub asset_expiry: chrono::Duration,
    /// `UPLOAD_MAX_BYTES`: the largest octet-stream upload through the API.
    pub upload_max_bytes: usize,
    /// `AD_REQUEST_BASE_URL`: where this service's ad-request endpoint is (VAST URLs).
    pub ad_request_base_url: String,
    /// `AUDIENCE_REGION`: the audience region this deployment serves (`eu` or `asia`).
    pub audience_region: String,
    /// `AUDIENCE_CHUNK_BYTES`: the size of the byte-range chunks a batch file is cut into.
    pub audience_chunk_bytes: u64,
    /// `AUDIENCE_UPLOAD_MAX_BYTES`: the largest batch file uploaded through the API.
    pub audience_upload_max_bytes: usize,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            asset_allow_private_urls: false,
            asset_max_bytes: 512 * 1024 * 1024,
            asset_download_timeout: Duration::from_secs(300),
            asset_expiry: chrono::Duration::hours(24),
            upload_max_bytes: 64 * 1024 * 1024,
            ad_request_base_url: "http://127.0.0.1:3000".into(),
            audience_region: "eu".into(),
            audience_chunk_bytes: 32 * 1024 * 1024,
            audience_upload_max_bytes: 64 * 1024 * 1024,
        }
    }
}

impl Settings {
    pub fn from_env() -> Settings {
        let d = Settings::default();
        let num = |k: &str| env(k).and_then(|v| v.parse::<u64>().ok());
        Settings {
            asset_allow_private_urls: env("ASSET_ALLOW_PRIVATE_URLS").is_some_and(|v| v == "1" || v == "true"),
            asset_max_bytes: num("ASSET_MAX_BYTES").unwrap_or(d.asset_max_bytes),
            asset_download_timeout: num("ASSET_DOWNLOAD_TIMEOUT_SECS").map(Duration::from_secs).unwrap_or(d.asset_download_timeout),
            asset_expiry: d.asset_expiry,
            upload_max_bytes: num("UPLOAD_MAX_BYTES").map(|n| n as usize).unwrap_or(d.upload_max_bytes),
            ad_request_base_url: env("AD_REQUEST_BASE_URL").map(|u| u.trim_end_matches('/').to_string()).unwrap_or(d.ad_request_base_url),
            audience_region: env("AUDIENCE_REGION").map(|r| r.to_ascii_lowercase()).unwrap_or(d.audience_region),
            audience_chunk_bytes: num("AUDIENCE_CHUNK_BYTES").filter(|n| *n >= 1).unwrap_or(d.audience_chunk_bytes),
            audience_upload_max_bytes: num("AUDIENCE_UPLOAD_MAX_BYTES").map(|n| n as usize).unwrap_or(d.audience_upload_max_bytes),
        }
    }
}

#[derive(Clone)]
pub struct AppState {
    pub store: Arc<dyn Store>,
    pub blobs: Arc<dyn Blobs>,
    pub queue: Arc<dyn Queue>,
    pub clock: Arc<dyn Clock>,
    pub settings: Arc<Settings>,
    pub(crate) auth_cache: Arc<AuthCache>,
}

impl AppState {
    pub fn new(store: Arc<dyn Store>, blobs: Arc<dyn Blobs>, queue: Arc<dyn Queue>) -> Self {
        AppState {
            store,
            blobs,
            queue,
            clock: Arc::new(SystemClock),
            settings: Arc::new(Settings::from_env()),
            auth_cache: Arc::new(AuthCache::new(Duration::from_secs(30))),
        }
    }

    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.clock = clock;
        self
    }

    pub fn with_blobs(mut self, blobs: Arc<dyn Blobs>) -> Self {
        self.blobs = blobs;
        self
    }

    pub fn with_settings(mut self, settings: Settings) -> Self {
        self.settings = Arc::new(settings);
        self
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
