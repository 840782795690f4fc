//! The outbound address rule (docs/security.md): which URLs a download, a bidder's
//! endpoint or a notice may name, and which addresses they may never reach. Pure: the
//! resolution and the connection are `ports::download`'s and the bidders' client's.

use std::net::{IpAddr, Ipv4Addr};
use std::time::Duration;

use http::Uri;

#[derive(Debug, Clone, PartialEq)]
pub enum DownloadError {
    BadUrl(String),
    Forbidden(String),
    /// The host resolves to an internal address (refused before connecting).
    InternalAddress(String),
    TooLarge(u64),
    Timeout(Duration),
    Status(u16),
    Network(String),
    Io(String),
}

impl DownloadError {
    /// What the asset's `failureReason` says: the class of failure only. Resolver, address
    /// and connection details stay in the log, so the field cannot be used to probe which
    /// names resolve or which ports answer from inside the service's network.
    pub fn public_reason(&self) -> String {
        match self {
            DownloadError::Network(_) | DownloadError::InternalAddress(_) => {
                "the download URL's host could not be reached or is not allowed".into()
            }
            DownloadError::Io(_) => "the file could not be stored".into(),
            other => other.to_string(),
        }
    }

    /// Local storage failed (e.g. a full /tmp): the file is not at fault; retry later.
    pub fn is_local(&self) -> bool {
        matches!(self, DownloadError::Io(_))
    }
}

impl std::fmt::Display for DownloadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DownloadError::BadUrl(m) => write!(f, "invalid download URL: {m}"),
            DownloadError::Forbidden(m) => write!(f, "download refused: {m}"),
            DownloadError::InternalAddress(m) => write!(f, "download refused: {m}"),
            DownloadError::TooLarge(max) => write!(f, "the file is larger than the limit of {max} bytes"),
            DownloadError::Timeout(d) => write!(f, "the download did not finish within {} s", d.as_secs()),
            DownloadError::Status(s) => write!(f, "the server answered HTTP {s}"),
            DownloadError::Network(m) => write!(f, "network error: {m}"),
            DownloadError::Io(m) => write!(f, "storage error: {m}"),
        }
    }
}

/// Addresses a download may never reach (unless the policy allows private ones).
pub fn forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => forbidden_v4(a),
        IpAddr::V6(a) => {
            if let Some(v4) = a.to_ipv4_mapped() {
                return forbidden_v4(v4);
            }
            let s = a.segments();
            a.is_loopback()
                || a.is_unspecified()
                || a.is_multicast()
                || s[..6] == [0; 6] // IPv4-compatible ::a.b.c.d (deprecated, reaches IPv4 space)
                || (s[0] & 0xfe00) == 0xfc00 // unique local fc00::/7
                || (s[0] & 0xffc0) == 0xfe80 // link-local fe80::/10
                || (s[0] & 0xffc0) == 0xfec0 // site-local fec0::/10 (deprecated, still routed inside some networks)
                || (s[0] == 0x64 && s[1] == 0xff9b) // NAT64 64:ff9b::/96 and local-use 64:ff9b:1::/48 (reach IPv4 space)
                || (s[0] == 0x100 && s[1..4] == [0; 3]) // discard-only 100::/64
                || (s[0] == 0x2001 && s[1] < 0x200) // IETF protocol assignments 2001::/23: Teredo 2001::/32 (embeds IPv4), ORCHID, benchmarking
                || (s[0] == 0x2001 && s[1] == 0x0db8) // documentation
                || (s[0] == 0x2002) // 6to4 (embeds IPv4)
        }
    }
}

fn forbidden_v4(a: Ipv4Addr) -> bool {
    let o = a.octets();
    a.is_loopback()
        || a.is_private()
        || a.is_link_local()
        || a.is_unspecified()
        || a.is_broadcast()
        || a.is_multicast()
        || a.is_documentation()
        || o[0] == 0 // this network
        || (o[0] == 100 && (o[1] & 0xc0) == 64) // shared address space 100.64/10
        || (o[0] == 192 && o[1] == 0 && o[2] == 0) // IETF protocol assignments
        || (o[0] == 198 && (o[1] & 0xfe) == 18) // benchmarking 198.18/15
        || o[0] >= 240 // reserved
}

/// Addresses never reached, whatever the policy: link-local (`169.254.0.0/16`,
/// `fe80::/10`), where cloud metadata services answer, and the IPv6 metadata address
/// `fd00:ec2::254`.
pub fn never_allowed(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(a) => a.is_link_local(),
        IpAddr::V6(a) => match a.to_ipv4_mapped() {
            Some(v4) => v4.is_link_local(),
            None => (a.segments()[0] & 0xffc0) == 0xfe80 || a.segments() == [0xfd00, 0xec2, 0, 0, 0, 0, 0, 0x254],
        },
    }
}

/// An OpenRTB endpoint or notice URL as written: absolute, https (http too when
/// `allow_http`, for local testing), no credentials, at most `URL_MAX` characters. Its
/// addresses are checked when it is resolved (`resolve_checked`).
pub fn check_endpoint(url: &str, allow_http: bool) -> Result<(), String> {
    if url.len() > crate::limits::URL_MAX {
        return Err(format!("is longer than {} characters", crate::limits::URL_MAX));
    }
    match parse(url) {
        Ok(t) if !t.https && !allow_http => Err("must be an https URL".into()),
        Ok(_) => Ok(()),
        Err(e) => Err(format!("is not allowed: {e}")),
    }
}

pub struct Target {
    pub https: bool,
    pub host: String,
    pub port: u16,
    pub path: String,
}

pub fn parse(url: &str) -> Result<Target, DownloadError> {
    let uri: Uri = url.parse().map_err(|_| DownloadError::BadUrl(format!("{url:?} is not a URL")))?;
    let https = match uri.scheme_str() {
        Some("https") => true,
        Some("http") => false,
        Some(other) => return Err(DownloadError::Forbidden(format!("the scheme {other} is not allowed (http or https only)"))),
        None => return Err(DownloadError::BadUrl(format!("{url:?} has no scheme"))),
    };
    let auth = uri.authority().ok_or_else(|| DownloadError::BadUrl(format!("{url:?} has no host")))?;
    if auth.as_str().contains('@') {
        return Err(DownloadError::Forbidden("credentials in the URL are not allowed".into()));
    }
    let host = auth.host().trim_start_matches('[').trim_end_matches(']').to_string();
    if host.is_empty() {
        return Err(DownloadError::BadUrl(format!("{url:?} has no host")));
    }
    let port = auth.port_u16().unwrap_or(if https { 443 } else { 80 });
    let path = uri.path_and_query().map(|p| p.as_str().to_string()).unwrap_or_else(|| "/".into());
    Ok(Target { https, host, port, path })
}

/// Checks a URL's form without touching the network (used when the asset is created).
pub fn check_url(url: &str) -> Result<(), DownloadError> {
    if url.len() > crate::limits::URL_MAX {
        return Err(DownloadError::BadUrl(format!("longer than {} characters", crate::limits::URL_MAX)));
    }
    parse(url).map(|_| ())
}
