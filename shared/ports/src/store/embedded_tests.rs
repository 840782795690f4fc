use super::*;

#[tokio::test]
async fn expired_items_are_swept() {
    let s = EmbeddedStore::in_memory().unwrap();
    let item = |sk: &str, exp: Option<i64>| Item { pk: "p".into(), sk: sk.into(), version: 1, expires_at: exp, ..Item::default() };
    for (sk, exp) in [("old", Some(100)), ("due", Some(200)), ("later", Some(300)), ("kept", None)] {
        s.put(item(sk, exp), Cond::None).await.unwrap();
    }
    let gone: Vec<String> = s.sweep_expired(200).await.unwrap().into_iter().map(|i| i.sk).collect();
    assert_eq!(gone, vec!["due".to_string(), "old".to_string()]);
    assert!(s.get(&Key::new("p", "old")).await.unwrap().is_none());
    assert!(s.get(&Key::new("p", "later")).await.unwrap().is_some());
    assert!(s.get(&Key::new("p", "kept")).await.unwrap().is_some());
    assert!(s.sweep_expired(200).await.unwrap().is_empty());
}

#[test]
fn framed_records_round_trip_and_the_first_format_still_reads() {
    let item = Item {
        pk: "p".into(),
        sk: "s".into(),
        gsi1: Some(("g".into(), "1".into())),
        version: 3,
        expires_at: Some(9),
        counters: BTreeMap::from([("n".to_string(), 2)]),
        body: "{\"name\":\"a \\\"quoted\\\" name\"}".into(),
        ..Item::default()
    };
    assert_eq!(decode("p", "s", &encode(&item).unwrap()).unwrap(), item);
    let bare = Item { pk: "p".into(), sk: "s".into(), body: "{}".into(), ..Item::default() };
    assert_eq!(decode("p", "s", &encode(&bare).unwrap()).unwrap(), bare);
    assert!(decode("p", "s", &encode(&item).unwrap()[..10]).is_err(), "truncated records are refused");
    // Format 1 (JSON header, raw body) still reads.
    let mut v1 = vec![FRAMED];
    let header = br#"{"v":4}"#;
    v1.extend_from_slice(&(header.len() as u32).to_le_bytes());
    v1.extend_from_slice(header);
    v1.extend_from_slice(b"{}");
    assert_eq!(decode("p", "s", &v1).unwrap().version, 4);
    let old = br#"{"g1":["g","1"],"v":3,"exp":9,"c":{"n":2},"b":"{\"x\":1}"}"#;
    let got = decode("p", "s", old).unwrap();
    assert_eq!((got.version, got.body.as_str()), (3, "{\"x\":1}"));
}
