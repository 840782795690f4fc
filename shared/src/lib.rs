//! The domain crate: every rule of the seeds, the wire shapes, the ports and adapters, and
//! one axum router per resource group.

pub mod api;
pub mod clock;
pub mod config;
pub mod error;
pub mod ids;
pub mod keys;
pub mod lambda;
pub mod model;
pub mod repo;
pub mod seed;
pub mod state;
pub mod store;
pub mod telemetry;
pub mod xml;
