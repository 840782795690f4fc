use super::*;
use crate::delivery::decide::decide;
use crate::delivery::pacing::Pace;
use crate::delivery::request::ViewerState;
use crate::delivery::snapshot::compile;
use crate::delivery::synthetic::{self, Spec};

fn snapshot() -> Snapshot {
    let now = chrono::Utc::now();
    let mut input = synthetic::generate(Spec { goals: 300, ads: 1_500, seed: 5 }, now);
    // A disabled ad: the inspector's left-out list travels too.
    input.ads[0].enabled = false;
    compile(input, now)
}

#[test]
fn the_compiled_form_decides_as_the_snapshot_does() {
    let s = snapshot();
    let bytes = encode(&s).expect("encode");
    let back = decode(&bytes).expect("decode");
    assert_eq!((back.account.as_str(), back.version, back.built), (s.account.as_str(), s.version, s.built));
    assert_eq!(format!("{:?}", back.goals), format!("{:?}", s.goals));
    assert_eq!(format!("{:?}", back.ads), format!("{:?}", s.ads));
    assert_eq!((&back.order, &back.levels, &back.left_out), (&s.order, &s.levels, &s.left_out));
    assert_eq!((&back.lineage, &back.ad_index, &back.goal_index), (&s.lineage, &s.ad_index, &s.goal_index));
    assert_eq!(back.syms.len(), s.syms.len());
    assert!(!back.left_out.is_empty());
    // The same requests get the same ads.
    let pace = vec![Pace::default(); s.goals.len()];
    let viewer = ViewerState::default();
    let mut filled = 0;
    for r in synthetic::requests(2_000, 9, chrono::Utc::now()) {
        let (a, b) = (decide(&s, &r, &viewer, &pace), decide(&back, &r, &viewer, &pace));
        assert_eq!(format!("{:?}", a.picks), format!("{:?}", b.picks));
        filled += a.picks.len();
    }
    assert!(filled > 0, "no request was filled: the comparison saw nothing");
    // Compressed: smaller than the snapshot in memory.
    assert!(bytes.len() < s.approx_bytes(), "{} bytes", bytes.len());
}

#[test]
fn another_format_or_a_damaged_form_is_refused() {
    let bytes = encode(&snapshot()).expect("encode");
    assert_eq!(decode(b"{\"json\": true}").err(), Some(CompiledError::NotCompiled));
    let mut other = bytes.clone();
    other[MAGIC.len()..MAGIC.len() + 2].copy_from_slice(&(FORMAT + 1).to_le_bytes());
    assert_eq!(decode(&other).err(), Some(CompiledError::Format(FORMAT + 1)));
    let cut = &bytes[..bytes.len() / 2];
    assert!(matches!(decode(cut), Err(CompiledError::Corrupt(_))));
}
