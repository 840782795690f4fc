//! Request rates per account (docs/traffic-quality.md, "Quotas and throttling"): a token
//! bucket per account in each process (a Lambda instance, the local server), so one
//! account's script cannot take an instance's capacity from the others. Past the bucket:
//! 429 with `Retry-After`. API Gateway's route throttling bounds the total in front.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Instant;

/// Accounts tracked at most (the map is cleared when full: buckets start full again).
pub const MAX_TRACKED: usize = 10_000;

/// Past the bucket: the message for the client and when a token is there again (seconds).
#[derive(Debug, Clone, PartialEq)]
pub struct Limited {
    pub message: String,
    pub retry_after: u64,
}

#[derive(Default)]
pub struct AccountLimiter {
    buckets: Mutex<HashMap<String, (f64, Instant)>>,
}

impl AccountLimiter {
    /// Takes one request's token of `account` (`rate` per second, at most `burst` saved).
    pub fn take(&self, account: &str, rate: f64, burst: f64) -> Result<(), Limited> {
        if rate <= 0.0 {
            return Ok(());
        }
        let Ok(mut m) = self.buckets.lock() else { return Ok(()) };
        if m.len() >= MAX_TRACKED && !m.contains_key(account) {
            m.clear();
        }
        let now = Instant::now();
        let (tokens, last) = m.entry(account.to_string()).or_insert((burst, now));
        *tokens = (*tokens + now.duration_since(*last).as_secs_f64() * rate).min(burst);
        *last = now;
        if *tokens >= 1.0 {
            *tokens -= 1.0;
            return Ok(());
        }
        let wait = ((1.0 - *tokens) / rate).ceil().max(1.0) as u64;
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
        for _ in 0..5 {
            l.take("a", 1.0, 5.0).unwrap();
        }
        let e = l.take("a", 1.0, 5.0).unwrap_err();
        assert_eq!(e.retry_after, 1);
        l.take("b", 1.0, 5.0).unwrap();
        l.take("a", 0.0, 0.0).unwrap();
    }
}
