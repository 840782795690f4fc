//! Signed tracking links. Every event URL a served document carries names the account,
//! campaign, goal, ad, impression id, viewer, issue time, the counter that is the goal's
//! delivery, and (clicks) the destination, signed with HMAC-SHA256 under the deployment's
//! tracking secret: nobody can forge an event, move it to another ad or account, or turn
//! the click redirect into an open redirect. A link is accepted for `MAX_AGE_SECS`.

use sha2::{Digest, Sha256};

/// Everything but RFC 3986's unreserved characters is encoded.
const UNRESERVED_KEPT: &percent_encoding::AsciiSet =
    &percent_encoding::NON_ALPHANUMERIC.remove(b'-').remove(b'.').remove(b'_').remove(b'~');

/// How long after serving a tracking link is accepted (the replay markers live longer).
pub const MAX_AGE_SECS: i64 = 24 * 3600;

/// Links issued before this instant (2026-11-25T00:00:00Z) may carry the legacy signature
/// (no presence marks); after it every link is signed with them.
pub const LEGACY_UNTIL: i64 = 1_795_564_800;

/// The playback events that are counted, by their URL name, with their `/v3` counter.
pub const EVENTS: &[(&str, &str)] = &[
    ("impression", "impression"),
    ("start", "start"),
    ("firstQuartile", "firstQuartile"),
    ("midpoint", "midpoint"),
    ("thirdQuartile", "thirdQuartile"),
    ("complete", "complete"),
    ("click", "clickThrough"),
];

pub fn counter_of(event: &str) -> Option<&'static str> {
    EVENTS.iter().find(|(e, _)| *e == event).map(|(_, c)| *c)
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
}

fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    let mut k = [0u8; 64];
    if key.len() > 64 {
        k[..32].copy_from_slice(&Sha256::digest(key));
    } else {
        k[..key.len()].copy_from_slice(key);
    }
    let mut inner = Sha256::new();
    inner.update(k.map(|b| b ^ 0x36));
    inner.update(msg);
    let mut outer = Sha256::new();
    outer.update(k.map(|b| b ^ 0x5c));
    outer.update(inner.finalize());
    outer.finalize().into()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Constant-time comparison of two signatures.
fn same(a: &str, b: &str) -> bool {
    a.len() == b.len() && a.bytes().zip(b.bytes()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Token {
    /// Length-prefixed fields, so no two different tokens share a message. An optional
    /// field is marked present (`+value`) or absent (`-`), so a link to which an empty
    /// `&v=` or `&u=` is appended no longer verifies (docs/traffic-quality.md §2).
    fn message(&self, event: &str) -> Vec<u8> {
        let opt = |o: &Option<String>| o.as_deref().map_or_else(|| "-".to_string(), |v| format!("+{v}"));
        let (viewer, click) = (opt(&self.viewer), opt(&self.click));
        self.message_of(event, &viewer, &click, "2")
    }

    /// The message of links issued before presence marks (accepted only while such links
    /// can live, and only without empty optional values; see `verify`).
    fn legacy_message(&self, event: &str) -> Vec<u8> {
        self.message_of(event, self.viewer.as_deref().unwrap_or(""), self.click.as_deref().unwrap_or(""), "")
    }

    fn message_of(&self, event: &str, viewer: &str, click: &str, version: &str) -> Vec<u8> {
        let mut m = Vec::with_capacity(256);
        let issued = self.issued.to_string();
        let fields =
            [event, &self.account, &self.campaign, &self.goal, &self.ad, &self.impression, viewer, &issued, &self.delivered, click];
        for f in fields.iter().copied().chain((!version.is_empty()).then_some(version)) {
            m.extend_from_slice(f.len().to_string().as_bytes());
            m.push(b':');
            m.extend_from_slice(f.as_bytes());
        }
        m
    }

    /// The signature (128 bits, hex).
    pub fn sign(&self, secret: &[u8], event: &str) -> String {
        hex(&hmac_sha256(secret, &self.message(event))[..16])
    }

    /// Whether `sig` is this token's signature for `event`. An empty viewer or click value
    /// is never issued, so it never verifies; links signed before presence marks verify
    /// under the legacy message until `LEGACY_UNTIL` (their 24 h lifetime after the change).
    pub fn verify(&self, secret: &[u8], event: &str, sig: &str) -> bool {
        if self.viewer.as_deref() == Some("") || self.click.as_deref() == Some("") {
            return false;
        }
        if same(&self.sign(secret, event), sig) {
            return true;
        }
        self.issued < LEGACY_UNTIL && same(&hex(&hmac_sha256(secret, &self.legacy_message(event))[..16]), sig)
    }

    /// The query string of the event's link (values percent-encoded).
    pub fn query(&self, secret: &[u8], event: &str) -> String {
        let e = |s: &str| percent_encoding::utf8_percent_encode(s, UNRESERVED_KEPT).to_string();
        let mut q = format!(
            "a={}&c={}&g={}&ad={}&i={}&ts={}&d={}",
            e(&self.account),
            e(&self.campaign),
            e(&self.goal),
            e(&self.ad),
            e(&self.impression),
            self.issued,
            e(&self.delivered)
        );
        if let Some(v) = &self.viewer {
            q.push_str(&format!("&v={}", e(v)));
        }
        if let Some(u) = &self.click {
            q.push_str(&format!("&u={}", e(u)));
        }
        if let Some(k) = &self.key {
            q.push_str(&format!("&k={}", e(k)));
        }
        q.push_str(&format!("&s={}", self.sign(secret, event)));
        q
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
            },
            get("s")?,
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token() -> Token {
        Token {
            account: "acc".into(),
            campaign: "c1".into(),
            goal: "g1".into(),
            ad: "ad1".into(),
            impression: "imp1".into(),
            viewer: Some("v1".into()),
            issued: 1_700_000_000,
            delivered: "impression".into(),
            click: None,
            key: None,
        }
    }

    #[test]
    fn hmac_matches_rfc_4231_case_2() {
        let mac = hmac_sha256(b"Jefe", b"what do ya want for nothing?");
        assert_eq!(hex(&mac), "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
    }

    #[test]
    fn any_changed_field_breaks_the_signature() {
        let key = b"secret";
        let t = token();
        let sig = t.sign(key, "impression");
        assert!(t.verify(key, "impression", &sig));
        assert!(!t.verify(key, "complete", &sig));
        assert!(!t.verify(b"other", "impression", &sig));
        let mut moved = t.clone();
        moved.ad = "ad2".into();
        assert!(!moved.verify(key, "impression", &sig));
        let mut shifted = t.clone();
        shifted.campaign = "c1g".into();
        shifted.goal = "1".into();
        assert!(!shifted.verify(key, "impression", &sig));
        let mut clicked = t;
        clicked.click = Some("https://evil.example".into());
        assert!(!clicked.verify(key, "impression", &sig));
    }

    #[test]
    fn absent_and_empty_sign_differently() {
        let key = b"secret";
        let mut t = token();
        t.viewer = None;
        t.issued = LEGACY_UNTIL + 10;
        let sig = t.sign(key, "complete");
        assert!(t.verify(key, "complete", &sig));
        let mut empty = t.clone();
        empty.viewer = Some(String::new());
        assert_ne!(empty.sign(key, "complete"), sig, "a present empty viewer signs differently");
        assert!(!empty.verify(key, "complete", &sig), "&v= appended does not verify");
        // An empty value never verifies, not even under its own signature.
        assert!(!empty.verify(key, "complete", &empty.sign(key, "complete")));
        // A legacy link (no presence marks) verifies only while such links can live.
        let legacy = |t: &Token| hex(&hmac_sha256(key, &t.legacy_message("complete"))[..16]);
        let mut old = t.clone();
        old.issued = LEGACY_UNTIL - 3600;
        assert!(old.verify(key, "complete", &legacy(&old)));
        assert!(!t.verify(key, "complete", &legacy(&t)), "after the change only the marked message verifies");
    }
}
