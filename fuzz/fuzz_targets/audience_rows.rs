//! Audience batch files: the row parser, the bounded gzip inflater and the row-length guard
//! on arbitrary bytes. Never a panic; the counts stay consistent.
#![no_main]

use std::io::Write;

use libfuzzer_sys::fuzz_target;
use web::model::account::{AudienceProvider, Segment, Segmentation};
use web::model::audience::{parse_block, Catalog, Row, Tally};

fn provider() -> AudienceProvider {
    let seg = |id: &str, key: &str, vals: &[&str]| Segmentation {
        id: id.into(),
        key: key.into(),
        name: key.into(),
        segments: vals.iter().map(|v| Segment { id: format!("{id}-{v}"), key: (*v).into(), name: (*v).into() }).collect(),
    };
    AudienceProvider {
        id: "p".into(),
        name: "P".into(),
        url_identifier: "p".into(),
        enabled: true,
        segmentations: vec![seg("sa", "age", &["18-24", "25-34"]), seg("sg", "gender", &["m", "f"])],
    }
}

fuzz_target!(|data: &[u8]| {
    let cat = Catalog::new(&provider());
    let mut tally = Tally::default();
    let mut rows = 0u64;
    parse_block(data, &cat, &mut tally, &mut |r| {
        rows += 1;
        if let Row::Replace(_, pairs) = r {
            assert!(!pairs.is_empty() && pairs.len() <= 2, "one segment per segmentation");
        }
    });
    let s = tally.stats();
    assert!(s.invalid_rows <= s.rows && s.rows_with_invalid_segments <= s.rows);
    assert!(rows + s.invalid_rows == s.rows, "every counted row is handed on or invalid");
    assert!(s.invalid_segments.iter().all(|p| p.len() <= web::model::audience::MAX_PAIR_KEPT * 3));
    // The same bytes as a gzip stream: refused or inflated, never a panic or a runaway.
    let mut inf = web::model::inflate::Inflater::new(std::io::sink());
    if inf.feed(data).is_ok() {
        let _ = inf.finish();
    }
    let mut w = web::workers::audience::RowSink::default();
    let _ = w.write_all(data);
    let _ = w.take(64);
});
