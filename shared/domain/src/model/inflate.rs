//! Bounded gzip inflation of audience batch files (docs/audience.md, "Limits"): the one
//! place the decompression limits live, used by the upload API (a check, output discarded)
//! and by the worker (output cut into chunk objects).
//!
//! A gzip bomb is refused after a few MiB of output, whatever its declared size: input is
//! fed in small steps and after each step the output is compared with the input.

use std::io::Write;

use crate::rule::Rule;

/// Output may be at most this many times the compressed input (once past [`RATIO_GRACE`]).
/// Real batch files (random PIDs, repeated segment keys) inflate 3-15×; zeros ~1000×.
pub const MAX_RATIO: u64 = 100;
/// Output below this is never refused for its ratio (tiny files compress oddly).
pub const RATIO_GRACE: u64 = 1 << 20;
/// The decompressed size of one batch file.
pub const MAX_INFLATED: u64 = 16 << 30;
/// Input fed per step: one step inflates to at most ~8 MiB (deflate's ratio is ≤ 1032).
const STEP: usize = 8 * 1024;

/// Why a gzip body is refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// Not gzip, or a corrupt deflate stream.
    Corrupt,
    /// The stream ends before the gzip trailer.
    Truncated,
    /// Inflates more than [`MAX_RATIO`] times its size.
    Ratio,
    /// Inflates to more than [`MAX_INFLATED`] bytes.
    TooLarge,
}

impl Refusal {
    /// 413 for the size limits, 400 for a broken stream.
    pub fn is_size(self) -> bool {
        matches!(self, Refusal::Ratio | Refusal::TooLarge)
    }

    /// The `rule` token of the field error.
    pub fn rule(self) -> Rule {
        match self {
            Refusal::Corrupt | Refusal::Truncated => Rule::Gzip,
            Refusal::Ratio => Rule::InflateRatio,
            Refusal::TooLarge => Rule::InflatedSize,
        }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Corrupt => write!(f, "the file starts like gzip but does not decompress"),
            Refusal::Truncated => write!(f, "the gzip file is truncated"),
            Refusal::Ratio => write!(f, "the gzip file inflates more than {MAX_RATIO} times its size (refused as a possible gzip bomb)"),
            Refusal::TooLarge => write!(f, "the gzip file inflates to more than {MAX_INFLATED} bytes"),
        }
    }
}

/// Counts what passes to the inner writer.
struct Counting<W> {
    inner: W,
    out: u64,
}

impl<W: Write> Write for Counting<W> {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let n = self.inner.write(data)?;
        self.out += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

/// A gzip decoder (multi-member) writing into `W`, refusing bombs as it goes.
pub struct Inflater<W: Write> {
    dec: flate2::write::MultiGzDecoder<Counting<W>>,
    input: u64,
}

impl<W: Write> Inflater<W> {
    pub fn new(inner: W) -> Self {
        Inflater { dec: flate2::write::MultiGzDecoder::new(Counting { inner, out: 0 }), input: 0 }
    }

    /// Inflates `data` into the writer, a step at a time.
    pub fn feed(&mut self, data: &[u8]) -> Result<(), Refusal> {
        for piece in data.chunks(STEP) {
            self.dec.write_all(piece).map_err(|_| Refusal::Corrupt)?;
            self.input += piece.len() as u64;
            self.check()?;
        }
        Ok(())
    }

    fn check(&self) -> Result<(), Refusal> {
        let out = self.dec.get_ref().out;
        if out > MAX_INFLATED {
            Err(Refusal::TooLarge)
        } else if out > RATIO_GRACE && out > MAX_RATIO.saturating_mul(self.input) {
            Err(Refusal::Ratio)
        } else {
            Ok(())
        }
    }

    /// Bytes written out so far.
    pub fn inflated(&self) -> u64 {
        self.dec.get_ref().out
    }

    pub fn sink(&mut self) -> &mut W {
        &mut self.dec.get_mut().inner
    }

    /// Checks the stream ended with its trailer; returns the writer and the bytes written.
    pub fn finish(mut self) -> Result<(W, u64), Refusal> {
        self.dec.try_finish().map_err(|_| Refusal::Truncated)?;
        self.check()?;
        self.dec.finish().map(|c| (c.inner, c.out)).map_err(|_| Refusal::Truncated)
    }
}

/// Checks a whole gzip body (the upload API): decompresses it, keeping nothing.
pub fn check(body: &[u8]) -> Result<u64, Refusal> {
    let mut inf = Inflater::new(std::io::sink());
    inf.feed(body)?;
    inf.finish().map(|(_, n)| n)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gz(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    #[test]
    fn ordinary_files_pass() {
        let rows: String = (0..50_000).map(|i| format!("pid-{i:08x}-{}|age=18-24|gender=f\n", i * 7919)).collect();
        assert_eq!(check(&gz(rows.as_bytes())), Ok(rows.len() as u64));
        assert_eq!(check(&gz(&[0u8; 1000])), Ok(1000), "small files are never refused for their ratio");
    }

    #[test]
    fn bombs_and_broken_streams_are_refused() {
        let bomb = gz(&vec![0u8; 64 << 20]);
        assert!(bomb.len() < 100_000);
        let mut inf = Inflater::new(std::io::sink());
        assert_eq!(inf.feed(&bomb), Err(Refusal::Ratio));
        assert!(inf.inflated() < 16 << 20, "refused after {} bytes", inf.inflated());
        let good = gz(b"a|b=c\n");
        assert_eq!(check(&good[..good.len() - 4]), Err(Refusal::Truncated));
        assert_eq!(check(b"\x1f\x8bnot really"), Err(Refusal::Corrupt));
        assert!(Refusal::Ratio.is_size() && !Refusal::Corrupt.is_size());
    }
}
