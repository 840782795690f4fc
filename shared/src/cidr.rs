//! Address ranges (`203.0.113.0/24`, `2001:db8::/32`, or one address): what
//! `TRUSTED_PROXIES` and the stitchers' `sourceCidrs` are made of. Pure.

use std::net::IpAddr;

/// One address range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cidr {
    addr: IpAddr,
    prefix: u8,
}

impl Cidr {
    /// `a.b.c.d/n`, `x:y::/n` or a single address (a /32 or /128).
    pub fn parse(s: &str) -> Result<Cidr, String> {
        let s = s.trim();
        let (a, p) = match s.split_once('/') {
            Some((a, p)) => (a, Some(p)),
            None => (s, None),
        };
        let addr: IpAddr = a.parse().map_err(|_| format!("{s:?} is not an address or an address range (a.b.c.d/n)"))?;
        let max = if addr.is_ipv4() { 32 } else { 128 };
        let prefix = match p {
            None => max,
            Some(p) => p.parse::<u8>().ok().filter(|n| *n <= max).ok_or_else(|| format!("{s:?}: the prefix length is 0 to {max}"))?,
        };
        Ok(Cidr { addr, prefix })
    }

    /// The prefix length (0: every address).
    pub fn prefix(&self) -> u8 {
        self.prefix
    }

    /// Whether `ip` is in the range (an IPv4-mapped IPv6 address counts as its IPv4 one).
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = match ip {
            IpAddr::V6(v6) => v6.to_ipv4_mapped().map(IpAddr::V4).unwrap_or(ip),
            v4 => v4,
        };
        match (self.addr, ip) {
            (IpAddr::V4(net), IpAddr::V4(a)) => mask(u32::from(net).into(), u32::from(a).into(), self.prefix, 32),
            (IpAddr::V6(net), IpAddr::V6(a)) => mask(u128::from(net), u128::from(a), self.prefix, 128),
            _ => false,
        }
    }
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix)
    }
}

fn mask(net: u128, a: u128, prefix: u8, bits: u32) -> bool {
    if prefix == 0 {
        return true;
    }
    let shift = bits - u32::from(prefix);
    (net >> shift) == (a >> shift)
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
