//! contactBean (seed 001 §2.4).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

use super::common::*;
use crate::domain_error::{matches_path, DomainError, FieldError};
use crate::rule::Rule;
use crate::xml::{BeanReader, Element, XmlOut};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Contact {
    pub id: String,
    pub first_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fax_number: Option<Phone>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mobile_phone_number: Option<Phone>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub work_phone_number: Option<Phone>,
    /// The client this contact is associated with (one at a time; docs/api.md).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_id: Option<String>,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ContactInput {
    pub id: Option<String>,
    pub first_name: String,
    pub last_name: Option<String>,
    pub description: Option<String>,
    pub email: Option<String>,
    pub fax_number: Option<Phone>,
    pub mobile_phone_number: Option<Phone>,
    pub work_phone_number: Option<Phone>,
}

const FIELDS: &[&str] = &["id", "firstName", "lastName", "description", "email", "faxNumber", "mobilePhoneNumber", "workPhoneNumber"];

pub fn parse_bean(el: &Element) -> Result<ContactInput, DomainError> {
    let mut r = BeanReader::new(el, "contactBean", FIELDS, &[]);
    let id = r.text("id");
    let first_name = r.required_max("firstName", SHORT_MAX);
    let last_name = r.text_max("lastName", SHORT_MAX);
    let description = r.text_max("description", TEXT_MAX);
    let email = read_email(&mut r, "email");
    let fax_number = read_phone(&mut r, "faxNumber");
    let mobile_phone_number = read_phone(&mut r, "mobilePhoneNumber");
    let work_phone_number = read_phone(&mut r, "workPhoneNumber");
    match first_name {
        Some(first_name) if r.errors.is_empty() => {
            Ok(ContactInput { id, first_name, last_name, description, email, fax_number, mobile_phone_number, work_phone_number })
        }
        _ => Err(DomainError::Validation(r.errors)),
    }
}

/// `PUT /api/1.0/contact/associate/by_contact_id;id=` (a form): the contact (else the
/// path's id) joins the client. What the form fills and the OpenAPI document shows.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Association {
    /// The contact; left out: the path's id.
    #[serde(default)]
    #[schema(value_type = crate::wire_schema::Id, inline, required = false)]
    pub contact_id: String,
    #[schema(value_type = crate::wire_schema::Id, inline)]
    pub client_id: String,
}

/// The associate form's fields (`pairs`, each a string; an empty one is left out) and the
/// path's id: every field error at once.
pub fn parse_association(pairs: &[(String, String)], path_id: Option<&str>) -> Result<Association, DomainError> {
    let form: serde_json::Map<String, serde_json::Value> =
        pairs.iter().filter(|(_, v)| !v.is_empty()).map(|(k, v)| (k.clone(), serde_json::Value::String(v.clone()))).collect();
    let path_id = path_id.filter(|v| !v.is_empty());
    crate::json::read(&serde_json::Value::Object(form), |a: &mut Association, errors| match path_id {
        Some(p) if a.contact_id.is_empty() => a.contact_id = p.to_string(),
        Some(p) => errors.extend(matches_path("contactId", &a.contact_id, p)),
        None if a.contact_id.is_empty() => errors.push(FieldError::new("contactId", Rule::Required, "form field contactId is required")),
        None => {}
    })
    .map_err(DomainError::Validation)
}

impl Contact {
    pub fn from_input(id: String, i: ContactInput, now: DateTime<Utc>) -> Contact {
        Contact {
            id,
            first_name: i.first_name,
            last_name: i.last_name,
            description: i.description,
            email: i.email,
            fax_number: i.fax_number,
            mobile_phone_number: i.mobile_phone_number,
            work_phone_number: i.work_phone_number,
            client_id: None,
            created: now,
            modified: now,
        }
    }

    /// Full replace of the writable fields (PUT); the association is kept.
    pub fn replace(&mut self, i: ContactInput, now: DateTime<Utc>) {
        let (created, client) = (self.created, self.client_id.take());
        *self = Contact::from_input(self.id.clone(), i, now);
        self.created = created;
        self.client_id = client;
    }

    /// The contact's fields inside an element named `name` (`contactBean` or `contacts`).
    pub fn write_as(&self, o: &mut XmlOut, name: &str) {
        o.open(name).leaf("id", &self.id).leaf("firstName", &self.first_name);
        o.leaf_opt("lastName", self.last_name.as_ref())
            .leaf_opt("description", self.description.as_ref())
            .leaf_opt("email", self.email.as_ref());
        write_phone(o, "faxNumber", &self.fax_number);
        write_phone(o, "mobilePhoneNumber", &self.mobile_phone_number);
        write_phone(o, "workPhoneNumber", &self.work_phone_number);
        o.close(name);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::Rule;
    use crate::xml::parse;

    #[test]
    fn first_name_required_everything_else_optional() {
        let e = parse_bean(&parse(b"<contactBean><lastName>X</lastName></contactBean>").unwrap()).unwrap_err();
        assert_eq!(e, DomainError::field("contactBean/firstName", Rule::Required, "contactBean/firstName is required"));
        let ok = parse_bean(&parse(b"<contactBean><firstName>Ann</firstName></contactBean>").unwrap()).unwrap();
        assert_eq!(ok.first_name, "Ann");
    }
}
