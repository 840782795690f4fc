//! An ad request (docs/delivery.md): the account's compiled snapshot (cached), the viewer's
//! record when a rule needs it, one decision per break, a traffic sample now and then for
//! forecasts, and the document (VAST 2/3 or VMAP) with signed tracking links.

use crate::ids::AccountId;
use std::sync::Arc;

use super::{UseCaseError, UseCaseResult};
use crate::delivery::decide::{decide, Decision, Pick};
use crate::delivery::pacing::Pace;
use crate::delivery::request::{AdRequest, ViewerState};
use crate::delivery::snapshot::{AdFormat, Snapshot};
use crate::delivery::vast::{self, Links, ResponseType, Served};
use crate::demand::signals::Signals;
use crate::forecast::traffic::{local_day, Sample};
use crate::state::AppState;

/// A parsed ad request.
pub struct ServeAd<'a> {
    pub account: &'a AccountId,
    pub rt: ResponseType,
    /// The format asked for (`None`: VMAP's three linear breaks, else preroll).
    pub format: Option<AdFormat>,
    pub request: AdRequest,
    /// What the bidders are told beyond the decision's inputs (docs/programmatic.md).
    pub signals: Signals,
    /// The viewer's address (v4 or v6) as the invalid-traffic rules see it.
    pub device_ip: Option<std::net::IpAddr>,
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
pub async fn load(st: &AppState, account: &AccountId, request: &AdRequest) -> UseCaseResult<Loaded> {
    load_as_of(st, account, request, false).await
}

/// `load`, for a management read (the inspector) when `latest`: the snapshot as of every
/// write before the call, not the serving refresh window's (`DeliveryCache::latest`).
pub async fn load_as_of(st: &AppState, account: &AccountId, request: &AdRequest, latest: bool) -> UseCaseResult<Loaded> {
    let (snapshot, pace) = if latest {
        st.delivery.latest(&st.store, &st.blobs, account, &st.settings, request.now).await?
    } else {
        st.delivery.current(&st.store, &st.blobs, account, &st.settings, request.now).await?
    };
    if snapshot.account.is_empty() {
        return Err(UseCaseError::not_found("account", account.as_str()));
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
    let ServeAd { account, rt, format, request, signals, device_ip } = cmd;
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
    // Programmatic goals' picks: their auctions (docs/programmatic.md).
    let auctions = if decided.iter().any(|(_, _, d)| d.picks.iter().any(Pick::is_auction)) {
        let mut decisions: Vec<Decision> = decided.iter().map(|(_, _, d)| d.clone()).collect();
        let ctx = Rounds {
            snapshot: &snapshot,
            viewer: &viewer,
            pace: &pace,
            seed,
            breaks: &breaks,
            signals: &signals,
            ip: device_ip,
            described: false,
        };
        let won = run_rounds(st, &ctx, &mut r, &mut decisions).await;
        for ((_, _, d), new) in decided.iter_mut().zip(decisions) {
            *d = new;
        }
        won
    } else {
        Auctions::default()
    };
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
        .enumerate()
        .map(|(i, (f, n, d))| {
            let list = d
                .picks
                .iter()
                .map(|p| Served { pick: p, impression: crate::ids::fast_id(), won: auctions.won(i, p).map(|w| &w.ad) })
                .collect();
            (*f, *n, list)
        })
        .collect();
    // The auctions' win records, before the document leaves (a win record must be there
    // when its impression is counted); their notices are queued after it.
    let sold: Vec<(usize, u32, &str)> = served
        .iter()
        .enumerate()
        .flat_map(|(i, (_, _, list))| list.iter().filter(|x| x.won.is_some()).map(move |x| (i, x.pick.goal, x.impression.as_str())))
        .collect();
    let notices = auctions.all.iter().map(|(i, a)| {
        let impression = sold.iter().find(|(bi, g, _)| bi == i && *g == a.goal && a.winner.is_some()).map(|(_, _, imp)| *imp);
        let counted = super::auction::Counted { dims: snapshot.report_dims(&r), at: now.timestamp(), served: impression.is_some() };
        super::auction::count(st, &snapshot, a, &counted);
        super::auction::notices(st, &snapshot, a, impression)
    });
    let notices: Vec<_> = futures_util::future::join_all(notices).await.into_iter().flatten().collect();
    if !notices.is_empty() {
        // Off the answer's path, in batches. On Lambda the task runs while the runtime
        // posts the answer; a sandbox frozen first sends them at its next invocation (loss
        // and win notices are best effort in OpenRTB; billing follows the win record).
        let st = st.clone();
        tokio::spawn(async move { super::bid_notices::queue_all(&st, notices).await });
    }
    let body = match rt {
        ResponseType::Vmap => vast::vmap(&snapshot, &served, &links),
        ResponseType::Vast(version) => {
            let picks = served.into_iter().next().map(|(_, _, s)| s).unwrap_or_default();
            vast::vast(&snapshot, &picks, version, &links)
        }
    };
    Ok(body)
}

pub use crate::delivery::programmatic::MAX_ROUNDS;

/// Every auction a request ran (`all`, with its break) and the won ones.
#[derive(Default)]
pub struct Auctions {
    pub all: Vec<(usize, super::auction::Auction)>,
    /// Per break: the goals left out for want of a valid bid.
    pub no_bid: Vec<Vec<u32>>,
}

impl Auctions {
    /// The winner of the auction behind pick `p` of break `i`.
    pub fn won(&self, i: usize, p: &Pick) -> Option<&super::auction::Winner> {
        if !p.is_auction() {
            return None;
        }
        self.all.iter().filter(|(bi, a)| *bi == i && a.goal == p.goal).find_map(|(_, a)| a.winner.as_ref())
    }
}

/// What the rounds read.
pub struct Rounds<'a> {
    pub snapshot: &'a Snapshot,
    pub viewer: &'a ViewerState,
    pub pace: &'a [Pace],
    pub seed: u64,
    pub breaks: &'a [(AdFormat, u32)],
    pub signals: &'a Signals,
    pub ip: Option<std::net::IpAddr>,
    /// The inspector's request, as its user describes it (not a live one).
    pub described: bool,
}

/// Runs the auctions of the decisions' programmatic picks, all breaks at once, within one
/// deadline (the slowest asked partner's timeout and the margin). A goal without a valid
/// bid is left out of its break, which is decided again; after the last round, or past the
/// deadline, a programmatic pick without a winner is left out too.
pub async fn run_rounds(st: &AppState, c: &Rounds<'_>, r: &mut AdRequest, decisions: &mut [Decision]) -> Auctions {
    use super::auction::{self, Ask};
    let s = c.snapshot;
    let goals = decisions.iter().flat_map(|d| d.picks.iter().filter(|p| p.is_auction()).map(|p| p.goal)).collect::<Vec<_>>();
    let deadline = std::time::Instant::now() + auction::budget(st, s, goals.into_iter());
    let mut out = Auctions::default();
    let mut no_bid: Vec<Vec<u32>> = vec![Vec::new(); decisions.len()];
    for round in 0..=MAX_ROUNDS {
        let pending: Vec<(usize, Pick)> = decisions
            .iter()
            .enumerate()
            .flat_map(|(i, d)| d.picks.iter().filter(|p| p.is_auction()).map(move |p| (i, p.clone())))
            .filter(|(i, p)| !out.all.iter().any(|(bi, a)| bi == i && a.goal == p.goal))
            .collect();
        if pending.is_empty() {
            break;
        }
        let last = round == MAX_ROUNDS || std::time::Instant::now() >= deadline;
        let asked: Vec<Option<auction::Auction>> = if last {
            Vec::new()
        } else {
            let requests: Vec<AdRequest> = pending
                .iter()
                .map(|(i, _)| {
                    let mut one = r.clone();
                    set_break(&mut one, c.seed, *i, c.breaks[*i]);
                    one
                })
                .collect();
            let runs = pending.iter().zip(&requests).map(|((i, p), req)| {
                let policy = decisions[*i].policy.map(|x| &s.policies[x as usize].policy);
                let settings = crate::delivery::decide::BreakSettings::of(policy, req.format, req.break_number);
                let ask = Ask { snapshot: s, pick: p, request: req, settings, signals: c.signals, ip: c.ip, described: c.described };
                async move { auction::run(st, &ask, deadline).await }
            });
            futures_util::future::join_all(runs).await
        };
        let mut changed = vec![false; decisions.len()];
        for (k, (i, p)) in pending.iter().enumerate() {
            match asked.get(k).cloned().flatten() {
                Some(a) => {
                    if a.winner.is_none() {
                        no_bid[*i].push(p.goal);
                        changed[*i] = true;
                    }
                    out.all.push((*i, a));
                }
                None => {
                    no_bid[*i].push(p.goal);
                    changed[*i] = true;
                }
            }
        }
        for (i, d) in decisions.iter_mut().enumerate().filter(|(i, _)| changed[*i]) {
            set_break(r, c.seed, i, c.breaks[i]);
            r.no_bid = no_bid[i].clone();
            *d = decide(s, r, c.viewer, c.pace);
            tracing::info!(round, ads = d.picks.len(), "decided again without the goals that had no valid bid");
        }
        r.no_bid.clear();
        if last {
            // Whatever is still an auction pick without a winner is not served.
            for (i, d) in decisions.iter_mut().enumerate() {
                d.picks.retain(|p| !p.is_auction() || out.won(i, p).is_some());
            }
            break;
        }
    }
    out.no_bid = no_bid;
    out
}
