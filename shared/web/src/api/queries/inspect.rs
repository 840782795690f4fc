//! `GET /v3/inspect` (docs/inspector.md): an ad request's decision explained, goal by goal,
//! for the account of the API key. The parameters are the ad request's (`/v1/adrequest`,
//! the exported URL's query pasted as is); `account`, when given, must be the key's.

use crate::api::Within;
use axum::extract::RawQuery;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde::Serialize;

use crate::api::error::{AppError, AppResult, FieldError};
use crate::api::serving::read_request;
use crate::api::{query_pairs, Auth};
use crate::delivery::explain::{Explanation, Outcome};
use crate::delivery::snapshot::Snapshot;
use crate::rule::Rule;
use crate::usecases::inspect::{inspect, Described, Inspection};

pub use super::inspect_auction::InspectedReason;

/// At most this many goals are listed per break (served and lost first); `goals=` picks.
pub const MAX_GOALS: usize = 500;
/// `goals=` names at most this many goal ids.
pub const MAX_GOAL_FILTER: usize = 50;

/// One ad of a listed goal.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectedAd {
    pub ad_id: String,
    pub ad_name: String,
    /// preroll, midroll, postroll or pause.
    pub format: String,
    /// Whether the ad fits this break (its goal's own rules aside).
    pub fits: bool,
    /// Why it does not fit, when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<InspectedReason>,
}

/// One goal of the account, for this break.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectedGoal {
    pub goal_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub goal_name: Option<String>,
    pub campaign_id: String,
    /// SERVED, LOST (eligible; another goal took the break), EXCLUDED (a rule of the
    /// goal), NO_AD_OF_FORMAT, NO_AD_FITS.
    pub outcome: String,
    /// Why not served (absent when SERVED).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<InspectedReason>,
    pub ads: Vec<InspectedAd>,
}

/// An ad in the break.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectedServed {
    pub ad_id: String,
    pub ad_name: String,
    pub goal_id: String,
    pub campaign_id: String,
}

/// One break of the request (VMAP asks three).
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectedBreak {
    pub format: String,
    pub break_number: u32,
    /// The insertion policy that applies (the first in rank order matching the request).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub policy_id: Option<String>,
    pub ads_per_break: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_limit_seconds: Option<i64>,
    /// What the ad request would serve now with this seed.
    pub served: Vec<InspectedServed>,
    /// Why the break is empty: BREAK_DISABLED, TOO_SOON, NOTHING_ELIGIBLE, UNKNOWN_AD.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub empty: Option<InspectedReason>,
    /// Every goal (or those of `goals=`): served, lost, then excluded; at most 500.
    pub goals: Vec<InspectedGoal>,
    /// Whether goals were left off the list (over 500).
    pub truncated: bool,
    /// The auctions of the break's programmatic goals (the bidders are asked; nothing is
    /// counted or notified).
    pub auctions: Vec<super::inspect_auction::InspectedAuction>,
}

/// A record that takes no request at all.
#[derive(Serialize, utoipa::ToSchema)]
pub struct InspectedNotServing {
    /// campaign, goal or ad.
    #[serde(rename = "type")]
    pub kind: String,
    pub id: String,
    pub reason: InspectedReason,
}

/// An ad request, explained.
#[derive(Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InspectionOut {
    pub account: String,
    /// When the decision was made (now).
    pub at: chrono::DateTime<chrono::Utc>,
    /// The delivery version of the snapshot read (changes with any campaign data).
    pub snapshot_version: u64,
    /// The seed the decision drew with (`seed=` reproduces it on `/v1/adrequest`).
    pub seed: String,
    /// What about the request itself no rule can match (unknown category, no viewer, ...).
    pub notes: Vec<String>,
    pub breaks: Vec<InspectedBreak>,
    /// Campaigns, goals and ads that take no request, and why (disabled, media not ready, ...).
    pub not_serving: Vec<InspectedNotServing>,
}

#[utoipa::path(get, path = "/v3/inspect", tag = "queries",
    summary = "Explain an ad request's decision",
    description = "Runs the decision of `/v1/adrequest` for the API key's account with the same parameters (paste the exported URL's query) \
and explains it: what would be served, why a break is empty, and for every goal the first rule that kept it out (flight, mid-roll break, \
cap, pacing, frequency cap, targeting rule by level and dimension) or what it lost to (sponsor, share-of-voice draw, priority). Ads get \
their own reason (format, dates, device container, insertion policy). Nothing is counted or recorded. `/v1/adrequest?...&debug=1` \
redirects here (307).",
    params(("account" = Option<String>, Query, description = "The account; when given it must be the API key's (else 404)"),
        ("rt" = Option<String>, Query, description = "As on /v1/adrequest: vmap_1_0 explains the three linear breaks"),
        ("format" = Option<String>, Query, description = "preroll (default), midroll, postroll, pause"),
        ("bn" = Option<u32>, Query, minimum = 1, maximum = 100, description = "The mid-roll break number"),
        ("ad" = Option<String>, Query, description = "The exported URL's ad: only it may serve"),
        ("category" = Option<String>, Query, description = "The content category"),
        ("contentPartner" = Option<String>, Query, description = "The content partner"),
        ("tags" = Option<String>, Query, description = "Comma-separated, at most 50"),
        ("loc" = Option<String>, Query, description = "Location ids, comma-separated, at most 20"),
        ("dc" = Option<String>, Query, description = "Device container"),
        ("pid" = Option<String>, Query, description = "The viewer (frequency caps, audience segments)"),
        ("ua" = Option<String>, Query, description = "User agent (default: the header)"),
        ("ip" = Option<String>, Query, description = "IPv4 (default: X-Forwarded-For)"),
        ("seed" = Option<u64>, Query, description = "The decision's draws; the answer says the one used"),
        ("goals" = Option<String>, Query, description = "Only these goals in the list (ids, comma-separated, at most 50)")),
    responses((status = 200, description = "The decision, explained", body = InspectionOut)))]
pub async fn inspect_request(Within(st): Within, Auth(a): Auth, RawQuery(q): RawQuery) -> AppResult<Response> {
    let mut pairs = query_pairs(q.as_deref())?;
    refuse_unknown(&pairs)?;
    match pairs.iter().find(|(k, _)| k == "account") {
        Some((_, v)) if a.id != *v => return Err(AppError::not_found("account", v.clone())),
        Some(_) => {}
        None => pairs.push(("account".into(), a.id.to_string())),
    }
    Ok(Json(explain_request(&st, pairs).await?).into_response())
}

/// The decision of the ad request `pairs` describe (its `account` the caller's), explained:
/// what the API answers and the console's "Why not serving" page shows.
pub async fn explain_request(st: &crate::state::AppState, mut pairs: Vec<(String, String)>) -> AppResult<InspectionOut> {
    let only: Vec<String> = crate::api::serving::list_param(&pairs, "goals", MAX_GOAL_FILTER)?;
    pairs.retain(|(k, _)| k != "goals" && k != "debug");
    let now = st.clock.now();
    // The inspector explains the request the user describes: its ip/ua are believed.
    let described = crate::api::client_addr::Caller { addr: None, trusted: true, device_agent: None, stitcher: false };
    let (account, rt, format, request) = read_request(&pairs, &axum::http::HeaderMap::new(), described, now)?;
    let signals = crate::demand::signals::read(&pairs).map_err(AppError::Validation)?;
    let ip = request.ip.map(std::net::IpAddr::V4);
    let seed = request.seed;
    let i = inspect(st, &account, rt, format, request, Described { signals, ip }).await?;
    Ok(render(&i, seed, &only))
}

/// An unknown parameter is refused, as on every management call (a misspelt `goal=` for
/// `goals=` would otherwise explain every goal without saying so).
fn refuse_unknown(pairs: &[(String, String)]) -> AppResult<()> {
    let known = |k: &str| k == "goals" || k.starts_with("acp.") || crate::api::serving::AD_REQUEST_PARAMS.contains(&k);
    let mut errors: Vec<FieldError> = Vec::new();
    for (k, _) in pairs {
        if !known(k) && !errors.iter().any(|e| &e.field == k) {
            let message =
                format!("unknown query parameter {k} (known: goals, acp.<name>, {})", crate::api::serving::AD_REQUEST_PARAMS.join(", "));
            errors.push(FieldError::new(k.clone(), Rule::Unknown, message));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(AppError::Validation(errors))
    }
}

fn reason(code: impl Into<String>, message: impl Into<String>) -> InspectedReason {
    InspectedReason { code: code.into(), message: message.into() }
}

fn render(i: &Inspection, seed: u64, only: &[String]) -> InspectionOut {
    let s = &i.snapshot;
    InspectionOut {
        account: s.account.clone(),
        at: i.request.now,
        snapshot_version: s.version,
        seed: seed.to_string(),
        notes: i.notes.clone(),
        breaks: i
            .breaks
            .iter()
            .enumerate()
            .map(|(bi, (f, n, e))| {
                let mut b = render_break(s, f.as_str(), *n, e, only);
                let mine: Vec<_> = i.auctions.iter().filter(|(x, _)| *x == bi).map(|(_, a)| a).collect();
                // A programmatic goal's served ad is its auction's winning creative.
                for served in b.served.iter_mut() {
                    let won = mine.iter().filter(|a| s.goals.get(a.goal as usize).is_some_and(|g| g.id == served.goal_id));
                    if let Some(w) = won.filter_map(|a| a.winner.as_ref()).next() {
                        served.ad_id = w.ad.ad_id.clone();
                        served.ad_name = format!("{} (won by {})", w.ad.ad_id, w.ad.system);
                    }
                }
                b.auctions = mine.into_iter().map(|a| super::inspect_auction::render(s, a)).collect();
                b
            })
            .collect(),
        not_serving: s
            .left_out
            .iter()
            .map(|l| InspectedNotServing { kind: l.kind.into(), id: l.id.clone(), reason: reason(l.reason.code(), l.reason.message()) })
            .collect(),
    }
}

fn render_break(s: &Snapshot, format: &str, number: u32, e: &Explanation, only: &[String]) -> InspectedBreak {
    let d = &e.decision;
    let served = d
        .picks
        .iter()
        .map(|p| {
            let g = &s.goals[p.goal as usize];
            let (ad_id, ad_name) = match s.ads.get(p.ad as usize) {
                Some(ad) => (ad.id.clone(), ad.name.clone()),
                // A programmatic goal's pick: the auction's winner (see auctions).
                None => ("auction".into(), "the auction's winning bid (see auctions)".into()),
            };
            InspectedServed { ad_id, ad_name, goal_id: g.id.clone(), campaign_id: g.campaign_id.clone() }
        })
        .collect();
    let mut verdicts: Vec<_> = e.goals.iter().filter(|v| only.is_empty() || only.contains(&s.goals[v.goal as usize].id)).collect();
    let rank = |o: &Outcome| match o {
        Outcome::Served => 0,
        Outcome::Lost(_) => 1,
        Outcome::NoAdFits | Outcome::NoAdOfFormat => 2,
        Outcome::Excluded(_) => 3,
    };
    verdicts.sort_by(|a, b| (rank(&a.outcome), &s.goals[a.goal as usize].id).cmp(&(rank(&b.outcome), &s.goals[b.goal as usize].id)));
    let truncated = verdicts.len() > MAX_GOALS;
    let goals = verdicts
        .into_iter()
        .take(MAX_GOALS)
        .map(|v| {
            let g = &s.goals[v.goal as usize];
            let (outcome, why) = match &v.outcome {
                Outcome::Served => ("SERVED", None),
                Outcome::Lost(l) => ("LOST", Some(reason(l.code(), l.message()))),
                Outcome::Excluded(x) => ("EXCLUDED", Some(reason(x.code(), x.message()))),
                Outcome::NoAdOfFormat => {
                    ("NO_AD_OF_FORMAT", Some(reason("NO_AD_OF_FORMAT", format!("the goal has no ad of format {format}"))))
                }
                Outcome::NoAdFits => {
                    ("NO_AD_FITS", Some(reason("NO_AD_FITS", "none of the goal's ads of this format fits the break (see ads)")))
                }
            };
            let ads = v
                .ads
                .iter()
                .map(|(ai, x)| {
                    let a = &s.ads[*ai as usize];
                    InspectedAd {
                        ad_id: a.id.clone(),
                        ad_name: a.name.clone(),
                        format: a.format.as_str().into(),
                        fits: x.is_none(),
                        reason: x.map(|x| reason(x.code(), x.message())),
                    }
                })
                .collect();
            InspectedGoal {
                goal_id: g.id.clone(),
                goal_name: g.name.clone(),
                campaign_id: g.campaign_id.clone(),
                outcome: outcome.into(),
                reason: why,
                ads,
            }
        })
        .collect();
    InspectedBreak {
        format: format.into(),
        break_number: number,
        policy_id: d.policy.map(|p| s.policies[p as usize].id.clone()),
        ads_per_break: e.ads_per_break,
        time_limit_seconds: e.time_limit,
        served,
        empty: d.empty.map(|x| reason(x.code(), x.message())),
        goals,
        truncated,
        auctions: Vec::new(),
    }
}
