//! Address ranges (`203.0.113.0/24`, `2001:db8::/32`, or one address): what
//! `TRUSTED_PROXIES` and the stitchers' `sourceCidrs` are made of. Pure.

use std::net::IpAddr;

use ipnet::IpNet;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// One address range, parsed once (`ipnet`); written as `a.b.c.d/n` or `x:y::/n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Cidr(IpNet);

impl Cidr {
    /// `a.b.c.d/n`, `x:y::/n` or a single address (a /32 or /128).
    pub fn parse(s: &str) -> Result<Cidr, String> {
        let s = s.trim();
        if let Ok(net) = s.parse::<IpNet>() {
            return Ok(Cidr(net));
        }
        match s.split_once('/') {
            None => s.parse::<IpAddr>().map(|a| Cidr(IpNet::from(a))).map_err(|_| not_a_range(s)),
            Some((a, _)) => {
                let max = match a.parse::<IpAddr>() {
                    Ok(IpAddr::V4(_)) => 32,
                    Ok(IpAddr::V6(_)) => 128,
                    Err(_) => return Err(not_a_range(s)),
                };
                Err(format!("{s:?}: the prefix length is 0 to {max}"))
            }
        }
    }

    /// The prefix length (0: every address).
    pub fn prefix(&self) -> u8 {
        self.0.prefix_len()
    }

    pub fn is_ipv4(&self) -> bool {
        matches!(self.0, IpNet::V4(_))
    }

    /// Whether `ip` is in the range (an IPv4-mapped IPv6 address counts as its IPv4 one).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
            v4 => v4,
        };
        self.0.contains(&ip)
    }
}

fn not_a_range(s: &str) -> String {
    format!("{s:?} is not an address or an address range (a.b.c.d/n)")
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Always with its prefix, a single address too (`192.168.1.1/32`).
        write!(f, "{}/{}", self.0.addr(), self.0.prefix_len())
    }
}

impl Serialize for Cidr {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Cidr {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Cidr, D::Error> {
        let s = String::deserialize(d)?;
        Cidr::parse(&s).map_err(serde::de::Error::custom)
    }
}

/// A comma-separated list of ranges (`TRUSTED_PROXIES`).
pub fn parse_list(s: &str) -> Result<Vec<Cidr>, String> {
    s.split(',').map(str::trim).filter(|p| !p.is_empty()).map(Cidr::parse).collect()
}

/// Whether any range of `list` holds `ip`.
pub fn any_contains(list: &[Cidr], ip: IpAddr) -> bool {
    list.iter().any(|c| c.contains(ip))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn ranges_hold_their_addresses() {
        let c = Cidr::parse("203.0.113.0/24").unwrap();
        assert!(c.contains(ip("203.0.113.77")) && !c.contains(ip("203.0.114.1")));
        assert!(c.contains(ip("::ffff:203.0.113.5")), "IPv4-mapped");
        assert!(Cidr::parse("10.1.2.3").unwrap().contains(ip("10.1.2.3")));
        assert!(!Cidr::parse("10.1.2.3").unwrap().contains(ip("10.1.2.4")));
        assert!(Cidr::parse("0.0.0.0/0").unwrap().contains(ip("8.8.8.8")));
        let v6 = Cidr::parse("2001:db8::/32").unwrap();
        assert!(v6.contains(ip("2001:db8:ffff::1")) && !v6.contains(ip("2001:db9::1")) && !v6.contains(ip("10.0.0.1")));
        assert!(Cidr::parse("10.0.0.0/33").is_err() && Cidr::parse("nope/8").is_err() && Cidr::parse("10.0.0.0/x").is_err());
        assert_eq!(parse_list(" 10.0.0.0/8, 192.168.1.1 ,").unwrap().len(), 2);
        assert_eq!(Cidr::parse("192.168.1.1").unwrap().to_string(), "192.168.1.1/32");
    }
}
