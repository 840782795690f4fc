//! The auctions' report counters leave the ad request's response path (docs/programmatic.md,
//! "Counting the auctions"): the serving code adds to a cell in this buffer and answers;
//! the buffer's cells are written as `ADD`s a second after the first one. Bounded: past
//! `MAX_CELLS` cells an auction's counters are dropped (they are statistics; losing some
//! under a flood is the right failure). On Lambda a buffer left when an invocation ends is
//! written during a later one, or lost with the execution environment.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::delivery::counters::Slot;
use crate::store::{Cond, Key, Store};

pub const MAX_CELLS: usize = 1000;
pub const FLUSH_AFTER: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct AuctionStats {
    cells: Mutex<HashMap<Key, BTreeMap<Slot, i64>>>,
    scheduled: AtomicBool,
}

impl AuctionStats {
    /// Adds to a cell's counters; a write is scheduled.
    pub fn add(self: &Arc<Self>, store: Arc<dyn Store>, cell: &super::reports::AuctionCell<'_>, deltas: &[(Slot, i64)]) {
        let key = cell.key();
        {
            let Ok(mut cells) = self.cells.lock() else { return };
            if !cells.contains_key(&key) && cells.len() >= MAX_CELLS {
                tracing::warn!("auction counters buffer full; an auction's counters dropped");
                return;
            }
            let cell = cells.entry(key).or_default();
            for (slot, n) in deltas {
                *cell.entry(*slot).or_insert(0) += n;
            }
        }
        if !self.scheduled.swap(true, Ordering::AcqRel) {
            let me = self.clone();
            tokio::spawn(async move {
                tokio::time::sleep(FLUSH_AFTER).await;
                me.flush(store.as_ref()).await;
            });
        }
    }

    /// Writes what is buffered.
    pub async fn flush(&self, store: &dyn Store) {
        self.scheduled.store(false, Ordering::Release);
        let cells = match self.cells.lock() {
            Ok(mut c) => std::mem::take(&mut *c),
            Err(_) => return,
        };
        for (key, deltas) in cells {
            let deltas: Vec<(String, i64)> = deltas.into_iter().map(|(s, n)| (s.name().to_string(), n)).collect();
            if let Err(e) = store.add(&key, &deltas, Cond::None).await {
                tracing::warn!(error = %e, "auction counters not recorded");
            }
        }
    }
}
