//! Two-factor sign-in (docs/people-and-roles.md, "Two-factor"): a TOTP secret per user (RFC
//! 6238: HMAC-SHA-1, 6 digits, 30-second steps, one step of skew either way; the `totp-rs`
//! crate computes the codes), confirmed by a first code, with ten one-time recovery codes
//! kept only as their SHA-256. A code is good once: the step it was accepted at is kept,
//! and no code of that step or an earlier one is accepted again.

use serde::{Deserialize, Serialize};
use subtle::ConstantTimeEq;
use totp_rs::{Algorithm, Secret, TOTP};

/// Digits of a code.
pub const DIGITS: usize = 6;
/// Seconds a code's step lasts.
pub const STEP: u64 = 30;
/// Bytes of a secret (160 bits, RFC 4226's recommendation).
pub const SECRET_BYTES: usize = 20;
/// Recovery codes made at enrolment (each good once).
pub const RECOVERY_CODES: usize = 10;
/// The longest code a form may send (a recovery code with its dash and spaces).
pub const CODE_MAX: usize = 32;

/// A user's second factor.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TwoFactor {
    /// The TOTP secret, base32 (RFC 4648, no padding).
    pub secret: String,
    /// Whether a code confirmed it: sign-in asks for a code only once it is.
    pub confirmed: bool,
    /// The SHA-256 (hex) of each unused recovery code.
    #[serde(default)]
    pub recovery: Vec<String>,
    /// The step of the last code accepted: codes of it, or earlier, are refused.
    #[serde(default)]
    pub last_step: u64,
}

impl TwoFactor {
    /// A new, unconfirmed secret from the operating system's randomness.
    pub fn begin() -> TwoFactor {
        let mut raw = [0u8; SECRET_BYTES];
        if getrandom::fill(&mut raw).is_err() {
            // Never on a supported platform; a thread RNG seeded from the OS otherwise.
            use rand::RngCore;
            rand::rng().fill_bytes(&mut raw);
        }
        let secret = match Secret::Raw(raw.to_vec()).to_encoded() {
            Secret::Encoded(s) => s,
            Secret::Raw(_) => String::new(),
        };
        TwoFactor { secret, confirmed: false, recovery: Vec::new(), last_step: 0 }
    }

    fn totp(&self) -> Option<TOTP> {
        let bytes = Secret::Encoded(self.secret.clone()).to_bytes().ok()?;
        TOTP::new(Algorithm::SHA1, DIGITS, 1, STEP, bytes).ok()
    }

    /// The code of the step `at` (seconds since the epoch): what an authenticator shows.
    pub fn code_at(&self, at: u64) -> Option<String> {
        self.totp().map(|t| t.generate(at))
    }

    /// The `otpauth://` URL an authenticator app reads (the QR code's content).
    pub fn otpauth_url(&self, issuer: &str, email: &str) -> String {
        use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
        let (i, e) = (utf8_percent_encode(issuer, NON_ALPHANUMERIC), utf8_percent_encode(email, NON_ALPHANUMERIC));
        format!("otpauth://totp/{i}:{e}?secret={}&issuer={i}&algorithm=SHA1&digits={DIGITS}&period={STEP}", self.secret)
    }

    /// Accepts `code` at `now` (seconds since the epoch): a TOTP code of the step before, of
    /// this one or of the next, newer than the last accepted, or an unused recovery code
    /// (used up). Whether it was accepted; `self` records what it used.
    pub fn accept(&mut self, code: &str, now: u64) -> bool {
        let code: String = code.chars().filter(|c| !c.is_whitespace() && *c != '-').collect();
        if code.len() == DIGITS && code.bytes().all(|b| b.is_ascii_digit()) {
            let Some(totp) = self.totp() else { return false };
            let step = now / STEP;
            for s in [step.saturating_sub(1), step, step + 1] {
                if s > self.last_step && bool::from(totp.generate(s * STEP).as_bytes().ct_eq(code.as_bytes())) {
                    self.last_step = s;
                    return true;
                }
            }
            return false;
        }
        let hash = recovery_hash(&code);
        match self.recovery.iter().position(|h| bool::from(h.as_bytes().ct_eq(hash.as_bytes()))) {
            Some(i) => {
                self.recovery.remove(i);
                true
            }
            None => false,
        }
    }

    /// Confirms an unconfirmed secret with its first code: the recovery codes, shown this
    /// once (kept only hashed); `None` for a wrong code.
    pub fn confirm(&mut self, code: &str, now: u64) -> Option<Vec<String>> {
        if self.confirmed || !self.accept(code, now) {
            return None;
        }
        self.confirmed = true;
        let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| new_recovery_code()).collect();
        self.recovery = codes.iter().map(|c| recovery_hash(c)).collect();
        Some(codes)
    }
}

/// A recovery code: 10 characters of the base32 alphabet in two groups (50 bits, from the
/// operating system's randomness).
fn new_recovery_code() -> String {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut raw = [0u8; 10];
    if getrandom::fill(&mut raw).is_err() {
        use rand::RngCore;
        rand::rng().fill_bytes(&mut raw);
    }
    let mut out = String::with_capacity(11);
    for (i, b) in raw.iter().enumerate() {
        out.push(ALPHABET[(b % 32) as usize] as char);
        if i == 4 {
            out.push('-');
        }
    }
    out
}

/// What is kept of a recovery code: the SHA-256 of its characters, lowercased, without the dash.
fn recovery_hash(code: &str) -> String {
    use sha2::{Digest, Sha256};
    let normal: String = code.chars().filter(|c| c.is_ascii_alphanumeric()).map(|c| c.to_ascii_lowercase()).collect();
    hex::encode(Sha256::digest(normal.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc_6238_test_vector() {
        // RFC 6238, Appendix B: SHA-1, the ASCII secret "12345678901234567890", T = 59 s.
        let tf = TwoFactor {
            secret: match Secret::Raw(b"12345678901234567890".to_vec()).to_encoded() {
                Secret::Encoded(s) => s,
                Secret::Raw(_) => unreachable!(),
            },
            confirmed: true,
            recovery: Vec::new(),
            last_step: 0,
        };
        // The RFC's 8-digit 94287082, as 6 digits.
        assert_eq!(tf.code_at(59).unwrap(), "287082");
    }

    #[test]
    fn a_code_is_good_once_and_only_near_its_step() {
        let mut tf = TwoFactor::begin();
        assert_eq!(tf.secret.len(), 32, "160 bits in base32");
        let now = 1_800_000_000;
        let code = tf.code_at(now).unwrap();
        let codes = tf.confirm(&code, now).expect("confirmed");
        assert_eq!(codes.len(), RECOVERY_CODES);
        assert!(tf.confirmed);
        assert!(!tf.accept(&code, now), "a code is good once");
        let next = tf.code_at(now + STEP).unwrap();
        assert!(tf.accept(&next, now), "the next step's code is accepted (clock skew)");
        let far = tf.code_at(now + 10 * STEP).unwrap();
        assert!(!tf.accept(&far, now), "a code five minutes off is not");
        assert!(!tf.accept("12345", now) && !tf.accept("", now));
    }

    #[test]
    fn recovery_codes_are_good_once_and_kept_hashed() {
        let mut tf = TwoFactor::begin();
        let now = 1_800_000_000;
        let codes = tf.confirm(&tf.code_at(now).unwrap(), now).unwrap();
        assert!(codes.iter().all(|c| c.len() == 11 && c.as_bytes()[5] == b'-'), "{codes:?}");
        assert!(!tf.recovery.iter().any(|h| codes.contains(h)), "kept only hashed");
        assert!(tf.accept(&codes[3].to_uppercase().replace('-', " "), now));
        assert!(!tf.accept(&codes[3], now), "used up");
        assert_eq!(tf.recovery.len(), RECOVERY_CODES - 1);
    }
}
