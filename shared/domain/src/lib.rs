//! The pure domain: the records and every rule of the seeds, the wire shapes (XML beans,
//! JSON bodies and their schemas), the decision engine and the forecast simulation.
//! Nothing here performs I/O or needs an async runtime: time comes in through `clock`,
//! and what lies outside (the store, blobs, queues, HTTP) is in the crates above.
//!
//! The crates' dependency graph is the layer diagram (docs/architecture.md, "Crates"): the
//! domain depends on none of them, so an import of the web or of an adapter does not
//! compile here. These two checks are part of the test command (`cargo test --doc`):
//!
//! ```compile_fail,E0432
//! // The web (handlers, the console) is above the domain.
//! use web::api::Routes;
//! ```
//!
//! ```compile_fail,E0432
//! // So are the adapters (the store, blobs, queues).
//! use ports::store::Store;
//! ```

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
