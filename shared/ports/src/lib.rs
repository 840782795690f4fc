//! The ports (traits) through which the application reaches what is outside the process,
//! and their adapters: the key-value store (DynamoDB, redb, memory), blobs (S3, a
//! directory, memory), queues (SQS, the durable in-store queue), the media engine (ffmpeg,
//! MediaConvert), name resolution, downloads and the bidders' HTTP client. The key scheme
//! (`keys`) is spelled here once, for the store's items and the blobs' object names.
//!
//! The domain's modules are re-exported so that every layer names them the same way
//! (`crate::model::..`); nothing of the application or the web is reachable from here.

pub use domain::{
    address, cause, cidr, clock, delivery, domain_error, fasttime, forecast, ids, json, limits, model, rule, wire_enum, wire_schema, xml,
};

pub mod backoff;
pub mod blobs;
pub mod demand;
pub mod download;
pub mod keys;
pub mod media;
pub mod queue;
pub mod resolve;
pub mod store;
