//! Value types shared by beans: phone numbers, addresses, e-mail.

use crate::rule::Rule;
use serde::{Deserialize, Serialize};

use crate::xml::{BeanReader, XmlOut};

/// Free-text fields the seeds give no limit for are capped (docs/api.md).
pub use crate::limits::{SHORT_MAX, TEXT_MAX};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Phone {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country_code: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub number: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(rename_all = "camelCase")]
pub struct Address {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address1: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address2: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub city: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub country: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state_province_region: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub zip_code: Option<String>,
}

/// Reads `<name><countryCode/><number/></name>`.
pub fn read_phone(r: &mut BeanReader, name: &str) -> Option<Phone> {
    let el = r.element().child(name)?;
    let path = r.at(name);
    let mut p = BeanReader::new(el, path, &["countryCode", "number"], &[]);
    let country_code = p.text_max("countryCode", 8);
    if let Some(cc) = &country_code {
        let digits = cc.strip_prefix('+').unwrap_or(cc);
        if digits.is_empty() || digits.len() > 4 || !digits.chars().all(|c| c.is_ascii_digit()) {
            p.err("countryCode", Rule::Format, format!("{} must be 1 to 4 digits, optionally after '+'", p.at("countryCode")));
        }
    }
    let number = p.text_max("number", 30);
    if let Some(n) = &number {
        if !n.chars().all(|c| c.is_ascii_digit() || " ()-./".contains(c)) || !n.chars().any(|c| c.is_ascii_digit()) {
            p.err("number", Rule::Format, format!("{} may hold only digits, spaces and ( ) - . /", p.at("number")));
        }
    }
    r.errors.append(&mut p.errors);
    if country_code.is_none() && number.is_none() {
        None
    } else {
        Some(Phone { country_code, number })
    }
}

pub fn write_phone(o: &mut XmlOut, name: &str, p: &Option<Phone>) {
    if let Some(p) = p {
        o.open(name).leaf_opt("countryCode", p.country_code.as_ref()).leaf_opt("number", p.number.as_ref()).close(name);
    }
}

const ADDRESS_FIELDS: &[&str] = &["address1", "address2", "city", "country", "stateProvinceRegion", "zipCode"];

pub fn read_address(r: &mut BeanReader, name: &str) -> Option<Address> {
    let el = r.element().child(name)?;
    let path = r.at(name);
    let mut a = BeanReader::new(el, path, ADDRESS_FIELDS, &[]);
    let mut addr = Address {
        address1: a.text_max("address1", SHORT_MAX),
        address2: a.text_max("address2", SHORT_MAX),
        city: a.text_max("city", 100),
        country: a.text("country"),
        state_province_region: a.text_max("stateProvinceRegion", 100),
        zip_code: a.text_max("zipCode", 20),
    };
    if let Some(c) = &addr.country {
        if c.len() == 3 && c.chars().all(|ch| ch.is_ascii_alphabetic()) {
            addr.country = Some(c.to_ascii_uppercase());
        } else {
            a.err("country", Rule::Format, format!("{} must be a three-letter country code, e.g. SWE (got {c:?})", a.at("country")));
        }
    }
    r.errors.append(&mut a.errors);
    if addr == Address::default() {
        None
    } else {
        Some(addr)
    }
}

pub fn write_address(o: &mut XmlOut, name: &str, a: &Option<Address>) {
    if let Some(a) = a {
        o.open(name)
            .leaf_opt("address1", a.address1.as_ref())
            .leaf_opt("address2", a.address2.as_ref())
            .leaf_opt("city", a.city.as_ref())
            .leaf_opt("country", a.country.as_ref())
            .leaf_opt("stateProvinceRegion", a.state_province_region.as_ref())
            .leaf_opt("zipCode", a.zip_code.as_ref())
            .close(name);
    }
}

/// A plain e-mail check: one `@`, a non-empty local part, a dotted domain, no spaces.
pub fn read_email(r: &mut BeanReader, name: &str) -> Option<String> {
    let e = r.text_max(name, 254)?;
    let ok = match e.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !domain.contains('@')
                && domain.contains('.')
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && !e.chars().any(char::is_whitespace)
        }
        None => false,
    };
    if !ok {
        r.err(name, Rule::Format, format!("{} must be an e-mail address (got {e:?})", r.at(name)));
    }
    Some(e)
}

/// A campaign's or goal's priority: 1 (highest) to 10.
pub const PRIORITY: std::ops::RangeInclusive<u8> = 1..=10;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::parse;

    fn read<T>(xml: &str, f: impl Fn(&mut BeanReader) -> T) -> (T, Vec<String>) {
        let el = parse(xml.as_bytes()).unwrap();
        let mut r = BeanReader::new(&el, "b", &["p", "a", "e"], &[]);
        let v = f(&mut r);
        (v, r.errors.iter().map(|e| format!("{} {}", e.field, e.rule)).collect())
    }

    #[test]
    fn phone_rules() {
        let (p, e) = read("<b><p><countryCode>+46</countryCode><number>08-123 45</number></p></b>", |r| read_phone(r, "p"));
        assert!(e.is_empty(), "{e:?}");
        assert_eq!(p.unwrap().country_code.as_deref(), Some("+46"));
        let (_, e) = read("<b><p><countryCode>46a</countryCode><number>x</number><fax/></p></b>", |r| read_phone(r, "p"));
        assert_eq!(e, vec!["b/p/fax unknown", "b/p/countryCode format", "b/p/number format"]);
    }

    #[test]
    fn address_country_is_three_letters() {
        let (a, e) = read("<b><a><city>Oslo</city><country>nor</country></a></b>", |r| read_address(r, "a"));
        assert!(e.is_empty());
        assert_eq!(a.unwrap().country.as_deref(), Some("NOR"));
        let (_, e) = read("<b><a><country>NO</country></a></b>", |r| read_address(r, "a"));
        assert_eq!(e, vec!["b/a/country format"]);
    }

    #[test]
    fn email_rules() {
        for ok in ["a@b.se", "first.last+x@example.co.uk"] {
            let (_, e) = read(&format!("<b><e>{ok}</e></b>"), |r| read_email(r, "e"));
            assert!(e.is_empty(), "{ok}");
        }
        for bad in ["ab.se", "a@b", "a@@b.se", "a b@c.se", "@b.se", "a@.se"] {
            let (_, e) = read(&format!("<b><e>{bad}</e></b>"), |r| read_email(r, "e"));
            assert_eq!(e, vec!["b/e format"], "{bad}");
        }
    }
}
