//! The media engine's completion events on the assets queue (MediaConvert's job state
//! changes through EventBridge): recorded by `usecases::asset_jobs::completion`.

use crate::media::job_events::Completion;
use crate::state::AppState;
use crate::usecases::asset_jobs;
use crate::workers::JobResult;

pub async fn completion(st: &AppState, c: Completion) -> JobResult<()> {
    Ok(asset_jobs::completion(st, c).await?)
}
