//! Demand partners (docs/programmatic.md, "Records"): the OpenRTB 2.6 bidders a
//! marketplace asks. The endpoint's address rule is checked when the record is written
//! (`usecases::demand`) and again at every connection (`demand::client`).

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::write_only_header::{self, SecretHeader};
use crate::domain_error::{DomainError, FieldError};
use crate::json::Ignored;
use crate::rule::Rule;

/// Demand partners an account has at most.
pub const MAX_PARTNERS: usize = 50;
/// A bidder's time to answer: at least, at most, and by default (ms).
pub const TIMEOUT_MIN_MS: u32 = 10;
pub const TIMEOUT_MAX_MS: u32 = 1000;
pub const TIMEOUT_DEFAULT_MS: u32 = 200;
/// An auth header's value: 1 to 512 characters.
pub const AUTH_VALUE_MAX: usize = 512;

/// A demand partner as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DemandPartner {
    pub id: String,
    pub name: String,
    pub endpoint: String,
    pub enabled: bool,
    pub timeout_ms: u32,
    pub currency: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub auth_header: Option<SecretHeader>,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

/// A demand partner as the API shows it: the auth header only as `authHeaderSet`.
#[derive(Debug, Clone, PartialEq, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DemandPartnerView {
    pub id: String,
    pub name: String,
    /// The bidder's OpenRTB 2.6 endpoint (https).
    pub endpoint: String,
    pub enabled: bool,
    /// How long the bidder may take (its `tmax`), ms.
    pub timeout_ms: u32,
    /// ISO 4217.
    pub currency: String,
    /// Whether bid requests carry the auth header (its value is never shown).
    pub auth_header_set: bool,
    pub created: DateTime<Utc>,
    pub modified: DateTime<Utc>,
}

crate::wire_schema::bounded_int!(
    /// A bidder's time to answer, ms.
    TimeoutMs, TIMEOUT_MIN_MS, TIMEOUT_MAX_MS
);

/// The body of `POST /v1/demand-partners` and `PUT /v1/demand-partners/{id}`.
#[derive(Debug, Clone, PartialEq, Deserialize, utoipa::ToSchema)]
#[schema(as = DemandPartnerWrite)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DemandPartnerInput {
    /// Only on PUT: must equal the path's id.
    #[schema(value_type = Option<crate::wire_schema::Id>, inline)]
    pub id: Option<String>,
    #[schema(value_type = crate::wire_schema::RecordName, inline)]
    pub name: String,
    /// An https URL whose host resolves to public addresses only.
    #[schema(value_type = crate::wire_schema::Url, inline)]
    pub endpoint: String,
    /// Default true.
    #[serde(default = "crate::json::yes")]
    #[schema(value_type = Option<bool>)]
    pub enabled: bool,
    /// Default 200.
    #[serde(default = "default_timeout")]
    #[schema(value_type = Option<TimeoutMs>, inline)]
    pub timeout_ms: u32,
    /// ISO 4217; default USD.
    #[serde(default = "super::currency::default")]
    #[schema(value_type = Option<String>, pattern = "^[A-Z]{3}$")]
    pub currency: String,
    /// Sent with every bid request; value 1 to 512 characters. Left out on PUT: kept as it
    /// is; `null`: removed.
    #[serde(default, deserialize_with = "crate::json::present")]
    #[schema(value_type = Option<SecretHeader>)]
    pub auth_header: Option<Option<SecretHeader>>,
    /// Read-only (a GET sent back): accepted and ignored.
    #[serde(default)]
    #[schema(value_type = Option<bool>)]
    pub auth_header_set: Ignored,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub created: Ignored,
    #[serde(default)]
    #[schema(value_type = Option<String>)]
    pub modified: Ignored,
}

fn default_timeout() -> u32 {
    TIMEOUT_DEFAULT_MS
}

/// The rule of a currency `field`: an ISO 4217 code.
pub fn check_currency(c: &str, field: &str, errors: &mut Vec<FieldError>) {
    if !super::currency::known(c) {
        errors.push(FieldError::new(
            field,
            Rule::Enum,
            format!("{field} must be an ISO 4217 currency code such as USD or EUR (got {c:?})"),
        ));
    }
}

/// Parses a create (`path_id` None) or a replace body, every error at once. `allow_http`:
/// `DEMAND_ALLOW_PRIVATE_URLS` (local testing) lets the endpoint be http.
pub fn parse_write(v: &Value, path_id: Option<&str>, allow_http: bool) -> Result<DemandPartnerInput, Vec<FieldError>> {
    crate::json::read(v, |b: &mut DemandPartnerInput, errors| {
        crate::json::record_name(&mut b.name, errors);
        crate::json::record_id(b.id.as_deref(), path_id, errors);
        if let Err(e) = crate::address::check_endpoint(&b.endpoint, allow_http) {
            errors.push(FieldError::new("endpoint", Rule::Url, format!("endpoint {e}")));
        }
        check_currency(&b.currency, "currency", errors);
        if let Some(Some(h)) = &mut b.auth_header {
            write_only_header::check(h, "authHeader", (1, AUTH_VALUE_MAX), true, errors);
        }
    })
}

impl DemandPartner {
    /// A new partner from a create body.
    pub fn created(id: String, i: DemandPartnerInput, now: DateTime<Utc>) -> DemandPartner {
        DemandPartner {
            id,
            name: i.name,
            endpoint: i.endpoint,
            enabled: i.enabled,
            timeout_ms: i.timeout_ms,
            currency: i.currency,
            auth_header: i.auth_header.flatten(),
            created: now,
            modified: now,
        }
    }

    /// The partner replaced by a body: a left-out auth header is kept, `null` removes it.
    pub fn replaced(&self, i: DemandPartnerInput, now: DateTime<Utc>) -> DemandPartner {
        DemandPartner {
            id: self.id.clone(),
            auth_header: write_only_header::replaced(&self.auth_header, i.auth_header.clone()),
            created: self.created,
            ..DemandPartner::created(self.id.clone(), i, now)
        }
    }

    /// The rule of a replacement: the auth header is a secret for the endpoint's server, so
    /// a body that moves the endpoint to another host (or port) sends it again, or removes
    /// it; a left-out header is never carried over to a new server.
    pub fn check_replacement(&self, i: &DemandPartnerInput) -> Result<(), DomainError> {
        if self.auth_header.is_none() || i.auth_header.is_some() || same_server(&self.endpoint, &i.endpoint) {
            return Ok(());
        }
        Err(DomainError::field(
            "authHeader",
            Rule::Required,
            "authHeader is required when endpoint moves to another host: send it again (or null to remove it); \
             the secret is never carried over to a new server",
        ))
    }

    pub fn view(&self) -> DemandPartnerView {
        DemandPartnerView {
            id: self.id.clone(),
            name: self.name.clone(),
            endpoint: self.endpoint.clone(),
            enabled: self.enabled,
            timeout_ms: self.timeout_ms,
            currency: self.currency.clone(),
            auth_header_set: self.auth_header.is_some(),
            created: self.created,
            modified: self.modified,
        }
    }
}

/// Whether two endpoints name the same server (scheme, host and port).
pub fn same_server(a: &str, b: &str) -> bool {
    let server = |u: &str| {
        let uri = u.parse::<http::Uri>().ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let port = uri.port_u16().unwrap_or(if scheme == "https" { 443 } else { 80 });
        Some((scheme, uri.host()?.to_ascii_lowercase(), port))
    };
    matches!((server(a), server(b)), (Some(x), Some(y)) if x == y)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn rules(v: Value) -> Vec<String> {
        crate::json::faults(parse_write(&v, None, false))
    }

    #[test]
    fn bodies_are_checked_field_by_field() {
        let ok = parse_write(&json!({"name": " DSP ", "endpoint": "https://bid.example/ortb"}), None, false).unwrap();
        assert_eq!((ok.name.as_str(), ok.enabled, ok.timeout_ms, ok.currency.as_str()), ("DSP", true, 200, "USD"));
        assert_eq!(rules(json!({})), ["endpoint required", "name required"]);
        assert_eq!(
            rules(json!({"name": "x", "endpoint": "http://bid.example/", "timeoutMs": 5, "currency": "usd", "extra": 1})),
            ["currency enum", "endpoint url", "extra unknown", "timeoutMs range"]
        );
        assert!(parse_write(&json!({"name": "x", "endpoint": "http://127.0.0.1:9/"}), None, true).is_ok(), "http when allowed");
        assert_eq!(
            rules(json!({"name": "x", "endpoint": "https://u:p@bid.example/", "authHeader": {"name": "a b", "value": ""}})),
            ["authHeader.name format", "authHeader.value format", "endpoint url"]
        );
    }

    #[test]
    fn the_auth_header_is_write_only() {
        let now = Utc::now();
        let body =
            json!({"name": "DSP", "endpoint": "https://bid.example/", "authHeader": {"name": "Authorization", "value": "Bearer abc"}});
        let p = DemandPartner::created("p1".into(), parse_write(&body, None, false).unwrap(), now);
        assert_eq!(p.auth_header.as_ref().map(|h| h.name.as_str()), Some("authorization"));
        let shown = serde_json::to_value(p.view()).unwrap();
        assert_eq!(shown["authHeaderSet"], true);
        assert!(!shown.to_string().contains("Bearer"), "{shown}");
        let keep =
            parse_write(&json!({"name": "DSP", "endpoint": "https://bid.example/", "authHeaderSet": true}), Some("p1"), false).unwrap();
        assert!(p.replaced(keep, now).auth_header.is_some());
        let drop = parse_write(&json!({"name": "DSP", "endpoint": "https://bid.example/", "authHeader": null}), Some("p1"), false).unwrap();
        assert!(p.replaced(drop, now).auth_header.is_none());
    }
}
