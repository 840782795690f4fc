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
#[path = "harness/bidder.rs"]
mod bidder;
#[path = "harness/console.rs"]
mod console;
#[path = "harness/eventually.rs"]
mod eventually;
#[path = "harness/macros.rs"]
mod macros;
#[path = "harness/oidc.rs"]
pub mod oidc;
#[path = "harness/records.rs"]
mod records;
#[path = "harness/requests.rs"]
mod requests;
#[path = "harness/unavailable.rs"]
mod unavailable;
#[path = "harness/xml.rs"]
mod xml;

pub use app::{store, Account, Backend, TestApp};
pub use assets::{clip, hits, prores_master, spawn_file_server, wait_hits, NOT_A_VIDEO};
pub use bench::{peak_rss_mb, run_bench_child};
pub use bidder::Bidder;
pub use console::{ad_form, csrf_of, form, location, set_cookie, version_of, Browser, CONSOLE_HOST, CONSOLE_ORIGIN};
pub use eventually::eventually;
pub use requests::{Res, PEER, PLAYER_UA};
pub use unavailable::Unavailable;
pub use xml::{xml_text, xml_texts};

/// Renders an SVG to PNG with `rsvg-convert` (Debian's librsvg2-bin; the test script
/// installs it) and returns the PNG's (width, height): a chart that does not render fails.
pub fn render_png(svg: &str) -> (u32, u32) {
    let dir = std::env::temp_dir().join(format!("chart-{}", uuid::Uuid::new_v4().simple()));
    std::fs::create_dir_all(&dir).expect("a temp dir");
    let (input, output) = (dir.join("chart.svg"), dir.join("chart.png"));
    std::fs::write(&input, svg).expect("write the SVG");
    let status = std::process::Command::new("rsvg-convert")
        .arg("-o")
        .arg(&output)
        .arg(&input)
        .status()
        .expect("rsvg-convert is needed to render the charts (apt-get install librsvg2-bin; ./scripts/test.sh installs it)");
    assert!(status.success(), "rsvg-convert could not render the chart");
    let png = std::fs::read(&output).expect("the PNG");
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let be = |i: usize| u32::from_be_bytes([png[i], png[i + 1], png[i + 2], png[i + 3]]);
    (be(16), be(20))
}

pub use chrono;
pub use chrono_tz;
pub use serde_json;
