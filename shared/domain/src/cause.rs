//! The cause of an internal failure, kept with its chain of sources so the log line shows
//! where it came from (the SDK's error, redb's, serde's), while clients see a generic
//! message. Cloneable (shared), so the errors that carry it stay `Clone`. A leaf module:
//! the port errors and `AppError` all build on it.

use std::error::Error;
use std::fmt;
use std::sync::Arc;

#[derive(Clone)]
pub struct Cause(Arc<dyn Error + Send + Sync>);

impl Cause {
    pub fn new(e: impl Error + Send + Sync + 'static) -> Cause {
        Cause(Arc::new(e))
    }

    /// A cause that is only a message (no underlying error).
    pub fn msg(m: impl Into<String>) -> Cause {
        let boxed: Box<dyn Error + Send + Sync> = m.into().into();
        Cause(Arc::from(boxed))
    }

    /// `e` under a message that says what was being done (`corrupt record A#x/CAMPAIGN`).
    pub fn context(m: impl Into<String>, e: impl Error + Send + Sync + 'static) -> Cause {
        Cause::new(Context { message: m.into(), source: Box::new(e) })
    }

    /// The message and every source below it, `a: b: c`.
    pub fn chain(&self) -> String {
        let mut out = self.0.to_string();
        let mut cur = self.0.source();
        while let Some(e) = cur {
            out.push_str(": ");
            out.push_str(&e.to_string());
            cur = e.source();
        }
        out
    }
}

/// A message over the error it explains.
#[derive(Debug)]
struct Context {
    message: String,
    source: Box<dyn Error + Send + Sync>,
}

impl fmt::Display for Context {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl Error for Context {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        Some(&*self.source)
    }
}

impl fmt::Debug for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Cause {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&*self.0, f)
    }
}

impl Error for Cause {
    fn source(&self) -> Option<&(dyn Error + 'static)> {
        self.0.source()
    }
}

/// Two causes are equal when they say the same (tests compare errors).
impl PartialEq for Cause {
    fn eq(&self, other: &Cause) -> bool {
        self.chain() == other.chain()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug)]
    struct Outer(std::io::Error);
    impl fmt::Display for Outer {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "reading the table")
        }
    }
    impl Error for Outer {
        fn source(&self) -> Option<&(dyn Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn the_chain_keeps_every_source() {
        let c = Cause::new(Outer(std::io::Error::other("disk full")));
        assert_eq!(c.chain(), "reading the table: disk full");
        assert_eq!(Cause::msg("plain").chain(), "plain");
        let c = Cause::context("decoding A#a/CAMPAIGN/c1", Outer(std::io::Error::other("eof")));
        assert_eq!(c.chain(), "decoding A#a/CAMPAIGN/c1: reading the table: eof");
    }
}
