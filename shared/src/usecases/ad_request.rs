//! An ad request (docs/delivery.md): the account's compiled snapshot (cached), the viewer's
//! record when a rule needs it, one decision per break, a traffic sample now and then for
//! forecasts, and the document (VAST 2/3 or VMAP) with signed tracking links.

use std::sync::Arc;

use super::{UseCaseError, UseCaseResult};
use crate::delivery::decide::decide;
use crate::delivery::pacing::Pace;
use crate::delivery::request::{AdRequest, ViewerState};
use crate::delivery::snapshot::{AdFormat, Snapshot};
use crate::delivery::vast::{self, Links, ResponseType, Served};
use crate::forecast::traffic::{local_day, Sample};
use crate::state::AppState;

/// A parsed ad request.
pub struct ServeAd<'a> {
    pub account: &'a str,
    pub rt: ResponseType,
    /// The format asked for (`None`: VMAP's three linear breaks, else preroll).
    pub format: Option<AdFormat>,
    pub request: AdRequest,
}

/// What a decision reads for one account and request: the compiled snapshot, the goals'
/// pace records and the viewer's state (read only when a rule of the snapshot needs it).
pub struct Loaded {
    pub snapshot: Arc<Snapshot>,
    pub pace: Arc<Vec<Pace>>,
    pub viewer: ViewerState,
}

/// Loads what the decision reads (the ad request and the inspector alike). An account
/// that does not exist is 404.
pub async fn load(st: &AppState, account: &str, request: &AdRequest) -> UseCaseResult<Loaded> {
    let (snapshot, pace) = st.delivery.current(st.store.as_ref(), account, &st.settings, request.now).await?;
    if snapshot.account.is_empty() {
        return Err(UseCaseError::not_found("account", account));
    }
    let viewer = match &request.viewer {
        Some(pid) if snapshot.needs_viewer => {
            let (segments, freq, _) = crate::repo::delivery::viewer(st.store.as_ref(), account, pid).await?;
            ViewerState { segments, freq }
        }
        _ => ViewerState::default(),
    };
    Ok(Loaded { snapshot, pace, viewer })
}

/// The breaks a request asks for: VMAP without a format has the three linear breaks.
pub fn breaks(rt: ResponseType, format: Option<AdFormat>, request: &AdRequest) -> Vec<(AdFormat, u32)> {
    match (rt, format) {
        (ResponseType::Vmap, None) => vec![(AdFormat::Preroll, 1), (AdFormat::Midroll, 1), (AdFormat::Postroll, 1)],
        _ => vec![(request.format, request.break_number)],
    }
}

/// Points the request at break `i` of its document (each break draws with its own seed).
pub fn set_break(r: &mut AdRequest, seed: u64, i: usize, (format, number): (AdFormat, u32)) {
    r.format = format;
    r.break_number = number;
    r.seed = seed.wrapping_add(i as u64);
}

/// Decides and renders the document (an empty `<VAST>` when nothing is eligible).
pub async fn serve(st: &AppState, cmd: ServeAd<'_>) -> UseCaseResult<String> {
    let ServeAd { account, rt, format, request } = cmd;
    let now = request.now;
    let Loaded { snapshot, pace, viewer } = load(st, account, &request).await?;
    let breaks = breaks(rt, format, &request);
    // One request in 100, drawn by the server, is kept as a traffic sample for forecasts
    // (docs/forecasts.md), written off the response path in batches.
    if Sample::chosen_by_server() {
        let (day, hour) = local_day(&snapshot.zone, now);
        match Sample::of(&request).map(|s| crate::repo::forecasts::sample_item(account, day, hour, &s, now)) {
            Some(Ok(item)) => st.samples.push(st.store.clone(), item),
            Some(Err(e)) => tracing::warn!(error = %e, "traffic sample not recorded"),
            None => tracing::debug!("traffic sample over its size bound; not kept"),
        }
    }
    let mut decided = Vec::new();
    // One request, its break fields set per break (no copy of its lists per break).
    let mut r = request;
    let seed = r.seed;
    for (i, (f, n)) in breaks.iter().enumerate() {
        set_break(&mut r, seed, i, (*f, *n));
        let d = decide(&snapshot, &r, &viewer, &pace);
        tracing::info!(format = f.as_str(), ads = d.picks.len(), empty = ?d.empty, "decision");
        decided.push((*f, *n, d));
    }
    let (key_id, key) = st.settings.tracking_keys.signing();
    let links = Links {
        base: &st.settings.ad_request_base_url,
        key_id,
        key,
        viewer: r.viewer.as_deref(),
        issued: now.timestamp(),
        dims: snapshot.report_dims(&r),
    };
    let served: Vec<(AdFormat, u32, Vec<Served<'_>>)> = decided
        .iter()
        .map(|(f, n, d)| (*f, *n, d.picks.iter().map(|p| Served { pick: p, impression: crate::ids::fast_id(), won: None }).collect()))
        .collect();
    let body = match rt {
        ResponseType::Vmap => vast::vmap(&snapshot, &served, &links),
        ResponseType::Vast(version) => {
            let picks = served.into_iter().next().map(|(_, _, s)| s).unwrap_or_default();
            vast::vast(&snapshot, &picks, version, &links)
        }
    };
    Ok(body)
}
