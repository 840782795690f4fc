//! The bidders' HTTP client (docs/programmatic.md), the adapter of the [`Bidders`] port:
//! one pool of connections per process, reused across ad requests (HTTP/1.1 keep-alive,
//! TLS through rustls). Every connection resolves its host again (through the
//! [`Resolve`] port) and refuses addresses that are not allowed, so a bidder cannot move
//! this service onto an internal address by changing its DNS after it was checked. Every
//! call is bounded in time and in the bytes read.

use std::future::Future;
use std::net::{IpAddr, SocketAddr};
use std::pin::Pin;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use crate::resolve::Resolve;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::{Request, Uri};
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::connect::dns::Name;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// How long an idle pooled connection is kept.
const IDLE: Duration = Duration::from_secs(60);
/// Idle connections kept per host.
const IDLE_PER_HOST: usize = 64;

/// Resolves a host and keeps only the addresses the policy allows.
#[derive(Clone)]
struct CheckedResolver {
    resolver: Arc<dyn Resolve>,
    allow_private: bool,
}

impl tower::Service<Name> for CheckedResolver {
    type Response = std::vec::IntoIter<SocketAddr>;
    type Error = std::io::Error;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        std::task::Poll::Ready(Ok(()))
    }

    fn call(&mut self, name: Name) -> Self::Future {
        let (allow_private, resolver) = (self.allow_private, self.resolver.clone());
        Box::pin(async move {
            let host = name.as_str().to_string();
            let addrs: Vec<SocketAddr> = resolver.resolve(&host, 0).await?;
            if addrs.is_empty() || addrs.iter().any(|a| refused(a.ip(), allow_private)) {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::PermissionDenied,
                    format!("{host} resolves to an address that is not allowed"),
                ));
            }
            Ok(addrs.into_iter())
        })
    }
}

/// Whether the address rule refuses `ip`: link-local and metadata addresses always,
/// loopback and private ones unless `allow_private`.
fn refused(ip: IpAddr, allow_private: bool) -> bool {
    crate::download::never_allowed(ip) || (!allow_private && crate::download::forbidden(ip))
}

/// The one connect every call of the pool goes through: a host name is resolved by
/// `CheckedResolver` (each address checked), and an IP literal, which no resolver sees
/// (`https://169.254.169.254/`, `http://[::ffff:127.0.0.1]/`), is checked here, before
/// any connection is made.
#[derive(Clone)]
struct CheckedConnect<C> {
    inner: C,
    allow_private: bool,
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

impl<C> tower::Service<Uri> for CheckedConnect<C>
where
    C: tower::Service<Uri> + Send,
    C::Response: Send + 'static,
    C::Future: Send + 'static,
    C::Error: Into<BoxError>,
{
    type Response = C::Response;
    type Error = BoxError;
    type Future = std::pin::Pin<Box<dyn std::future::Future<Output = Result<Self::Response, Self::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, uri: Uri) -> Self::Future {
        if let Some(ip) = literal_ip(&uri) {
            if refused(ip, self.allow_private) {
                let e = std::io::Error::new(std::io::ErrorKind::PermissionDenied, format!("{ip} is an address that is not allowed"));
                return Box::pin(std::future::ready(Err(e.into())));
            }
        }
        let connecting = self.inner.call(uri);
        Box::pin(async move { connecting.await.map_err(Into::into) })
    }
}

/// The address a URI's host names literally (`[v6]` unbracketed), if it is one.
fn literal_ip(uri: &Uri) -> Option<IpAddr> {
    let host = uri.host()?;
    host.trim_start_matches('[').trim_end_matches(']').parse().ok()
}

type Pool = Client<HttpsConnector<CheckedConnect<HttpConnector<CheckedResolver>>>, Full<Bytes>>;

fn build(resolver: Arc<dyn Resolve>, allow_private: bool) -> Result<Pool, String> {
    let mut http = HttpConnector::new_with_resolver(CheckedResolver { resolver, allow_private });
    http.enforce_http(false);
    http.set_nodelay(true);
    http.set_connect_timeout(Some(Duration::from_secs(1)));
    let tls = crate::download::tls().map_err(|e| e.to_string())?;
    let checked = CheckedConnect { inner: http, allow_private };
    let https =
        hyper_rustls::HttpsConnectorBuilder::new().with_tls_config((*tls).clone()).https_or_http().enable_http1().wrap_connector(checked);
    Ok(Client::builder(TokioExecutor::new()).pool_idle_timeout(IDLE).pool_max_idle_per_host(IDLE_PER_HOST).build(https))
}

/// A call under way.
pub type Calling<'a> = Pin<Box<dyn Future<Output = Result<Answer, CallError>> + Send + 'a>>;

/// The bidders, a port: bid requests, `nurl` markup fetches and win and loss notices all
/// go through one `call`. The adapter is [`HttpBidders`]; the tests put bidders of their
/// own in its place (`AppState::with_bidders`).
pub trait Bidders: Send + Sync + 'static {
    fn call<'a>(&'a self, c: Call<'a>) -> Calling<'a>;
}

/// The bidders over HTTP: the pool (one for public addresses only, one for private ones
/// too) is built at the first call, not at start.
pub struct HttpBidders {
    resolver: Arc<dyn Resolve>,
    public: OnceLock<Result<Pool, String>>,
    private: OnceLock<Result<Pool, String>>,
}

impl HttpBidders {
    pub fn new(resolver: Arc<dyn Resolve>) -> Self {
        HttpBidders { resolver, public: OnceLock::new(), private: OnceLock::new() }
    }

    fn pool(&self, allow_private: bool) -> Result<&Pool, String> {
        let cell = if allow_private { &self.private } else { &self.public };
        cell.get_or_init(|| build(self.resolver.clone(), allow_private)).as_ref().map_err(Clone::clone)
    }
}

impl Bidders for HttpBidders {
    fn call<'a>(&'a self, c: Call<'a>) -> Calling<'a> {
        Box::pin(call(self, c))
    }
}

/// How a call ended without an answer.
#[derive(Debug, Clone, PartialEq)]
pub enum CallError {
    /// No answer within the time allowed.
    Timeout,
    /// The answer is larger than allowed (bytes).
    TooLarge(usize),
    /// The URL, the connection or the transfer failed.
    Failed(String),
}

impl std::fmt::Display for CallError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CallError::Timeout => write!(f, "no answer in time"),
            CallError::TooLarge(n) => write!(f, "the answer is larger than {n} bytes"),
            CallError::Failed(m) => write!(f, "{m}"),
        }
    }
}

/// An answer: its status and body.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: Bytes,
    pub latency: Duration,
}

/// Where and how one call goes.
pub struct Call<'a> {
    pub url: &'a str,
    /// A body (POST): OpenRTB's JSON, unless `headers` names its `content-type`; none: GET.
    pub json: Option<String>,
    pub headers: &'a [(&'a str, &'a str)],
    pub timeout: Duration,
    pub max_bytes: usize,
    /// Loopback and private addresses, over http too (`DEMAND_ALLOW_PRIVATE_URLS`).
    pub allow_private: bool,
}

/// Makes one call; the whole call (connection, request, answer) within `timeout`.
async fn call(bidders: &HttpBidders, c: Call<'_>) -> Result<Answer, CallError> {
    let started = Instant::now();
    crate::download::check_endpoint(c.url, c.allow_private).map_err(|e| CallError::Failed(format!("the URL {e}")))?;
    let client = bidders.pool(c.allow_private).map_err(CallError::Failed)?;
    let mut req = Request::builder().uri(c.url).header(hyper::header::USER_AGENT, "campaign-api-rtb/1");
    // A body whose type the call names (a form) goes as it is; any other is OpenRTB's JSON.
    let typed = c.headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("content-type"));
    req = match &c.json {
        Some(_) if typed => req.method("POST"),
        Some(_) => req.method("POST").header(hyper::header::CONTENT_TYPE, "application/json").header("x-openrtb-version", "2.6"),
        None => req.method("GET"),
    };
    for (name, value) in c.headers {
        req = req.header(*name, *value);
    }
    let req = req.body(Full::new(Bytes::from(c.json.unwrap_or_default()))).map_err(|e| CallError::Failed(e.to_string()))?;
    let max = c.max_bytes;
    let exchange = async move {
        let res = client.request(req).await.map_err(|e| CallError::Failed(format!("{e}: {}", source_of(&e))))?;
        let status = res.status().as_u16();
        let mut body = res.into_body();
        let mut out = Vec::new();
        while let Some(frame) = body.frame().await {
            let frame = frame.map_err(|e| CallError::Failed(e.to_string()))?;
            if let Some(data) = frame.data_ref() {
                if out.len() + data.len() > max {
                    return Err(CallError::TooLarge(max));
                }
                out.extend_from_slice(data);
            }
        }
        Ok((status, Bytes::from(out)))
    };
    match tokio::time::timeout(c.timeout, exchange).await {
        Ok(Ok((status, body))) => Ok(Answer { status, body, latency: started.elapsed() }),
        Ok(Err(e)) => Err(e),
        Err(_) => Err(CallError::Timeout),
    }
}

fn source_of(e: &dyn std::error::Error) -> String {
    let mut s = String::new();
    let mut cur = e.source();
    while let Some(c) = cur {
        s = c.to_string();
        cur = c.source();
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use tower::Service;

    /// A connector that only counts the connections it is asked for.
    #[derive(Clone)]
    struct Counting(Arc<AtomicUsize>);

    impl Service<Uri> for Counting {
        type Response = ();
        type Error = std::io::Error;
        type Future = std::future::Ready<Result<(), std::io::Error>>;
        fn poll_ready(&mut self, _: &mut std::task::Context<'_>) -> std::task::Poll<Result<(), Self::Error>> {
            std::task::Poll::Ready(Ok(()))
        }
        fn call(&mut self, _: Uri) -> Self::Future {
            self.0.fetch_add(1, Ordering::SeqCst);
            std::future::ready(Ok(()))
        }
    }

    #[tokio::test]
    async fn ip_literals_are_checked_before_any_connection() {
        let dialled = Arc::new(AtomicUsize::new(0));
        let connect = |allow_private| CheckedConnect { inner: Counting(dialled.clone()), allow_private };
        // Link-local and metadata addresses never, even with private addresses allowed.
        for url in [
            "https://169.254.169.254/latest/meta-data/",
            "http://[fe80::1]/",
            "http://[::ffff:169.254.169.254]/",
            "http://[fd00:ec2::254]/",
        ] {
            let e = connect(true).call(url.parse().unwrap()).await.unwrap_err();
            assert!(e.to_string().contains("not allowed"), "{url}: {e}");
        }
        // Loopback and private ones unless allowed, IPv4-mapped forms included.
        for url in ["http://127.0.0.1:9/", "http://[::ffff:127.0.0.1]:9/", "https://10.0.0.1/", "http://[::1]/"] {
            assert!(connect(false).call(url.parse().unwrap()).await.is_err(), "{url}");
        }
        assert_eq!(dialled.load(Ordering::SeqCst), 0, "nothing was dialled");
        connect(true).call("http://127.0.0.1:9/".parse().unwrap()).await.unwrap();
        connect(false).call("https://bidder.example/".parse().unwrap()).await.unwrap();
        assert_eq!(dialled.load(Ordering::SeqCst), 2, "allowed addresses and host names go on to the connector");
    }

    /// Answers every name with one loopback address, and counts the names asked.
    struct Fixed(SocketAddr, Arc<AtomicUsize>);

    impl Resolve for Fixed {
        fn resolve<'a>(&'a self, _: &'a str, _: u16) -> crate::resolve::Resolving<'a> {
            self.1.fetch_add(1, Ordering::SeqCst);
            let addr = self.0;
            Box::pin(std::future::ready(Ok(vec![addr])))
        }
    }

    /// The adapter against a server on loopback: its host resolved through the port, an
    /// answer read, one too large refused, one too slow cut at the deadline.
    #[tokio::test]
    async fn the_http_adapter_calls_through_the_resolver_within_its_bounds() {
        use axum::routing::{get, post};
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let app = axum::Router::new()
            .route("/bid", post(|body: String| async move { format!("echo {body}") }))
            .route("/huge", get(|| async { "x".repeat(10_000) }))
            .route("/slow", get(|| async { std::future::pending::<()>().await }));
        tokio::spawn(async move { axum::serve(listener, app).await });
        let asked = Arc::new(AtomicUsize::new(0));
        let bidders = HttpBidders::new(Arc::new(Fixed(addr, asked.clone())));
        let url = |path: &str| format!("http://bidder.example:{}{path}", addr.port());
        let call = |u: &'static str, json: Option<String>, timeout_ms: u64| Call {
            url: u,
            json,
            headers: &[],
            timeout: Duration::from_millis(timeout_ms),
            max_bytes: 1000,
            allow_private: true,
        };
        let bid: &'static str = Box::leak(url("/bid").into_boxed_str());
        let a = bidders.call(call(bid, Some("{}".into()), 2000)).await.unwrap();
        assert_eq!((a.status, &a.body[..]), (200, &b"echo {}"[..]));
        assert!(asked.load(Ordering::SeqCst) >= 1, "the host was resolved through the port");
        let huge: &'static str = Box::leak(url("/huge").into_boxed_str());
        assert_eq!(bidders.call(call(huge, None, 2000)).await.unwrap_err(), CallError::TooLarge(1000));
        let slow: &'static str = Box::leak(url("/slow").into_boxed_str());
        assert_eq!(bidders.call(call(slow, None, 100)).await.unwrap_err(), CallError::Timeout);
        // Without private addresses allowed, the loopback answer of the resolver is refused.
        let refused = Call { allow_private: false, ..call(bid, Some("{}".into()), 2000) };
        assert!(matches!(bidders.call(refused).await, Err(CallError::Failed(_))));
    }
}
