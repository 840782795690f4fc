//! Users' passwords (docs/people-and-roles.md): Argon2id with OWASP's parameters (19 MiB,
//! 2 passes, 1 lane: the `argon2` crate's defaults), a random salt each, stored as the PHC
//! string. Hashing and verifying take tens of milliseconds of CPU and 19 MiB each: they run
//! on the blocking pool, so one sign-in never stalls the requests sharing its runtime.

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
    tokio::task::spawn_blocking(move || {
        let known = phc.is_some();
        let stored = phc.unwrap_or_else(|| DUMMY.to_string());
        let Ok(parsed) = PasswordHash::new(&stored) else { return false };
        Argon2::default().verify_password(password.as_bytes(), &parsed).is_ok() && known
    })
    .await
    .unwrap_or(false)
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
    }
}
