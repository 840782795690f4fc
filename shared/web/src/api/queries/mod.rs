//! The `/v3` read interfaces (seed 000 §4.5-§4.10): campaigns, goals and ads with their
//! expansions, metrics and projections (`params` reads the query string, `rows` filters
//! and sorts, `render` writes the wire shapes), and the VAST URL export (`vast`).

use crate::api::Access;
use crate::api::Within;
use axum::extract::{Path, RawQuery};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Json;

use crate::api::error::AppResult;
use crate::api::Auth;
use crate::model::enums::{CampaignState, SortOrder};
use crate::usecases::v3;

pub(crate) mod inspect;
mod inspect_auction;
mod metrics;
mod pacing;
pub(crate) mod params;
mod render;
pub(crate) mod reports;
mod vast;

pub use crate::usecases::vast_export::{build_vast_url, RANDOM_TOKEN};
pub(crate) use render::goal_type_v3;

use crate::usecases::v3_rows::*;
use params::*;
use render::*;

/// The operations of this group in the OpenAPI document.
#[derive(utoipa::OpenApi)]
#[openapi(
    paths(campaigns, campaign_one, goals, goal_one, ads, ad_one, vast::vast_url, inspect::inspect_request, reports::delivery_report, pacing::goal_pacing, pacing::goal_pacing_svg),
    // Named only by a parameter (utoipa collects the schemas of bodies, not of parameters).
    components(schemas(crate::model::enums::Granularity, crate::model::enums::ResponseTypeName)),
    tags((name = "queries", description = "The /v3 read interfaces; unknown query parameters are refused"))
)]
pub struct Doc;

pub fn router() -> super::Routes {
    super::Routes::new()
        .route("/v3/campaigns", Access::RECORDS, get(campaigns))
        .route("/v3/campaigns/{id}", Access::RECORDS, get(campaign_one))
        .route("/v3/goals", Access::RECORDS, get(goals))
        .route("/v3/goals/{id}", Access::RECORDS, get(goal_one))
        .route("/v3/goals/{id}/pacing", Access::RECORDS, get(pacing::goal_pacing))
        .route("/v3/goals/{id}/pacing.svg", Access::RECORDS, get(pacing::goal_pacing_svg))
        .route("/v3/ads", Access::RECORDS, get(ads))
        .route("/v3/ads/{ad_id}", Access::RECORDS, get(ad_one))
        .route("/v3/ads/{ad_id}/vasturl/{kind}/{id}", Access::RECORDS, get(vast::vast_url))
        .route("/v3/inspect", Access::RECORDS, get(inspect::inspect_request))
        .route("/v3/reports/delivery", Access::RECORDS, get(reports::delivery_report))
}

#[utoipa::path(get, path = "/v3/campaigns", tag = "queries", summary = "Query campaigns, with goals, ads and metrics",
    params(("expand" = Option<String>, Query, description = "Repeatable or comma-separated: `goals` (goal objects instead of {id, href}), `ads` with `goals` (their ads too; `ads` alone is 400, rule expand)"),
        ("embed" = Option<String>, Query, description = "`metrics`: the campaign's metrics object (campaigns only, never on expanded goals or ads)"),
        ("metrics" = Option<String>, Query, description = "Counter and rate names, comma-separated (impression, start, complete, clickThrough, ctr, completionRate, ecpm, invalid: the invalid traffic by reason, docs/traffic-quality.md, ...)"),
        ("includeDeletedGoals" = Option<bool>, Query), ("includeDeletedCampaigns" = Option<bool>, Query),
        ("campaigns.started.before" = Option<chrono::DateTime<chrono::Utc>>, Query), ("campaigns.started.after" = Option<chrono::DateTime<chrono::Utc>>, Query),
        ("campaigns.ended.before" = Option<chrono::DateTime<chrono::Utc>>, Query), ("campaigns.ended.after" = Option<chrono::DateTime<chrono::Utc>>, Query),
        ("campaign.state" = Option<String>, Query, description = "enabled, disabled, archived (comma-separated)"),
        ("campaign.name" = Option<String>, Query, description = "Case-insensitive substring"),
        ("ids" = Option<String>, Query, description = "Campaign ids, comma-separated"), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000), ("pageNumber" = Option<u32>, Query, minimum = 1)),
    responses((status = 200, description = "A page of campaigns", body = render::CampaignPage)))]
async fn campaigns(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(
        q.as_deref(),
        &[
            "expand",
            "embed",
            "metrics",
            "includeDeletedGoals",
            "includeDeletedCampaigns",
            "campaigns.started.before",
            "campaigns.started.after",
            "campaigns.ended.before",
            "campaigns.ended.after",
            "campaign.state",
            "campaign.name",
            "ids",
            "pageSize",
            "pageNumber",
        ],
    )?;
    let o = campaign_opts(&mut p);
    let f = CampaignFilter {
        include_deleted: p.flag("includeDeletedCampaigns"),
        started_before: p.date("campaigns.started.before"),
        started_after: p.date("campaigns.started.after"),
        ended_before: p.date("campaigns.ended.before"),
        ended_after: p.date("campaigns.ended.after"),
        states: p.enums::<CampaignState>("campaign.state"),
        name: p.one("campaign.name").map(|n| n.to_lowercase()),
        ids: p.all("ids"),
    };
    let (size, number) = p.paging();
    p.finish()?;
    let (total, shown, x) = v3::campaign_page(&st, &a.id, &f, &campaign_expand(&o), size, number).await?;
    let cx = Ctx { account: &a };
    let campaigns = render_campaigns(&cx, &shown, &o, &x);
    Ok(Json(CampaignPage { campaigns, pagination: PageInfo::new(total, size, number) }).into_response())
}

/// `GET /v3/campaigns/{id}`: one campaign object, the list's expand/embed parameters.
#[utoipa::path(get, path = "/v3/campaigns/{id}", tag = "queries", summary = "Query one campaign, with goals, ads and metrics", description = "`GET /v3/campaigns/{id}`: one campaign object, the list's expand/embed parameters.",
    params(("id" = String, Path), ("expand" = Option<String>, Query, description = "Repeatable or comma-separated: `goals` (goal objects instead of {id, href}), `ads` with `goals` (their ads too; `ads` alone is 400, rule expand)"),
        ("embed" = Option<String>, Query, description = "`metrics`: the campaign's metrics object (campaigns only, never on expanded goals or ads)"),
        ("metrics" = Option<String>, Query, description = "Counter and rate names, comma-separated (impression, start, complete, clickThrough, ctr, completionRate, ecpm, invalid: the invalid traffic by reason, docs/traffic-quality.md, ...)"), ("includeDeletedGoals" = Option<bool>, Query)),
    responses((status = 200, description = "The campaign (deleted ones too)", body = render::CampaignOut)))]
async fn campaign_one(Within(st): Within, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(q.as_deref(), &["expand", "embed", "metrics", "includeDeletedGoals"])?;
    let o = campaign_opts(&mut p);
    p.finish()?;
    let (c, x) = v3::campaign_one(&st, &a.id, &id, &campaign_expand(&o)).await?;
    let list = std::slice::from_ref(&c);
    let cx = Ctx { account: &a };
    Ok(one_response(render_campaigns(&cx, list, &o, &x)))
}

#[utoipa::path(get, path = "/v3/goals", tag = "queries", summary = "Query goals, with ads, metrics and projections",
    params(("expand" = Option<String>, Query, description = "`ads`: ad objects instead of {id, href}"),
        ("embed" = Option<String>, Query, description = "Repeatable or comma-separated: `metrics` (the goal's metrics object), `projections` (adds `projectedDelivery` and `projection`: the goal's projection to its end from the account's traffic model replayed through the delivery engine and its last 24 hours, with basis, band and shortfall, docs/reports.md)"),
        ("metrics" = Option<String>, Query, description = "Counter and rate names, comma-separated (impression, start, complete, clickThrough, ctr, completionRate, ecpm, invalid: the invalid traffic by reason, docs/traffic-quality.md, ...)"),
        ("goals.started.before" = Option<chrono::DateTime<chrono::Utc>>, Query), ("goals.started.after" = Option<chrono::DateTime<chrono::Utc>>, Query),
        ("goals.ended.before" = Option<chrono::DateTime<chrono::Utc>>, Query), ("goals.ended.after" = Option<chrono::DateTime<chrono::Utc>>, Query),
        ("goal.name" = Option<String>, Query), ("campaign.name" = Option<String>, Query), ("campaign.id" = Option<String>, Query),
        ("campaign.state" = Option<String>, Query, description = "enabled, disabled, archived (comma-separated)"),
        ("includeDeletedGoals" = Option<bool>, Query), ("includeDeletedCampaigns" = Option<bool>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000), ("pageNumber" = Option<u32>, Query, minimum = 1),
        ("sorting" = Option<String>, Query, description = "goalName (default), campaignName, start, end, priority, ..."),
        ("sortingOrder" = Option<String>, Query, description = "ascending (default) or descending")),
    responses((status = 200, description = "A page of goals", body = render::GoalPage)))]
async fn goals(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(
        q.as_deref(),
        &[
            "expand",
            "embed",
            "metrics",
            "goals.started.before",
            "goals.started.after",
            "goals.ended.before",
            "goals.ended.after",
            "goal.name",
            "campaign.name",
            "campaign.id",
            "campaign.state",
            "includeDeletedGoals",
            "includeDeletedCampaigns",
            "pageSize",
            "pageNumber",
            "sorting",
            "sortingOrder",
        ],
    )?;
    let o = goal_opts(&mut p);
    let sorting = p.one_enum("sorting", Sorting::GoalName);
    let order = p.one_enum("sortingOrder", SortOrder::Ascending);
    let f = GoalFilter {
        started_before: p.date("goals.started.before"),
        started_after: p.date("goals.started.after"),
        ended_before: p.date("goals.ended.before"),
        ended_after: p.date("goals.ended.after"),
        goal_name: p.one("goal.name").map(|n| n.to_lowercase()),
        campaign_name: p.one("campaign.name").map(|n| n.to_lowercase()),
        states: p.enums::<CampaignState>("campaign.state"),
        include_deleted_goals: p.flag("includeDeletedGoals"),
        include_deleted_campaigns: p.flag("includeDeletedCampaigns"),
        sorting,
        descending: order == SortOrder::Descending,
        global_priority: a.global_priority,
    };
    let campaign_id = p.one("campaign.id");
    let (size, number) = p.paging();
    p.finish()?;
    let (total, shown, x) = v3::goal_page(&st, &a, &f, campaign_id.as_deref(), goal_expand(&o), size, number).await?;
    let cx = Ctx { account: &a };
    let goals = render_goals(&cx, &shown, &o, &x);
    Ok(Json(GoalPage { goals, pagination: PageInfo::new(total, size, number) }).into_response())
}

#[utoipa::path(get, path = "/v3/goals/{id}", tag = "queries", summary = "Query one goal, with ads, metrics and projections", params(("id" = String, Path), ("expand" = Option<String>, Query, description = "`ads`: ad objects instead of {id, href}"),
        ("embed" = Option<String>, Query, description = "Repeatable or comma-separated: `metrics` (the goal's metrics object), `projections` (adds `projectedDelivery` and `projection`: the goal's projection to its end from the account's traffic model replayed through the delivery engine and its last 24 hours, with basis, band and shortfall, docs/reports.md)"),
        ("metrics" = Option<String>, Query, description = "Counter and rate names, comma-separated (impression, start, complete, clickThrough, ctr, completionRate, ecpm, invalid: the invalid traffic by reason, docs/traffic-quality.md, ...)")),
    responses((status = 200, description = "The goal", body = render::GoalOut)))]
async fn goal_one(Within(st): Within, Auth(a): Auth, Path(id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(q.as_deref(), &["expand", "embed", "metrics"])?;
    let o = goal_opts(&mut p);
    p.finish()?;
    let (one, x) = v3::goal_one(&st, &a, &id, goal_expand(&o)).await?;
    let list = [one];
    let cx = Ctx { account: &a };
    Ok(one_response(render_goals(&cx, &list, &o, &x)))
}

#[utoipa::path(get, path = "/v3/ads", tag = "queries", summary = "Query ads, with metrics",
    params(("embed" = Option<String>, Query, description = "`metrics`: each ad's metrics object"), ("metrics" = Option<String>, Query, description = "With embed=metrics, repeatable or comma-separated: impression, clickThrough, start, firstQuartile, midpoint, thirdQuartile, complete, delivered, invalid; absent: all"),
        ("ads.created.before" = Option<chrono::DateTime<chrono::Utc>>, Query), ("ads.created.after" = Option<chrono::DateTime<chrono::Utc>>, Query), ("goal.id" = Option<String>, Query), ("pageSize" = Option<u32>, Query, minimum = 1, maximum = 1000), ("pageNumber" = Option<u32>, Query, minimum = 1)),
    responses((status = 200, description = "A page of ads, newest first (or a goal's, in its order)", body = render::AdPage)))]
async fn ads(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p =
        Params::new(q.as_deref(), &["embed", "metrics", "ads.created.before", "ads.created.after", "goal.id", "pageSize", "pageNumber"])?;
    let names = ad_metrics_names(&mut p);
    let (before, after) = (p.date("ads.created.before"), p.date("ads.created.after"));
    let goal_id = p.one("goal.id");
    let (size, number) = p.paging();
    p.finish()?;
    let (total, shown, x) = v3::ad_page(&st, &a.id, goal_id.as_deref(), (before, after), names.is_some(), size, number).await?;
    let ads = render_ads(&shown, &names, &x);
    Ok(Json(AdPage { ads, pagination: PageInfo::new(total, size, number) }).into_response())
}

#[utoipa::path(get, path = "/v3/ads/{ad_id}", tag = "queries", summary = "Query one ad, with metrics",
    params(("ad_id" = String, Path, description = "The ad's id"), ("embed" = Option<String>, Query, description = "`metrics`: the ad's metrics object"), ("metrics" = Option<String>, Query, description = "With embed=metrics: the metric names to show (as on /v3/ads)")),
    responses((status = 200, description = "The ad", body = render::AdOut)))]
async fn ad_one(Within(st): Within, Auth(a): Auth, Path(ad_id): Path<String>, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut p = Params::new(q.as_deref(), &["embed", "metrics"])?;
    let names = ad_metrics_names(&mut p);
    p.finish()?;
    let (one, x) = v3::ad_one(&st, &a.id, &ad_id, names.is_some()).await?;
    let list = [one];
    Ok(one_response(render_ads(&list, &names, &x)))
}
