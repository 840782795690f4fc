//! The viewer's address (docs/traffic-quality.md, "The viewer's address"): what the
//! invalid-traffic rules count under. Never what a caller says of itself:
//! - on Lambda, the API Gateway request context's source IP (the TCP peer API Gateway saw);
//! - on the local server, the socket's peer (`ConnectInfo`);
//! - `X-Forwarded-For` only when that peer is a trusted proxy (`TRUSTED_PROXIES`): then the
//!   list is read from the right, past every trusted hop, and the first untrusted address
//!   is the viewer's (what a client put in front is never reached while a trusted proxy
//!   appended the real one).

use std::net::{IpAddr, SocketAddr};

use axum::extract::ConnectInfo;
use axum::http::request::Parts;
use axum::http::Extensions;
use axum::http::HeaderMap;

use crate::cidr::{any_contains, Cidr};

/// Who sent the request: the peer and, when it is trusted, the client it forwards for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Caller {
    /// The viewer's address (the peer's, or the forwarded one past trusted proxies).
    pub addr: Option<IpAddr>,
    /// Whether the peer is a trusted proxy (its `ip`/`ua` parameters are believed).
    pub trusted: bool,
    /// The viewer's User-Agent when the caller is a registered stitcher (its
    /// `X-Device-User-Agent`); otherwise the request's own header is the viewer's.
    pub device_agent: Option<String>,
    /// The caller is a registered stitcher (server-side ad insertion).
    pub stitcher: bool,
}

impl Caller {
    /// A registered stitcher's call: its `X-Device-IP` and `X-Device-User-Agent` are the
    /// viewer's (VAST 4.x §1.1.3). A missing or malformed device address leaves none (the
    /// address rules count it under `unknown`), a missing device agent an empty one
    /// (`nonBrowser`): a stitcher's own values are never the viewer's.
    pub fn for_device(self, headers: &HeaderMap) -> Caller {
        let text = |n: &str| headers.get(n).and_then(|v| v.to_str().ok()).map(str::trim);
        Caller {
            addr: text("x-device-ip").and_then(|v| v.parse().ok()),
            trusted: false,
            device_agent: Some(text("x-device-user-agent").unwrap_or("").chars().take(1024).collect()),
            stitcher: true,
        }
    }
}

/// The TCP peer: API Gateway's source IP on Lambda, the socket's peer locally.
pub fn peer(extensions: &Extensions) -> Option<IpAddr> {
    if let Some(ctx) = extensions.get::<lambda_http::request::RequestContext>() {
        #[allow(unreachable_patterns)]
        let ip = match ctx {
            lambda_http::request::RequestContext::ApiGatewayV2(c) => c.http.source_ip.clone(),
            lambda_http::request::RequestContext::ApiGatewayV1(c) => c.identity.source_ip.clone(),
            _ => None,
        };
        return ip.and_then(|s| s.parse().ok());
    }
    extensions.get::<ConnectInfo<SocketAddr>>().map(|c| c.0.ip())
}

/// The caller of a request, under the trusted proxies `trusted`.
pub fn caller(headers: &HeaderMap, extensions: &Extensions, trusted: &[Cidr]) -> Caller {
    let Some(peer) = peer(extensions) else { return Caller { addr: None, trusted: false, device_agent: None, stitcher: false } };
    if !any_contains(trusted, peer) {
        return Caller { addr: Some(peer), trusted: false, device_agent: None, stitcher: false };
    }
    Caller { addr: Some(forwarded(headers, peer, trusted)), trusted: true, device_agent: None, stitcher: false }
}

/// The request's client address (as `caller` reads it) for a handler: what the sign-in
/// allowances count under.
pub struct ClientAddr(pub Option<IpAddr>);

impl axum::extract::FromRequestParts<crate::state::AppState> for ClientAddr {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, st: &crate::state::AppState) -> Result<Self, Self::Rejection> {
        Ok(ClientAddr(of_parts(parts, &st.settings.trusted_proxies).addr))
    }
}

/// The caller of a request's parts.
pub fn of_parts(parts: &Parts, trusted: &[Cidr]) -> Caller {
    caller(&parts.headers, &parts.extensions, trusted)
}

/// Past a trusted `peer`: the rightmost `X-Forwarded-For` address that is not a trusted
/// proxy (every hop trusted: the leftmost; no usable entry: the peer).
fn forwarded(headers: &HeaderMap, peer: IpAddr, trusted: &[Cidr]) -> IpAddr {
    let hops: Vec<IpAddr> = headers
        .get_all("x-forwarded-for")
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .filter_map(|h| h.trim().parse().ok())
        .collect();
    hops.iter().rev().find(|h| !any_contains(trusted, **h)).or(hops.first()).copied().unwrap_or(peer)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(peer: &str, xff: Option<&str>) -> (HeaderMap, Extensions) {
        let mut h = HeaderMap::new();
        if let Some(x) = xff {
            h.insert("x-forwarded-for", x.parse().unwrap());
        }
        let mut e = Extensions::new();
        e.insert(ConnectInfo(SocketAddr::new(peer.parse().unwrap(), 40000)));
        (h, e)
    }

    #[test]
    fn a_caller_cannot_choose_its_address() {
        let none: Vec<Cidr> = vec![];
        let (h, e) = req("198.51.100.7", Some("1.2.3.4"));
        assert_eq!(
            caller(&h, &e, &none),
            Caller { addr: Some("198.51.100.7".parse().unwrap()), trusted: false, device_agent: None, stitcher: false }
        );
        // Behind a trusted proxy: the rightmost untrusted hop, never what the client put first.
        let lb = vec![Cidr::parse("10.0.0.0/8").unwrap()];
        let (h, e) = req("10.0.0.2", Some("1.2.3.4, 203.0.113.9, 10.0.0.9"));
        assert_eq!(
            caller(&h, &e, &lb),
            Caller { addr: Some("203.0.113.9".parse().unwrap()), trusted: true, device_agent: None, stitcher: false }
        );
        let (h, e) = req("10.0.0.2", None);
        assert_eq!(caller(&h, &e, &lb).addr, Some("10.0.0.2".parse().unwrap()));
        // No peer known (a request built in process): no address.
        assert_eq!(
            caller(&HeaderMap::new(), &Extensions::new(), &lb),
            Caller { addr: None, trusted: false, device_agent: None, stitcher: false }
        );
    }
}
