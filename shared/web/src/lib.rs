//! The web: one axum router per resource group of the API, the console's pages, the
//! charts, the OpenAPI document, the Lambda entry points and the local server. Handlers
//! translate: the wire (or a form) to a typed command, one use case, the answer.
//!
//! The lower crates' modules are re-exported so that every layer names them the same way,
//! and so that the functions and the tests reach the whole system through this crate.

pub use app::{
    assemble, caches, jobs, passwords, rate_limit, repo, seed, seed_plan, settings, state, telemetry, ttl_cache, usecases, workers,
};
pub use domain::{
    address, cause, cidr, clock, delivery, domain_error, fasttime, forecast, ids, json, limits, model, rule, wire_enum, wire_schema, xml,
};
pub use ports::{backoff, blobs, demand, download, keys, media, queue, resolve, store};

pub mod api;
pub mod charts;
#[cfg(feature = "aws")]
pub mod lambda;
pub mod local_server;
pub mod openapi;
