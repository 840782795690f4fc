//! Forecasts (docs/forecasts.md): campaign and inventory forecast requests, the traffic
//! model, the simulation over the delivery engine, the reports (their charts are the web's, `charts/`). Pure; the
//! job records are `repo::forecasts`, the endpoints `api::forecasts`, the lifecycle
//! `workers::forecast`.

pub mod projection;
pub mod proposal;
pub mod report;
pub mod report_schema;
pub mod request;
pub mod request_body;
pub mod rerun;
pub mod simulate;
pub mod traffic;
