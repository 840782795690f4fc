//! Server-side ad insertion stitchers (docs/traffic-quality.md, "Server-side ad insertion"):
//! the servers that request ads and fire beacons for their viewers (MediaTailor, Google DAI,
//! FreeWheel's SSAI). From a registered stitcher's address, and with its secret header when
//! one is set, `X-Device-IP` and `X-Device-User-Agent` are the viewer's (VAST 4.x §1.1.3).

use std::net::IpAddr;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use subtle::ConstantTimeEq;

use crate::cidr::Cidr;
use crate::domain_error::{DomainError, FieldError};
use crate::json::Ignored;
use crate::rule::Rule;

pub use super::write_only_header::SecretHeader;

/// Stitchers an account registers at most.
pub const MAX_STITCHERS: usize = 50;
/// Address ranges a stitcher has at most.
pub const MAX_CIDRS: usize = 20;
/// The widest range a stitcher without a secret header may call from: an IPv4 /16 ...
pub const OPEN_V4_PREFIX_MIN: u8 = 16;
/// ... and an IPv6 /48 (a site's allocation). A wider range needs the secret header.
pub const OPEN_V6_PREFIX_MIN: u8 = 48;
/// A secret header's value: at least this long (a secret, not a label) ...
pub const SECRET_MIN: usize = 16;
/// ... and at most this long.
pub const SECRET_MAX: usize = 256;

crate::wire_schema::bounded_list!(
    /// A stitcher's address ranges.
    Cidrs, crate::wire_schema::CidrText, 1, MAX_CIDRS
);

/// A stitcher as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stitcher {
    pub id: String,
    pub name: String,
    pub source_cidrs: Vec<Cidr>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_header: Option<SecretHeader>,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

/// A stitcher as the API shows it: the secret header only as `secretHeaderSet`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StitcherView {
    pub id: String,
    pub name: String,
    /// The ranges its calls come from (`203.0.113.0/24`, `2001:db8::/32`, one address).
    #[schema(value_type = Vec<String>)]
    pub source_cidrs: Vec<Cidr>,
    /// Whether calls must carry the secret header (its value is never shown).
    pub secret_header_set: bool,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

/// The body of `POST /v1/stitchers` and `PUT /v1/stitchers/{id}`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[schema(as = StitcherWrite)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct StitcherInput {
    /// Only on PUT: must equal the path's id.
    #[schema(value_type = Option<crate::wire_schema::Id>, inline)]
    pub id: Option<String>,
    #[schema(value_type = crate::wire_schema::RecordName, inline)]
    pub name: String,
    /// 1 to 20 address ranges; none may be `/0`. Without a secretHeader each is at most an
    /// IPv4 /16 or an IPv6 /48.
    #[schema(value_type = Cidrs, inline)]
    pub source_cidrs: Vec<Cidr>,
    /// Left out on PUT: kept as it is; `null`: removed.
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<SecretHeader>)]
    pub secret_header: Option<Option<SecretHeader>>,
    /// Read-only (a GET sent back): accepted and ignored.
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub secret_header_set: Ignored,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub created: Ignored,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub modified: Ignored,
}

/// Parses a create (`path_id` None) or a replace body, every error at once.
pub fn parse_write(v: &Value, path_id: Option<&str>) -> Result<StitcherInput, Vec<FieldError>> {
    crate::json::read(v, |b: &mut StitcherInput, errors| {
        crate::json::record_name(&mut b.name, errors);
        crate::json::record_id(b.id.as_deref(), path_id, errors);
        for (i, c) in b.source_cidrs.iter().enumerate().filter(|(_, c)| c.prefix() == 0) {
            errors.push(FieldError::new(
                format!("sourceCidrs[{i}]"),
                Rule::Format,
                format!("{c}: a range of every address (/0) is not a stitcher's"),
            ));
        }
        if let Some(Some(h)) = &mut b.secret_header {
            super::write_only_header::check(h, "secretHeader", (SECRET_MIN, SECRET_MAX), false, errors);
        }
    })
}

impl Stitcher {
    /// A new stitcher from a create body.
    pub fn created(id: String, input: StitcherInput, now: DateTime<Utc>) -> Stitcher {
        Stitcher {
            id,
            name: input.name,
            source_cidrs: input.source_cidrs,
            secret_header: input.secret_header.flatten(),
            created: now,
            modified: now,
        }
    }

    /// The stitcher replaced by a body: a left-out secret header is kept, `null` removes it.
    pub fn replaced(&self, input: StitcherInput, now: DateTime<Utc>) -> Stitcher {
        Stitcher {
            id: self.id.clone(),
            name: input.name,
            source_cidrs: input.source_cidrs,
            secret_header: super::write_only_header::replaced(&self.secret_header, input.secret_header),
            created: self.created,
            modified: now,
        }
    }

    pub fn view(&self) -> StitcherView {
        StitcherView {
            id: self.id.clone(),
            name: self.name.clone(),
            source_cidrs: self.source_cidrs.clone(),
            secret_header_set: self.secret_header.is_some(),
            created: self.created,
            modified: self.modified,
        }
    }

    /// The rule of a stitcher's ranges: without a secret header each is at most an IPv4 /16
    /// or an IPv6 /48, so an account cannot let most of the internet set a viewer's address.
    pub fn check(&self) -> Result<(), DomainError> {
        if self.secret_header.is_some() {
            return Ok(());
        }
        let errors: Vec<FieldError> = self
            .source_cidrs
            .iter()
            .enumerate()
            .filter(|(_, c)| c.prefix() < if c.is_ipv4() { OPEN_V4_PREFIX_MIN } else { OPEN_V6_PREFIX_MIN })
            .map(|(i, c)| {
                FieldError::new(
                    format!("sourceCidrs[{i}]"),
                    Rule::Range,
                    format!(
                        "sourceCidrs[{i}] {c} is wider than /{OPEN_V4_PREFIX_MIN} (IPv4) or /{OPEN_V6_PREFIX_MIN} (IPv6): a range that wide needs a secretHeader"
                    ),
                )
            })
            .collect();
        if errors.is_empty() {
            Ok(())
        } else {
            Err(DomainError::Validation(errors))
        }
    }

    /// Whether a call from `peer` with these headers (`header(name)`) is this stitcher's:
    /// its address in a source range, and its secret header when one is set.
    pub fn admits<'a>(&self, peer: IpAddr, header: impl Fn(&str) -> Option<&'a str>) -> bool {
        let from = self.source_cidrs.iter().any(|c| c.contains(peer));
        from && self
            .secret_header
            .as_ref()
            .is_none_or(|h| header(&h.name).is_some_and(|v| bool::from(v.as_bytes().ct_eq(h.value.as_bytes()))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: Value) -> Vec<String> {
        crate::json::faults(parse_write(&v, None))
    }

    #[test]
    fn bodies_are_checked_field_by_field() {
        let ok = parse_write(&json!({"name": " MediaTailor ", "sourceCidrs": ["203.0.113.0/24", "2001:db8::/32"]}), None).unwrap();
        assert_eq!((ok.name.as_str(), ok.source_cidrs.len(), ok.secret_header.clone()), ("MediaTailor", 2, None));
        assert_eq!(rules(json!({"sourceCidrs": []})), ["name required", "sourceCidrs required"]);
        assert_eq!(rules(json!({"name": "x", "sourceCidrs": ["0.0.0.0/0", "nope", 5]})), ["sourceCidrs[1] format", "sourceCidrs[2] type"]);
        assert_eq!(rules(json!({"name": "x", "sourceCidrs": ["0.0.0.0/0"]})), ["sourceCidrs[0] format"]);
        assert_eq!(rules(json!({"name": "", "sourceCidrs": ["0.0.0.0/0"]})), ["name required", "sourceCidrs[0] format"]);
        assert_eq!(
            rules(json!({"id": "a", "name": "x", "sourceCidrs": ["10.0.0.1"], "secretHeader": {"name": "x y", "value": "short"}})),
            ["id notOnCreate", "secretHeader.name format", "secretHeader.value format"]
        );
        let many: Vec<String> = (0..21).map(|i| format!("10.0.{i}.0/24")).collect();
        assert_eq!(rules(json!({"name": "x", "sourceCidrs": many})), ["sourceCidrs maxItems"]);
    }

    #[test]
    fn a_stitcher_is_its_ranges_and_its_secret() {
        let now = Utc::now();
        let input = parse_write(
            &json!({"name": "DAI", "sourceCidrs": ["198.51.100.0/24"], "secretHeader": {"name": "X-Stitcher-Key", "value": "0123456789abcdef"}}),
            None,
        )
        .unwrap();
        let s = Stitcher::created("s1".into(), input, now);
        let with = |v: &'static str| move |n: &str| (n == "x-stitcher-key").then_some(v);
        assert!(s.admits("198.51.100.9".parse().unwrap(), with("0123456789abcdef")));
        assert!(!s.admits("198.51.100.9".parse().unwrap(), with("0123456789abcdeX")));
        assert!(!s.admits("203.0.113.9".parse().unwrap(), with("0123456789abcdef")));
        assert!(s.view().secret_header_set);
        // A PUT without the header keeps it; null removes it.
        let keep = parse_write(&json!({"name": "DAI", "sourceCidrs": ["198.51.100.0/24"]}), Some("s1")).unwrap();
        assert!(s.replaced(keep, now).secret_header.is_some());
        let drop =
            parse_write(&json!({"id": "s1", "name": "DAI", "sourceCidrs": ["198.51.100.0/24"], "secretHeader": null}), Some("s1")).unwrap();
        let open = s.replaced(drop, now);
        assert!(open.secret_header.is_none() && open.admits("198.51.100.1".parse().unwrap(), |_| None));
    }
}
