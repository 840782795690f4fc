//! What handlers read from a request: bodies (XML, JSON, form; bounded), the query string,
//! `If-Match`, matrix path segments and paging.

use crate::rule::Rule;
use axum::extract::{FromRequest, Request};
use axum::http::{header, HeaderMap};

use crate::api::error::AppError;
use crate::domain_error::DomainError;
use crate::wire_enum::wire_enum;
use crate::xml::{self, Element};

/// Largest request body read (XML beans are a few KB).
pub const MAX_BODY: usize = 1 << 20;

pub(crate) fn content_type(headers: &HeaderMap) -> String {
    headers.get(header::CONTENT_TYPE).and_then(|v| v.to_str().ok()).unwrap_or("").to_ascii_lowercase()
}

pub(crate) fn media_type(headers: &HeaderMap) -> String {
    content_type(headers).split(';').next().unwrap_or("").trim().to_string()
}

async fn read_body(req: Request) -> Result<axum::body::Bytes, AppError> {
    axum::body::to_bytes(req.into_body(), MAX_BODY).await.map_err(|_| AppError::PayloadTooLarge(MAX_BODY))
}

/// An XML request body (`application/xml` or `text/xml`), parsed.
pub struct XmlBody(pub Element);

impl<S: Send + Sync> FromRequest<S> for XmlBody {
    type Rejection = AppError;

    async fn from_request(req: Request, _: &S) -> Result<Self, AppError> {
        let mt = media_type(req.headers());
        if mt != "application/xml" && mt != "text/xml" {
            return Err(AppError::UnsupportedMediaType { expected: "application/xml", got: content_type(req.headers()) });
        }
        let bytes = read_body(req).await?;
        Ok(XmlBody(xml::parse(&bytes)?))
    }
}

/// A form body (`application/x-www-form-urlencoded`), pairs separated by `&` or `;`.
pub struct FormPairs(pub Vec<(String, String)>);

impl<S: Send + Sync> FromRequest<S> for FormPairs {
    type Rejection = AppError;

    async fn from_request(req: Request, _: &S) -> Result<Self, AppError> {
        let mt = media_type(req.headers());
        if mt != "application/x-www-form-urlencoded" {
            return Err(AppError::UnsupportedMediaType { expected: "application/x-www-form-urlencoded", got: content_type(req.headers()) });
        }
        let bytes = read_body(req).await?;
        let text = std::str::from_utf8(&bytes).map_err(|_| AppError::Malformed("form body is not UTF-8".into()))?;
        // The seed's forms separate their pairs with `;` as well as `&`.
        let mut pairs = Vec::new();
        for part in text.split(';') {
            pairs.extend(decode_pairs(part)?);
        }
        Ok(FormPairs(pairs))
    }
}

/// `application/x-www-form-urlencoded` pairs (`serde_urlencoded`), their values trimmed.
fn decode_pairs(s: &str) -> Result<Vec<(String, String)>, DomainError> {
    let pairs: Vec<(String, String)> = serde_urlencoded::from_str(s.trim())
        .map_err(|e| DomainError::Malformed(format!("the form or query string cannot be read: {e}")))?;
    Ok(pairs.into_iter().map(|(k, v)| (k.trim().to_string(), v.trim().to_string())).collect())
}

/// `If-Match: "<version>"` when the client sent one.
pub fn if_match(headers: &HeaderMap) -> Result<Option<u64>, AppError> {
    let Some(v) = headers.get(header::IF_MATCH) else { return Ok(None) };
    let s = v.to_str().unwrap_or("").trim().trim_start_matches("W/").trim_matches('"');
    s.parse::<u64>()
        .map(Some)
        .map_err(|_| AppError::field("If-Match", Rule::Etag, "If-Match must be an ETag returned by a GET of this record"))
}

wire_enum! {
    /// The name of a matrix path segment (`by_campaign_id;id=<id>`): which record the id
    /// names.
    Selector {
        ByCampaignId = "by_campaign_id",
        ByClientId = "by_client_id",
        ByContactId = "by_contact_id",
        ByGoalId = "by_goal_id",
    }
}

/// A matrix path segment `name;k=v;...`: the value of `id` when the name matches.
pub struct Matrix {
    pub name: String,
    pub params: Vec<(String, String)>,
}

impl Matrix {
    pub fn parse(segment: &str) -> Matrix {
        let mut parts = segment.split(';');
        let name = parts.next().unwrap_or("").to_string();
        let params = parts
            .filter(|p| !p.is_empty())
            .map(|p| {
                let (k, v) = p.split_once('=').unwrap_or((p, ""));
                (k.trim().to_string(), v.trim().to_string())
            })
            .collect();
        Matrix { name, params }
    }

    /// The segment's name as a selector (`None`: a name no resource has).
    pub fn selector(&self) -> Option<Selector> {
        Selector::parse(&self.name)
    }

    pub fn get(&self, k: &str) -> Option<&str> {
        self.params.iter().find(|(pk, _)| pk == k).map(|(_, v)| v.as_str())
    }

    /// The id of a path segment that must be `<name>;id=<id>` under `prefix`: another
    /// matrix name is no route (404), a missing id 400. The one reader of every group's
    /// `by_<kind>_id;id=` segments.
    pub fn id_of(segment: &str, name: Selector, prefix: &str) -> Result<String, AppError> {
        let m = Matrix::parse(segment);
        if m.selector() != Some(name) {
            return Err(AppError::NoRoute(format!("{prefix}/{segment}")));
        }
        m.id()
    }

    /// The `id` matrix parameter; missing or empty: 400 naming it. Any other matrix
    /// parameter is 400 too (rule `unknown`): none is silently ignored.
    pub fn id(&self) -> Result<String, AppError> {
        if let Some((k, _)) = self.params.iter().find(|(k, _)| k != "id") {
            return Err(AppError::field(
                format!("{};{k}", self.name),
                Rule::Unknown,
                format!("{} takes only the matrix parameter id (got {k:?})", self.name),
            ));
        }
        match self.get("id") {
            Some(v) if !v.is_empty() => Ok(v.to_string()),
            _ => Err(AppError::field(
                format!("{};id", self.name),
                Rule::Required,
                format!("the matrix parameter ;id=<id> is required after {}", self.name),
            )),
        }
    }
}

/// Query-string pairs, in order, percent-decoded (repeatable keys are kept).
pub fn query_pairs(raw: Option<&str>) -> Result<Vec<(String, String)>, DomainError> {
    decode_pairs(raw.unwrap_or(""))
}

/// The single value of a query parameter; given twice: 400.
pub fn single<'a>(pairs: &'a [(String, String)], name: &str) -> Result<Option<&'a str>, DomainError> {
    let mut vals = pairs.iter().filter(|(k, _)| k == name).map(|(_, v)| v.as_str());
    let first = vals.next();
    if vals.next().is_some() {
        return Err(DomainError::field(name, Rule::Single, format!("query parameter {name} may be given only once")));
    }
    Ok(first)
}

/// A JSON request body (`application/json`), parsed.
pub struct JsonBody(pub serde_json::Value);

impl<S: Send + Sync> FromRequest<S> for JsonBody {
    type Rejection = AppError;

    async fn from_request(req: Request, state: &S) -> Result<Self, AppError> {
        let JsonBytes(bytes) = JsonBytes::from_request(req, state).await?;
        serde_json::from_slice(&bytes).map(JsonBody).map_err(|e| AppError::Malformed(format!("malformed JSON: {e}")))
    }
}

/// A JSON request body as raw bytes (for typed parsing with field paths).
pub struct JsonBytes(pub axum::body::Bytes);

impl<S: Send + Sync> FromRequest<S> for JsonBytes {
    type Rejection = AppError;

    async fn from_request(req: Request, _: &S) -> Result<Self, AppError> {
        let mt = media_type(req.headers());
        if mt != "application/json" {
            return Err(AppError::UnsupportedMediaType { expected: "application/json", got: content_type(req.headers()) });
        }
        let bytes = read_body(req).await?;
        serde_json::from_slice::<serde::de::IgnoredAny>(&bytes).map_err(|e| AppError::Malformed(format!("malformed JSON: {e}")))?;
        Ok(JsonBytes(bytes))
    }
}

/// `pageSize` (1-100, default 10) and `pageNumber` (≥ 1, default 1): the seeds' paging.
pub fn paging(pairs: &[(String, String)]) -> Result<(usize, usize), AppError> {
    crate::api::paging::Paging::parse_in(pairs, crate::api::paging::SEED_PAGES).map(|p| (p.size, p.number))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::routes::is_xml_path;

    #[test]
    fn matrix_segments() {
        let m = Matrix::parse("by_campaign_id;id=abc-1");
        assert_eq!(m.name, "by_campaign_id");
        assert_eq!(m.id().unwrap(), "abc-1");
        // Any other matrix parameter is refused, not ignored.
        match Matrix::parse("by_campaign_id;x=1;id=z").id() {
            Err(AppError::Validation(e)) => assert_eq!((e[0].field.as_str(), e[0].rule.as_str()), ("by_campaign_id;x", "unknown")),
            other => panic!("{other:?}"),
        }
        assert!(Matrix::parse("by_campaign_id").id().is_err());
        assert!(Matrix::parse("by_campaign_id;id=").id().is_err());
    }

    #[test]
    fn xml_paths() {
        assert!(is_xml_path("/api/1.0/campaign"));
        assert!(is_xml_path("/api/1.0.cpvext/goal"));
        assert!(!is_xml_path("/api/2.0/targeting-template"));
        assert!(!is_xml_path("/v1/ads"));
    }
}
