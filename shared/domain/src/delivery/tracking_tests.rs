//! The signed links' tests (`tracking.rs`).

use super::*;

fn token() -> Token {
    Token {
        account: "acc".into(),
        campaign: "c1".into(),
        goal: "g1".into(),
        ad: "ad1".into(),
        impression: "imp1".into(),
        viewer: Some("v1".into()),
        issued: 1_700_000_000,
        delivered: "impression".into(),
        click: None,
        key: None,
        dims: None,
    }
}

#[test]
fn hmac_matches_rfc_4231_case_2() {
    // The full MAC is 5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843;
    // a signature is its first 128 bits.
    let sig = SigningKey::new(b"Jefe").sign_text("what do ya want for nothing?");
    assert_eq!(sig, "5bdcc146bf60754e6a042426089575c7");
}

#[test]
fn the_signed_message_is_the_length_prefixed_fields() {
    // Version 2 as documented (docs/traffic-quality.md §2), built by hand.
    let mut t = token();
    t.click = Some("https://x.example/?q=1".into());
    let mut m = Vec::new();
    for f in ["complete", "acc", "c1", "g1", "ad1", "imp1", "+v1", "1700000000", "impression", "+https://x.example/?q=1", "2"] {
        m.extend_from_slice(format!("{}:{f}", f.len()).as_bytes());
    }
    let key = SigningKey::new(b"secret");
    assert_eq!(t.sign(&key, "complete"), hex::encode(key.mac_with(|h| h.update(&m))));
    let q = t.query(&key, "complete");
    assert!(q.starts_with("a=acc&c=c1&g=g1&ad=ad1&i=imp1&ts=1700000000&d=impression&v=v1&u=https%3A%2F%2Fx.example%2F%3Fq%3D1&s="), "{q}");
    assert!(q.ends_with(&t.sign(&key, "complete")));
}

#[test]
fn any_changed_field_breaks_the_signature() {
    let key = &SigningKey::new(b"secret");
    let t = token();
    let sig = t.sign(key, "impression");
    assert!(t.verify(key, "impression", &sig));
    assert!(!t.verify(key, "complete", &sig));
    assert!(!t.verify(&SigningKey::new(b"other"), "impression", &sig));
    let mut moved = t.clone();
    moved.ad = "ad2".into();
    assert!(!moved.verify(key, "impression", &sig));
    let mut shifted = t.clone();
    shifted.campaign = "c1g".into();
    shifted.goal = "1".into();
    assert!(!shifted.verify(key, "impression", &sig));
    let mut clicked = t;
    clicked.click = Some("https://evil.example".into());
    assert!(!clicked.verify(key, "impression", &sig));
}

#[test]
fn absent_and_empty_sign_differently() {
    let key = &SigningKey::new(b"secret");
    let mut t = token();
    t.viewer = None;
    let sig = t.sign(key, "complete");
    assert!(t.verify(key, "complete", &sig));
    let mut empty = t.clone();
    empty.viewer = Some(String::new());
    assert_ne!(empty.sign(key, "complete"), sig, "a present empty viewer signs differently");
    assert!(!empty.verify(key, "complete", &sig), "&v= appended does not verify");
    // An empty value never verifies, not even under its own signature.
    assert!(!empty.verify(key, "complete", &empty.sign(key, "complete")));
}

#[test]
fn report_dimensions_are_signed_and_cannot_be_dropped_or_moved() {
    let key = &SigningKey::new(b"secret");
    let mut t = token();
    t.dims = Some(Dims {
        format: "preroll".into(),
        category: Some("sports".into()),
        partner: None,
        device_container: Some("web".into()),
        sale: None,
    });
    let q = t.query(key, "impression");
    assert!(q.contains("&f=preroll&cat=sports&dc=web&s="), "{q}");
    let pairs: Vec<(String, String)> =
        q.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let (back, sig) = Token::from_pairs(&pairs).unwrap();
    assert_eq!(back, t);
    assert!(back.verify(key, "impression", &sig));
    // Dropped (a version-2 link), moved to another field, or changed: refused.
    let mut dropped = t.clone();
    dropped.dims = None;
    assert!(!dropped.verify(key, "impression", &sig));
    let mut moved = t.clone();
    moved.dims = Some(Dims {
        format: "preroll".into(),
        category: None,
        partner: Some("sports".into()),
        device_container: Some("web".into()),
        sale: None,
    });
    assert!(!moved.verify(key, "impression", &sig));
    let mut emptied = t.clone();
    emptied.dims.as_mut().unwrap().partner = Some(String::new());
    assert!(!emptied.verify(key, "impression", &emptied.sign(key, "impression")));
    // A version-2 link (no dimensions) still verifies as it did.
    let v2 = token();
    assert!(v2.verify(key, "impression", &v2.sign(key, "impression")));
}

#[test]
fn a_sale_is_signed_and_cannot_be_dropped_or_repriced() {
    let key = &SigningKey::new(b"secret");
    let mut t = token();
    let sale = Sale { partner: "p1".into(), market: "m1".into(), price_micros: 4_010_000 };
    t.dims = Some(Dims { format: "preroll".into(), sale: Some(sale), ..Dims::default() });
    let q = t.query(key, "impression");
    assert!(q.contains("&f=preroll&dp=p1&mk=m1&px=4010000&s="), "{q}");
    let pairs: Vec<(String, String)> =
        q.split('&').filter_map(|kv| kv.split_once('=')).map(|(k, v)| (k.to_string(), v.to_string())).collect();
    let (back, sig) = Token::from_pairs(&pairs).unwrap();
    assert_eq!(back, t);
    assert!(back.verify(key, "impression", &sig));
    let mut repriced = t.clone();
    repriced.dims.as_mut().unwrap().sale.as_mut().unwrap().price_micros = 9_000_000;
    assert!(!repriced.verify(key, "impression", &sig));
    let mut dropped = t.clone();
    dropped.dims.as_mut().unwrap().sale = None;
    assert!(!dropped.verify(key, "impression", &sig));
    // Part of a sale is no link.
    let partial: Vec<(String, String)> = pairs.iter().filter(|(k, _)| k != "px").cloned().collect();
    assert!(Token::from_pairs(&partial).is_none());
}
