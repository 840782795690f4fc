//! One chunk of a batch: taken under its own lease (chunks run in parallel), its rows
//! streamed into viewer records in batches of writes ordered by the rows' places
//! (`model::audience::row_order`), its position recorded as it goes, and committed (counts
//! added once) when its last row is written.

use super::*;

enum Leased {
    Mine(Box<Versioned<Batch>>),
    /// Nothing to do (finished, cancelled, already done, stale job).
    Skip,
}

/// Whether `token` holds the lease of chunk `index` of a processing batch.
fn holds(b: &Batch, index: u32, token: &str) -> bool {
    b.status == BatchStatus::Processing && b.leases.iter().any(|l| l.chunk == index && l.token == token)
}

/// The batch with `index`'s lease taken out of it (committed, failed or dropped).
fn without_lease(b: &Batch, index: u32) -> Batch {
    let mut next = b.clone();
    next.leases.retain(|l| l.chunk != index);
    next.running_bytes = next.leases.iter().map(|l| l.running).sum();
    next
}

async fn take_lease(st: &AppState, job: &ChunkJob, token: &str) -> WResult<Leased> {
    let mut tries = repo::Attempts::worker("audience batch", &job.batch);
    loop {
        tries.next_try().map_err(se)?;
        let Some(cur) = load_batch(st, &job.account, &job.batch).await? else { return Ok(Leased::Skip) };
        let b = &cur.value;
        let Some(chunk) = b.chunks.get(job.index as usize) else { return Ok(Leased::Skip) };
        if chunk.done {
            // A redelivered job of a committed chunk (its commit may have been applied
            // without an answer): make sure what follows the commit happened.
            after_commit(st, b).await?;
            return Ok(Leased::Skip);
        }
        if b.status != BatchStatus::Processing {
            return Ok(Leased::Skip);
        }
        if b.leases.iter().any(|l| l.chunk == job.index && l.token != token && l.until > st.clock.now()) {
            return Err(crate::workers::JobError::retry_msg(format!(
                "chunk {} of batch {} is being processed by another worker",
                job.index, b.id
            )));
        }
        let mut next = without_lease(b, job.index);
        next.leases.push(Lease { chunk: job.index, token: token.to_string(), until: st.clock.now() + LEASE, running: 0 });
        if repo::audience::put_next(st.store.as_ref(), &next, cur.version()).await.map_err(se)? {
            return Ok(Leased::Mine(Box::new(written(next, cur.version() + 1)?)));
        }
    }
}

/// What follows a chunk's commit: the provider's next batch once this one finished. Safe to
/// do twice (planning is conditional).
async fn after_commit(st: &AppState, b: &Batch) -> WResult<()> {
    match b.status {
        BatchStatus::Finished => start_next(st, &b.account_id, &b.provider_id).await,
        BatchStatus::Processing | BatchStatus::Uploaded | BatchStatus::Cancelled => Ok(()),
    }
}

/// Whether chunk `index` of the batch is still ours to work on; refreshes `cur`.
async fn still_mine(st: &AppState, cur: &mut Versioned<Batch>, index: u32, token: &str) -> WResult<bool> {
    let Some(fresh) = load_batch(st, &cur.value.account_id, &cur.value.id).await? else { return Ok(false) };
    let mine = holds(&fresh.value, index, token);
    *cur = fresh;
    Ok(mine)
}

/// Records the running chunk's position; `false` when the batch was cancelled or the chunk
/// taken over.
async fn record_progress(st: &AppState, cur: &mut Versioned<Batch>, index: u32, token: &str, running: u64) -> WResult<bool> {
    let mut tries = repo::Attempts::worker("audience batch", &cur.value.id);
    loop {
        tries.next_try().map_err(se)?;
        if !holds(&cur.value, index, token) {
            return Ok(false);
        }
        let mut next = cur.value.clone();
        for l in next.leases.iter_mut().filter(|l| l.chunk == index) {
            l.running = running;
        }
        next.running_bytes = next.leases.iter().map(|l| l.running).sum();
        if repo::audience::put_next(st.store.as_ref(), &next, cur.version()).await.map_err(se)? {
            *cur = written(next, cur.version() + 1)?;
            return Ok(true);
        }
        if !still_mine(st, cur, index, token).await? {
            return Ok(false);
        }
    }
}

/// A PID's last row so far: its place in the chunk, and its pairs (none: deleted).
type PendingRow = (u64, Option<Vec<(u16, u32)>>);

/// Writes of rows not yet flushed, by PID: the last row of a PID wins, here by order and
/// in the store by the row's place (so a chunk committing late never overwrites a later
/// row of another chunk).
pub struct Pending {
    account: String,
    provider: String,
    batch: String,
    created: chrono::DateTime<chrono::Utc>,
    chunk: u32,
    /// Rows of the chunk seen so far (the next row's place).
    seen: u64,
    rows: HashMap<Vec<u8>, PendingRow>,
}

impl Pending {
    pub fn new(b: &Batch, chunk: u32) -> Pending {
        Pending {
            account: b.account_id.clone(),
            provider: b.provider_id.clone(),
            batch: b.id.clone(),
            created: b.created,
            chunk,
            seen: 0,
            rows: HashMap::with_capacity(FLUSH_ROWS),
        }
    }

    pub fn row(&mut self, r: Row<'_>) {
        let place = self.seen;
        self.seen += 1;
        match r {
            Row::Replace(pid, pairs) => {
                self.rows.insert(pid.to_vec(), (place, Some(pairs.to_vec())));
            }
            Row::Delete(pid) => {
                self.rows.insert(pid.to_vec(), (place, None));
            }
            Row::Keep(_) => {}
        }
    }

    pub fn len(&self) -> usize {
        self.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.rows.is_empty()
    }

    /// Starts writing the pending rows (`Writing`): each viewer record, or a deleted PID's
    /// tombstone (expiring after `TOMBSTONE_SECS`), over an older one only.
    pub fn flush(&mut self, st: &AppState, cat: &Catalog) -> WResult<Writing> {
        if self.rows.is_empty() {
            return Ok(Writing(None));
        }
        let expires = st.clock.now().timestamp() + m::TOMBSTONE_SECS;
        let mut items = Vec::with_capacity(self.rows.len());
        for (pid, (place, op)) in self.rows.drain() {
            let pid = String::from_utf8_lossy(&pid);
            let key = keys::viewer(&self.account, &pid, &self.provider);
            let segments = op
                .iter()
                .flatten()
                .map(|(s, g)| (cat.segmentation_ids[*s as usize].clone(), cat.segment_ids[*g as usize].clone()))
                .collect();
            let mut item = repo::item(key, &Viewer { segments, batch: self.batch.clone() }, m::row_order(self.created, self.chunk, place))
                .map_err(se)?;
            if op.is_none() {
                item.expires_at = Some(expires);
            }
            items.push(item);
        }
        let store = st.store.clone();
        Ok(Writing(Some(tokio::spawn(async move { repo::audience::write_viewers(store.as_ref(), items).await.map_err(se) }))))
    }
}

/// A flush being written: the chunk parses its next rows meanwhile and waits for it once
/// its next flush has started (two at most in flight; a PID's later row has the higher
/// version, so their order does not matter) and before its commit.
pub struct Writing(Option<tokio::task::JoinHandle<WResult<()>>>);

impl Writing {
    pub async fn done(self) -> WResult<()> {
        match self.0 {
            None => Ok(()),
            Some(h) => h.await.map_err(|e| crate::workers::JobError::retry_msg(format!("a viewer write stopped: {e}")))?,
        }
    }
}

/// Streams the rows a chunk owns (those starting in `[start, end)`), a block of whole rows
/// at a time: it skips the partial row at `start` and finishes the row crossing `end`.
pub struct ChunkReader {
    r: crate::blobs::BlobReader,
    buf: Vec<u8>,
    /// File offset of `buf[0]`.
    pos: u64,
    start: u64,
    end: u64,
    skipping: bool,
    eof: bool,
    done: bool,
    /// Rows dropped unread for being longer than `MAX_ROW_BYTES`.
    pub overlong: u64,
}

impl ChunkReader {
    pub async fn open(st: &AppState, chunk: &Chunk) -> WResult<ChunkReader> {
        let open_at = chunk.start.saturating_sub(1);
        let r = st
            .blobs
            .open_from(&chunk.key, open_at)
            .await
            .map_err(se)?
            .ok_or_else(|| crate::workers::JobError::retry_msg("batch file gone"))?;
        Ok(ChunkReader {
            r,
            buf: Vec::with_capacity(READ_BLOCK * 2),
            pos: open_at,
            start: chunk.start,
            end: chunk.end,
            skipping: chunk.start > 0,
            eof: false,
            done: chunk.start >= chunk.end,
            overlong: 0,
        })
    }

    /// The next block of whole rows, and how many bytes of the chunk are behind it.
    pub async fn next_block(&mut self) -> WResult<Option<(Vec<u8>, u64)>> {
        while !self.done {
            if !self.eof {
                let old = self.buf.len();
                self.buf.resize(old + READ_BLOCK, 0);
                let k = self.r.read(&mut self.buf[old..]).await.map_err(se)?;
                self.buf.truncate(old + k);
                self.eof = k == 0;
            }
            if self.skipping {
                // The row crossing `start` belongs to the previous chunk.
                match memchr::memchr(b'\n', &self.buf) {
                    Some(nl) => {
                        self.buf.drain(..=nl);
                        self.pos += nl as u64 + 1;
                        self.skipping = false;
                    }
                    None => {
                        self.pos += self.buf.len() as u64;
                        self.buf.clear();
                        self.done = self.eof;
                        continue;
                    }
                }
            }
            if self.pos >= self.end {
                self.done = true;
                break;
            }
            let last_owned = (self.end - 1 - self.pos) as usize;
            let whole = |buf: &[u8]| memchr::memrchr(b'\n', buf).map_or(0, |i| i + 1);
            let (cut, done) = if last_owned < self.buf.len() {
                match memchr::memchr(b'\n', &self.buf[last_owned..]) {
                    Some(i) => (last_owned + i + 1, true),
                    None if self.eof => (self.buf.len(), true),
                    None => (whole(&self.buf), false),
                }
            } else if self.eof {
                (self.buf.len(), true)
            } else {
                (whole(&self.buf), false)
            };
            if cut == 0 && !done && self.buf.len() > m::MAX_ROW_BYTES {
                // A row longer than any valid row: dropped as it is read, never buffered whole.
                self.overlong += 1;
                self.pos += self.buf.len() as u64;
                self.buf.clear();
                self.skipping = true;
                continue;
            }
            self.done = done;
            if cut > 0 {
                let rest = self.buf.split_off(cut);
                let block = std::mem::replace(&mut self.buf, rest);
                self.pos += cut as u64;
                return Ok(Some((block, self.pos.saturating_sub(self.start))));
            }
        }
        Ok(None)
    }
}

/// Processes one chunk under its lease, then commits it (counts added once).
pub async fn process_chunk(st: &AppState, job: &ChunkJob) -> WResult<()> {
    let token = uuid::Uuid::new_v4().to_string();
    let cur = match take_lease(st, job, &token).await? {
        Leased::Mine(b) => b,
        Leased::Skip => return Ok(()),
    };
    let result = run_leased(st, job, &token, *cur).await;
    if result.is_err() {
        // Failed part-way: give the lease back so the redelivered job can start over at
        // once (its rows are writes ordered by place; counts are only added at the commit).
        // If even that fails, the lease runs out on its own.
        if let Err(e) = release_lease(st, job, &token).await {
            tracing::warn!(batch = %job.batch, chunk = job.index, error = ?e, "could not release a failed chunk's lease");
        }
    }
    result
}

async fn release_lease(st: &AppState, job: &ChunkJob, token: &str) -> WResult<()> {
    let mut tries = repo::Attempts::new("audience batch", &job.batch, None);
    while tries.next_try().is_ok() {
        let Some(cur) = load_batch(st, &job.account, &job.batch).await? else { return Ok(()) };
        if !cur.value.leases.iter().any(|l| l.chunk == job.index && l.token == token) {
            return Ok(());
        }
        if repo::audience::put_next(st.store.as_ref(), &without_lease(&cur.value, job.index), cur.version()).await.map_err(se)? {
            return Ok(());
        }
    }
    Ok(())
}

/// The chunk's work once its lease is taken.
async fn run_leased(st: &AppState, job: &ChunkJob, token: &str, mut cur: Versioned<Batch>) -> WResult<()> {
    let provider = match repo::audience::provider(st.store.as_ref(), &job.account, &cur.value.provider_id).await {
        Ok(p) => Some(p),
        Err(e) if e.is_not_found() => None,
        Err(e) => return Err(se(e)),
    };
    let Some(provider) = provider else {
        tracing::warn!(batch = %job.batch, "audience provider gone; batch cancelled");
        let mut next = without_lease(&cur.value, job.index);
        next.status = BatchStatus::Cancelled;
        next.leases.clear();
        next.running_bytes = 0;
        next.message = Some(format!("audience provider {} no longer exists", next.provider_id));
        // Lost to a concurrent change (a cancel): that one stands.
        repo::audience::put_next(st.store.as_ref(), &next, cur.version()).await.map_err(se)?;
        return Ok(());
    };
    let cat = Catalog::new(&provider);
    let chunk = cur.value.chunks[job.index as usize].clone();
    let mut tally = Tally::default();
    let mut pending = Pending::new(&cur.value, job.index);
    let mut last_progress = Instant::now();
    let started = Instant::now();
    let mut reader = ChunkReader::open(st, &chunk).await?;
    let mut writing = Writing(None);
    while let Some((block, consumed)) = reader.next_block().await? {
        let mut sink = |r: Row<'_>| pending.row(r);
        m::parse_block(&block, &cat, &mut tally, &mut sink);
        if pending.len() >= FLUSH_ROWS {
            let next = pending.flush(st, &cat);
            writing.done().await?;
            writing = next?;
        }
        if last_progress.elapsed() >= PROGRESS_EVERY {
            last_progress = Instant::now();
            if !record_progress(st, &mut cur, job.index, token, consumed).await? {
                tracing::info!(batch = %job.batch, chunk = job.index, "batch cancelled; chunk stopped");
                return writing.done().await;
            }
        }
    }
    writing.done().await?;
    pending.flush(st, &cat)?.done().await?;
    tally.overlong(reader.overlong);
    let stats = tally.stats();
    // Commit: counts, the chunk done and the next state, in one conditional write.
    let mut tries = repo::Attempts::worker("audience batch", &job.batch);
    loop {
        tries.next_try().map_err(se)?;
        if !holds(&cur.value, job.index, token) && !still_mine(st, &mut cur, job.index, token).await? {
            tracing::info!(batch = %job.batch, chunk = job.index, "batch cancelled or chunk taken over; chunk not committed");
            return Ok(());
        }
        let mut next = without_lease(&cur.value, job.index);
        next.chunks[job.index as usize].done = true;
        next.chunks_done += 1;
        next.bytes_done += chunk.end - chunk.start;
        next.stats.merge(&stats);
        if next.chunks.iter().all(|c| c.done) {
            next.status = BatchStatus::Finished;
            next.finished = Some(st.clock.now());
            next.leases.clear();
            next.running_bytes = 0;
        }
        if repo::audience::put_next(st.store.as_ref(), &next, cur.version()).await.map_err(se)? {
            tracing::info!(batch = %job.batch, chunk = job.index, rows = stats.rows, ms = started.elapsed().as_millis() as u64, "chunk committed");
            return after_commit(st, &next).await;
        }
        if !still_mine(st, &mut cur, job.index, token).await? {
            // Committed already (an earlier try of this write was applied without an
            // answer)? Then carry on from the commit.
            if cur.value.chunks.get(job.index as usize).is_some_and(|c| c.done) {
                return after_commit(st, &cur.value).await;
            }
            return Ok(());
        }
    }
}
