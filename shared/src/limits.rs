//! Named limits shared by several layers, each spelled once (docs/limits.md lists them all
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
