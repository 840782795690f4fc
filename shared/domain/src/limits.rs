//! Named limits shared by several layers, each spelled once (docs/api.md, "Fields are bounded", lists them all
//! with the service limit they follow). A leaf module: it imports nothing of the crate.

/// Longest id a client may send or the service stores (campaigns, goals, ads, assets,
/// reference records, forecast jobs): 64 letters, digits, `-` or `_` (`ids::is_valid`).
pub const MAX_ID_LEN: usize = 64;

/// DynamoDB's item size limit (400 KB), enforced by both store adapters so they agree.
/// Counted as 400,000 bytes: the documented figure read strictly (DynamoDB itself accepts a
/// little more, moto up to 405,000), so what one adapter stores every store accepts.
pub const MAX_ITEM_BYTES: usize = 400_000;

/// Most actions one transaction may carry (DynamoDB's limit).
pub const MAX_TRANSACT_ACTIONS: usize = 100;

/// Longest name of a campaign, a client or an ad (the seeds' 250 characters).
pub const RECORD_NAME_MAX: usize = 250;

/// Longest name of a goal, a targeting template, an insertion policy, a forecast job or an
/// asset's file, and longest short text (custom ids, last names, tags, segment ids).
pub const NAME_MAX: usize = 255;

/// Longest short free text: custom ids, contact names, video creative ids.
pub const SHORT_MAX: usize = 255;

/// Longest free text the seeds give no limit for (descriptions, notes).
pub const TEXT_MAX: usize = 1000;

/// Longest URL a client may send: click-throughs, VAST and download URIs, trackers.
pub const URL_MAX: usize = 2048;

/// Longest value of a closed set (an enum name) the parsers look at before refusing it.
pub const ENUM_NAME_MAX: usize = 64;

/// Longest IP matcher of a location rule (`10.1.2.0-255`, an IPv6 range).
pub const IP_MATCHER_MAX: usize = 64;

/// Longest tag, key-value value, segment id or resource id of a rule.
pub const RULE_VALUE_MAX: usize = 255;

/// Most external trackers an ad may carry.
pub const MAX_TRACKERS: usize = 50;

/// Longest Idempotency-Key header (visible ASCII).
pub const IDEMPOTENCY_KEY_MAX: usize = 255;

/// The most goals and ads one account's delivery snapshot is compiled from: one serving
/// process reads the account's records and compiles them while it still holds the previous
/// snapshot, about 2.1 KB per ad at 5 ads a goal (measured: `cargo bench -p api-tests
/// --bench compile`, 700 bytes per ad in the snapshot and as much again in the records),
/// so 250,000 ads stay near half of a 1,024 MB serving Lambda. Past either, the account is
/// refused at compile time (docs/publisher-scale.md, "Bounded memory"); `DELIVERY_MAX_GOALS`
/// and `DELIVERY_MAX_ADS` lower them, or raise them for a larger function.
pub const SNAPSHOT_MAX_GOALS: usize = 50_000;
pub const SNAPSHOT_MAX_ADS: usize = 250_000;

/// A header's name, at most (an HTTP token).
pub const HEADER_NAME_MAX: usize = 64;
