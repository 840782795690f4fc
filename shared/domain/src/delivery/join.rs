//! The compile's joins by id (the ads to their goals, the goals to their rules), kept
//! within a core's cache at publisher scale. Ids are packed keys (`IdKey`). Past 16,384
//! keys, the keys and the lookups are first split into partitions by hash, and each
//! partition is joined with a table of its own (a radix-partitioned hash join). At 100,000
//! goals one table of goals takes 4 MB, past the core's cache, and each of the 500,000
//! ads' lookups missed it; a partition's table takes 0.5 MB. Measured on this machine:
//! 100,000 keys and 500,000 lookups took 37 ms in one table, 26 ms partitioned
//! (docs/publisher-scale.md, section 2).

use std::hash::BuildHasher;

use super::id_key::{id_map, IdKey, IdMap};

/// One table, for keys that fit the cache.
fn joined<'a>(keys: impl ExactSizeIterator<Item = &'a str>, probes: impl ExactSizeIterator<Item = &'a str>) -> Vec<Option<u32>> {
    // Packed ids (`IdKey`: short ids and UUIDs) in one table, any other id by its text.
    let mut packed: IdMap<IdKey, u32> = id_map(keys.len());
    let mut text: IdMap<&str, u32> = id_map(0);
    for (i, k) in keys.enumerate() {
        match IdKey::of(k) {
            Some(p) => packed.insert(p, i as u32),
            None => text.insert(k, i as u32),
        };
    }
    probes
        .map(|p| match IdKey::of(p) {
            Some(k) => packed.get(&k).copied(),
            None => text.get(p).copied(),
        })
        .collect()
}

/// The most keys of one partition: its table (32-byte entries, 7/8 full) stays within
/// about 1 MB, a core's share of the cache.
const PER_PART: usize = 16_384;

/// For each of `probes` (in order), the position among `keys` of the key equal to it, if
/// any; when a key is repeated, its last position.
pub fn positions<'a>(keys: impl ExactSizeIterator<Item = &'a str>, probes: impl ExactSizeIterator<Item = &'a str>) -> Vec<Option<u32>> {
    positions_in(keys, probes, PER_PART)
}

fn positions_in<'a>(
    keys: impl ExactSizeIterator<Item = &'a str>,
    probes: impl ExactSizeIterator<Item = &'a str>,
    per_part: usize,
) -> Vec<Option<u32>> {
    if keys.len() == 0 {
        return vec![None; probes.len()];
    }
    let parts = keys.len().div_ceil(per_part.max(1)).next_power_of_two();
    if parts == 1 {
        return joined(keys, probes);
    }
    // A partition is the hash's top bits (its table hashes again, with a seed of its own).
    let split = foldhash::fast::RandomState::default();
    let shift = 64 - parts.trailing_zeros();
    let part_of = |key: &IdKey| split.hash_one(key).checked_shr(shift).unwrap_or(0) as usize;
    // Ids that do not pack are joined by their text, in one table of their own.
    let mut text: IdMap<&str, u32> = id_map(0);
    let room = |n: usize| n / parts + n / parts / 8 + 16;
    let mut key_parts: Vec<Vec<(IdKey, u32)>> = (0..parts).map(|_| Vec::with_capacity(room(keys.len()))).collect();
    for (i, k) in keys.enumerate() {
        match IdKey::of(k) {
            Some(p) => key_parts[part_of(&p)].push((p, i as u32)),
            None => {
                text.insert(k, i as u32);
            }
        }
    }
    let mut out = vec![None; probes.len()];
    let mut probe_parts: Vec<Vec<(IdKey, u32)>> = (0..parts).map(|_| Vec::with_capacity(room(out.len()))).collect();
    for (j, p) in probes.enumerate() {
        match IdKey::of(p) {
            Some(k) => probe_parts[part_of(&k)].push((k, j as u32)),
            None => out[j] = text.get(p).copied(),
        }
    }
    for (of_keys, of_probes) in key_parts.into_iter().zip(probe_parts) {
        let mut table: IdMap<IdKey, u32> = id_map(of_keys.len());
        table.extend(of_keys);
        // A partition keeps its probes in their order: `out` is written front to back.
        for (key, j) in of_probes {
            out[j as usize] = table.get(&key).copied();
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::positions_in;

    fn naive(keys: &[String], probes: &[String]) -> Vec<Option<u32>> {
        probes.iter().map(|p| keys.iter().rposition(|k| k == p).map(|i| i as u32)).collect()
    }

    #[test]
    fn partitioned_or_not_each_probe_finds_its_key_or_none() {
        let keys: Vec<String> = (0..500)
            .map(|i| if i % 7 == 0 { format!("0b5a8c3e-1f7d-4e2a-9c61-{i:012}") } else { format!("g{i}") })
            .chain(["g3".to_string(), "x".repeat(50)])
            .collect();
        let probes: Vec<String> = (0..2_000)
            .map(|j| match j % 5 {
                0 => format!("g{}", j % 600),
                1 => format!("0b5a8c3e-1f7d-4e2a-9c61-{:012}", j % 700),
                2 => "x".repeat(50),
                3 => "G3".to_string(),
                _ => format!("g{}", (j * 31) % 500),
            })
            .chain(["g3".to_string()])
            .collect();
        let expected = naive(&keys, &probes);
        assert!(expected.iter().any(Option::is_none) && expected.iter().any(Option::is_some));
        // "g3" is repeated: its last position.
        assert_eq!(expected[probes.iter().position(|p| p == "g3").expect("a probe of g3")], Some(500));
        for per_part in [1, 4, 64, 16_384] {
            let got = positions_in(keys.iter().map(String::as_str), probes.iter().map(String::as_str), per_part);
            assert_eq!(got, expected, "{per_part} keys per partition");
        }
    }

    #[test]
    fn nothing_to_join() {
        assert!(positions_in(std::iter::empty(), std::iter::empty(), 4).is_empty());
        assert_eq!(positions_in(std::iter::empty(), ["a"].into_iter(), 4), vec![None]);
        assert_eq!(positions_in(["b"].into_iter(), ["a", "b"].into_iter(), 1), vec![None, Some(0)]);
    }
}
