//! clientBean (seed 001 §2.3).

use crate::rule::Rule;
use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::enums::ClientType;

use super::common::*;
use crate::domain_error::DomainError;
use crate::xml::{BeanReader, Element, XmlOut};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Client {
    pub id: String,
    pub name: String,
    #[serde(rename = "type")]
    pub kind: ClientType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub comments: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fax_number: Option<Phone>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phone_number: Option<Phone>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub postal_address: Option<Address>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub visiting_address: Option<Address>,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

/// The writable part of a clientBean, validated.
#[derive(Debug, Clone, PartialEq)]
pub struct ClientInput {
    pub id: Option<String>,
    pub name: String,
    pub kind: ClientType,
    pub comments: Option<String>,
    pub email: Option<String>,
    pub fax_number: Option<Phone>,
    pub phone_number: Option<Phone>,
    pub postal_address: Option<Address>,
    pub visiting_address: Option<Address>,
}

const FIELDS: &[&str] = &["id", "name", "type", "comments", "email", "faxNumber", "phoneNumber", "postalAddress", "visitingAddress"];

pub fn parse_bean(el: &Element) -> Result<ClientInput, DomainError> {
    let mut r = BeanReader::new(el, "clientBean", FIELDS, &[]);
    let id = r.text("id");
    let name = r.required_max("name", crate::limits::RECORD_NAME_MAX);
    let kind: Option<ClientType> = r.one_of("type", ClientType::ALL);
    if kind.is_none() && !r.present("type") {
        r.err("type", Rule::Required, "clientBean/type is required (ADVERTISER, AGENCY or BRAND)");
    }
    let comments = r.text_max("comments", 1000);
    let email = read_email(&mut r, "email");
    let fax_number = read_phone(&mut r, "faxNumber");
    let phone_number = read_phone(&mut r, "phoneNumber");
    let postal_address = read_address(&mut r, "postalAddress");
    let visiting_address = read_address(&mut r, "visitingAddress");
    match (name, kind) {
        (Some(name), Some(kind)) if r.errors.is_empty() => {
            Ok(ClientInput { id, name, kind, comments, email, fax_number, phone_number, postal_address, visiting_address })
        }
        _ => Err(DomainError::Validation(r.errors)),
    }
}

impl ClientInput {
    /// A new advertiser known by its name only (a campaign form's "New advertiser"): the
    /// name's rules are the bean's.
    pub fn advertiser(name: &str) -> Result<ClientInput, DomainError> {
        let name = name.trim();
        let max = crate::limits::RECORD_NAME_MAX;
        let refused = |rule, message: String| {
            Err(DomainError::Validation(vec![crate::domain_error::FieldError::new("clientBean/name", rule, message)]))
        };
        if name.is_empty() {
            return refused(Rule::Required, "clientBean/name is required".into());
        }
        if name.chars().count() > max {
            return refused(Rule::MaxLength, format!("clientBean/name is longer than {max} characters"));
        }
        Ok(ClientInput {
            id: None,
            name: name.to_string(),
            kind: ClientType::Advertiser,
            comments: None,
            email: None,
            fax_number: None,
            phone_number: None,
            postal_address: None,
            visiting_address: None,
        })
    }
}

impl Client {
    pub fn from_input(id: String, i: ClientInput, now: DateTime<Utc>) -> Client {
        Client {
            id,
            name: i.name,
            kind: i.kind,
            comments: i.comments,
            email: i.email,
            fax_number: i.fax_number,
            phone_number: i.phone_number,
            postal_address: i.postal_address,
            visiting_address: i.visiting_address,
            created: now,
            modified: now,
        }
    }

    /// Full replace of the writable fields (PUT).
    pub fn replace(&mut self, i: ClientInput, now: DateTime<Utc>) {
        let created = self.created;
        *self = Client::from_input(self.id.clone(), i, now);
        self.created = created;
    }

    pub fn write(&self, o: &mut XmlOut) {
        o.open("clientBean").leaf("id", &self.id).leaf("name", &self.name).leaf("type", self.kind);
        o.leaf_opt("comments", self.comments.as_ref()).leaf_opt("email", self.email.as_ref());
        write_phone(o, "faxNumber", &self.fax_number);
        write_phone(o, "phoneNumber", &self.phone_number);
        write_address(o, "postalAddress", &self.postal_address);
        write_address(o, "visitingAddress", &self.visiting_address);
        o.close("clientBean");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::xml::parse;

    fn rules(xml: &str) -> Vec<String> {
        crate::domain_error::rule_list(parse_bean(&parse(xml.as_bytes()).unwrap()))
    }

    #[test]
    fn required_and_limits() {
        assert_eq!(rules("<clientBean/>"), vec!["clientBean/name required", "clientBean/type required"]);
        assert_eq!(rules("<clientBean><name>A</name><type>ADVERTISER</type></clientBean>"), Vec::<String>::new());
        let long = "x".repeat(251);
        assert_eq!(rules(&format!("<clientBean><name>{long}</name><type>BRAND</type></clientBean>")), vec!["clientBean/name maxLength"]);
        let c = "c".repeat(1001);
        assert_eq!(
            rules(&format!("<clientBean><name>A</name><type>advertiser</type><comments>{c}</comments></clientBean>")),
            vec!["clientBean/type enum", "clientBean/comments maxLength"]
        );
    }

    #[test]
    fn exactly_250_and_1000_are_fine() {
        let n = "n".repeat(250);
        let c = "c".repeat(1000);
        assert!(rules(&format!("<clientBean><name>{n}</name><type>AGENCY</type><comments>{c}</comments></clientBean>")).is_empty());
    }
}
