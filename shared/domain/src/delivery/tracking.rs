//! Signed tracking links. Every event URL a served document carries names the account,
//! campaign, goal, ad, impression id, viewer, issue time, the counter that is the goal's
//! delivery, and (clicks) the destination, signed with HMAC-SHA256 under the deployment's
//! tracking secret: nobody can forge an event, move it to another ad or account, or turn
//! the click redirect into an open redirect. A link is accepted for `MAX_AGE_SECS`.

use hmac::{Hmac, KeyInit, Mac};
use percent_encoding::{utf8_percent_encode, AsciiSet, NON_ALPHANUMERIC};
use sha2::Sha256;
use subtle::ConstantTimeEq;

/// How long after serving a tracking link is accepted (the replay markers live longer).
pub const MAX_AGE_SECS: i64 = 24 * 3600;

/// The report dimensions a link carries (version 3, docs/reports.md): the served ad's
/// format and the request's category, content partner and device container, each as the
/// account's reference data knows it (`~`: a value it does not know; absent: none sent).
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Dims {
    #[serde(rename = "f")]
    pub format: String,
    #[serde(rename = "cat", default, skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(rename = "cp", default, skip_serializing_if = "Option::is_none")]
    pub partner: Option<String>,
    #[serde(rename = "dc", default, skip_serializing_if = "Option::is_none")]
    pub device_container: Option<String>,
    /// A programmatic ad's sale (version-4 links, docs/programmatic.md): who bought it in
    /// which marketplace at what clearing price.
    #[serde(rename = "sale", default, skip_serializing_if = "Option::is_none")]
    pub sale: Option<Sale>,
}

/// A won auction as its links carry it (all of it signed).
#[derive(Debug, Clone, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
pub struct Sale {
    /// The demand partner.
    #[serde(rename = "dp")]
    pub partner: String,
    /// The marketplace.
    #[serde(rename = "mk")]
    pub market: String,
    /// The clearing price, CPM in micros of the marketplace's currency.
    #[serde(rename = "px")]
    pub price_micros: i64,
}

/// The dimensions, borrowed (what a served document signs).
#[derive(Debug, Clone, Copy, Default)]
pub struct DimsRef<'a> {
    pub format: &'a str,
    pub category: Option<&'a str>,
    pub partner: Option<&'a str>,
    pub device_container: Option<&'a str>,
    pub sale: Option<&'a Sale>,
}

/// The request's category, content partner and device container as reports keep them.
#[derive(Debug, Clone, Copy, Default)]
pub struct RequestDims<'a> {
    pub category: Option<&'a str>,
    pub partner: Option<&'a str>,
    pub device_container: Option<&'a str>,
}

/// What a tracking link carries (all of it signed).
#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub account: String,
    pub campaign: String,
    pub goal: String,
    pub ad: String,
    pub impression: String,
    pub viewer: Option<String>,
    pub issued: i64,
    /// The counter that is this goal's delivery (`impression`, `complete`, …).
    pub delivered: String,
    /// Click destination (click links only).
    pub click: Option<String>,
    /// The id of the key the link is signed with (`k`; not part of the signed message: a
    /// link naming another key fails under that key).
    pub key: Option<String>,
    /// Report dimensions (version-3 links; older links carry none).
    pub dims: Option<Dims>,
}

/// An HMAC-SHA256 key, keyed once: a served document signs seven links per ad, and each
/// link clones the keyed state, so it costs the message's blocks only.
#[derive(Clone)]
pub struct SigningKey {
    mac: Hmac<Sha256>,
}

impl SigningKey {
    pub fn new(secret: &[u8]) -> SigningKey {
        // HMAC takes a key of any length (a longer one is hashed first).
        let mac = <Hmac<Sha256> as KeyInit>::new_from_slice(secret).unwrap_or_else(|_| unreachable!("HMAC accepts every key length"));
        SigningKey { mac }
    }

    /// The first 128 bits of the MAC of what `feed` writes.
    fn mac_with(&self, feed: impl FnOnce(&mut Hmac<Sha256>)) -> [u8; 16] {
        let mut mac = self.mac.clone();
        feed(&mut mac);
        let full = mac.finalize().into_bytes();
        let mut out = [0u8; 16];
        out.copy_from_slice(&full[..16]);
        out
    }

    /// A message's signature (128 bits, hex): what a signed URL other than a tracking link
    /// carries (preview links).
    pub fn sign_text(&self, msg: &str) -> String {
        hex::encode(self.mac_with(|h| h.update(msg.as_bytes())))
    }

    /// Whether `sig` is `msg`'s signature (compared in constant time).
    pub fn verify_text(&self, msg: &str, sig: &str) -> bool {
        same(&self.sign_text(msg), sig)
    }
}

/// A link's fields, borrowed: what a served document signs (`Token` holds the same, owned,
/// when a link comes back).
pub struct LinkFields<'a> {
    pub account: &'a str,
    pub campaign: &'a str,
    pub goal: &'a str,
    pub ad: &'a str,
    pub impression: &'a str,
    pub viewer: Option<&'a str>,
    pub issued: i64,
    pub delivered: &'a str,
    pub click: Option<&'a str>,
    pub key: Option<&'a str>,
    pub dims: Option<DimsRef<'a>>,
}

/// Feeds one length-prefixed field (`<len>:<bytes>`); `mark` prefixes a present optional
/// value with `+` (counted in the length).
fn feed(h: &mut Hmac<Sha256>, mark: &[u8], f: &[u8]) {
    h.update(itoa::Buffer::new().format(mark.len() + f.len()).as_bytes());
    h.update(b":");
    h.update(mark);
    h.update(f);
}

/// RFC 3986's unreserved characters are kept; every other byte is percent-encoded.
const QUERY_VALUE: &AsciiSet = &NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// Appends `s` percent-encoded.
fn push_encoded(out: &mut String, s: &str) {
    out.extend(utf8_percent_encode(s, QUERY_VALUE));
}

impl LinkFields<'_> {
    /// The signed message (version 2: optional fields with presence marks), fed to `h`.
    fn feed_message(&self, h: &mut Hmac<Sha256>, event: &str) {
        let mut issued = itoa::Buffer::new();
        let issued = issued.format(self.issued);
        for f in [event, self.account, self.campaign, self.goal, self.ad, self.impression] {
            feed(h, b"", f.as_bytes());
        }
        match self.viewer {
            Some(v) => feed(h, b"+", v.as_bytes()),
            None => feed(h, b"", b"-"),
        }
        feed(h, b"", issued.as_bytes());
        feed(h, b"", self.delivered.as_bytes());
        let marked = |h: &mut Hmac<Sha256>, v: Option<&str>| match v {
            Some(v) => feed(h, b"+", v.as_bytes()),
            None => feed(h, b"", b"-"),
        };
        marked(h, self.click);
        match &self.dims {
            // Version 3: the report dimensions, then the version.
            Some(d) => {
                feed(h, b"", d.format.as_bytes());
                marked(h, d.category);
                marked(h, d.partner);
                marked(h, d.device_container);
                match d.sale {
                    // Version 4: a programmatic ad's sale, then the version.
                    Some(sale) => {
                        feed(h, b"", sale.partner.as_bytes());
                        feed(h, b"", sale.market.as_bytes());
                        feed(h, b"", itoa::Buffer::new().format(sale.price_micros).as_bytes());
                        feed(h, b"", b"4");
                    }
                    None => feed(h, b"", b"3"),
                }
            }
            None => feed(h, b"", b"2"),
        }
    }

    /// The signature (128 bits, hex).
    pub fn sign(&self, key: &SigningKey, event: &str) -> String {
        hex::encode(key.mac_with(|h| self.feed_message(h, event)))
    }

    /// Appends the event's link (`<base>/v1/track/<event>?…&s=<signature>`) to `out`.
    pub fn write_url(&self, out: &mut String, base: &str, event: &str, key: &SigningKey) {
        let common = self.common_query("&");
        self.write(out, base, event, key, "&", &common);
    }

    /// Appends the event's link as XML text: the same URL with `&amp;` separators (every
    /// value is percent-encoded, so nothing else needs escaping; the base is escaped).
    /// `common` is `common_query("&amp;")`, the same for every event of a served ad.
    pub fn write_url_xml(&self, out: &mut String, base: &str, event: &str, key: &SigningKey, common: &str) {
        let base = quick_xml::escape::partial_escape(base);
        self.write(out, &base, event, key, "&amp;", common);
    }

    /// The query parameters every event link of a served ad shares (all but the click
    /// destination and the signature), percent-encoded, joined by `amp`.
    pub fn common_query(&self, amp: &str) -> String {
        let mut out = String::with_capacity(256);
        let mut first = true;
        let mut param = |out: &mut String, name: &str, value: &str| {
            if !first {
                out.push_str(amp);
            }
            first = false;
            out.push_str(name);
            out.push('=');
            push_encoded(out, value);
        };
        param(&mut out, "a", self.account);
        param(&mut out, "c", self.campaign);
        param(&mut out, "g", self.goal);
        param(&mut out, "ad", self.ad);
        param(&mut out, "i", self.impression);
        param(&mut out, "ts", itoa::Buffer::new().format(self.issued));
        param(&mut out, "d", self.delivered);
        if let Some(v) = self.viewer {
            param(&mut out, "v", v);
        }
        if let Some(k) = self.key {
            param(&mut out, "k", k);
        }
        if let Some(d) = &self.dims {
            param(&mut out, "f", d.format);
            for (name, v) in [("cat", d.category), ("cp", d.partner), ("dc", d.device_container)] {
                if let Some(v) = v {
                    param(&mut out, name, v);
                }
            }
            if let Some(sale) = d.sale {
                param(&mut out, "dp", &sale.partner);
                param(&mut out, "mk", &sale.market);
                param(&mut out, "px", itoa::Buffer::new().format(sale.price_micros));
            }
        }
        out
    }

    fn write(&self, out: &mut String, base: &str, event: &str, key: &SigningKey, amp: &str, common: &str) {
        out.reserve(base.len() + common.len() + 96);
        out.push_str(base);
        out.push_str("/v1/track/");
        out.push_str(event);
        out.push('?');
        out.push_str(common);
        if let Some(u) = self.click {
            out.push_str(amp);
            out.push_str("u=");
            push_encoded(out, u);
        }
        out.push_str(amp);
        out.push_str("s=");
        let mut sig = [0u8; 32];
        if hex::encode_to_slice(key.mac_with(|h| self.feed_message(h, event)), &mut sig).is_ok() {
            out.extend(sig.iter().map(|b| char::from(*b)));
        }
    }
}

/// Constant-time comparison of two signatures.
fn same(a: &str, b: &str) -> bool {
    bool::from(a.as_bytes().ct_eq(b.as_bytes()))
}

impl Token {
    /// The borrowed fields (what signing reads).
    pub fn fields(&self) -> LinkFields<'_> {
        LinkFields {
            account: &self.account,
            campaign: &self.campaign,
            goal: &self.goal,
            ad: &self.ad,
            impression: &self.impression,
            viewer: self.viewer.as_deref(),
            issued: self.issued,
            delivered: &self.delivered,
            click: self.click.as_deref(),
            key: self.key.as_deref(),
            dims: self.dims.as_ref().map(|d| DimsRef {
                format: &d.format,
                category: d.category.as_deref(),
                partner: d.partner.as_deref(),
                device_container: d.device_container.as_deref(),
                sale: d.sale.as_ref(),
            }),
        }
    }

    /// The signature (128 bits, hex).
    pub fn sign(&self, key: &SigningKey, event: &str) -> String {
        self.fields().sign(key, event)
    }

    /// Whether `sig` is this token's signature for `event`. An empty viewer or click value
    /// is never issued, so it never verifies.
    pub fn verify(&self, key: &SigningKey, event: &str, sig: &str) -> bool {
        let empty = |v: &Option<String>| v.as_deref() == Some("");
        if empty(&self.viewer) || empty(&self.click) {
            return false;
        }
        if let Some(d) = &self.dims {
            if d.format.is_empty() || empty(&d.category) || empty(&d.partner) || empty(&d.device_container) {
                return false;
            }
            if d.sale.as_ref().is_some_and(|s| s.partner.is_empty() || s.market.is_empty() || s.price_micros <= 0) {
                return false;
            }
        }
        same(&self.sign(key, event), sig)
    }

    /// The event's link (its query string: values percent-encoded, the signature last).
    pub fn query(&self, key: &SigningKey, event: &str) -> String {
        let mut url = String::new();
        self.fields().write_url(&mut url, "", event, key);
        url.split_once('?').map(|(_, q)| q.to_string()).unwrap_or_default()
    }

    /// Reads a link's parameters back (`None` when one is missing); the signature is
    /// checked by the caller with `verify`.
    pub fn from_pairs(pairs: &[(String, String)]) -> Option<(Token, String)> {
        let get = |k: &str| pairs.iter().find(|(n, _)| n == k).map(|(_, v)| v.clone());
        Some((
            Token {
                account: get("a")?,
                campaign: get("c")?,
                goal: get("g")?,
                ad: get("ad")?,
                impression: get("i")?,
                viewer: get("v"),
                issued: get("ts")?.parse().ok()?,
                delivered: get("d")?,
                click: get("u"),
                key: get("k"),
                dims: match get("f") {
                    None => None,
                    Some(format) => Some(Dims {
                        format,
                        category: get("cat"),
                        partner: get("cp"),
                        device_container: get("dc"),
                        sale: match (get("dp"), get("mk"), get("px")) {
                            (Some(partner), Some(market), Some(px)) => Some(Sale { partner, market, price_micros: px.parse().ok()? }),
                            (None, None, None) => None,
                            _ => return None,
                        },
                    }),
                },
            },
            get("s")?,
        ))
    }
}

#[cfg(test)]
#[path = "tracking_tests.rs"]
mod tests;
