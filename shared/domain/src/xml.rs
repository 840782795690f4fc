//! XML wire format: a small element tree read with quick-xml (no DTDs, no external
//! entities), a bean reader that collects every field error with the element path, and a
//! writer for response beans.

use crate::rule::Rule;
use quick_xml::events::Event;
use quick_xml::Reader;
use std::borrow::Cow;

use crate::domain_error::{DomainError, FieldError};

/// Deepest nesting accepted (beans are 3 levels deep, VAST 8; this only stops abuse).
const MAX_DEPTH: usize = 16;
/// Most attributes kept on one element (VAST's MediaFile has 11).
const MAX_ATTRS: usize = 16;

/// An element's local name and attributes.
fn start(e: &quick_xml::events::BytesStart<'_>) -> Result<Element, DomainError> {
    let name = std::str::from_utf8(e.local_name().as_ref()).map_err(|_| malformed("element name"))?.to_string();
    let mut attrs = Vec::new();
    for a in e.attributes() {
        let a = a.map_err(malformed)?;
        if attrs.len() >= MAX_ATTRS {
            return Err(malformed(format!("more than {MAX_ATTRS} attributes on <{name}>")));
        }
        let key = std::str::from_utf8(a.key.local_name().as_ref()).map_err(|_| malformed("attribute name"))?.to_string();
        let value = a.normalized_value(quick_xml::XmlVersion::Implicit1_0).map_err(malformed)?.to_string();
        attrs.push((key, value));
    }
    Ok(Element { name, attrs, ..Element::default() })
}

#[derive(Debug, Clone, PartialEq, Default)]
pub struct Element {
    pub name: String,
    /// Attributes (local names, values unescaped), at most `MAX_ATTRS`.
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Element>,
    /// Concatenated character data, untrimmed.
    pub text: String,
}

impl Element {
    pub fn child(&self, name: &str) -> Option<&Element> {
        self.children.iter().find(|c| c.name == name)
    }
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
    /// An attribute's value.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(n, _)| n == name).map(|(_, v)| v.as_str())
    }
    /// Trimmed text; `None` when empty.
    pub fn value(&self) -> Option<&str> {
        let t = self.text.trim();
        if t.is_empty() {
            None
        } else {
            Some(t)
        }
    }
}

fn malformed(msg: impl std::fmt::Display) -> DomainError {
    DomainError::Malformed(format!("malformed XML: {msg}"))
}

/// Parses a whole document into its root element.
pub fn parse(bytes: &[u8]) -> Result<Element, DomainError> {
    let text = std::str::from_utf8(bytes).map_err(|_| malformed("body is not UTF-8"))?;
    let mut reader = Reader::from_str(text);
    reader.config_mut().check_end_names = true;
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let ev = reader.read_event().map_err(|e| malformed(format!("{e} at byte {}", reader.buffer_position())))?;
        match ev {
            Event::Start(e) => {
                if root.is_some() {
                    return Err(malformed("content after the root element"));
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(malformed("nesting too deep"));
                }
                stack.push(start(&e)?);
            }
            Event::Empty(e) => {
                if root.is_some() {
                    return Err(malformed("content after the root element"));
                }
                let el = start(&e)?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(el),
                    None => root = Some(el),
                }
            }
            Event::End(_) => {
                let el = stack.pop().ok_or_else(|| malformed("unbalanced end tag"))?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(el),
                    None => root = Some(el),
                }
            }
            Event::Text(t) => {
                let s = t.decode().map_err(malformed)?;
                push_text(&mut stack, &s)?;
            }
            Event::CData(c) => {
                let s = c.decode().map_err(malformed)?;
                push_text(&mut stack, &s)?;
            }
            Event::GeneralRef(r) => {
                let s = if r.is_char_ref() {
                    match r.resolve_char_ref().map_err(malformed)? {
                        Some(c) => c.to_string(),
                        None => return Err(malformed("bad character reference")),
                    }
                } else {
                    let name = r.decode().map_err(malformed)?;
                    match name.as_ref() {
                        "lt" => "<".into(),
                        "gt" => ">".into(),
                        "amp" => "&".into(),
                        "apos" => "'".into(),
                        "quot" => "\"".into(),
                        other => return Err(malformed(format!("unknown entity &{other};"))),
                    }
                };
                push_text(&mut stack, &s)?;
            }
            Event::DocType(_) => return Err(malformed("DOCTYPE is not accepted")),
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            Event::Eof => break,
        }
    }
    if !stack.is_empty() {
        return Err(malformed("document ends inside an element"));
    }
    root.ok_or_else(|| malformed("no root element"))
}

fn push_text(stack: &mut [Element], s: &str) -> Result<(), DomainError> {
    match stack.last_mut() {
        Some(el) => {
            el.text.push_str(s);
            Ok(())
        }
        None if s.trim().is_empty() => Ok(()),
        None => Err(malformed("text outside the root element")),
    }
}

/// Reads one bean, collecting every problem as a [`FieldError`] with the element's path.
pub struct BeanReader<'a> {
    el: &'a Element,
    path: String,
    pub errors: Vec<FieldError>,
}

impl<'a> BeanReader<'a> {
    /// `known` lists every element the bean may carry; `repeatable` those that may repeat.
    pub fn new(el: &'a Element, path: impl Into<String>, known: &[&str], repeatable: &[&str]) -> Self {
        let mut r = BeanReader { el, path: path.into(), errors: Vec::new() };
        // A set, not a list: a bean of 100,000 repeated children stays linear.
        let mut seen: std::collections::HashSet<&str> = std::collections::HashSet::new();
        for c in &el.children {
            if !known.contains(&c.name.as_str()) {
                let at = &r.path;
                FieldError::push_capped(&mut r.errors, || {
                    FieldError::new(format!("{at}/{}", c.name), Rule::Unknown, format!("unknown element <{}> in <{}>", c.name, el.name))
                });
            } else if !seen.insert(c.name.as_str()) && !repeatable.contains(&c.name.as_str()) {
                let at = &r.path;
                FieldError::push_capped(&mut r.errors, || {
                    let p = format!("{at}/{}", c.name);
                    FieldError::new(p.clone(), Rule::Single, format!("{p} may appear only once"))
                });
            }
        }
        if !el.text.trim().is_empty() {
            r.errors.push(FieldError::new(r.path.clone(), Rule::NoText, format!("<{}> must hold elements, not text", el.name)));
        }
        r
    }

    pub fn at(&self, name: &str) -> String {
        format!("{}/{}", self.path, name)
    }

    pub fn element(&self) -> &'a Element {
        self.el
    }

    pub fn err(&mut self, name: &str, rule: Rule, message: impl Into<String>) {
        let p = self.at(name);
        self.errors.push(FieldError::new(p, rule, message));
    }

    pub fn present(&self, name: &str) -> bool {
        self.el.child(name).is_some()
    }

    /// Optional text of a child; an empty element counts as absent.
    pub fn text(&mut self, name: &str) -> Option<String> {
        let c = self.el.child(name)?;
        if !c.children.is_empty() {
            let p = self.at(name);
            self.errors.push(FieldError::new(p.clone(), Rule::Type, format!("{p} must be text, not elements")));
            return None;
        }
        c.value().map(str::to_string)
    }

    /// Optional text with a length limit (in characters).
    pub fn text_max(&mut self, name: &str, max: usize) -> Option<String> {
        let v = self.text(name)?;
        if v.chars().count() > max {
            let p = self.at(name);
            self.errors.push(FieldError::new(p.clone(), Rule::MaxLength, format!("{p} is longer than {max} characters")));
        }
        Some(v)
    }

    pub fn required_max(&mut self, name: &str, max: usize) -> Option<String> {
        let v = self.text_max(name, max);
        if v.is_none() {
            let p = self.at(name);
            self.errors.push(FieldError::new(p.clone(), Rule::Required, format!("{p} is required")));
        }
        v
    }

    pub fn bool(&mut self, name: &str) -> Option<bool> {
        match self.text(name)?.as_str() {
            "true" => Some(true),
            "false" => Some(false),
            other => {
                let p = self.at(name);
                self.errors.push(FieldError::new(p.clone(), Rule::Boolean, format!("{p} must be true or false (got {other:?})")));
                None
            }
        }
    }

    /// Integer within `lo..=hi`.
    pub fn int(&mut self, name: &str, lo: i64, hi: i64) -> Option<i64> {
        let raw = self.text(name)?;
        match raw.parse::<i64>() {
            Ok(v) if (lo..=hi).contains(&v) => Some(v),
            Ok(_) => {
                let p = self.at(name);
                self.errors.push(FieldError::new(p.clone(), Rule::Range, format!("{p} must be between {lo} and {hi} (got {raw})")));
                None
            }
            Err(_) => {
                let p = self.at(name);
                self.errors.push(FieldError::new(p.clone(), Rule::Integer, format!("{p} must be an integer (got {raw:?})")));
                None
            }
        }
    }

    /// A finite number at least `min`.
    pub fn number(&mut self, name: &str, min: f64) -> Option<f64> {
        let raw = self.text(name)?;
        parse_number(&raw, min).map_err(|m| self.err(name, m.0, m.1)).ok()
    }

    /// A number in a `<name><value>n</value></name>` wrapper.
    pub fn value_number(&mut self, name: &str, min: f64) -> Option<f64> {
        let c = self.el.child(name)?;
        let path = self.at(name);
        let mut inner = BeanReader::new(c, path, &["value"], &[]);
        let v = inner.number("value", min);
        self.errors.append(&mut inner.errors);
        v
    }

    /// One of `allowed` (exact, case-sensitive as the seeds write them).
    /// A value of the closed set `allowed` (typed); another value is an `enum` error.
    pub fn one_of<E: crate::wire_enum::WireEnum>(&mut self, name: &str, allowed: &[E]) -> Option<E> {
        let v = self.text(name)?;
        match E::parse(&v).filter(|e| allowed.iter().any(|a| a.as_str() == e.as_str())) {
            Some(e) => Some(e),
            None => {
                let p = self.at(name);
                let names: Vec<&str> = allowed.iter().map(|e| e.as_str()).collect();
                self.errors.push(FieldError::new(p.clone(), Rule::Enum, format!("{p} must be one of {} (got {v:?})", names.join(", "))));
                None
            }
        }
    }

    pub fn enumeration(&mut self, name: &str, allowed: &[&str]) -> Option<String> {
        let v = self.text(name)?;
        if allowed.contains(&v.as_str()) {
            Some(v)
        } else {
            let p = self.at(name);
            self.errors.push(FieldError::new(p.clone(), Rule::Enum, format!("{p} must be one of {} (got {v:?})", allowed.join(", "))));
            None
        }
    }

    pub fn date_time(&mut self, name: &str) -> Option<chrono::DateTime<chrono::Utc>> {
        let v = self.text(name)?;
        match chrono::DateTime::parse_from_rfc3339(&v) {
            Ok(d) => Some(d.with_timezone(&chrono::Utc)),
            Err(_) => {
                let p = self.at(name);
                self.errors.push(FieldError::new(
                    p.clone(),
                    Rule::DateTime,
                    format!("{p} must be an ISO-8601 date-time with offset (got {v:?})"),
                ));
                None
            }
        }
    }
}

fn parse_number(raw: &str, min: f64) -> Result<f64, (Rule, String)> {
    match raw.parse::<f64>() {
        Ok(v) if v.is_finite() && v >= min => Ok(v),
        Ok(v) if v.is_finite() => Err((Rule::Range, format!("must be at least {min} (got {raw})"))),
        _ => Err((Rule::Number, format!("must be a number (got {raw:?})"))),
    }
}

/// Requires the document's root element to be `name`.
pub fn expect_root<'a>(root: &'a Element, name: &str) -> Result<&'a Element, DomainError> {
    if root.name == name {
        Ok(root)
    } else {
        Err(DomainError::field(root.name.clone(), Rule::Root, format!("the root element must be <{name}> (got <{}>)", root.name)))
    }
}

/// Builds an XML document.
/// Whether XML 1.0 allows `c` in a document (its `Char` production): no control
/// character but tab, line feed and carriage return, and no U+FFFE or U+FFFF.
pub fn allowed(c: char) -> bool {
    matches!(c, '\t' | '\n' | '\r' | '\u{20}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
}

/// `s` with every character XML 1.0 forbids replaced by U+FFFD: the one rule every text and
/// attribute this service writes goes through, so a document stays well-formed whatever a
/// bidder or a user sent (a title with `&#1;` in a bid's markup, a record name).
pub fn clean(s: &str) -> Cow<'_, str> {
    if s.chars().all(allowed) {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(s.chars().map(|c| if allowed(c) { c } else { '\u{FFFD}' }).collect())
    }
}

/// Text content: cleaned, then `<`, `>` and `&` escaped.
fn text(s: &str) -> String {
    quick_xml::escape::partial_escape(clean(s).as_ref()).into_owned()
}

/// An attribute value: cleaned, then quotes escaped too.
fn attribute(s: &str) -> String {
    quick_xml::escape::escape(clean(s).as_ref()).into_owned()
}

pub struct XmlOut {
    buf: String,
}

impl Default for XmlOut {
    fn default() -> Self {
        Self::new()
    }
}

impl XmlOut {
    pub fn new() -> Self {
        let mut buf = String::with_capacity(4096);
        buf.push_str("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>");
        XmlOut { buf }
    }
    pub fn open(&mut self, name: &str) -> &mut Self {
        self.buf.push('<');
        self.buf.push_str(name);
        self.buf.push('>');
        self
    }
    pub fn open_attr(&mut self, name: &str, attr: &str, value: &str) -> &mut Self {
        self.buf.push('<');
        self.buf.push_str(name);
        self.buf.push(' ');
        self.buf.push_str(attr);
        self.buf.push_str("=\"");
        self.buf.push_str(&attribute(value));
        self.buf.push_str("\">");
        self
    }
    /// An opening tag with several attributes (values escaped).
    pub fn open_attrs(&mut self, name: &str, attrs: &[(&str, &str)]) -> &mut Self {
        self.buf.push('<');
        self.buf.push_str(name);
        for (k, v) in attrs {
            self.buf.push(' ');
            self.buf.push_str(k);
            self.buf.push_str("=\"");
            self.buf.push_str(&attribute(v));
            self.buf.push('"');
        }
        self.buf.push('>');
        self
    }
    /// `<name attrs…>text</name>` with the text escaped.
    pub fn leaf_attrs(&mut self, name: &str, attrs: &[(&str, &str)], text: &str) -> &mut Self {
        self.open_attrs(name, attrs);
        self.buf.push_str(&self::text(text));
        self.close(name)
    }
    /// Raw, already well-formed XML (a nested document without its declaration).
    pub fn raw(&mut self, xml: &str) -> &mut Self {
        self.buf.push_str(xml);
        self
    }
    /// A writer without the XML declaration (a fragment to nest).
    pub fn fragment() -> Self {
        XmlOut { buf: String::with_capacity(4096) }
    }
    pub fn close(&mut self, name: &str) -> &mut Self {
        self.buf.push_str("</");
        self.buf.push_str(name);
        self.buf.push('>');
        self
    }
    pub fn leaf(&mut self, name: &str, text: impl std::fmt::Display) -> &mut Self {
        use std::fmt::Write;
        self.open(name);
        // Written in place; text needs only < > & escaped (attributes, `open_attr`, escape
        // quotes too) and forbidden characters replaced, and only when it holds one of them
        // is the tail rewritten.
        let start = self.buf.len();
        let _ = write!(self.buf, "{text}");
        let tail = &self.buf[start..];
        if tail.bytes().any(|b| matches!(b, b'<' | b'>' | b'&') || (b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r')))
            || tail.contains(['\u{FFFE}', '\u{FFFF}'])
        {
            let escaped = self::text(tail);
            self.buf.truncate(start);
            self.buf.push_str(&escaped);
        }
        self.close(name)
    }
    /// `<name attrs…>text</name>` with the text written by `write`, which must write text
    /// that needs no escaping (a percent-encoded URL with `&amp;` separators).
    pub fn leaf_with(&mut self, name: &str, attrs: &[(&str, &str)], write: impl FnOnce(&mut String)) -> &mut Self {
        self.open_attrs(name, attrs);
        write(&mut self.buf);
        self.close(name)
    }
    pub fn leaf_opt<T: std::fmt::Display>(&mut self, name: &str, text: Option<T>) -> &mut Self {
        if let Some(t) = text {
            self.leaf(name, t);
        }
        self
    }
    /// `<name><value>v</value></name>`
    pub fn value_opt(&mut self, name: &str, v: Option<f64>) -> &mut Self {
        if let Some(v) = v {
            self.open(name).leaf("value", v).close(name);
        }
        self
    }
    pub fn finish(self) -> String {
        self.buf
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forbidden_characters_never_reach_a_document() {
        let mut o = XmlOut::new();
        o.open_attr("Ad", "id", "a\u{1}b").leaf("AdTitle", "t\u{0}i\u{b}t\u{FFFE}le <&>").leaf_attrs("X", &[("k", "\u{1f}")], "\u{7}");
        o.close("Ad");
        let doc = o.finish();
        assert!(!doc.chars().any(|c| !allowed(c)), "{doc:?}");
        assert!(doc.contains("<Ad id=\"a\u{FFFD}b\"><AdTitle>t\u{FFFD}i\u{FFFD}t\u{FFFD}le &lt;&amp;&gt;</AdTitle>"), "{doc}");
        assert_eq!(clean("tab\tline\ncr\r"), "tab\tline\ncr\r", "what XML allows is kept");
        parse(doc.as_bytes()).expect("the document parses");
    }

    #[test]
    fn parses_entities_and_keeps_inner_spaces() {
        let el = parse(b"<?xml version=\"1.0\"?><a><b> x &amp; y &#65; </b><c/></a>").unwrap();
        assert_eq!(el.name, "a");
        assert_eq!(el.child("b").unwrap().value(), Some("x & y A"));
        assert_eq!(el.child("c").unwrap().value(), None);
    }

    #[test]
    fn refuses_doctype_unknown_entities_and_broken_documents() {
        assert!(parse(b"<!DOCTYPE a [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><a>&x;</a>").is_err());
        assert!(parse(b"<a>&x;</a>").is_err());
        assert!(parse(b"<a><b></a>").is_err());
        assert!(parse(b"<a></a><b/>").is_err());
        assert!(parse(b"").is_err());
        assert!(parse(b"not xml").is_err());
    }

    #[test]
    fn bean_reader_collects_every_error_with_paths() {
        let el = parse(b"<bean><n>abc</n><x>1</x><p>11</p><p>2</p><e>maybe</e></bean>").unwrap();
        let mut r = BeanReader::new(&el, "bean", &["n", "p", "e", "m"], &[]);
        r.required_max("m", 5);
        r.text_max("n", 2);
        r.int("p", 1, 10);
        r.bool("e");
        let rules: Vec<(&str, &str)> = r.errors.iter().map(|e| (e.field.as_str(), e.rule.as_str())).collect();
        assert_eq!(
            rules,
            vec![
                ("bean/x", "unknown"),
                ("bean/p", "single"),
                ("bean/m", "required"),
                ("bean/n", "maxLength"),
                ("bean/p", "range"),
                ("bean/e", "boolean")
            ]
        );
    }

    #[test]
    fn writer_escapes() {
        let mut o = XmlOut::new();
        o.open_attr("a", "k", "\"q\"").leaf("b", "<&>").close("a");
        let s = o.finish();
        assert!(s.ends_with("<a k=\"&quot;q&quot;\"><b>&lt;&amp;&gt;</b></a>"), "{s}");
        assert!(parse(s.as_bytes()).is_ok());
    }
}
