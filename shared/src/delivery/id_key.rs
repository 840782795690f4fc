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

/// The longest id kept inline as its bytes; a canonical UUID is kept as its 16 bytes, any
/// other id as a string.
const INLINE: usize = 22;

/// A record id as a table key of 24 bytes: at 100,000 goals the compile's table of goals
/// by id stays about half the size it had with the id's 40 bytes inline (each lookup
/// misses the cache once, not twice). Each form is one to one with the id's text, so equal
/// keys are equal ids.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum IdKey {
    /// An id of at most 22 bytes: its length and its bytes, zero-padded.
    Inline(u8, [u8; INLINE]),
    /// A UUID in its canonical text (lowercase hex, hyphens at 8, 13, 18 and 23), as bytes.
    Uuid([u8; 16]),
    Long(Box<str>),
}

/// The 16 bytes of a UUID in canonical text; `None` for any other text (uppercase hex
/// included, so that the bytes give back exactly the text).
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
    pub fn of(id: &str) -> IdKey {
        if id.len() <= INLINE {
            let mut b = [0u8; INLINE];
            b[..id.len()].copy_from_slice(id.as_bytes());
            IdKey::Inline(id.len() as u8, b)
        } else if let Some(u) = uuid_bytes(id) {
            IdKey::Uuid(u)
        } else {
            IdKey::Long(id.into())
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
        assert!(matches!(IdKey::of(uuid), IdKey::Uuid(_)), "a canonical UUID is kept as its bytes");
        assert_eq!(std::mem::size_of::<IdKey>(), 24);
        assert_ne!(IdKey::of(uuid), IdKey::of("0b5a8c3e-1f7d-4e2a-9c61-7d3f2b8e4a11"));
        // Uppercase or unhyphenated text is another id: kept as text, never equal to the
        // canonical one.
        let upper = uuid.to_uppercase();
        assert_eq!(IdKey::of(&upper), IdKey::Long(upper.clone().into()));
        assert_ne!(IdKey::of(&upper), IdKey::of(uuid));
        assert!(matches!(IdKey::of("0b5a8c3e+1f7d-4e2a-9c61-7d3f2b8e4a10"), IdKey::Long(_)));
        assert!(matches!(IdKey::of("0b5a8c3e-1f7d-4e2a-9c61-7d3f2b8e4a1g"), IdKey::Long(_)));
        assert_ne!(IdKey::of("g1"), IdKey::of("g1\0"), "the length is part of the key");
        assert_ne!(IdKey::of("g1"), IdKey::of("g2"));
        let edge = "x".repeat(22);
        assert!(matches!(IdKey::of(&edge), IdKey::Inline(22, _)));
        assert_ne!(IdKey::of(&edge), IdKey::of(&"x".repeat(23)));
        let long = "x".repeat(41);
        assert_eq!(IdKey::of(&long), IdKey::Long(long.clone().into()));
        assert_ne!(IdKey::of(&long), IdKey::of(&"x".repeat(42)));
    }
}
