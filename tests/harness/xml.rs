//! A light reader of XML answers for assertions.

/// Text of every `<name>` element in document order (a light reader for assertions).
pub fn xml_texts(doc: &str, name: &str) -> Vec<String> {
    let open = format!("<{name}>");
    let close = format!("</{name}>");
    let mut out = Vec::new();
    let mut rest = doc;
    while let Some(i) = rest.find(&open) {
        let after = &rest[i + open.len()..];
        match after.find(&close) {
            Some(j) => {
                out.push(after[..j].to_string());
                rest = &after[j + close.len()..];
            }
            None => break,
        }
    }
    out
}

pub fn xml_text(doc: &str, name: &str) -> Option<String> {
    xml_texts(doc, name).into_iter().next()
}
