//! The one backoff of the crate: exponential, bounded and jittered. Attempt `n` (from 0)
//! has the ceiling `min(cap, base × 2ⁿ)`, and waits a random time in the top `spread` of
//! it: `[ceiling × (1 − spread), ceiling]`. A spread of 1 is full jitter (callers that
//! failed together do not retry together); a smaller one keeps a floor under the wait.
//! Used by the store's retries (`store::retrying`), a background writer's lost races
//! (`repo::Attempts::next_worker_try`) and a failed job's redelivery (`queue`).

use std::time::Duration;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Backoff {
    /// Tries in all (the first included); a caller that loops stops after these.
    pub attempts: u32,
    pub base: Duration,
    pub cap: Duration,
    /// The part of the ceiling the jitter covers, in percent (100: full jitter).
    pub spread_percent: u32,
}

impl Backoff {
    /// The store's retries of refused requests: 8 tries, 25 ms doubling to a 1 s cap, full
    /// jitter: at most ~3.4 s of waiting, well inside API Gateway's 29 s.
    pub const STORE: Backoff = Backoff { attempts: 8, base: Duration::from_millis(25), cap: Duration::from_secs(1), spread_percent: 100 };
    /// A background writer's lost race: 5 ms doubling to 320 ms, at least half of it, so
    /// racing workers spread out.
    pub const WORKER_WRITE: Backoff =
        Backoff { attempts: 20, base: Duration::from_millis(5), cap: Duration::from_millis(320), spread_percent: 50 };
    /// A failed job's message: 2ⁿ seconds after its n-th receive (n from 1), up to 50 % more,
    /// at most 15 minutes. The ceiling is the 50 % more (3 × 2ⁿ⁻¹ s), a third of it jitter.
    pub const REDELIVERY: Backoff =
        Backoff { attempts: u32::MAX, base: Duration::from_millis(1500), cap: Duration::from_secs(900), spread_percent: 34 };

    /// The longest a retry after attempt `n` (from 0) may wait.
    pub fn ceiling(&self, n: u32) -> Duration {
        self.base.saturating_mul(1u32 << n.min(20)).min(self.cap)
    }

    /// A random wait in the top `spread` of `ceiling(n)`.
    pub fn delay(&self, n: u32) -> Duration {
        let ceiling = self.ceiling(n).as_micros() as u64;
        let spread = ceiling * u64::from(self.spread_percent.min(100)) / 100;
        let r = (uuid::Uuid::new_v4().as_u128() as u64) % (spread + 1);
        Duration::from_micros(ceiling - spread + r)
    }

    /// The most all retries together may wait.
    pub fn budget(&self) -> Duration {
        (0..self.attempts.saturating_sub(1)).map(|n| self.ceiling(n)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_grow_to_the_cap_within_their_spread() {
        let b = Backoff::STORE;
        assert_eq!(b.ceiling(0), Duration::from_millis(25));
        assert_eq!(b.ceiling(3), Duration::from_millis(200));
        assert_eq!(b.ceiling(30), Duration::from_secs(1));
        let samples: Vec<Duration> = (0..200).map(|_| b.delay(5)).collect();
        assert!(samples.iter().all(|d| *d <= b.ceiling(5)));
        assert!(samples.iter().collect::<std::collections::BTreeSet<_>>().len() > 50, "jittered");
        assert!(b.budget() < Duration::from_secs(4), "{:?}", b.budget());
        let w = Backoff::WORKER_WRITE;
        for n in 0..8 {
            let c = w.ceiling(n);
            assert!((0..50).map(|_| w.delay(n)).all(|d| d >= c / 2 && d <= c), "attempt {n}");
        }
        // The redelivery of a job's n-th receive: 2ⁿ to 1.5 × 2ⁿ seconds, at most 15 minutes.
        let r = Backoff::REDELIVERY;
        assert_eq!(r.ceiling(1), Duration::from_secs(3));
        for n in 1..=10u32 {
            let c = r.ceiling(n);
            assert!((0..50).map(|_| r.delay(n)).all(|d| d >= c * 66 / 100 && d <= c), "receive {n}");
        }
        assert_eq!(r.ceiling(10), Duration::from_secs(900));
    }
}
