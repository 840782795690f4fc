//! Users' passwords (docs/people-and-roles.md): Argon2id with OWASP's parameters (19 MiB,
//! 2 passes, 1 lane: the `argon2` crate's defaults), a random salt each, stored as the PHC
//! string. Hashing and verifying take tens of milliseconds of CPU and 19 MiB each, off the
//! runtime's threads, so one sign-in never stalls the requests sharing its runtime. A
//! sign-in's verification passes the process's `Gate`: about one run a core, a short queue,
//! then refused; and it runs on the gate's own threads, one a turn, so the 19 MiB blocks the
//! allocator keeps after each run are kept by those few threads only, never by every
//! thread of the blocking pool (300 sign-ins at once held 154 MB more that way; docs/security.md).

use argon2::password_hash::{phc::PasswordHash, PasswordHasher, PasswordVerifier};
use argon2::Argon2;

use crate::cause::Cause;

/// The PHC string of `password` (`$argon2id$v=19$m=19456,t=2,p=1$<salt>$<hash>`).
pub async fn hash(password: String) -> Result<String, Cause> {
    tokio::task::spawn_blocking(move || {
        Argon2::default().hash_password(password.as_bytes()).map(|h| h.to_string()).map_err(|e| Cause::msg(format!("argon2: {e}")))
    })
    .await
    .map_err(|e| Cause::msg(format!("the hashing task ended: {e}")))?
}

/// Whether `password` is the one `phc` was made from. `None` (no such user) verifies
/// against a fixed hash all the same, so an unknown email takes the time a known one does.
pub async fn verify(password: String, phc: Option<String>) -> bool {
    tokio::task::spawn_blocking(move || verify_now(&password, phc)).await.unwrap_or(false)
}

/// `verify` on this thread.
fn verify_now(password: &str, phc: Option<String>) -> bool {
    let known = phc.is_some();
    let stored = phc.unwrap_or_else(|| DUMMY.to_string());
    let Ok(parsed) = PasswordHash::new(&stored) else { return false };
    Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && known
}

/// `verify` on this thread, in `memory` (grown to the hash's block count once, then
/// reused): the allocator never sees Argon2's 19 MiB again, so it cannot keep copies of it.
fn verify_in(memory: &mut Vec<argon2::Block>, password: &str, phc: Option<String>) -> bool {
    use argon2::{Algorithm, Params, Version};
    use subtle::ConstantTimeEq;
    let known = phc.is_some();
    let stored = phc.unwrap_or_else(|| DUMMY.to_string());
    let Ok(parsed) = PasswordHash::new(&stored) else { return false };
    let (Some(salt), Some(expected)) = (&parsed.salt, &parsed.hash) else { return false };
    let (Ok(params), Ok(algorithm)) = (Params::try_from(&parsed), Algorithm::try_from(parsed.algorithm.as_str())) else { return false };
    let version = match parsed.version.map(Version::try_from) {
        None => Version::default(),
        Some(Ok(v)) => v,
        Some(Err(_)) => return false,
    };
    let blocks = params.block_count();
    if memory.len() < blocks {
        memory.resize(blocks, argon2::Block::default());
    }
    let mut out = vec![0u8; expected.len()];
    let done = Argon2::new(algorithm, version, params).hash_password_into_with_memory(
        password.as_bytes(),
        salt.as_ref(),
        &mut out,
        &mut memory[..blocks],
    );
    done.is_ok() && bool::from(out.as_slice().ct_eq(expected.as_bytes())) && known
}

/// The verifications a process runs at once and how many may wait for a turn; past that a
/// sign-in is refused at once (`Busy`: 503 with `Retry-After`) instead of queueing memory.
pub struct Gate {
    turns: tokio::sync::Semaphore,
    runs: usize,
    waiting: std::sync::atomic::AtomicUsize,
    max_waiting: usize,
    verified: std::sync::atomic::AtomicU64,
    /// The gate's threads' queue, started at the first verification (none at cold start).
    workers: std::sync::OnceLock<std::sync::mpsc::Sender<Job>>,
}

/// A verification for the gate's threads: the password, the stored hash, where the answer goes.
type Job = (String, Option<String>, tokio::sync::oneshot::Sender<bool>);

/// The gate was full: the sign-in is refused before any work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy;

impl Gate {
    pub fn new(runs: usize, max_waiting: usize) -> Gate {
        Gate {
            turns: tokio::sync::Semaphore::new(runs.max(1)),
            runs: runs.max(1),
            waiting: std::sync::atomic::AtomicUsize::new(0),
            max_waiting,
            verified: std::sync::atomic::AtomicU64::new(0),
            workers: std::sync::OnceLock::new(),
        }
    }

    /// The queue of the gate's threads, one a turn: each takes the next job and answers it.
    /// They end when the gate is dropped (the queue closes).
    fn workers(&self) -> &std::sync::mpsc::Sender<Job> {
        self.workers.get_or_init(|| {
            let (tx, rx) = std::sync::mpsc::channel::<Job>();
            let rx = std::sync::Arc::new(std::sync::Mutex::new(rx));
            for i in 0..self.runs {
                let rx = rx.clone();
                let spawned = std::thread::Builder::new().name(format!("argon2-{i}")).spawn(move || {
                    // This thread's Argon2 memory, made at its first run and used by every one.
                    let mut memory: Vec<argon2::Block> = Vec::new();
                    loop {
                        let job = match rx.lock() {
                            Ok(r) => r.recv(),
                            Err(_) => return,
                        };
                        let Ok((password, phc, answer)) = job else { return };
                        let _ = answer.send(verify_in(&mut memory, &password, phc));
                    }
                });
                if let Err(e) = spawned {
                    tracing::error!(error = %e, "an Argon2 thread could not start");
                }
            }
            tx
        })
    }

    /// One run a core of this machine, and four waiting a core.
    pub fn for_this_machine() -> Gate {
        let cores = std::thread::available_parallelism().map(|n| n.get()).unwrap_or(2);
        Gate::new(cores, 4 * cores)
    }

    /// `verify` when a turn is free or a place in the queue is; `Busy` otherwise.
    pub async fn verify(&self, password: String, phc: Option<String>) -> Result<bool, Busy> {
        use std::sync::atomic::Ordering;
        if self.waiting.fetch_add(1, Ordering::SeqCst) >= self.max_waiting + self.turns.available_permits() {
            self.waiting.fetch_sub(1, Ordering::SeqCst);
            return Err(Busy);
        }
        let turn = self.turns.acquire().await;
        self.waiting.fetch_sub(1, Ordering::SeqCst);
        let Ok(_turn) = turn else { return Err(Busy) };
        self.verified.fetch_add(1, Ordering::SeqCst);
        let (tx, rx) = tokio::sync::oneshot::channel();
        if self.workers().send((password, phc, tx)).is_err() {
            return Err(Busy);
        }
        rx.await.map_err(|_| Busy)
    }

    /// The verifications this gate has let through (the benches and tests count them).
    pub fn verified(&self) -> u64 {
        self.verified.load(std::sync::atomic::Ordering::SeqCst)
    }
}

impl Default for Gate {
    fn default() -> Gate {
        Gate::for_this_machine()
    }
}

/// A hash of a random password nobody knows, with the parameters of every stored hash.
const DUMMY: &str = "$argon2id$v=19$m=19456,t=2,p=1$cmFuZG9tc2FsdHZhbHVl$E7Y2Bd2k0mYz0Q8sYcWb3kq6bWm2rCq9Xo2Y0b1jQ3A";

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_password_verifies_against_its_hash_only() {
        let h = hash("correct horse battery".into()).await.expect("hash");
        assert!(h.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"), "{h}");
        assert!(!h.contains("correct horse"));
        assert!(verify("correct horse battery".into(), Some(h.clone())).await);
        assert!(!verify("correct horse batterY".into(), Some(h.clone())).await);
        assert_ne!(hash("correct horse battery".into()).await.expect("hash"), h, "a salt each");
        assert!(!verify("anything at all!".into(), None).await);
        assert!(PasswordHash::new(DUMMY).is_ok(), "the dummy hash parses, so it costs a verification");
        // The gate's threads verify in memory of their own: the same answers.
        let mut memory = Vec::new();
        assert!(verify_in(&mut memory, "correct horse battery", Some(h.clone())));
        assert!(!verify_in(&mut memory, "correct horse batterY", Some(h.clone())));
        assert!(verify_in(&mut memory, "correct horse battery", Some(h)));
        assert!(!verify_in(&mut memory, "anything at all!", None));
        assert_eq!(memory.len(), 19 * 1024, "19 MiB of 1 KiB blocks, made once");
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_full_gate_refuses_at_once_and_runs_at_most_its_turns_and_queue() {
        use std::sync::atomic::Ordering;
        let gate = std::sync::Arc::new(Gate::new(1, 2));
        // The one turn taken: two sign-ins wait for it, a third is refused at once.
        let held = gate.turns.acquire().await.expect("the turn");
        let waiting: Vec<_> = (0..2)
            .map(|_| {
                let gate = gate.clone();
                tokio::spawn(async move { gate.verify("wrong password!".into(), None).await })
            })
            .collect();
        while gate.waiting.load(Ordering::SeqCst) < 2 {
            tokio::task::yield_now().await;
        }
        assert_eq!(gate.verify("wrong password!".into(), None).await, Err(Busy));
        assert_eq!(gate.verified(), 0, "nothing verified while the turn is held");
        drop(held);
        for w in waiting {
            assert_eq!(w.await.expect("the task ends"), Ok(false));
        }
        assert_eq!(gate.verified(), 2);
    }
}
