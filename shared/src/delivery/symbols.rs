//! Interned symbols and the break formats: the vocabulary every part of the engine shares.

use std::collections::HashMap;

/// An interned string (category, partner, tag, location, segment, custom parameter name or value).
pub type Sym = u32;
/// The symbol of a string the snapshot has never seen: matches no rule.
pub const UNKNOWN: Sym = u32::MAX;

#[derive(Debug, Default, Clone)]
pub struct Interner {
    map: HashMap<String, Sym>,
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

/// The break positions an ad request asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Format {
    Preroll,
    Midroll,
    Postroll,
    Pause,
}

impl Format {
    pub const ALL: [Format; 4] = [Format::Preroll, Format::Midroll, Format::Postroll, Format::Pause];

    pub fn parse(s: &str) -> Option<Format> {
        match s {
            "preroll" => Some(Format::Preroll),
            "midroll" => Some(Format::Midroll),
            "postroll" => Some(Format::Postroll),
            "pause" => Some(Format::Pause),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Format::Preroll => "preroll",
            Format::Midroll => "midroll",
            Format::Postroll => "postroll",
            Format::Pause => "pause",
        }
    }

    pub fn index(self) -> usize {
        self as usize
    }
}
