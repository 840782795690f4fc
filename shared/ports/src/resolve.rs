//! Name resolution, a port: the bidders' client resolves every connection's host through
//! it, and the endpoint and notice checks and the media downloads ask it before they
//! connect. The adapter is the system's resolver; tests answer for names of their own.

use std::future::Future;
use std::io;
use std::net::SocketAddr;
use std::pin::Pin;

/// A resolution under way.
pub type Resolving<'a> = Pin<Box<dyn Future<Output = io::Result<Vec<SocketAddr>>> + Send + 'a>>;

/// Resolves a host name (or an address literal) and port to socket addresses.
pub trait Resolve: Send + Sync + 'static {
    fn resolve<'a>(&'a self, host: &'a str, port: u16) -> Resolving<'a>;
}

/// The system's resolver (`getaddrinfo`, through tokio).
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve<'a>(&'a self, host: &'a str, port: u16) -> Resolving<'a> {
        Box::pin(async move { Ok(tokio::net::lookup_host((host, port)).await?.collect()) })
    }
}
