//! The notices worker: one bidder notice per message (`usecases::bid_notices`). A message
//! that cannot be read is dropped; a call that failed is given back to the queue.

use super::{JobError, JobResult};
use crate::jobs::Notice;
use crate::state::AppState;
use crate::usecases::bid_notices::{self, Fired};

pub async fn process(st: &AppState, body: &str) -> JobResult<()> {
    let n = Notice::parse(body).map_err(JobError::Drop)?;
    match bid_notices::fire(st, &n).await {
        Ok(Fired::Done) => Ok(()),
        Ok(Fired::Refused(status)) => Err(JobError::Drop(format!("the bidder refused the {} notice (HTTP {status})", n.kind))),
        Ok(Fired::NotAllowed(why)) => Err(JobError::Drop(format!("the {} notice was not sent: {why}", n.kind))),
        Err(e) => Err(JobError::from(e)),
    }
}
