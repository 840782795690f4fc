//! The asset worker (docs/media.md): a message names an asset, or is the media engine's
//! completion event; the use cases (`usecases::asset_jobs`) do what the asset's state
//! leaves to do. A message that cannot be read is dropped; a failure of the service comes
//! back through the queue.

use crate::state::AppState;
use crate::usecases::asset_jobs::{self, Named};
use crate::workers::JobResult;

pub use crate::jobs::AssetJob;

/// One message of the assets queue naming an asset (an arrival or a linked transcode).
pub async fn process(st: &AppState, job: &AssetJob) -> JobResult<()> {
    Ok(asset_jobs::advance(st, &Named { account: &job.account, asset: &job.asset }).await?)
}
