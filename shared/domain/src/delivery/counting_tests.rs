use super::*;

fn ev(counter: Counter, imp: &str, id: &str, at: i64) -> Event {
    Event {
        account: "a".into(),
        campaign: "c".into(),
        goal: "g".into(),
        ad: "ad".into(),
        impression: imp.into(),
        counter,
        delivered: counter == Counter::Impression,
        viewer: Some("v1".into()),
        at,
        id: id.into(),
        invalid: None,
        block: Some("203.0.113.0/24".into()),
        dims: None,
        server: false,
        message: 0,
    }
}

fn none(_: &Event) -> GoalLimits {
    GoalLimits::default()
}

fn day(_: &Event) -> i64 {
    1
}

fn reasons(v: &[Verdict]) -> Vec<Option<Option<Reason>>> {
    v.iter()
        .map(|x| match x {
            Verdict::Count { reason, .. } => Some(*reason),
            _ => None,
        })
        .collect()
}

#[test]
fn an_event_needs_its_impression() {
    let now = 10_000;
    let seen = Seen::default();
    // Fresh complete without impression: waits; an old one: noImpression.
    let (v, _) = judge(&[ev(Counter::Complete, "i1", "x", now - 5), ev(Counter::Complete, "i2", "y", now - 500)], &seen, now, &none, &day);
    assert_eq!(v[0], Verdict::Wait);
    assert_eq!(reasons(&v)[1], Some(Some(Reason::NoImpression)));
    // With its impression in the same group: valid.
    let (v, _) = judge(&[ev(Counter::Complete, "i1", "x", now), ev(Counter::Impression, "i1", "z", now - 20)], &seen, now, &none, &day);
    assert_eq!(reasons(&v), vec![Some(None), Some(None)]);
}

#[test]
fn replays_are_duplicates_and_redeliveries_nothing() {
    let e = ev(Counter::Impression, "i1", "call-1", 100);
    let mut seen = Seen::default();
    seen.markers.insert(MarkerId::of("i1", Counter::Impression), Marker { call: "call-1".into(), reason: None });
    let replay = ev(Counter::Impression, "i1", "call-2", 100);
    let (v, _) = judge(&[e, replay.clone()], &seen, 100, &none, &day);
    assert_eq!(v[0], Verdict::Skip);
    assert_eq!(reasons(&v)[1], Some(Some(Reason::Duplicate)));
    let Verdict::Count { marker, .. } = &v[1] else { panic!("{v:?}") };
    // The duplicate's message delivered again finds its own marker: nothing more.
    assert!(wanted(std::slice::from_ref(&replay)).markers.contains(marker));
    seen.markers.insert(marker.clone(), Marker { call: "call-2".into(), reason: Some(Reason::Duplicate) });
    let (v, _) = judge(&[replay], &seen, 100, &none, &day);
    assert_eq!(v, vec![Verdict::Skip]);
}

#[test]
fn rates_and_goal_spend_are_bounded() {
    let evs: Vec<Event> = (0..20).map(|n| ev(Counter::Impression, &format!("i{n}"), &format!("c{n}"), 600)).collect();
    let (v, t) = judge(&evs, &Seen::default(), 600, &none, &day);
    let r = reasons(&v);
    assert_eq!(r.iter().filter(|x| **x == Some(None)).count(), ivt::VIEWER_PER_MINUTE as usize);
    assert!(r[12..].iter().all(|x| *x == Some(Some(Reason::ViewerRate))));
    assert_eq!(t.rates.values().map(|r| r.0.n).max(), Some(12));
    let capped = |_: &Event| GoalLimits { total: Some(3), daily: None, end: None };
    let (v, _) = judge(&evs[..5], &Seen::default(), 600, &capped, &day);
    assert_eq!(reasons(&v)[3], Some(Some(Reason::ViewerGoalCap)));
    // An inherited verdict: the events of an invalid impression are invalid alike.
    let mut bot = ev(Counter::Impression, "ib", "cb", 600);
    bot.invalid = Some("crawler".into());
    let (v, _) = judge(&[ev(Counter::Start, "ib", "cs", 600), bot], &Seen::default(), 600, &none, &day);
    assert_eq!(reasons(&v), vec![Some(Some(Reason::Crawler)), Some(Some(Reason::Crawler))]);
}

#[test]
fn what_a_group_reads() {
    let w = wanted(&[ev(Counter::Impression, "i1", "c1", 600), ev(Counter::Complete, "i1", "c2", 630)]);
    assert_eq!(w.rates, vec![(Subject::Viewer("v1".into()), 10), (Subject::Block("203.0.113.0/24".into()), 10)]);
    assert_eq!(w.spends.len(), 2);
    assert!(w.markers.contains(&MarkerId::of("i1", Counter::Impression)));
    assert!(w.markers.contains(&MarkerId::of("i1", Counter::Complete)));
    assert_eq!(Subject::Viewer("p".into()).key_part(), "v:p");
    assert_eq!(Subject::Block("b".into()).key_part(), "b:b");
}

#[test]
fn a_stitchers_valid_impression_is_also_server_initiated() {
    let mut e = ev(Counter::Impression, "i1", "x", 0);
    let plain: Vec<Slot> = slots(&e, None).map(|(s, _)| s).collect();
    assert_eq!(plain, [Slot::Valid(Counter::Impression), Slot::Valid(Counter::Delivered)]);
    e.server = true;
    let server: Vec<Slot> = slots(&e, None).map(|(s, _)| s).collect();
    assert_eq!(server, [Slot::Valid(Counter::Impression), Slot::Valid(Counter::Delivered), Slot::Valid(Counter::ServerInitiated)]);
    // Invalid, or not an impression: nothing more.
    assert_eq!(slots(&e, Some(Reason::Crawler)).collect::<Vec<_>>(), [(Slot::Invalid(Reason::Crawler), 1)]);
    let mut start = ev(Counter::Start, "i1", "y", 0);
    start.server = true;
    assert_eq!(slots(&start, None).collect::<Vec<_>>(), [(Slot::Valid(Counter::Start), 1)]);
}
