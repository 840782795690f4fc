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

/// 64 random bits from a per-thread generator (xorshift64*, seeded once per thread from
/// the operating system): for the serving path's impression ids, request ids and sample
/// draws, which need to be unique, not secret (a tracking link's signature is what makes
/// it unforgeable), and must not cost a system call each.
pub fn fast_u64() -> u64 {
    use std::cell::Cell;
    thread_local! {
        static STATE: Cell<u64> = Cell::new(uuid::Uuid::new_v4().as_u64_pair().0 | 1);
    }
    STATE.with(|s| {
        let mut x = s.get();
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        s.set(x);
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    })
}

/// A v4-shaped UUID from `fast_u64` (two draws): an impression or request id.
pub fn fast_id() -> String {
    let bytes = ((u128::from(fast_u64()) << 64) | u128::from(fast_u64())).to_be_bytes();
    uuid::Builder::from_random_bytes(bytes).into_uuid().to_string()
}

/// A new API key: 40 random hex characters (160 bits from two v4 UUIDs).
pub fn new_api_key() -> String {
    let a = uuid::Uuid::new_v4().simple().to_string();
    let b = uuid::Uuid::new_v4().simple().to_string();
    format!("{}{}", &a[..20], &b[..20])
}

/// Keys are stored only as this hash.
pub fn hash_key(key: &str) -> String {
    let digest = Sha256::digest(key.as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
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
