//! Settings: the environment, read once, in one place (README "Configuration"). A leaf
//! module: it imports nothing of the crate, and everything else receives the values from
//! here through `assemble.rs` and `AppState`.

use std::path::PathBuf;
use std::time::Duration;

/// A variable's value; unset and blank are the same.
pub fn env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// Which store a process opens (the Lambdas always use DynamoDB).
#[derive(Debug, Clone, PartialEq)]
pub enum StoreConfig {
    /// redb file (kept across restarts).
    Embedded(PathBuf),
    /// redb in memory (gone on exit).
    Memory,
    /// DynamoDB (or an emulator through `AWS_ENDPOINT_URL`); create the table, bucket and
    /// queues when missing.
    DynamoDb { table: String, create: bool },
}

impl StoreConfig {
    /// `STORE` = embedded (default) | memory | dynamodb; `DATA_DIR`; `TABLE_NAME`;
    /// `CREATE_TABLE` = 1 to create the table (emulators).
    pub fn from_env(default_kind: &str) -> Result<StoreConfig, String> {
        let kind = env("STORE").unwrap_or_else(|| default_kind.to_string());
        match kind.as_str() {
            "embedded" => {
                let dir = PathBuf::from(env("DATA_DIR").unwrap_or_else(|| ".data".into()));
                Ok(StoreConfig::Embedded(dir.join("store.redb")))
            }
            "memory" => Ok(StoreConfig::Memory),
            "dynamodb" => Ok(StoreConfig::DynamoDb {
                table: env("TABLE_NAME").unwrap_or_else(|| "adserver".into()),
                create: env("CREATE_TABLE").is_some_and(|v| v == "1" || v == "true"),
            }),
            other => Err(format!("STORE must be embedded, memory or dynamodb (got {other:?})")),
        }
    }

    pub fn describe(&self) -> String {
        match self {
            StoreConfig::Embedded(p) => format!("embedded store at {}", p.display()),
            StoreConfig::Memory => "in-memory store".into(),
            StoreConfig::DynamoDb { table, .. } => {
                format!("DynamoDB table {table}{}", env("AWS_ENDPOINT_URL").map(|e| format!(" at {e}")).unwrap_or_default())
            }
        }
    }
}

/// The path of the local server's media route (`api::media`).
pub const MEDIA_PATH: &str = "/media";

/// Tunables from the environment (README "Configuration").
#[derive(Debug, Clone)]
pub struct Settings {
    /// `TABLE_NAME`: the DynamoDB table.
    pub table_name: String,
    /// `BUCKET_NAME`: the S3 bucket of assets and audience batch files.
    pub bucket_name: String,
    /// `ASSET_QUEUE_URL`, `AUDIENCE_QUEUE_URL`: the SQS queues (Lambdas; locally created as
    /// `<QUEUE_PREFIX>-<queue>` when `CREATE_TABLE=1`).
    pub asset_queue_url: Option<String>,
    pub audience_queue_url: Option<String>,
    /// `QUEUE_PREFIX`: name prefix of the queues created locally.
    pub queue_prefix: String,
    /// `ASSET_ALLOW_PRIVATE_URLS=1`: let the downloader reach loopback/private addresses
    /// (local testing only).
    pub asset_allow_private_urls: bool,
    /// `DEMAND_ALLOW_PRIVATE_URLS=1`: demand partner endpoints and notice URLs may be http
    /// and loopback or private addresses (local testing only; link-local and metadata
    /// addresses never).
    pub demand_allow_private_urls: bool,
    /// `SSO_ALLOW_PRIVATE_URLS=1`: an account's OpenID provider may be http and on loopback
    /// or private addresses (local testing only; docs/single-sign-on.md).
    pub sso_allow_private_urls: bool,
    /// `TRUSTED_PROXIES`: comma-separated address ranges whose `X-Forwarded-For` (and an ad
    /// request's `ip`/`ua` parameters) are believed (docs/traffic-quality.md, "The viewer's
    /// address"). Empty by default: the peer's own address is the viewer's.
    pub trusted_proxies: Vec<crate::cidr::Cidr>,
    /// `ASSET_MAX_BYTES`: the largest asset downloaded.
    pub asset_max_bytes: u64,
    /// `ASSET_DOWNLOAD_TIMEOUT_SECS`.
    pub asset_download_timeout: Duration,
    /// `ASSET_TMP_DIR`: where downloads are written before the upload (Lambda: /tmp).
    pub asset_tmp_dir: std::path::PathBuf,
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
    /// `EVENTS_QUEUE_URL`: the tracking events queue (the event worker's).
    pub events_queue_url: Option<String>,
    /// `FORECAST_QUEUE_URL`: the forecast jobs queue (the forecast worker's).
    /// Whether a request or job that changes what an account serves queues the account's
    /// compile itself (locally and in the tests); on Lambda the table's stream does it
    /// (`assemble::lambda_settings`).
    pub compile_on_write: bool,
    /// `COMPILE_QUEUE_URL`: the queue of accounts whose delivery snapshot the compile
    /// worker compiles (docs/publisher-scale.md).
    pub compile_queue_url: Option<String>,
    pub forecast_queue_url: Option<String>,
    /// `NOTICES_QUEUE_URL`: the bidders' win, billing and loss notices (the notices worker's).
    pub notices_queue_url: Option<String>,
    /// `AUCTION_MARGIN_MS`: how long past the slowest bidder's timeout an ad request waits
    /// for its auctions at most (docs/programmatic.md).
    pub auction_margin: Duration,
    /// `AD_SYSTEM_DOMAIN`: this service in a bid request's supply chain (default: the host
    /// of `AD_REQUEST_BASE_URL`).
    pub ad_system_domain: String,
    /// The keys tracking links are signed with (the serving and tracking functions share
    /// them; `delivery::link_keys`): `TRACKING_SECRETS` (`id:secret,…`, first signs),
    /// `TRACKING_SECRET` (one key), on AWS the secret `TRACKING_SECRETS_ARN` read at cold
    /// start. Without any, a random key of this process (local server).
    pub tracking_keys: TrackingKeys,
    /// `TRACKING_SECRETS_ARN`: the Secrets Manager secret holding the tracking keys (AWS).
    pub tracking_secrets_arn: Option<String>,
    /// The keys preview links are signed with, apart from the tracking keys, so a function
    /// that makes preview links (queries) cannot forge tracking links: `PREVIEW_SECRETS`
    /// (`id:secret,…`), `PREVIEW_SECRET`, on AWS the secret `PREVIEW_SECRETS_ARN` (read by
    /// the queries function, which signs them, and the serving function, which checks them).
    /// Without any, a random key of this process (local server).
    pub preview_keys: TrackingKeys,
    /// `PREVIEW_SECRETS_ARN`: the Secrets Manager secret holding the preview keys (AWS).
    pub preview_secrets_arn: Option<String>,
    /// `MEDIA_BASE_URL`: where the bucket's media objects are served from (CloudFront in
    /// front of the bucket on AWS); default `<AD_REQUEST_BASE_URL>/media`, the local
    /// server's own media route.
    pub media_base_url: String,
    /// `MEDIACONVERT_ROLE_ARN`: set on AWS, the asset worker probes and transcodes with AWS
    /// Elemental MediaConvert under this role; unset, with ffmpeg/ffprobe on this machine.
    pub mediaconvert_role_arn: Option<String>,
    /// `DELIVERY_REFRESH_MS`: how often a server re-reads an account's delivery version and
    /// pace records (0: every request).
    pub delivery_refresh: Duration,
    /// `DELIVERY_MAX_AGE_SECS`: a snapshot is rebuilt at this age even if no change was seen.
    pub delivery_max_age: Duration,
    /// `DELIVERY_SWAP_GOALS`: an account whose snapshot has at least this many goals gets
    /// its new versions off the request path (`caches/swap.rs`); `DELIVERY_COMPILE_WAIT_SECS`:
    /// how long a process waits for the compile worker's snapshot of a new version before
    /// compiling the records itself.
    pub delivery_swap_goals: usize,
    pub delivery_compile_wait: Duration,
    /// `DELIVERY_PACE_OVERLAP_MS`: how far before its last read a serving process asks for
    /// the pace records changed since (default 5 s: more than the writers' clock skew, a
    /// counting transaction's duration and GSI1's propagation). A record changed twice is
    /// read once (its latest), and a record is applied only over an older version, so
    /// reading one twice is harmless.
    pub delivery_pace_overlap: Duration,
    /// `DELIVERY_MAX_GOALS`, `DELIVERY_MAX_ADS`: the most stored goals and ads an account's
    /// snapshot is compiled from (`limits::SNAPSHOT_MAX_GOALS`, `SNAPSHOT_MAX_ADS`).
    pub delivery_max_goals: usize,
    pub delivery_max_ads: usize,
    /// `ACCOUNT_RATE_PER_SEC`, `ACCOUNT_BURST`: the management API's requests per second
    /// per account and process, and the burst saved (0: no limit).
    pub account_rate_per_sec: f64,
    pub account_burst: f64,
}

use crate::delivery::link_keys::TrackingKeys;

/// A signing key set from `<NAME>_SECRETS` (`id:secret,…`, first signs) or `<NAME>_SECRET`
/// (one key); without either (or with a list that does not read), `default` (a random key
/// of this process).
fn keys_from_env(name: &str, default: &TrackingKeys) -> TrackingKeys {
    let var = |suffix: &str| env(&format!("{name}_{suffix}"));
    match (var("SECRETS"), var("SECRET")) {
        (Some(list), _) => TrackingKeys::parse(&list).unwrap_or_else(|e| {
            tracing::error!(error = %e, "{name}_SECRETS is not a key list; links are signed with a random key of this process");
            default.clone()
        }),
        (None, Some(one)) => TrackingKeys::single(&one),
        (None, None) => default.clone(),
    }
}

fn process_secret() -> String {
    static SECRET: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    SECRET.get_or_init(|| format!("{}{}", uuid::Uuid::new_v4().simple(), uuid::Uuid::new_v4().simple())).clone()
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            table_name: "adserver".into(),
            bucket_name: "adserver-assets".into(),
            asset_queue_url: None,
            audience_queue_url: None,
            queue_prefix: "adserver".into(),
            asset_allow_private_urls: false,
            demand_allow_private_urls: false,
            sso_allow_private_urls: false,
            trusted_proxies: Vec::new(),
            asset_max_bytes: 512 * 1024 * 1024,
            asset_download_timeout: Duration::from_secs(240),
            asset_tmp_dir: std::env::temp_dir(),
            asset_expiry: chrono::Duration::hours(24),
            upload_max_bytes: 64 * 1024 * 1024,
            ad_request_base_url: "http://127.0.0.1:3000".into(),
            notices_queue_url: None,
            auction_margin: Duration::from_millis(20),
            ad_system_domain: "127.0.0.1".into(),
            audience_region: "eu".into(),
            audience_chunk_bytes: 32 * 1024 * 1024,
            audience_upload_max_bytes: 64 * 1024 * 1024,
            events_queue_url: None,
            forecast_queue_url: None,
            compile_queue_url: None,
            compile_on_write: true,
            tracking_keys: TrackingKeys::single(&process_secret()),
            tracking_secrets_arn: None,
            preview_keys: TrackingKeys::single(&process_secret()),
            preview_secrets_arn: None,
            media_base_url: format!("http://127.0.0.1:3000{MEDIA_PATH}"),
            mediaconvert_role_arn: None,
            delivery_refresh: Duration::from_millis(1000),
            delivery_max_age: Duration::from_secs(60),
            delivery_swap_goals: 1_000,
            delivery_compile_wait: Duration::from_secs(20),
            delivery_pace_overlap: Duration::from_millis(5_000),
            delivery_max_goals: crate::limits::SNAPSHOT_MAX_GOALS,
            delivery_max_ads: crate::limits::SNAPSHOT_MAX_ADS,
            account_rate_per_sec: 100.0,
            account_burst: 200.0,
        }
    }
}

impl Settings {
    pub fn from_env() -> Settings {
        let d = Settings::default();
        let num = |k: &str| env(k).and_then(|v| v.parse::<u64>().ok());
        Settings {
            table_name: env("TABLE_NAME").unwrap_or(d.table_name),
            bucket_name: env("BUCKET_NAME").unwrap_or(d.bucket_name),
            asset_queue_url: env("ASSET_QUEUE_URL"),
            audience_queue_url: env("AUDIENCE_QUEUE_URL"),
            queue_prefix: env("QUEUE_PREFIX").unwrap_or(d.queue_prefix),
            asset_allow_private_urls: env("ASSET_ALLOW_PRIVATE_URLS").is_some_and(|v| v == "1" || v == "true"),
            demand_allow_private_urls: env("DEMAND_ALLOW_PRIVATE_URLS").is_some_and(|v| v == "1" || v == "true"),
            sso_allow_private_urls: env("SSO_ALLOW_PRIVATE_URLS").is_some_and(|v| v == "1" || v == "true"),
            // A list that does not parse trusts nobody (the safe reading), and says so.
            trusted_proxies: env("TRUSTED_PROXIES").map_or_else(Vec::new, |v| {
                crate::cidr::parse_list(&v).unwrap_or_else(|e| {
                    tracing::error!(error = %e, "TRUSTED_PROXIES does not parse: no proxy is trusted");
                    Vec::new()
                })
            }),
            asset_max_bytes: num("ASSET_MAX_BYTES").unwrap_or(d.asset_max_bytes),
            asset_download_timeout: num("ASSET_DOWNLOAD_TIMEOUT_SECS").map(Duration::from_secs).unwrap_or(d.asset_download_timeout),
            asset_tmp_dir: env("ASSET_TMP_DIR").map(Into::into).unwrap_or(d.asset_tmp_dir),
            asset_expiry: d.asset_expiry,
            upload_max_bytes: num("UPLOAD_MAX_BYTES").map(|n| n as usize).unwrap_or(d.upload_max_bytes),
            ad_request_base_url: env("AD_REQUEST_BASE_URL")
                .map(|u| u.trim_end_matches('/').to_string())
                .unwrap_or(d.ad_request_base_url.clone()),
            audience_region: env("AUDIENCE_REGION").map(|r| r.to_ascii_lowercase()).unwrap_or(d.audience_region),
            audience_chunk_bytes: num("AUDIENCE_CHUNK_BYTES").filter(|n| *n >= 1).unwrap_or(d.audience_chunk_bytes),
            audience_upload_max_bytes: num("AUDIENCE_UPLOAD_MAX_BYTES").map(|n| n as usize).unwrap_or(d.audience_upload_max_bytes),
            events_queue_url: env("EVENTS_QUEUE_URL"),
            forecast_queue_url: env("FORECAST_QUEUE_URL"),
            compile_queue_url: env("COMPILE_QUEUE_URL"),
            compile_on_write: d.compile_on_write,
            notices_queue_url: env("NOTICES_QUEUE_URL"),
            auction_margin: num("AUCTION_MARGIN_MS").map(Duration::from_millis).unwrap_or(d.auction_margin),
            ad_system_domain: env("AD_SYSTEM_DOMAIN").unwrap_or_else(|| {
                let base = env("AD_REQUEST_BASE_URL").unwrap_or(d.ad_request_base_url.clone());
                base.split("://").nth(1).and_then(|r| r.split(['/', ':']).next()).unwrap_or("localhost").to_string()
            }),
            tracking_keys: keys_from_env("TRACKING", &d.tracking_keys),
            tracking_secrets_arn: env("TRACKING_SECRETS_ARN"),
            preview_keys: keys_from_env("PREVIEW", &d.preview_keys),
            preview_secrets_arn: env("PREVIEW_SECRETS_ARN"),
            // Without MEDIA_BASE_URL the documents point at this server's own media route
            // (`api::media`, the local server): playable ads with no setting.
            mediaconvert_role_arn: env("MEDIACONVERT_ROLE_ARN"),
            media_base_url: env("MEDIA_BASE_URL").map(|u| u.trim_end_matches('/').to_string()).unwrap_or_else(|| {
                let base = env("AD_REQUEST_BASE_URL").map(|u| u.trim_end_matches('/').to_string()).unwrap_or(d.ad_request_base_url.clone());
                format!("{base}{MEDIA_PATH}")
            }),
            delivery_refresh: num("DELIVERY_REFRESH_MS").map(Duration::from_millis).unwrap_or(d.delivery_refresh),
            delivery_max_age: num("DELIVERY_MAX_AGE_SECS").map(Duration::from_secs).unwrap_or(d.delivery_max_age),
            delivery_swap_goals: num("DELIVERY_SWAP_GOALS").map(|n| n as usize).unwrap_or(d.delivery_swap_goals),
            delivery_compile_wait: num("DELIVERY_COMPILE_WAIT_SECS").map(Duration::from_secs).unwrap_or(d.delivery_compile_wait),
            delivery_pace_overlap: num("DELIVERY_PACE_OVERLAP_MS").map(Duration::from_millis).unwrap_or(d.delivery_pace_overlap),
            delivery_max_goals: num("DELIVERY_MAX_GOALS").map(|n| n as usize).unwrap_or(d.delivery_max_goals),
            delivery_max_ads: num("DELIVERY_MAX_ADS").map(|n| n as usize).unwrap_or(d.delivery_max_ads),
            account_rate_per_sec: num("ACCOUNT_RATE_PER_SEC").map(|n| n as f64).unwrap_or(d.account_rate_per_sec),
            account_burst: num("ACCOUNT_BURST").map(|n| n as f64).unwrap_or(d.account_burst),
        }
    }
}
