//! Identifiers and key hashing.

use sha2::{Digest, Sha256};

/// An account's id: the tenant every record belongs to. The use cases take it typed, so an
/// account id and a record id cannot be passed the wrong way round; it reads as a `str`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Default, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct AccountId(String);

impl AccountId {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::ops::Deref for AccountId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for AccountId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for AccountId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for AccountId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<String> for AccountId {
    fn from(s: String) -> Self {
        AccountId(s)
    }
}

impl From<&str> for AccountId {
    fn from(s: &str) -> Self {
        AccountId(s.to_string())
    }
}

impl From<AccountId> for String {
    fn from(a: AccountId) -> String {
        a.0
    }
}

impl PartialEq<str> for AccountId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for AccountId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for AccountId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// 64 random bits from rand's thread-local generator (seeded from the operating system):
/// for the serving path's impression ids, request ids and sample draws, which need to be
/// unique, not secret (a tracking link's signature is what makes it unforgeable), and must
/// not cost a system call each.
pub fn fast_u64() -> u64 {
    rand::random()
}

/// A v4-shaped UUID from `fast_u64` (two draws): an impression or request id.
pub fn fast_id() -> String {
    let bytes = ((u128::from(fast_u64()) << 64) | u128::from(fast_u64())).to_be_bytes();
    uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
}

/// The random bytes of an API key: 160 bits, read from the operating system (`getrandom`).
pub const KEY_BYTES: usize = 20;
/// The random bytes of a session token and a form token: 256 bits.
pub const TOKEN_BYTES: usize = 32;

/// `N` random bytes from the operating system as hex (`2 N` characters, `8 N` bits). The
/// operating system's generator failing is no state to go on in: the process stops.
pub fn secret_hex<const N: usize>() -> String {
    let mut b = [0u8; N];
    if let Err(e) = getrandom::fill(&mut b) {
        panic!("the operating system's random generator failed: {e}");
    }
    hex::encode(b)
}

/// A new API key: 160 random bits as 40 hex characters.
pub fn new_api_key() -> String {
    secret_hex::<KEY_BYTES>()
}

/// Keys are stored only as this hash.
pub fn hash_key(key: &str) -> String {
    hex::encode(Sha256::digest(key.as_bytes()))
}

/// Ids taken from requests are looked up only when they have an id's shape; anything else
/// cannot exist, so it is answered like an unknown id without touching the store.
pub fn plausible_id(id: &str) -> bool {
    !id.is_empty() && id.len() <= crate::limits::MAX_ID_LEN && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fast_ids_are_distinct_uuids() {
        let ids: std::collections::HashSet<String> = (0..10_000).map(|_| fast_id()).collect();
        assert_eq!(ids.len(), 10_000);
        assert!(ids.iter().all(|i| uuid::Uuid::parse_str(i).is_ok_and(|u| u.get_version_num() == 4)));
    }

    #[test]
    fn keys_are_random_and_hashes_stable() {
        let k = new_api_key();
        assert_eq!(k.len(), 40);
        assert!(k.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(k, new_api_key());
        assert_eq!(hash_key("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    }

    #[test]
    fn plausible_ids() {
        assert!(plausible_id(&new_id()));
        assert!(!plausible_id(""));
        assert!(!plausible_id("a/b"));
        assert!(!plausible_id("a\u{0}b"));
    }
}
