//! Record ids as hash-table keys kept inline (an id is a UUID, 36 bytes): a lookup compares
//! within the table's own memory instead of following each stored key to the heap. At
//! publisher scale (100,000 goals, 500,000 ads) the compile's join of ads to their goals
//! missed the cache on every stored key it compared (docs/publisher-scale.md, section 2).

/// A hash table keyed by the account's own record ids (or their symbols): foldhash, seeded
/// per process, instead of SipHash. At 100,000 goals the compile's joins spent a quarter of
/// their time hashing (docs/publisher-scale.md, section 2).
pub type IdMap<K, V> = std::collections::HashMap<K, V, foldhash::fast::RandomState>;

/// An empty [`IdMap`] with room for `n` entries.
pub fn id_map<K, V>(n: usize) -> IdMap<K, V> {
    IdMap::with_capacity_and_hasher(n, foldhash::fast::RandomState::default())
}

/// An id's first 16 bytes as a number that sorts as the id does (zero-padded: an id holds
/// no NUL, so a shorter id sorts first); ids sharing them compare equal here.
pub fn id_prefix(id: &str) -> u128 {
    let mut b = [0u8; 16];
    let n = id.len().min(16);
    b[..n].copy_from_slice(&id.as_bytes()[..n]);
    u128::from_be_bytes(b)
}

/// The longest id kept inline; longer ones are kept as a string.
const INLINE: usize = 40;

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IdKey {
    Inline(u8, [u8; INLINE]),
    Long(String),
}

impl IdKey {
    pub fn of(id: &str) -> IdKey {
        if id.len() <= INLINE {
            let mut b = [0u8; INLINE];
            b[..id.len()].copy_from_slice(id.as_bytes());
            IdKey::Inline(id.len() as u8, b)
        } else {
            IdKey::Long(id.to_string())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{id_prefix, IdKey};

    #[test]
    fn prefixes_sort_as_the_ids_do() {
        let mut ids =
            vec!["g10", "g1", "g2", "a", "ab", "0b5a8c3e-1f7d-4e2a-9c61-7d3f2b8e4a10", "0b5a8c3e-1f7d-4e2a-9c61-000000000000", "z"];
        let by_prefix = {
            let mut v = ids.clone();
            v.sort_by_key(|id| id_prefix(id));
            v
        };
        ids.sort();
        // The two UUIDs share their first 16 bytes: equal prefixes, ordered whole by the compile.
        assert_eq!(id_prefix(ids[0]), id_prefix(ids[1]));
        assert_eq!(by_prefix[2..], ids[2..]);
        assert!(id_prefix("g1") < id_prefix("g10") && id_prefix("g10") < id_prefix("g2"));
    }

    #[test]
    fn equal_ids_are_equal_keys_and_no_others() {
        let uuid = "0b5a8c3e-1f7d-4e2a-9c61-7d3f2b8e4a10";
        assert_eq!(IdKey::of(uuid), IdKey::of(String::from(uuid).as_str()));
        assert_ne!(IdKey::of("g1"), IdKey::of("g1\0"), "the length is part of the key");
        assert_ne!(IdKey::of("g1"), IdKey::of("g2"));
        let long = "x".repeat(41);
        assert_eq!(IdKey::of(&long), IdKey::Long(long.clone()));
        assert_ne!(IdKey::of(&long), IdKey::of(&"x".repeat(42)));
    }
}
