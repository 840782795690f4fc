//! The use cases: one module per multi-step operation (docs/architecture.md). Each takes
//! the ports and the clock (`AppState`), a typed command, and returns a typed result; it
//! sequences the repositories and the pure engines. Handlers (`api/`) and workers
//! (`workers/`) only translate: wire → command → use case → wire (or SQS settle).
//! Nothing here knows HTTP beyond the error type, or SQS beyond `jobs/`.

pub mod access;
pub mod ad_request;
pub mod ads;
pub mod asset_jobs;
pub mod assets;
pub mod attention;
pub mod auction;
pub mod audience;
pub mod beans;
pub mod bid_notices;
pub mod bulk;
pub mod callers;
pub mod campaigns;
pub mod changes;
pub mod clients;
pub mod collection;
pub mod compile;
pub mod contacts;
pub mod demand;
pub mod duplicate;
pub mod error;
pub mod events;
pub mod fill_rates;
pub mod forecast;
pub mod forecast_run;
pub mod goals;
pub mod inspect;
pub mod notifications;
pub mod overview;
pub mod pacing;
pub mod policies;
pub mod preview;
pub mod reference;
pub mod reports;
pub mod rules;
pub mod sign_in;
pub mod sso;
pub mod stitchers;
pub mod templates;
pub mod tracking;
pub mod two_factor;
pub mod v3;
pub mod v3_rows;
pub mod vast_export;

pub use error::{UseCaseError, UseCaseResult};
