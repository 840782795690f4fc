//! The delivery engine (docs/delivery.md): the compiled per-account snapshot, the pure
//! decision over it, the served VAST/VMAP documents and their signed tracking links. The
//! serving and tracking endpoints (`api::serving`) and the event worker
//! (`workers::events`) are its I/O; the forecaster replays `decide`.

pub mod compiled;
pub mod context;
pub mod counters;
pub mod counting;
pub mod decide;
pub mod explain;
pub mod freq;
pub mod id_key;
pub mod ivt;
pub mod join;
pub mod link_keys;
pub mod markup;
pub mod media;
pub mod pacing;
pub mod preview;
pub mod programmatic;
pub mod request;
pub mod snapshot;
pub mod symbols;
pub mod synthetic;
pub mod targeting;
pub mod tracking;
pub mod vast;
pub mod verdict;

pub use decide::{decide, Decision, Pick};
pub use request::{AdRequest, ViewerState};
pub use snapshot::{compile, AdFormat, Snapshot};
