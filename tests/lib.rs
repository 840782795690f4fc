//! Test harness: the app as a client sees it (HTTP through the real router), on either
//! store. `both_stores!` turns one test body into `<name>::embedded` and `<name>::dynamodb`.
//! The DynamoDB runs need the emulator the test script starts (`AWS_ENDPOINT_URL`); without
//! it they fail, they do not skip.

//! The harness is split by concern under `harness/`: the app and its stores (`app`),
//! requests and answers (`requests`), records made through the API (`records`), assets
//! and the loopback file server (`assets`), audience batches and the clock (`audience`),
//! XML reading (`xml`), the both-stores macros (`macros`) and the benches' helpers (`bench`).

pub mod faults;
pub mod player;
pub mod scoped;

#[path = "harness/app.rs"]
mod app;
#[path = "harness/assets.rs"]
mod assets;
#[path = "harness/audience.rs"]
mod audience;
#[path = "harness/bench.rs"]
mod bench;
#[path = "harness/macros.rs"]
mod macros;
#[path = "harness/records.rs"]
mod records;
#[path = "harness/requests.rs"]
mod requests;
#[path = "harness/xml.rs"]
mod xml;

pub use app::{store, Account, Backend, TestApp};
pub use assets::{clip, prores_master, spawn_file_server, NOT_A_VIDEO};
pub use bench::{peak_rss_mb, run_bench_child};
pub use requests::{Res, PLAYER_UA};
pub use xml::{xml_text, xml_texts};

pub use chrono;
pub use chrono_tz;
pub use serde_json;
