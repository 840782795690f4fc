//! Bulk edits (docs/operations-guide.md, "Bulk edits"): many goals or ads in one
//! all-or-nothing transaction, each with its change record.

use super::UseCaseResult;
use crate::ids::AccountId;
use crate::model::bulk::{self, AdSet, GoalSet};
use crate::repo;
use crate::state::AppState;

/// The goals' new versions, in the order of `ids`.
pub async fn goals(st: &AppState, account: &AccountId, ids: &[String], set: &GoalSet) -> UseCaseResult<Vec<(String, u64)>> {
    let now = st.clock.now();
    let done = repo::bulk::goals(st.store.as_ref(), account, ids, set.moves_flights(), |g| bulk::apply_goal(g, set, now)).await?;
    tracing::info!(goals = done.len(), "goals edited in bulk");
    Ok(done)
}

/// The ads' new versions, in the order of `ids`.
pub async fn ads(st: &AppState, account: &AccountId, ids: &[String], set: &AdSet) -> UseCaseResult<Vec<(String, u64)>> {
    let done = repo::bulk::ads(st.store.as_ref(), account, ids, set, st.clock.now()).await?;
    tracing::info!(ads = done.len(), "ads edited in bulk");
    Ok(done)
}
