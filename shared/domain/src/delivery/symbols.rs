//! Interned symbols and the break formats: the vocabulary every part of the engine shares.

use super::id_key::IdMap;

/// An interned string (category, partner, tag, location, segment, custom parameter name or value).
pub type Sym = u32;
/// The symbol of a string the snapshot has never seen: matches no rule.
pub const UNKNOWN: Sym = u32::MAX;

#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub struct Interner {
    map: IdMap<String, Sym>,
}

impl Interner {
    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(v) = self.map.get(s) {
            return *v;
        }
        let v = self.map.len() as Sym;
        self.map.insert(s.to_string(), v);
        v
    }

    pub fn get(&self, s: &str) -> Sym {
        self.map.get(s).copied().unwrap_or(UNKNOWN)
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }

    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
}

/// The break positions an ad request asks for: the model's one ad format.
pub use crate::model::enums::AdFormat;
