//! Request rates per account (docs/traffic-quality.md, "Quotas and throttling"): a token
//! bucket per account in each process (a Lambda instance, the local server), so one
//! account's script cannot take an instance's capacity from the others. Past the bucket:
//! 429 with `Retry-After`. API Gateway's route throttling bounds the total in front.

use std::time::{Duration, Instant};

use crate::ttl_cache::TtlCache;

/// Accounts tracked at most (past it the least recently written bucket goes, and starts
/// full again when its account comes back).
pub const MAX_TRACKED: usize = 10_000;
/// A bucket idle this long is dropped: it would be full again at any sensible rate.
pub const IDLE_FOR: Duration = Duration::from_secs(3600);

/// Past the bucket: the message for the client and when a token is there again (seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct Limited {
    pub message: String,
    pub retry_after: u64,
}

pub struct AccountLimiter {
    /// Each account's tokens and when they were counted.
    buckets: TtlCache<String, (f64, Instant)>,
}

impl Default for AccountLimiter {
    fn default() -> Self {
        AccountLimiter { buckets: TtlCache::new(IDLE_FOR, MAX_TRACKED) }
    }
}

impl AccountLimiter {
    /// Takes one request's token of `account` at `now` (`rate` per second, at most `burst`
    /// saved).
    pub fn take(&self, account: &str, rate: f64, burst: f64, now: Instant) -> Result<(), Limited> {
        if rate <= 0.0 {
            return Ok(());
        }
        let left = self.buckets.update(account.to_string(), now, |bucket| {
            let (tokens, last) = bucket.unwrap_or((burst, now));
            let tokens = (tokens + now.saturating_duration_since(last).as_secs_f64() * rate).min(burst);
            let taken = tokens >= 1.0;
            let tokens = if taken { tokens - 1.0 } else { tokens };
            ((tokens, now), (taken, tokens))
        });
        let Some((false, tokens)) = left else { return Ok(()) };
        let wait = ((1.0 - tokens) / rate).ceil().max(1.0) as u64;
        Err(Limited {
            message: format!("this account sends more than {rate} requests per second (bursts of {burst}) to this API; slow down"),
            retry_after: wait,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_refills_at_its_rate() {
        let l = AccountLimiter::default();
        let t0 = Instant::now();
        for _ in 0..5 {
            l.take("a", 1.0, 5.0, t0).unwrap();
        }
        let e = l.take("a", 1.0, 5.0, t0).unwrap_err();
        assert_eq!(e.retry_after, 1);
        l.take("a", 1.0, 5.0, t0 + Duration::from_secs(1)).unwrap();
        assert!(l.take("a", 1.0, 5.0, t0 + Duration::from_secs(1)).is_err());
        l.take("b", 1.0, 5.0, t0).unwrap();
        l.take("a", 0.0, 0.0, t0).unwrap();
    }
}
