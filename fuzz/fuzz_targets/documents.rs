//! Documents stay well-formed whatever goes into them: arbitrary text (a record name, a
//! bidder's title or ad id) written through the one XML writer, and a bidder's markup
//! carrying it (character references included), read and written again, always give a
//! document that parses and holds only characters XML allows.
#![no_main]

use libfuzzer_sys::fuzz_target;
use web::xml::{allowed, clean, parse, XmlOut};

fn well_formed(doc: &str) {
    assert!(doc.chars().all(allowed), "a forbidden character: {doc:?}");
    parse(doc.as_bytes()).unwrap_or_else(|e| panic!("not well-formed ({e:?}): {doc:?}"));
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let mut o = XmlOut::new();
    o.open_attr("Ad", "id", &text).leaf("AdTitle", &*text).leaf_attrs("Tracking", &[("event", &text)], &text).close("Ad");
    let doc = o.finish();
    well_formed(&doc);
    let root = parse(doc.as_bytes()).expect("parsed above");
    let title = root.child("AdTitle").and_then(|t| t.value()).unwrap_or("");
    assert_eq!(title, clean(&text).trim(), "the text is kept, cleaned");
    // The same text inside a bidder's markup (as its own XML, character references and
    // all): whatever the markup reader keeps is written well-formed again.
    let adm = format!(
        "<VAST version=\"3.0\"><Ad id=\"a\"><InLine><AdSystem>s</AdSystem><AdTitle>{text}</AdTitle><Creatives><Creative><Linear>\
         <Duration>00:00:05</Duration><MediaFiles><MediaFile delivery=\"progressive\" type=\"video/mp4\" width=\"1\" height=\"1\">\
         https://m.example/a.mp4</MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>"
    );
    if let Ok(web::delivery::markup::Markup::Inline { title: Some(t), .. }) = web::delivery::markup::parse(&adm) {
        let mut o = XmlOut::new();
        o.leaf("AdTitle", &t);
        well_formed(&o.finish());
    }
});
