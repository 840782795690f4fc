//! The application: repositories (every store write, conditional), use cases (one function
//! an operation, over the ports and the clock), the workers behind the queues, the serving
//! caches, settings, seeding, and the assembly of the ports into an `AppState`.
//!
//! The lower crates' modules are re-exported so that every layer names them the same way
//! (`crate::model::..`, `crate::store::..`); nothing of the web is reachable from here.

pub use domain::{
    address, cause, cidr, clock, delivery, domain_error, fasttime, forecast, ids, json, limits, model, rule, wire_enum, wire_schema, xml,
};
pub use ports::{backoff, blobs, demand, download, keys, media, queue, resolve, store};

pub mod assemble;
pub mod caches;
pub mod jobs;
pub mod passwords;
pub mod rate_limit;
pub mod repo;
pub mod seed;
pub mod seed_plan;
pub mod settings;
pub mod state;
pub mod telemetry;
pub mod ttl_cache;
pub mod usecases;
pub mod workers;
