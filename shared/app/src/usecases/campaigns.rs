//! Campaigns (seed 001 §4.1, §2.1, §3): one use case per operation. Deleting keeps a
//! tombstone (the /v3 queries can show deleted campaigns) and releases its clients.

use crate::ids::AccountId;
use chrono::Datelike;

use super::UseCaseResult;
use crate::domain_error::{no_id_on_create, DomainError};
use crate::ids::new_id;
use crate::model::account::Account;
use crate::model::campaign::{Campaign, CampaignInput};
use crate::model::client::{Client, ClientInput};
use crate::model::enums::{CampaignState, CampaignStatus};
use crate::repo;
use crate::repo::Versioned;
use crate::state::AppState;

const ROOT: &str = "campaignBean";

/// What `GET /api/1.0/campaign` keeps: by derived status, and by state (archived ones only
/// when asked for).
#[derive(Debug, Default, Clone, Copy)]
pub struct ListFilter {
    pub status: Option<CampaignStatus>,
    pub state: Option<CampaignState>,
}

pub async fn create(st: &AppState, a: &Account, input: CampaignInput) -> UseCaseResult<Campaign> {
    no_id_on_create(ROOT, input.id.as_deref())?;
    let c = Campaign::created(new_id(), &input, a, st.clock.now())?;
    repo::campaigns::create(st.store.as_ref(), &a.id, &c).await?;
    tracing::info!(campaign = %c.id, "campaign created");
    Ok(c)
}

/// A new campaign with a new advertiser: both records in one transaction, or neither. The
/// campaign's `advertiserId` is the new advertiser's.
pub async fn create_with_advertiser(
    st: &AppState,
    a: &Account,
    advertiser: ClientInput,
    mut input: CampaignInput,
) -> UseCaseResult<(Campaign, Client)> {
    no_id_on_create(ROOT, input.id.as_deref())?;
    no_id_on_create("clientBean", advertiser.id.as_deref())?;
    let now = st.clock.now();
    let client = Client::from_input(new_id(), advertiser, now);
    input.advertiser_id = client.id.clone();
    let c = Campaign::created(new_id(), &input.checked()?, a, now)?;
    repo::campaigns::create_with_advertiser(st.store.as_ref(), &a.id, &client, &c).await?;
    tracing::info!(campaign = %c.id, advertiser = %client.id, "campaign created with a new advertiser");
    Ok((c, client))
}

fn sorted(mut list: Vec<Campaign>) -> Vec<Campaign> {
    list.sort_by(|x, y| x.name.to_lowercase().cmp(&y.name.to_lowercase()).then(x.id.cmp(&y.id)));
    list
}

/// The account's live campaigns that pass `f`, by name then id.
pub async fn list(st: &AppState, account: &AccountId, f: ListFilter) -> UseCaseResult<Vec<Campaign>> {
    let now = st.clock.now();
    let list = repo::campaigns::all(st.store.as_ref(), account)
        .await?
        .into_iter()
        .filter(|c| c.deleted_at.is_none())
        .filter(|c| match f.state {
            Some(s) => c.state() == s,
            None => !c.is_archived(),
        })
        .filter(|c| f.status.is_none_or(|s| c.status(now) == s))
        .collect();
    Ok(sorted(list))
}

/// The campaigns archived in a month of the account's time zone (default: this year, this
/// month), by name then id.
pub async fn archived(st: &AppState, a: &Account, year: Option<i32>, month: Option<u32>) -> UseCaseResult<Vec<Campaign>> {
    let local = st.clock.now().with_timezone(a.tz());
    let ym = format!("{:04}-{:02}", year.unwrap_or(local.year()), month.unwrap_or(local.month()));
    Ok(sorted(repo::campaigns::archived_in(st.store.as_ref(), &a.id, &ym).await?))
}

pub async fn get(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Versioned<Campaign>> {
    Ok(repo::campaigns::load(st.store.as_ref(), account, id).await?)
}

/// Replaces campaign `id` with the parsed body (404 first, then the body's errors); a
/// status of ARCHIVED archives it.
pub async fn update(
    st: &AppState,
    a: &Account,
    id: &str,
    expected: Option<u64>,
    input: Result<CampaignInput, DomainError>,
) -> UseCaseResult<()> {
    let load = repo::campaigns::load(st.store.as_ref(), &a.id, id);
    let (cur, input) = super::beans::for_update(load, ROOT, id, input, |i| i.id.as_deref()).await?;
    repo::campaigns::update(st.store.as_ref(), &a.id, cur, expected, |stored| Ok(stored.updated(&input, a, st.clock.now())?)).await?;
    Ok(())
}

pub async fn remove(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<()> {
    repo::campaigns::remove(st.store.as_ref(), account, id, st.clock.now()).await?;
    tracing::info!(campaign = %id, "campaign deleted");
    Ok(())
}
