//! Fetching a remote file for an asset, safely: http(s) only; the host is resolved here and
//! every address checked (no loopback, private, link-local — 169.254.169.254 is the cloud
//! metadata service — unique-local, multicast, reserved), then the connection goes to the
//! checked address itself, so a second DNS answer cannot redirect it; each redirect is
//! checked the same way; the size is capped while streaming to disk; the whole download
//! has a deadline.

use crate::resolve::Resolve;
pub use domain::address::{check_endpoint, check_url, forbidden, never_allowed, parse, DownloadError, Target};
use std::net::SocketAddr;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper::body::Incoming;
use hyper::{Request, Response};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio_rustls::rustls;

#[derive(Clone)]
pub struct Policy {
    /// Resolves the URL's host (and every redirect's).
    pub resolver: Arc<dyn Resolve>,
    pub allow_private: bool,
    pub max_bytes: u64,
    pub timeout: Duration,
    pub max_redirects: usize,
}

/// The first address of `url`'s host, when every one it resolves to is allowed: public
/// ones, or (`allow_private`) any but link-local and metadata addresses.
pub async fn resolve_checked(resolver: &dyn Resolve, url: &str, allow_private: bool) -> Result<SocketAddr, DownloadError> {
    resolve(resolver, &parse(url)?, allow_private).await
}

async fn resolve(resolver: &dyn Resolve, t: &Target, allow_private: bool) -> Result<SocketAddr, DownloadError> {
    let addrs: Vec<SocketAddr> =
        resolver.resolve(&t.host, t.port).await.map_err(|e| DownloadError::Network(format!("cannot resolve {}: {e}", t.host)))?;
    if addrs.is_empty() {
        return Err(DownloadError::Network(format!("{} has no address", t.host)));
    }
    if let Some(bad) = addrs.iter().find(|a| never_allowed(a.ip())) {
        return Err(DownloadError::InternalAddress(format!("{} resolves to {}, a link-local or metadata address", t.host, bad.ip())));
    }
    if allow_private {
        return Ok(addrs[0]);
    }
    // Any forbidden answer refuses the host: a name that mixes public and internal
    // addresses is not to be trusted.
    if let Some(bad) = addrs.iter().find(|a| forbidden(a.ip())) {
        return Err(DownloadError::InternalAddress(format!("{} resolves to {}, an internal address", t.host, bad.ip())));
    }
    Ok(addrs[0])
}

pub(crate) fn tls() -> Result<Arc<rustls::ClientConfig>, DownloadError> {
    static CONFIG: OnceLock<Result<Arc<rustls::ClientConfig>, String>> = OnceLock::new();
    CONFIG
        .get_or_init(|| {
            let mut roots = rustls::RootCertStore::empty();
            for cert in rustls_native_certs::load_native_certs().certs {
                let _ = roots.add(cert);
            }
            rustls::ClientConfig::builder_with_provider(Arc::new(rustls::crypto::aws_lc_rs::default_provider()))
                .with_safe_default_protocol_versions()
                .map(|b| Arc::new(b.with_root_certificates(roots).with_no_client_auth()))
                .map_err(|e| e.to_string())
        })
        .clone()
        .map_err(DownloadError::Network)
}

async fn request<IO>(io: IO, t: &Target) -> Result<Response<Incoming>, DownloadError>
where
    IO: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let net = |e: hyper::Error| DownloadError::Network(e.to_string());
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(io)).await.map_err(net)?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let host = if (t.https && t.port == 443) || (!t.https && t.port == 80) { t.host.clone() } else { format!("{}:{}", t.host, t.port) };
    let req = Request::get(t.path.as_str())
        .header(hyper::header::HOST, host)
        .header(hyper::header::USER_AGENT, "campaign-api-asset-fetcher/1")
        .body(Empty::<Bytes>::new())
        .map_err(|e| DownloadError::BadUrl(e.to_string()))?;
    sender.send_request(req).await.map_err(net)
}

/// Where a redirect leads: absolute or host-relative, never from https down to http.
fn redirect(from: &Target, loc: &str) -> Result<String, DownloadError> {
    let lower = loc.get(..8).unwrap_or(loc).to_ascii_lowercase();
    if lower.starts_with("http://") {
        if from.https {
            return Err(DownloadError::Forbidden("a redirect from https to http".into()));
        }
        Ok(loc.to_string())
    } else if lower.starts_with("https://") {
        Ok(loc.to_string())
    } else if loc.starts_with('/') && !loc.starts_with("//") {
        Ok(format!("{}://{}:{}{loc}", if from.https { "https" } else { "http" }, from.host, from.port))
    } else {
        Err(DownloadError::BadUrl(format!("unsupported redirect location {loc:?}")))
    }
}

/// What a finished download wrote.
#[derive(Debug, Clone, PartialEq)]
pub struct Downloaded {
    pub size: u64,
}

/// Downloads `url` into the file `dest` under the policy.
pub async fn download(url: &str, p: &Policy, dest: &Path) -> Result<Downloaded, DownloadError> {
    match tokio::time::timeout(p.timeout, fetch(url, p, dest)).await {
        Ok(r) => r,
        Err(_) => Err(DownloadError::Timeout(p.timeout)),
    }
}

async fn fetch(url: &str, p: &Policy, dest: &Path) -> Result<Downloaded, DownloadError> {
    let mut current = url.to_string();
    for _ in 0..=p.max_redirects {
        let t = parse(&current)?;
        let addr = resolve(p.resolver.as_ref(), &t, p.allow_private).await?;
        let tcp = TcpStream::connect(addr).await.map_err(|e| DownloadError::Network(format!("connecting to {addr}: {e}")))?;
        let res = if t.https {
            let name = rustls::pki_types::ServerName::try_from(t.host.clone()).map_err(|e| DownloadError::BadUrl(e.to_string()))?;
            let stream = tokio_rustls::TlsConnector::from(tls()?)
                .connect(name, tcp)
                .await
                .map_err(|e| DownloadError::Network(format!("TLS: {e}")))?;
            request(stream, &t).await?
        } else {
            request(tcp, &t).await?
        };
        let status = res.status();
        if status.is_redirection() {
            let loc =
                res.headers().get(hyper::header::LOCATION).and_then(|v| v.to_str().ok()).ok_or(DownloadError::Status(status.as_u16()))?;
            current = redirect(&t, loc)?;
            continue;
        }
        if !status.is_success() {
            return Err(DownloadError::Status(status.as_u16()));
        }
        if let Some(len) =
            res.headers().get(hyper::header::CONTENT_LENGTH).and_then(|v| v.to_str().ok()).and_then(|v| v.parse::<u64>().ok())
        {
            if len > p.max_bytes {
                return Err(DownloadError::TooLarge(p.max_bytes));
            }
        }
        let mut body = res.into_body();
        let io = |e: std::io::Error| DownloadError::Io(e.to_string());
        let mut file = tokio::fs::File::create(dest).await.map_err(io)?;
        let mut size = 0u64;
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| DownloadError::Network(e.to_string()))?;
            if let Ok(data) = frame.into_data() {
                size += data.len() as u64;
                if size > p.max_bytes {
                    return Err(DownloadError::TooLarge(p.max_bytes));
                }
                file.write_all(&data).await.map_err(io)?;
            }
        }
        file.flush().await.map_err(io)?;
        return Ok(Downloaded { size });
    }
    Err(DownloadError::Forbidden(format!("more than {} redirects", p.max_redirects)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn internal_addresses_are_forbidden() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.64.0.1",
            "255.255.255.255",
            "224.0.0.1",
            "::1",
            "::",
            "fe80::1",
            "fd00::1",
            "fc00::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a9fe:a9fe",
            "2002:a9fe:a9fe::1",
            "::7f00:1",
            "::a9fe:a9fe",
            "64:ff9b:1::a9fe:a9fe",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "fec0::1",
            "100::1",
        ] {
            assert!(forbidden(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.216.34", "8.8.8.8", "172.32.0.1", "2606:4700::1111", "2001:4860:4860::8888", "2a00:1450::1"] {
            assert!(!forbidden(ip.parse().unwrap()), "{ip}");
        }
    }

    #[test]
    fn only_http_and_https_urls() {
        assert!(check_url("https://cdn.example.com/a.mp4").is_ok());
        assert!(check_url("http://cdn.example.com:8080/a.mp4?x=1").is_ok());
        for bad in [
            "ftp://x/a.mp4",
            "file:///etc/passwd",
            "gopher://x",
            "javascript:alert(1)",
            "cdn.example.com/a.mp4",
            "http:///a.mp4",
            "https://user:pw@x.com/a.mp4",
        ] {
            assert!(check_url(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn redirects_never_downgrade() {
        let https = parse("https://cdn.example.com/a.mp4").unwrap();
        assert!(matches!(redirect(&https, "http://cdn.example.com/a.mp4"), Err(DownloadError::Forbidden(_))));
        assert!(matches!(redirect(&https, "HTTP://cdn.example.com/a.mp4"), Err(DownloadError::Forbidden(_))));
        assert_eq!(redirect(&https, "https://other.example.com/b.mp4").unwrap(), "https://other.example.com/b.mp4");
        assert_eq!(redirect(&https, "/b.mp4").unwrap(), "https://cdn.example.com:443/b.mp4");
        assert!(redirect(&https, "//evil.example.com/x").is_err());
        let http = parse("http://cdn.example.com/a.mp4").unwrap();
        assert_eq!(redirect(&http, "https://cdn.example.com/a.mp4").unwrap(), "https://cdn.example.com/a.mp4");
        assert_eq!(redirect(&http, "http://cdn.example.com/b.mp4").unwrap(), "http://cdn.example.com/b.mp4");
    }

    #[tokio::test]
    async fn a_loopback_url_is_refused_before_connecting() {
        let p = Policy {
            resolver: Arc::new(crate::resolve::SystemResolver),
            allow_private: false,
            max_bytes: 10,
            timeout: Duration::from_secs(5),
            max_redirects: 1,
        };
        let dest = std::env::temp_dir().join(format!("dl-{}", uuid::Uuid::new_v4()));
        let e = download("http://127.0.0.1:9/x.mp4", &p, &dest).await.unwrap_err();
        assert!(matches!(e, DownloadError::InternalAddress(_)), "{e:?}");
        let e = download("http://localhost:9/x.mp4", &p, &dest).await.unwrap_err();
        assert!(matches!(e, DownloadError::InternalAddress(_)), "{e:?}");
        // The asset shows one answer for an internal address and an unreachable host.
        assert_eq!(e.public_reason(), DownloadError::Network("connection refused 10.0.0.1:22".into()).public_reason());
        assert!(!e.public_reason().contains("127.0.0.1") && !e.public_reason().contains("localhost"));
    }
}
