//! The pure domain: the records and every rule of the seeds, the wire shapes (XML beans,
//! JSON bodies and their schemas), the decision engine and the forecast simulation.
//! Nothing here performs I/O or needs an async runtime: time comes in through `clock`,
//! and what lies outside (the store, blobs, queues, HTTP) is in the crates above.

pub mod address;
pub mod cause;
pub mod cidr;
pub mod clock;
pub mod delivery;
pub mod domain_error;
pub mod fasttime;
pub mod forecast;
pub mod ids;
pub mod json;
pub mod limits;
pub mod model;
pub mod rule;
pub mod wire_enum;
pub mod wire_schema;
pub mod xml;
