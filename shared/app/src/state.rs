//! Application state shared by every router and worker: the ports, the clock, settings
//! (read once from the environment by `settings.rs`, passed in by `assemble.rs`).

use std::sync::Arc;
use std::time::Duration;

pub use crate::settings::Settings;

use crate::blobs::Blobs;
use crate::clock::{Clock, SystemClock};
use crate::model::account::Account;
use crate::queue::Queue;
use crate::store::Store;
use crate::ttl_cache::TtlCache;

/// The state every handler and worker gets: one pointer to the parts, so each clone axum
/// makes per request and layer is one reference count, not one per port.
#[derive(Clone)]
pub struct AppState(Arc<Parts>);

impl std::ops::Deref for AppState {
    type Target = Parts;
    fn deref(&self) -> &Parts {
        &self.0
    }
}

/// The ports, the clock and the settings (`AppState` derefs to them).
#[derive(Clone)]
pub struct Parts {
    /// The store as the state's writes see it: within the unit of work, when there is one.
    pub store: Arc<dyn Store>,
    /// The store outside any unit of work (what `with_work` wraps).
    base_store: Arc<dyn Store>,
    /// The request's or job's unit of work (`repo::changes::Work`): its change history and
    /// the compiles its writes ask for. `None` outside one (reads, background tasks).
    pub work: Option<Arc<crate::repo::changes::Work>>,
    pub blobs: Arc<dyn Blobs>,
    pub queue: Arc<dyn Queue>,
    pub clock: Arc<dyn Clock>,
    /// Probes masters and makes their renditions (ffmpeg here, MediaConvert on AWS).
    pub media: Arc<dyn crate::media::engine::MediaEngine>,
    pub settings: Arc<Settings>,
    pub auth_cache: Arc<AuthCache>,
    /// The hour each key's use was last noted by this process (`lastUsed`).
    pub key_use_noted: Arc<TtlCache<String, i64>>,
    /// Compiled delivery snapshots of the accounts this process serves.
    pub delivery: Arc<crate::caches::snapshots::DeliveryCache>,
    /// When the current invocation is stopped (a Lambda's deadline): long jobs end their
    /// work before it, so a killed invocation never leaves a record half-way.
    pub deadline: Option<std::time::Instant>,
    /// Traffic samples on their way to the store, off the response path.
    pub samples: Arc<crate::caches::sample_sink::SampleSink>,
    /// Auctions' report counters on their way to the store, off the response path.
    pub auction_stats: Arc<crate::repo::auction_stats::AuctionStats>,
    /// Request rates per account (the management API).
    pub rate_limiter: Arc<crate::rate_limit::AccountLimiter>,
    /// The sign-ins' password verifications this process runs at once (and queues).
    pub passwords: Arc<crate::passwords::Gate>,
    /// Each account's stitchers, read at most once per `DELIVERY_REFRESH_MS`.
    pub(crate) stitchers: Arc<StitcherCache>,
    /// Each account's demand partners' auth headers, read at most once per
    /// `DELIVERY_REFRESH_MS` by the serving function (never put in a snapshot).
    pub(crate) bidder_secrets: Arc<SecretCache>,
    /// Resolves host names: the bidders' connections, endpoint checks, downloads.
    pub resolver: Arc<dyn crate::resolve::Resolve>,
    /// The OpenRTB bidders: bid requests, markup fetches, win and loss notices.
    pub bidders: Arc<dyn crate::demand::client::Bidders>,
}

/// Accounts whose stitchers a process holds at most (then the oldest read goes).
pub(crate) const STITCHER_ACCOUNTS: usize = 1000;
pub(crate) type StitcherCache = TtlCache<String, Arc<Vec<crate::model::stitcher::Stitcher>>>;
pub(crate) type SecretCache = TtlCache<String, Arc<std::collections::HashMap<String, crate::model::stitcher::SecretHeader>>>;

impl AppState {
    pub fn new(store: Arc<dyn Store>, blobs: Arc<dyn Blobs>, queue: Arc<dyn Queue>) -> Self {
        AppState(Arc::new(Parts {
            store: crate::repo::changes::Recording::wrap(store.clone()),
            base_store: store,
            work: None,
            blobs,
            queue,
            clock: Arc::new(SystemClock),
            media: Arc::new(crate::media::engine::NoMedia),
            settings: Arc::new(Settings::default()),
            auth_cache: Arc::new(AuthCache::new(crate::model::access::AUTH_CACHE_TTL, AUTH_CACHE_KEYS)),
            key_use_noted: Arc::new(TtlCache::new(Duration::from_secs(3600), AUTH_CACHE_KEYS)),
            delivery: Arc::new(crate::caches::snapshots::DeliveryCache::default()),
            deadline: None,
            samples: Arc::default(),
            auction_stats: Arc::default(),
            rate_limiter: Arc::default(),
            passwords: Arc::default(),
            stitchers: Arc::new(TtlCache::new(Settings::default().delivery_refresh, STITCHER_ACCOUNTS)),
            bidder_secrets: Arc::new(TtlCache::new(Settings::default().delivery_refresh, STITCHER_ACCOUNTS)),
            resolver: Arc::new(crate::resolve::SystemResolver),
            bidders: Arc::new(crate::demand::client::HttpBidders::new(Arc::new(crate::resolve::SystemResolver))),
        }))
    }

    /// The parts to change (copied when another state shares them; each is an `Arc`).
    fn parts(&mut self) -> &mut Parts {
        Arc::make_mut(&mut self.0)
    }

    pub fn with_clock(mut self, clock: Arc<dyn Clock>) -> Self {
        self.parts().clock = clock;
        self
    }

    pub fn with_store(mut self, store: Arc<dyn Store>) -> Self {
        let parts = self.parts();
        parts.store = match &parts.work {
            Some(w) => crate::repo::changes::Recording::within(store.clone(), w.clone()),
            None => crate::repo::changes::Recording::wrap(store.clone()),
        };
        parts.base_store = store;
        self
    }

    /// The state of one request or job: its writes belong to `work`.
    pub fn with_work(mut self, work: Arc<crate::repo::changes::Work>) -> Self {
        let parts = self.parts();
        parts.store = crate::repo::changes::Recording::within(parts.base_store.clone(), work.clone());
        parts.work = Some(work);
        self
    }

    pub fn with_queue(mut self, queue: Arc<dyn Queue>) -> Self {
        self.parts().queue = queue;
        self
    }

    pub fn with_blobs(mut self, blobs: Arc<dyn Blobs>) -> Self {
        self.parts().blobs = blobs;
        self
    }

    /// Name resolution of its own (the bidders' client resolves through it too).
    pub fn with_resolver(mut self, resolver: Arc<dyn crate::resolve::Resolve>) -> Self {
        let parts = self.parts();
        parts.bidders = Arc::new(crate::demand::client::HttpBidders::new(resolver.clone()));
        parts.resolver = resolver;
        self
    }

    /// Bidders of its own in place of the HTTP client.
    pub fn with_bidders(mut self, bidders: Arc<dyn crate::demand::client::Bidders>) -> Self {
        self.parts().bidders = bidders;
        self
    }

    pub fn with_media(mut self, media: Arc<dyn crate::media::engine::MediaEngine>) -> Self {
        self.parts().media = media;
        self
    }

    pub fn with_deadline(mut self, deadline: Option<std::time::Instant>) -> Self {
        self.parts().deadline = deadline;
        self
    }

    pub fn with_settings(mut self, settings: Settings) -> Self {
        self.parts().stitchers = Arc::new(TtlCache::new(settings.delivery_refresh, STITCHER_ACCOUNTS));
        self.parts().bidder_secrets = Arc::new(TtlCache::new(settings.delivery_refresh, STITCHER_ACCOUNTS));
        self.parts().settings = Arc::new(settings);
        self
    }

    /// A snapshot cache of its own (a function that runs in its own process on AWS: the
    /// tests give each worker one, so no worker reads a snapshot another function loaded).
    pub fn with_own_delivery_cache(mut self) -> Self {
        self.parts().delivery = Arc::default();
        self
    }
}

/// Resolved keys and sessions, kept briefly (`api::auth::AUTH_CACHE_TTL`) so a request
/// does not pay two reads for authentication: the account and who calls.
pub type KeyOwner = (Account, crate::model::access::Principal);

/// API keys whose owner a process holds at most (then the oldest resolved goes).
pub(crate) const AUTH_CACHE_KEYS: usize = 10_000;
pub type AuthCache = TtlCache<String, KeyOwner>;
