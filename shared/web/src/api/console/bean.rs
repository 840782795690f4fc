//! A console form as the bean the XML interface reads, so a form is checked by the same
//! parser and use case as `PUT /api/1.0/...` and its errors name the same fields.

use crate::xml::Element;

/// A bean with these leaves (an empty value is left out, as a client would leave it out).
pub fn bean(root: &str, leaves: &[(&str, &str)]) -> Element {
    let mut el = Element { name: root.to_string(), ..Element::default() };
    for (name, value) in leaves {
        set(&mut el, name, Some(value));
    }
    el
}

/// The record as the interface writes it (its GET), read back as the bean to change.
pub fn written(xml: &str) -> Element {
    crate::xml::parse(xml.as_bytes()).unwrap_or_default()
}

/// Sets leaf `name` to `value` (`None` or empty: removes it).
pub fn set(el: &mut Element, name: &str, value: Option<&str>) {
    el.children.retain(|c| c.name != name);
    if let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) {
        el.children.push(Element { name: name.to_string(), text: v.to_string(), ..Element::default() });
    }
}

/// Replaces child `name` with `child` (`None`: removes it).
pub fn put(el: &mut Element, name: &str, child: Option<Element>) {
    el.children.retain(|c| c.name != name);
    el.children.extend(child);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_values_are_left_out_and_set_replaces() {
        let mut el = bean("goalBean", &[("name", "Morning"), ("end", " ")]);
        assert_eq!(el.children.len(), 1);
        set(&mut el, "name", Some("Evening"));
        assert_eq!(el.child("name").and_then(Element::value), Some("Evening"));
        set(&mut el, "name", None);
        assert!(el.child("name").is_none());
    }
}
