//! The domain crate: every rule of the seeds, the wire shapes, the ports and adapters, and
//! one axum router per resource group.

pub mod api;
pub mod assemble;
pub mod blobs;
pub mod cause;
pub mod clock;
pub mod delivery;
pub mod domain_error;
pub mod download;
pub mod fasttime;
pub mod forecast;
pub mod ids;
pub mod jobs;
pub mod json;
pub mod keys;
#[cfg(feature = "aws")]
pub mod lambda;
pub mod limits;
pub mod media;
pub mod model;
pub mod openapi;
pub mod queue;
pub mod rate_limit;
pub mod repo;
pub mod rule;
pub mod seed;
pub mod seed_plan;
pub mod settings;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod usecases;
pub mod wire_enum;
pub mod wire_schema;
pub mod workers;
pub mod xml;
