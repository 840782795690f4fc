//! Reading the compile worker's snapshot of an account from the bucket (one GET): any
//! failure (no bucket in this function, the object gone, another format, a damaged
//! object) is logged and answered `None`, and the caller compiles the records itself.

use crate::blobs::Blobs;
use crate::delivery::compiled;
use crate::delivery::snapshot::Snapshot;
use crate::repo::delivery::Compiled;

pub async fn read(blobs: &dyn Blobs, account: &str, pointer: Option<&Compiled>) -> Option<Snapshot> {
    let c = pointer?;
    if blobs.kind() == "none" {
        // A function without a bucket compiles on demand.
        return None;
    }
    let bytes = match blobs.get(&c.object).await {
        Ok(Some(b)) => b,
        Ok(None) => {
            tracing::info!(account, object = %c.object, "compiled snapshot gone (a newer one replaced it); compiling on demand");
            return None;
        }
        Err(e) => {
            tracing::warn!(account, object = %c.object, error = %e, "compiled snapshot not read; compiling on demand");
            return None;
        }
    };
    match compiled::decode(&bytes) {
        Ok(s) if s.account == account && s.version == c.version => Some(s),
        Ok(s) => {
            tracing::error!(account, object = %c.object, found = %s.account, version = s.version, "compiled snapshot of another account or version; compiling on demand");
            None
        }
        Err(e) => {
            tracing::warn!(account, object = %c.object, error = %e, "compiled snapshot not decoded; compiling on demand");
            None
        }
    }
}
