//! Record ids as hash-table keys kept inline (an id is a UUID, kept as its 16 bytes): a
//! lookup compares within the table's own memory instead of following each stored key to
//! the heap. At publisher scale (100,000 goals, 500,000 ads) the compile's join of ads to
//! their goals missed the cache on every stored key it compared (docs/publisher-scale.md,
//! section 2).

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

/// The longest id kept inline as its bytes.
const INLINE: usize = 22;
/// The last byte of a packed UUID (a packed short id has its length there, at most 22).
const UUID: u8 = 0xFF;

/// A record id packed in three integers: an id of at most 22 bytes as its bytes and length,
/// a canonical UUID as its 16 bytes. A table keyed by it hashes and compares three integers
/// within its own memory (at 100,000 goals a key holding the id's 40 bytes made the table
/// of goals twice as large, and each lookup missed the cache twice). Packing is one to
/// one with the id's text, so equal keys are equal ids.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct IdKey(u64, u64, u64);

/// The 16 bytes of a UUID in canonical text (lowercase hex, hyphens at 8, 13, 18 and 23);
/// `None` for any other text (uppercase hex included, so that the bytes give back exactly
/// the text).
fn uuid_bytes(id: &str) -> Option<[u8; 16]> {
    let b = id.as_bytes();
    if b.len() != 36 {
        return None;
    }
    let nibble = |c: u8| match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        _ => None,
    };
    let mut out = [0u8; 16];
    let mut n = 0;
    let mut i = 0;
    while i < 36 {
        if matches!(i, 8 | 13 | 18 | 23) {
            if b[i] != b'-' {
                return None;
            }
            i += 1;
            continue;
        }
        out[n] = nibble(b[i])? << 4 | nibble(b[i + 1])?;
        n += 1;
        i += 2;
    }
    Some(out)
}

impl IdKey {
    /// The packed id; `None` for an id longer than 22 bytes that is not a canonical UUID
    /// (the caller keys it by its text).
    pub fn of(id: &str) -> Option<IdKey> {
        let mut b = [0u8; 24];
        if id.len() <= INLINE {
            b[..id.len()].copy_from_slice(id.as_bytes());
            b[23] = id.len() as u8;
        } else {
            b[..16].copy_from_slice(&uuid_bytes(id)?);
            b[23] = UUID;
        }
        let word = |i: usize| b[i..i + 8].try_into().ok().map(u64::from_le_bytes);
        Some(IdKey(word(0)?, word(8)?, word(16)?))
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
        assert!(IdKey::of(uuid).is_some(), "a canonical UUID is packed");
        assert_eq!(IdKey::of(uuid), IdKey::of(String::from(uuid).as_str()));
        assert_eq!(std::mem::size_of::<IdKey>(), 24);
        assert_ne!(IdKey::of(uuid), IdKey::of("0b5a8c3e-1f7d-4e2a-9c61-7d3f2b8e4a11"));
        // Uppercase or otherwise uncanonical text is another id: not packed.
        assert_eq!(IdKey::of(&uuid.to_uppercase()), None);
        assert_eq!(IdKey::of("0b5a8c3e+1f7d-4e2a-9c61-7d3f2b8e4a10"), None);
        assert_eq!(IdKey::of("0b5a8c3e-1f7d-4e2a-9c61-7d3f2b8e4a1g"), None);
        assert_ne!(IdKey::of("g1"), IdKey::of("g1\0"), "the length is part of the key");
        assert_ne!(IdKey::of("g1"), IdKey::of("g2"));
        assert_ne!(IdKey::of(""), IdKey::of("\0"));
        let edge = "x".repeat(22);
        assert!(IdKey::of(&edge).is_some());
        assert_eq!(IdKey::of(&"x".repeat(23)), None);
        // A short id whose bytes look like a packed UUID's still differs by its last byte.
        let bytes: String = (0..16).map(|_| 'a').collect();
        assert_ne!(IdKey::of(&bytes), IdKey::of("61616161-6161-6161-6161-616161616161"));
    }
}
