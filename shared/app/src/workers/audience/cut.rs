//! Planning a batch file into chunks: byte ranges of a plain file; decompressed chunk
//! objects of a gzip file, inflated under the limits of `model::inflate` with memory bounded
//! by one chunk plus one row.

use super::*;
use crate::model::audience::{MAX_CHUNKS, MAX_CHUNK_BYTES, MAX_ROW_BYTES};
use crate::model::inflate::{Inflater, MAX_RATIO};

/// A planned batch: its chunks, the bytes they hold, and rows dropped for their length.
pub struct Planned {
    pub chunks: Vec<Chunk>,
    pub total: u64,
    pub overlong: u64,
}

/// The chunk size for a file of `size` bytes: the configured one, larger when the file
/// would need more than [`MAX_CHUNKS`] chunks.
fn chunk_size(configured: u64, size: u64) -> u64 {
    configured.max(1).max(size.div_ceil(MAX_CHUNKS))
}

/// Cuts a batch file; `Ok(Err(why))` when the file cannot be processed at all.
pub async fn cut(st: &AppState, b: &Batch) -> WResult<Result<Planned, String>> {
    let size = st.blobs.size(&b.object_key).await.map_err(se)?.unwrap_or(0);
    let mut head = [0u8; 2];
    let mut n = 0;
    if size >= 2 {
        let mut r = st
            .blobs
            .open_from(&b.object_key, 0)
            .await
            .map_err(se)?
            .ok_or_else(|| crate::workers::JobError::retry_msg("batch file gone"))?;
        while n < 2 {
            let k = r.read(&mut head[n..]).await.map_err(se)?;
            if k == 0 {
                break;
            }
            n += k;
        }
    }
    let gzip = n == 2 && head == [0x1f, 0x8b];
    // A gzip file's output is at most MAX_RATIO × its size (past a 1 MiB grace).
    let cb = chunk_size(st.settings.audience_chunk_bytes, if gzip { size.saturating_mul(MAX_RATIO) } else { size });
    if cb > MAX_CHUNK_BYTES {
        return Ok(Err(format!(
            "batch file too large: {size} bytes{} would need chunks over {MAX_CHUNK_BYTES} bytes ({MAX_CHUNKS} chunks at most)",
            if gzip { " of gzip" } else { "" }
        )));
    }
    if gzip {
        return gunzip_into_chunks(st, b, cb).await;
    }
    let mut chunks = Vec::new();
    let mut start = 0;
    while start < size {
        let end = (start + cb).min(size);
        chunks.push(Chunk { key: b.object_key.clone(), start, end, done: false });
        start = end;
    }
    Ok(Ok(Planned { chunks, total: size, overlong: 0 }))
}

/// Decompressed rows waiting to be cut into a chunk. A row growing past [`MAX_ROW_BYTES`]
/// is dropped as it arrives (counted), so memory stays at one chunk plus one row.
#[derive(Default)]
pub struct RowSink {
    buf: Vec<u8>,
    /// Where the unfinished last row of `buf` starts.
    row_start: usize,
    discarding: bool,
    pub overlong: u64,
}

impl Write for RowSink {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        let n = data.len();
        let mut data = data;
        if self.discarding {
            match memchr::memchr(b'\n', data) {
                None => return Ok(n),
                Some(i) => {
                    self.discarding = false;
                    data = &data[i + 1..];
                }
            }
        }
        let before = self.buf.len();
        self.buf.extend_from_slice(data);
        if let Some(i) = memchr::memrchr(b'\n', &self.buf[before..]) {
            self.row_start = before + i + 1;
        }
        if self.buf.len() - self.row_start > MAX_ROW_BYTES {
            self.buf.truncate(self.row_start);
            self.discarding = true;
            self.overlong += 1;
        }
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl RowSink {
    /// A chunk of about `cb` bytes ending at a row end, once that much is buffered.
    pub fn take(&mut self, cb: usize) -> Option<Vec<u8>> {
        if self.buf.len() < cb {
            return None;
        }
        let cut = memchr::memrchr(b'\n', &self.buf[..cb]).or_else(|| memchr::memchr(b'\n', &self.buf)).map(|i| i + 1)?;
        let rest = self.buf.split_off(cut);
        self.row_start -= cut;
        Some(std::mem::replace(&mut self.buf, rest))
    }

    /// What is left at the end of the file (a last row without a line end included).
    pub fn rest(&mut self) -> Vec<u8> {
        self.row_start = 0;
        std::mem::take(&mut self.buf)
    }
}

/// Streams a gzip file through the bounded decoder into chunk objects of about `cb` bytes.
async fn gunzip_into_chunks(st: &AppState, b: &Batch, cb: u64) -> WResult<Result<Planned, String>> {
    let mut r =
        st.blobs.open_from(&b.object_key, 0).await.map_err(se)?.ok_or_else(|| crate::workers::JobError::retry_msg("batch file gone"))?;
    let mut inf = Inflater::new(RowSink::default());
    let mut buf = vec![0u8; 256 * 1024];
    let mut chunks = Vec::new();
    let mut total = 0u64;
    let cb = usize::try_from(cb).unwrap_or(usize::MAX);
    loop {
        let k = r.read(&mut buf).await.map_err(se)?;
        if k == 0 {
            break;
        }
        for piece in buf[..k].chunks(16 * 1024) {
            if let Err(why) = inf.feed(piece) {
                return Ok(Err(why.to_string()));
            }
            while let Some(part) = inf.sink().take(cb) {
                total += part.len() as u64;
                chunks.push(put_work_chunk(st, b, chunks.len(), part).await?);
            }
        }
    }
    let mut sink = match inf.finish() {
        Ok((s, _)) => s,
        Err(why) => return Ok(Err(why.to_string())),
    };
    let last = sink.rest();
    if !last.is_empty() {
        total += last.len() as u64;
        chunks.push(put_work_chunk(st, b, chunks.len(), last).await?);
    }
    Ok(Ok(Planned { chunks, total, overlong: sink.overlong }))
}

async fn put_work_chunk(st: &AppState, b: &Batch, n: usize, bytes: Vec<u8>) -> WResult<Chunk> {
    let key = crate::jobs::audience::work_key(&b.account_id, &b.id, n);
    let len = bytes.len() as u64;
    st.blobs.put_bytes(&key, bytes, "text/csv").await.map_err(se)?;
    Ok(Chunk { key, start: 0, end: len, done: false })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunk_sizes_bound_the_chunk_list() {
        assert_eq!(chunk_size(32 << 20, 1 << 20), 32 << 20);
        assert_eq!(chunk_size(40, 100 << 30).div_ceil(1), (100u64 << 30).div_ceil(MAX_CHUNKS));
        assert!((100u64 << 30).div_ceil(chunk_size(32 << 20, 100 << 30)) <= MAX_CHUNKS);
    }

    #[test]
    fn the_row_sink_drops_overlong_rows_as_they_arrive() {
        let mut s = RowSink::default();
        s.write_all(b"a|x=1\nb").unwrap();
        for _ in 0..100 {
            s.write_all(&[b'z'; 4096]).unwrap();
        }
        assert!(s.buf.len() <= MAX_ROW_BYTES + 4096 + 8, "buffered {}", s.buf.len());
        s.write_all(b"zz\nc|y=2\n").unwrap();
        assert_eq!(s.overlong, 1);
        assert_eq!(s.take(1), Some(b"a|x=1\n".to_vec()));
        assert_eq!(s.rest(), b"c|y=2\n".to_vec());
    }
}
