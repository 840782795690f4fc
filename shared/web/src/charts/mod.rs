//! The charts as SVG: the forecast reports, a goal's pacing and the delivery report.

pub mod delivery;
pub mod frame;
pub mod pacing;
