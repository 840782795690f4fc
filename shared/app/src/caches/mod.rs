//! What a serving process keeps between requests: the compiled snapshots of the accounts
//! it serves (`snapshots`, with `swap` bringing a large account's new version in off the
//! request path) and the traffic samples waiting to be written (`sample_sink`). Not
//! storage: each reads and writes through the repositories (`repo/`), and it alone of the
//! two reads the settings that bound it.

pub mod sample_sink;
pub mod snapshots;
mod swap;

use crate::repo::snapshot_load::Bound;
use crate::settings::Settings;

/// The most stored goals and ads a snapshot is compiled from (`DELIVERY_MAX_GOALS`,
/// `DELIVERY_MAX_ADS`).
pub fn bound(s: &Settings) -> Bound {
    Bound { goals: s.delivery_max_goals, ads: s.delivery_max_ads }
}
