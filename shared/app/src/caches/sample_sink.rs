//! Traffic samples leave the ad request's response path (docs/traffic-quality.md §3): the
//! serving code hands a sample's record to this buffer and answers; the buffer is written
//! as batch writes of up to 25 records, once it holds 25 or a second after its first
//! record. Bounded: past `MAX_BUFFERED` records a sample is dropped (samples are a
//! statistic; losing some under a flood is the right failure). On Lambda a buffer left when
//! an invocation ends is written during a later one, or lost with the execution
//! environment.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::store::{Item, Store};

pub const BATCH: usize = 25;
pub const MAX_BUFFERED: usize = 1000;
pub const FLUSH_AFTER: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct SampleSink {
    buf: Mutex<Vec<Item>>,
    scheduled: AtomicBool,
    /// Held while a flush writes: a flush that starts while another writes waits for it,
    /// so that once `flush` returns, every record pushed before it is in the store.
    writing: tokio::sync::Mutex<()>,
}

impl SampleSink {
    /// Buffers a record; a write is scheduled (at once when a batch is full).
    pub fn push(self: &Arc<Self>, store: Arc<dyn Store>, item: Item) {
        let full = {
            let Ok(mut b) = self.buf.lock() else { return };
            if b.len() >= MAX_BUFFERED {
                tracing::warn!("traffic sample buffer full; sample dropped");
                return;
            }
            b.push(item);
            b.len() >= BATCH
        };
        if full || !self.scheduled.swap(true, Ordering::AcqRel) {
            let me = self.clone();
            tokio::spawn(async move {
                if !full {
                    tokio::time::sleep(FLUSH_AFTER).await;
                }
                me.flush(store.as_ref()).await;
            });
        }
    }

    /// Writes what is buffered (and waits for a write under way).
    pub async fn flush(&self, store: &dyn Store) {
        let _writing = self.writing.lock().await;
        self.scheduled.store(false, Ordering::Release);
        let items = match self.buf.lock() {
            Ok(mut b) => std::mem::take(&mut *b),
            Err(_) => return,
        };
        for chunk in items.chunks(BATCH) {
            if let Err(e) = store.batch_put(chunk.to_vec()).await {
                tracing::warn!(error = %e, samples = chunk.len(), "traffic samples not recorded");
            }
        }
    }

    /// Records waiting to be written.
    pub fn pending(&self) -> usize {
        self.buf.lock().map_or(0, |b| b.len())
    }
}
