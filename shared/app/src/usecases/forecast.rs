//! Forecast jobs (seed 002 §4.2, docs/forecasts.md): submit (validate against the account's
//! records, record QUEUED, enqueue), status, cancel, and the finished report.

use crate::ids::AccountId;
use futures_util::{StreamExt, TryStreamExt};
use serde_json::Value;

use super::{UseCaseError, UseCaseResult};
use crate::forecast::report_schema::Report;
use crate::forecast::request::{self, CampaignForecast, Refs};
use crate::jobs::ForecastMessage;
use crate::model::enums::{ForecastKind, ForecastStatus};
use crate::queue::QueueName;
use crate::repo;
use crate::repo::forecast_slots as slots;
use crate::repo::forecasts::{self as jobs, Changed};
/// A forecast job as the status and the listings read it, its request, and how many of the
/// newest `recent` lists.
pub use crate::repo::forecasts::{ForecastRequest, Job, RECENT};
use crate::repo::reference::Kind;
use crate::state::AppState;

/// `POST /api/2.0/forecast/{kind}`: the body as the client sent it.
pub struct Submit<'a> {
    pub account: &'a str,
    pub kind: ForecastKind,
    pub body: &'a Value,
}

/// The queued job.
pub struct Submitted {
    pub job: Job,
}

impl Submitted {
    pub fn location(&self) -> String {
        format!("/api/2.0/forecast/job/{}", self.job.id)
    }
}

/// Validates the request against the account's records, records the job and enqueues it.
pub async fn submit(st: &AppState, cmd: Submit<'_>) -> UseCaseResult<Submitted> {
    let store = st.store.as_ref();
    let known = repo::rules::known(store, cmd.account).await?;
    let templates: Vec<String> = repo::templates::all(store, cmd.account).await?.into_iter().map(|t| t.id).collect();
    let device_containers = repo::reference::ids(store, cmd.account, Kind::DeviceContainer).await?;
    let refs = Refs { known: &known, templates: &templates, device_containers: &device_containers };
    let now = st.clock.now();
    let request = match cmd.kind {
        ForecastKind::Campaign => ForecastRequest::Campaign(request::campaign(cmd.body, &refs, now).map_err(UseCaseError::validation)?),
        ForecastKind::Inventory => ForecastRequest::Inventory(request::inventory(cmd.body, &refs, now).map_err(UseCaseError::validation)?),
    };
    if let ForecastRequest::Campaign(CampaignForecast { replaces: Some(id), .. }) = &request {
        if repo::campaigns::get_any(store, cmd.account, id).await?.is_none() {
            return Err(UseCaseError::validation(vec![crate::domain_error::FieldError::new(
                "campaign.replacesCampaignId",
                crate::rule::Rule::Reference,
                format!("campaign.replacesCampaignId names no campaign of the account ({id})"),
            )]));
        }
    }
    let job = Job::queued(crate::ids::new_id(), cmd.account, request, now);
    if slots::claim(store, cmd.account, &job.id, now).await? == slots::Claim::Full {
        return Err(UseCaseError::Quota {
            message: format!(
                "{} forecast jobs of this account are queued or running (at most {} at once); retry when one has finished",
                slots::MAX_ACTIVE,
                slots::MAX_ACTIVE
            ),
            retry_after: slots::RETRY_AFTER_SECS,
        });
    }
    if let Err(e) = jobs::create(store, &job).await {
        let _ = slots::release(store, cmd.account, &job.id).await;
        return Err(e.into());
    }
    let msg = serde_json::to_string(&ForecastMessage { account: cmd.account.to_string(), job: job.id.clone() })
        .map_err(UseCaseError::internal)?;
    st.queue.send(QueueName::Forecast, msg).await?;
    tracing::info!(job = %job.id, kind = %job.kind, "forecast job queued");
    Ok(Submitted { job })
}

/// The job (404 when unknown, expired or another account's).
pub async fn status(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Job> {
    Ok(jobs::load(st.store.as_ref(), account, id, st.clock.now()).await?.value)
}

/// Cancels a job that has not ended; a FINISHED job is 409 (its report stands), a FAILED
/// or CANCELLED one is left as it is (cancel is idempotent).
pub async fn cancel(st: &AppState, account: &AccountId, id: &str) -> UseCaseResult<Job> {
    let now = st.clock.now();
    let changed = jobs::update(st.store.as_ref(), account, id, now, |j| {
        j.status = ForecastStatus::Cancelled;
        j.message = Some("cancelled".into());
        j.finished = Some(now);
    })
    .await?;
    slots::release(st.store.as_ref(), account, id).await?;
    match changed {
        Changed::Now(j) => Ok(j),
        Changed::Ended(j) => match j.status {
            ForecastStatus::Finished => {
                Err(UseCaseError::conflict(format!("forecast job {id} has finished; its report is at {}", j.report_path())))
            }
            ForecastStatus::Failed | ForecastStatus::Cancelled => Ok(j),
            ForecastStatus::Queued | ForecastStatus::Preparing | ForecastStatus::Processing => {
                Err(UseCaseError::internal_msg(format!("forecast job {id} reported ended while {}", j.status)))
            }
        },
    }
}

/// The report of a finished job of `kind` (404 when the job is of the other kind, or has
/// not finished).
pub async fn report(st: &AppState, account: &AccountId, kind: ForecastKind, id: &str) -> UseCaseResult<Report> {
    let job = status(st, account, id).await?;
    if job.kind != kind {
        return Err(UseCaseError::not_found("forecast report", id));
    }
    if job.status != ForecastStatus::Finished {
        return Err(UseCaseError::not_found("forecast report", format!("{id} (the job is {})", job.status)));
    }
    jobs::report(st.store.as_ref(), account, id).await?.ok_or_else(|| UseCaseError::not_found("forecast report", id))
}

/// The account's newest jobs (the console's list).
pub async fn recent(st: &AppState, account: &AccountId) -> UseCaseResult<Vec<Job>> {
    Ok(jobs::recent(st.store.as_ref(), account, st.clock.now()).await?)
}

/// A forecast of a running campaign: its goals proposed again for what they have left
/// (`forecast::rerun`), its own goals out of the competition. The goals left out are named.
pub async fn running_campaign(st: &AppState, account: &AccountId, campaign_id: &str) -> UseCaseResult<(Submitted, Vec<String>)> {
    use crate::model::rules::Parent;
    let store = st.store.as_ref();
    let c = repo::campaigns::load(store, account, campaign_id).await?.value;
    let goals = super::goals::live_of(st, account, &c).await?;
    let ids: Vec<String> = goals.iter().map(|g| g.id.clone()).collect();
    let counters = repo::metrics::read(store, account, repo::metrics::Level::Goal, &ids).await?;
    // Each goal's rules, a few reads at once.
    let rules: Vec<_> = futures_util::stream::iter(ids.clone())
        .map(|id| async move { repo::rules::read(store, account, Parent::Goal, &id).await })
        .buffered(8)
        .try_collect()
        .await?;
    let with: Vec<_> = goals
        .into_iter()
        .zip(rules)
        .map(|(g, r)| {
            let delivered = counters.get(&g.id).map_or(0, |c| c.get(crate::model::enums::Counter::Delivered)) as f64;
            (g, Some(r), delivered)
        })
        .collect();
    let campaign_rules = repo::rules::read(store, account, Parent::Campaign, &c.id).await?;
    let dcs = repo::reference::ids(store, account, Kind::DeviceContainer).await?;
    let (body, left_out) = crate::forecast::rerun::proposal(&c, Some(&campaign_rules), &with, &dcs, st.clock.now());
    if body["campaign"]["goals"].as_array().is_none_or(Vec::is_empty) {
        let why = if left_out.is_empty() { "the campaign has no live goal".to_string() } else { left_out.join("; ") };
        return Err(UseCaseError::validation(vec![crate::domain_error::FieldError::new(
            "campaign.goals",
            crate::rule::Rule::Required,
            format!("nothing of the campaign can be forecast: {why}"),
        )]));
    }
    let submitted = submit(st, Submit { account, kind: ForecastKind::Campaign, body: &body }).await?;
    Ok((submitted, left_out))
}
