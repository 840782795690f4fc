//! Duplicating a campaign (docs/operations-guide.md, "Duplicating a campaign"): a new
//! campaign with copies of its live goals, their ads, and the rules (targeting, frequency
//! caps) of each; goal caps travel with the goals. Every copy is disabled and its dates are
//! shifted by `shiftDays`; ads keep their assets (no new transcode); no metrics are copied.
//! Each record is created as a client would create it (each with its change record), so a
//! failure part-way leaves a disabled, partial copy, named in the error.

use crate::ids::AccountId;
use chrono::Duration;

use super::UseCaseResult;
use crate::ids::new_id;
use crate::model::campaign::Campaign;
use crate::model::rules::{Parent, Rules};
use crate::repo;
use crate::state::AppState;

/// The most days a copy's dates move, either way.
pub use crate::model::bulk::MAX_SHIFT_DAYS;

/// What a duplicate made: the new campaign, and each copy by the id of its original.
#[derive(Debug, Clone, serde::Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Duplicated {
    /// The new campaign's id.
    pub campaign_id: String,
    /// Every goal copied: `[original, copy]`.
    pub goals: Vec<[String; 2]>,
    /// Every ad copied: `[original, copy]`.
    pub ads: Vec<[String; 2]>,
}

async fn copy_rules(st: &AppState, account: &AccountId, parent: Parent, from: &str, to: &str) -> UseCaseResult<()> {
    let store = st.store.as_ref();
    let rules = repo::rules::read(store, account, parent, from).await?;
    if rules != Rules::empty(from) {
        repo::rules::update(store, account, parent, to, |r| {
            *r = rules.clone();
            Ok(())
        })
        .await?;
    }
    Ok(())
}

pub async fn campaign(st: &AppState, account: &AccountId, id: &str, name: Option<String>, shift_days: i64) -> UseCaseResult<Duplicated> {
    let store = st.store.as_ref();
    let now = st.clock.now();
    let shift = Duration::days(shift_days);
    let src = repo::campaigns::load(store, account, id).await?.value;
    let goals = repo::goals::load_many(store, account, &src.live_goal_ids()).await?;
    let c = Campaign {
        id: new_id(),
        name: name.unwrap_or_else(|| format!("{} (copy)", src.name)),
        enabled: false,
        goals: vec![],
        start: None,
        end: None,
        archived_at: None,
        archive_month: None,
        deleted_at: None,
        created: now,
        modified: now,
        ..src.clone()
    };
    repo::campaigns::create(store, account, &c).await?;
    copy_rules(st, account, Parent::Campaign, &src.id, &c.id).await?;
    let mut out = Duplicated { campaign_id: c.id.clone(), goals: vec![], ads: vec![] };
    for g in goals {
        let mut ng = g.clone();
        ng.id = new_id();
        ng.campaign_id = c.id.clone();
        ng.start = g.start + shift;
        ng.end = g.end.map(|e| e + shift);
        ng.enabled = false;
        ng.ads = vec![];
        ng.created = now;
        ng.modified = now;
        repo::goals::create(store, account, &c.id, |e| e, || ng.clone()).await?;
        copy_rules(st, account, Parent::Goal, &g.id, &ng.id).await?;
        out.goals.push([g.id.clone(), ng.id.clone()]);
        let ids: Vec<String> = g.ads.iter().map(|a| a.id.clone()).collect();
        for ad in repo::ads::by_ids(store, account, &ids).await? {
            let mut na = ad.clone();
            na.id = new_id();
            na.goal_id = ng.id.clone();
            na.enabled = false;
            na.start = ad.start.map(|s| s + shift);
            na.end = ad.end.map(|e| e + shift);
            na.created = now;
            na.modified = now;
            na.creative_modified = now;
            let rules = super::ads::rules(super::ads::containers_for(st, account, na.device_containers.is_some()).await?);
            repo::ads::create(store, account, &ng.id, now, || na.clone(), &rules).await?;
            out.ads.push([ad.id.clone(), na.id.clone()]);
        }
    }
    tracing::info!(from = %src.id, to = %c.id, goals = out.goals.len(), ads = out.ads.len(), "campaign duplicated");
    Ok(out)
}
