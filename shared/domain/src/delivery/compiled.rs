//! The compiled form of a snapshot (docs/publisher-scale.md, "Compile once per change"):
//! what the compile worker writes once per change of an account, and what a serving
//! process reads instead of reading and compiling the account's records.
//!
//! Layout: the magic `ADSNAP`, the format number (u16, little-endian), then the snapshot
//! as `postcard` compressed with deflate. A build reads only its own format: a snapshot of
//! another format is compiled again from the records (a deploy never serves a
//! half-understood snapshot).

use std::io::{Read, Write};

use super::snapshot::{AdEntry, GoalEntry, Snapshot};
use super::verdict::LeftOutRecord;

pub const MAGIC: &[u8; 6] = b"ADSNAP";
/// The compiled form's format; bumped with any change to what `Snapshot` holds.
pub const FORMAT: u16 = 3;
/// The most a compiled form inflates to (well past the largest snapshot the memory bound
/// lets a process hold, `limits::SNAPSHOT_MAX_ADS` at ~700 bytes an ad).
pub const MAX_INFLATED_BYTES: u64 = 1 << 30;

#[derive(Debug, thiserror::Error, PartialEq)]
pub enum CompiledError {
    #[error("not a compiled snapshot")]
    NotCompiled,
    #[error("compiled snapshot of format {0}; this build reads format {FORMAT}")]
    Format(u16),
    #[error("compiled snapshot unreadable: {0}")]
    Corrupt(String),
}

fn corrupt(e: impl std::fmt::Display) -> CompiledError {
    CompiledError::Corrupt(e.to_string())
}

/// The snapshot's compiled form.
pub fn encode(s: &Snapshot) -> Result<Vec<u8>, CompiledError> {
    let body = postcard::to_stdvec(s).map_err(corrupt)?;
    let mut out = Vec::with_capacity(body.len() / 3 + MAGIC.len() + 2);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT.to_le_bytes());
    let mut z = flate2::write::DeflateEncoder::new(out, flate2::Compression::fast());
    z.write_all(&body).map_err(corrupt)?;
    z.finish().map_err(corrupt)
}

/// The snapshot a compiled form holds, its indexes rebuilt.
pub fn decode(bytes: &[u8]) -> Result<Snapshot, CompiledError> {
    let head = MAGIC.len() + 2;
    if bytes.len() < head || &bytes[..MAGIC.len()] != MAGIC {
        return Err(CompiledError::NotCompiled);
    }
    let format = u16::from_le_bytes([bytes[MAGIC.len()], bytes[MAGIC.len() + 1]]);
    if format != FORMAT {
        return Err(CompiledError::Format(format));
    }
    let mut body = Vec::with_capacity(bytes.len() * 3);
    flate2::read::DeflateDecoder::new(&bytes[head..]).take(MAX_INFLATED_BYTES + 1).read_to_end(&mut body).map_err(corrupt)?;
    if body.len() as u64 > MAX_INFLATED_BYTES {
        return Err(corrupt(format!("inflates past {MAX_INFLATED_BYTES} bytes")));
    }
    let mut s: Snapshot = postcard::from_bytes(&body).map_err(corrupt)?;
    s.reindex();
    Ok(s)
}

impl Snapshot {
    /// Rebuilds the id indexes from `ads` and `goals` (they are not in the compiled form).
    pub fn reindex(&mut self) {
        self.ad_index = self.ads.iter().enumerate().map(|(i, a)| (a.id.clone(), i as u32)).collect();
        self.goal_index = self.goals.iter().enumerate().map(|(i, g)| (g.id.clone(), i as u32)).collect();
    }

    /// Rough heap size in bytes (the benchmark's "snapshot size").
    pub fn approx_bytes(&self) -> usize {
        let s = |x: &String| x.capacity() + 24;
        let ads: usize = self
            .ads
            .iter()
            .map(|a| {
                std::mem::size_of::<AdEntry>()
                    + s(&a.id)
                    + s(&a.name)
                    + a.trackers.iter().map(|(e, u)| e.as_str().len() + s(u)).sum::<usize>()
                    + a.media.approx_bytes()
            })
            .sum();
        let goals: usize = self.goals.len() * (std::mem::size_of::<GoalEntry>() + 256);
        let left_out: usize = self.left_out.iter().map(LeftOutRecord::approx_bytes).sum();
        ads + goals + left_out + self.syms.len() * 48 + self.ad_index.len() * 64 + self.goal_index.len() * 64
    }
}

#[cfg(test)]
#[path = "compiled_tests.rs"]
mod tests;
