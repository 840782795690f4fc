//! Campaign notifications (seed 001 §2.5; the rules in `model::notification`, listed in
//! docs/api.md): the campaign, its live goals with their ads, what keeps their media from
//! playing, and what delivery says of each goal now — its pace record in the account's
//! snapshot (caps, target, plan, projection) and how many of its ads can serve.

use crate::delivery::pacing::{cap_reached, local_day_hour, pacing_holds, pacing_plan, projected, Held, Pace};
use crate::delivery::snapshot::Snapshot;
use crate::error::AppResult;
use crate::model::campaign::Campaign;
use crate::model::notification::{notifications, GoalDelivery, GoalSummary, Notification};
use crate::repo;
use crate::state::AppState;

pub async fn for_campaign(st: &AppState, account: &str, campaign_id: &str) -> AppResult<(Campaign, Vec<Notification>)> {
    let c = repo::campaigns::load(st.store.as_ref(), account, campaign_id).await?.value;
    let goals = repo::goals::load_many(st.store.as_ref(), account, &c.live_goal_ids()).await?;
    let waiting = crate::usecases::assets::ads_without_media(st, account, &goals).await?;
    let now = st.clock.now();
    let (snapshot, pace) = st.delivery.current(st.store.as_ref(), account, &st.settings, now).await?;
    let summaries: Vec<GoalSummary> = goals
        .into_iter()
        .map(|g| GoalSummary {
            name: g.name.clone().unwrap_or_else(|| g.id.clone()),
            start: Some(g.start),
            end: g.end,
            ads_total: g.ads.len(),
            ads_enabled: g.ads.iter().filter(|x| x.enabled).count(),
            ads_without_media: waiting.get(&g.id).cloned().unwrap_or_default(),
            delivery: delivery_of(&snapshot, &pace, &g.id, now.timestamp()),
            id: g.id,
        })
        .collect();
    let list = notifications(&c, &summaries, now);
    Ok((c, list))
}

/// A goal's delivery now, from the snapshot and its pace record (`None`: not in it).
fn delivery_of(s: &Snapshot, pace: &[Pace], goal_id: &str, now: i64) -> Option<GoalDelivery> {
    let gi = *s.goal_index.get(goal_id)? as usize;
    let g = &s.goals[gi];
    let p = pace.get(gi).cloned().unwrap_or_default();
    let (day, hour) = local_day_hour(now, s.zone.offset_at(now));
    let f = g.flight();
    let elapsed = match f.end {
        Some(end) if end > f.start => ((now - f.start) as f64 / (end - f.start) as f64).clamp(0.0, 1.0),
        _ => 0.0,
    };
    Some(GoalDelivery {
        target: g.target,
        delivered: p.delivered,
        plan_now: pacing_plan(&f, now),
        projected: projected(&f, p.delivered, now),
        elapsed,
        cap_reached: cap_reached(g, &p, day, hour).map(|c| c.as_str()),
        ahead_of_plan: pacing_holds(g, &p, now) == Some(Held::AheadOfPlan),
        servable_ads: g.ads.iter().map(Vec::len).sum(),
    })
}
