//! Ads (seed 000 §2.1-§2.4, §4.1-§4.4): one use case per operation. The rules of a write
//! are the model's (`Ad::created`, `Ad::replaced`, `Ad::apply`); this module sequences the
//! repository and the asset a write links (its transcode starts with the write).

use crate::ids::AccountId;
use chrono::{DateTime, Utc};

use super::{UseCaseError, UseCaseResult};
use crate::domain_error::DomainError;
use crate::ids::new_id;
use crate::json::Keyed;
use crate::model::ad::{check_asset, check_containers, check_in_goal, Ad};
use crate::model::ad_write::{AdInput, AdPatch};
use crate::model::goal::Goal;
use crate::repo;
use crate::repo::ads::AdWrite;
use crate::repo::reference::Kind;
use crate::rule::Rule;
use crate::state::AppState;

/// An ad as a client reads it: its goal (for the dates it inherits), its version (the
/// ETag), and the account's device containers when the ad names none of its own.
pub struct Shown {
    pub ad: Ad,
    pub goal: Goal,
    pub version: u64,
    pub containers: Vec<String>,
}

async fn shown(st: &AppState, account: &AccountId, ad: Ad, goal: Goal, version: u64) -> UseCaseResult<Shown> {
    let containers = match ad.device_containers {
        Some(_) => Vec::new(),
        None => repo::reference::ids(st.store.as_ref(), account, Kind::DeviceContainer).await?,
    };
    Ok(Shown { ad, goal, version, containers })
}

/// The rules of an ad's write, checked within each attempt against what it reads (its
/// goal and the asset it links) and the account's device containers (`containers`, read
/// when the ad names some).
pub(crate) fn rules(containers: Vec<String>) -> impl Fn(&AdWrite) -> Result<(), DomainError> + Send + Sync {
    move |w| {
        let mut errors = check_in_goal(w.ad, w.goal, w.current.is_none());
        errors.extend(check_containers(w.ad, &containers));
        errors.extend(check_asset(w.ad, w.current, w.asset));
        if errors.is_empty() {
            Ok(())
        } else {
            Err(DomainError::Validation(errors))
        }
    }
}

/// The account's device containers, when an ad names some (what `rules` checks them against).
pub(crate) async fn containers_for(st: &AppState, account: &AccountId, names_some: bool) -> UseCaseResult<Vec<String>> {
    Ok(if names_some { repo::reference::ids(st.store.as_ref(), account, Kind::DeviceContainer).await? } else { Vec::new() })
}

/// The goal an ad names, for a write: a missing goal is the body's fault (400 naming goalId).
fn goal_named(goal_id: &str, e: repo::RepoError) -> UseCaseError {
    if e.is_not_found() {
        UseCaseError::field("goalId", Rule::Reference, format!("goalId: no goal {goal_id} in this account"))
    } else {
        e.into()
    }
}

pub async fn create(st: &AppState, account: &AccountId, input: AdInput) -> UseCaseResult<Shown> {
    if input.id.is_some() {
        return Err(UseCaseError::field("id", Rule::NotOnCreate, "id is set only when replacing or modifying; the service assigns ids"));
    }
    let id = new_id();
    let now = st.clock.now();
    let rules = rules(containers_for(st, account, input.device_containers.is_some()).await?);
    let (ad, goal) = repo::ads::create(st.store.as_ref(), account, &input.goal_id, now, || Ad::created(id.clone(), &input, now), &rules)
        .await
        .map_err(|e| goal_named(&input.goal_id, e))?;
    tracing::info!(ad = %id, goal = %input.goal_id, "ad created");
    super::assets::transcode_linked(st, account, ad.creative.asset_id.as_deref()).await;
    shown(st, account, ad, goal, 1).await
}

/// `PUT`: the ad named by the body's id (404 first), replaced by the body.
pub async fn replace(st: &AppState, account: &AccountId, cmd: Keyed<AdInput>, expected: Option<u64>) -> UseCaseResult<Shown> {
    let cur = repo::ads::load_live(st.store.as_ref(), account, &cmd.id).await?;
    let input = cmd.body?;
    let now = st.clock.now();
    let rules = rules(containers_for(st, account, input.device_containers.is_some()).await?);
    let written =
        repo::ads::update(st.store.as_ref(), account, cur, expected, now, |stored| Ok(Some(stored.replaced(&input, now)?)), &rules).await?;
    let Some((ad, goal, version)) = written else { return Err(repo::conflict().into()) };
    super::assets::transcode_linked(st, account, ad.creative.asset_id.as_deref()).await;
    shown(st, account, ad, goal, version).await
}

/// `PATCH`: the ad named by the body's id (404 first), with the body's fields; a body that
/// changes nothing writes nothing.
pub async fn modify(st: &AppState, account: &AccountId, cmd: Keyed<AdPatch>, expected: Option<u64>) -> UseCaseResult<()> {
    let cur = repo::ads::load_live(st.store.as_ref(), account, &cmd.id).await?;
    let patch = cmd.body?;
    let now = st.clock.now();
    let rules = rules(containers_for(st, account, cur.0.value.device_containers.is_some()).await?);
    repo::ads::update(st.store.as_ref(), account, cur, expected, now, |stored| Ok(stored.apply(&patch, now)), &rules).await?;
    Ok(())
}

pub async fn get(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Shown> {
    let (ad, goal) = repo::ads::load_live(st.store.as_ref(), account, id).await?;
    let version = ad.version();
    shown(st, account, ad.value, goal.value, version).await
}

/// Deletes an ad: it stops serving with the next snapshot; its asset stays.
pub async fn remove(st: &AppState, account: &AccountId, id: &str, expected: Option<u64>) -> UseCaseResult<()> {
    let ad = repo::ads::remove(st.store.as_ref(), account, id, expected).await?;
    tracing::info!(ad = %ad.id, goal = %ad.goal_id, "ad deleted");
    Ok(())
}

/// The account's newest ads created between the bounds (the list's window).
pub async fn newest(
    st: &AppState,
    account: &AccountId,
    after: Option<DateTime<Utc>>,
    before: Option<DateTime<Utc>>,
) -> UseCaseResult<Vec<Ad>> {
    Ok(repo::ads::newest(st.store.as_ref(), account, after, before).await?)
}
