//! Goals (seed 001 §4.2, §2.2): one use case per operation. A goal lives in one campaign;
//! deleting keeps a tombstone (`/v3 includeDeletedGoals`).

use super::UseCaseResult;
use crate::domain_error::{no_id_on_create, DomainError};
use crate::ids::new_id;
use crate::ids::AccountId;
use crate::model::campaign::Campaign;
use crate::model::goal::{Goal, GoalInput};
use crate::repo;
use crate::repo::{RepoError, Versioned};
use crate::rule::Rule;
use crate::state::AppState;

const ROOT: &str = "goalBean";

/// A goal's campaign that is not in the account is the body's fault (400 naming the field).
fn campaign_ref(e: RepoError, id: &str) -> RepoError {
    if e.is_not_found() {
        RepoError::field("goalBean/campaignId", Rule::Reference, format!("goalBean/campaignId: no campaign with id {id} in this account"))
    } else {
        e
    }
}

/// A goal's `marketplaceId` names one of the account's marketplaces (400 `unknown`).
async fn check_marketplace(st: &AppState, account: &AccountId, input: &GoalInput) -> UseCaseResult<()> {
    match input.marketplace_id.as_deref() {
        Some(m) if !super::demand::marketplace_exists(st, account, m).await? => Err(super::UseCaseError::field(
            "goalBean/marketplaceId",
            Rule::Unknown,
            format!("goalBean/marketplaceId: no marketplace with id {m} in this account (see /v1/marketplaces)"),
        )),
        _ => Ok(()),
    }
}

pub async fn create(st: &AppState, account: &AccountId, input: GoalInput) -> UseCaseResult<Goal> {
    no_id_on_create(ROOT, input.id.as_deref())?;
    check_marketplace(st, account, &input).await?;
    let id = new_id();
    let campaign = input.campaign_id.as_str();
    let build = || Goal::created(id.clone(), &input, st.clock.now());
    let g = repo::goals::create(st.store.as_ref(), account, campaign, |e| campaign_ref(e, campaign), build).await?;
    tracing::info!(goal = %g.id, campaign = %campaign, "goal created");
    Ok(g)
}

/// A goal and its campaign.
pub async fn get(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<(Versioned<Goal>, Versioned<Campaign>)> {
    Ok(repo::goals::load(st.store.as_ref(), account, id).await?)
}

/// A campaign and its live goals by start, name, then id.
pub async fn of_campaign(st: &AppState, account: &AccountId, campaign_id: &str) -> UseCaseResult<(Campaign, Vec<Goal>)> {
    let c = repo::campaigns::load(st.store.as_ref(), account, campaign_id).await?.value;
    let goals = live_of(st, account, &c).await?;
    Ok((c, goals))
}

/// The live goals of a campaign already read, by start, name, then id.
pub async fn live_of(st: &AppState, account: &AccountId, c: &Campaign) -> UseCaseResult<Vec<Goal>> {
    let mut goals = repo::goals::load_many(st.store.as_ref(), account, &c.live_goal_ids()).await?;
    goals.sort_by(|x, y| x.start.cmp(&y.start).then(x.name.cmp(&y.name)).then(x.id.cmp(&y.id)));
    Ok(goals)
}

/// Replaces goal `id` with the parsed body: 404 first, then the body's errors.
pub async fn update(
    st: &AppState,
    account: &AccountId,
    id: &str,
    expected: Option<u64>,
    input: Result<GoalInput, DomainError>,
) -> UseCaseResult<()> {
    let load = repo::goals::load(st.store.as_ref(), account, id);
    let (cur, input) = super::beans::for_update(load, ROOT, id, input, |i| i.id.as_deref()).await?;
    check_marketplace(st, account, &input).await?;
    repo::goals::update(st.store.as_ref(), account, cur, expected, |stored| Ok(stored.updated(&input, st.clock.now())?)).await?;
    Ok(())
}

pub async fn remove(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    repo::goals::remove(st.store.as_ref(), account, id, st.clock.now()).await?;
    tracing::info!(goal = %id, "goal deleted");
    Ok(())
}
