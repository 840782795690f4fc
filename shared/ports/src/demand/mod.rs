//! Programmatic demand (docs/programmatic.md): the OpenRTB 2.6 wire types, the bid
//! request built for a break, the checks of a bid and its markup, the clearing price,
//! the notices' macros, and the pooled HTTP client that asks the bidders.

pub mod bids;
pub mod client;
pub mod macros;
pub mod openrtb;
pub mod request;
pub mod signals;
