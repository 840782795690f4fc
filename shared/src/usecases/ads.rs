//! Ads (seed 000 §2.1-§2.4, §4.1-§4.4): one use case per operation. The rules of a write
//! are the model's (`Ad::created`, `Ad::replaced`, `Ad::apply`); this module sequences the
//! repository and the asset a write links (its transcode starts with the write).

use chrono::{DateTime, Utc};

use super::{UseCaseError, UseCaseResult};
use crate::ids::new_id;
use crate::json::Keyed;
use crate::model::ad::Ad;
use crate::model::ad_write::{AdInput, AdPatch};
use crate::model::goal::Goal;
use crate::repo;
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

async fn shown(st: &AppState, account: &str, ad: Ad, goal: Goal, version: u64) -> UseCaseResult<Shown> {
    let containers = match ad.device_containers {
        Some(_) => Vec::new(),
        None => repo::reference::ids(st.store.as_ref(), account, Kind::DeviceContainer).await?,
    };
    Ok(Shown { ad, goal, version, containers })
}

pub async fn create(st: &AppState, account: &str, input: AdInput) -> UseCaseResult<Shown> {
    if input.id.is_some() {
        return Err(UseCaseError::field("id", Rule::NotOnCreate, "id is set only when replacing or modifying; the service assigns ids"));
    }
    let id = new_id();
    let now = st.clock.now();
    let (ad, goal) = repo::ads::create(st.store.as_ref(), account, &input.goal_id, now, || Ad::created(id.clone(), &input, now)).await?;
    tracing::info!(ad = %id, goal = %input.goal_id, "ad created");
    super::assets::transcode_linked(st, account, ad.creative.asset_id.as_deref()).await;
    shown(st, account, ad, goal, 1).await
}

/// `PUT`: the ad named by the body's id (404 first), replaced by the body.
pub async fn replace(st: &AppState, account: &str, cmd: Keyed<AdInput>, expected: Option<u64>) -> UseCaseResult<Shown> {
    let cur = repo::ads::load_live(st.store.as_ref(), account, &cmd.id).await?;
    let input = cmd.body?;
    let now = st.clock.now();
    let written =
        repo::ads::update(st.store.as_ref(), account, cur, expected, now, |stored| Ok(Some(stored.replaced(&input, now)?))).await?;
    let Some((ad, goal, version)) = written else { return Err(repo::conflict().into()) };
    super::assets::transcode_linked(st, account, ad.creative.asset_id.as_deref()).await;
    shown(st, account, ad, goal, version).await
}

/// `PATCH`: the ad named by the body's id (404 first), with the body's fields; a body that
/// changes nothing writes nothing.
pub async fn modify(st: &AppState, account: &str, cmd: Keyed<AdPatch>, expected: Option<u64>) -> UseCaseResult<()> {
    let cur = repo::ads::load_live(st.store.as_ref(), account, &cmd.id).await?;
    let patch = cmd.body?;
    let now = st.clock.now();
    repo::ads::update(st.store.as_ref(), account, cur, expected, now, |stored| Ok(stored.apply(&patch, now))).await?;
    Ok(())
}

pub async fn get(st: &AppState, account: &str, id: &str) -> UseCaseResult<Shown> {
    let (ad, goal) = repo::ads::load_live(st.store.as_ref(), account, id).await?;
    let version = ad.version();
    shown(st, account, ad.value, goal.value, version).await
}

/// Deletes an ad: it stops serving with the next snapshot; its asset stays.
pub async fn remove(st: &AppState, account: &str, id: &str, expected: Option<u64>) -> UseCaseResult<()> {
    let ad = repo::ads::remove(st.store.as_ref(), account, id, expected).await?;
    tracing::info!(ad = %ad.id, goal = %ad.goal_id, "ad deleted");
    Ok(())
}

/// The account's newest ads created between the bounds (the list's window).
pub async fn newest(st: &AppState, account: &str, after: Option<DateTime<Utc>>, before: Option<DateTime<Utc>>) -> UseCaseResult<Vec<Ad>> {
    Ok(repo::ads::newest(st.store.as_ref(), account, after, before).await?)
}
