//! The forecast worker: one job per message, run by `usecases::forecast_run`. A message
//! that cannot be read is dropped; a failure of the store is given back to the queue.

use super::{JobError, JobResult};
use crate::state::AppState;
use crate::usecases::forecast_run;

pub use crate::jobs::ForecastMessage;

pub async fn process(st: &AppState, m: &ForecastMessage) -> JobResult<()> {
    forecast_run::run(st, m).await.map(|_| ()).map_err(JobError::from)
}

/// Parses a message (a malformed one can never succeed: dropped).
pub fn parse(body: &str) -> JobResult<ForecastMessage> {
    ForecastMessage::parse(body).map_err(JobError::Drop)
}
