//! Record ids as hash-table keys kept inline (an id is a UUID, 36 bytes): a lookup compares
//! within the table's own memory instead of following each stored key to the heap. At
//! publisher scale (100,000 goals, 500,000 ads) the compile's join of ads to their goals
//! missed the cache on every stored key it compared (docs/publisher-scale.md, section 2).

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
    use super::IdKey;

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
