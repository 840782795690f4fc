//! Identifiers and key hashing.

use sha2::{Digest, Sha256};

pub fn new_id() -> String {
    uuid::Uuid::new_v4().to_string()
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
