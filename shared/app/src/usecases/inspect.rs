//! The ad-request inspector (docs/inspector.md): the decision of an ad request, explained.
//! It loads exactly what serving loads (`ad_request::load`), runs the same decision per
//! break (`delivery::explain`), and has no side effect: no traffic sample, no frequency
//! record, no signed link. A programmatic goal's auction is run as serving runs it (the
//! bidders are asked), and nothing of it is counted or notified: no notice, no win record.

use crate::ids::AccountId;
use std::sync::Arc;

use super::UseCaseResult;
use crate::delivery::explain::{explain, Explanation};
use crate::delivery::request::AdRequest;
use crate::delivery::snapshot::{AdFormat, Snapshot, UNKNOWN};
use crate::delivery::vast::ResponseType;
use crate::state::AppState;
use crate::usecases::ad_request::{breaks, load_as_of, run_rounds, set_break, Loaded, Rounds};
use crate::usecases::auction::Auction;

/// What the inspector answers: the snapshot it read, notes on the request, and each break.
pub struct Inspection {
    pub snapshot: Arc<Snapshot>,
    pub request: AdRequest,
    pub notes: Vec<String>,
    pub breaks: Vec<(AdFormat, u32, Explanation)>,
    /// The auctions run, with their break's index.
    pub auctions: Vec<(usize, Auction)>,
}

/// What the bidders would be told (the request's signals and the viewer's address).
pub struct Described {
    pub signals: crate::demand::signals::Signals,
    pub ip: Option<std::net::IpAddr>,
}

pub async fn inspect(
    st: &AppState,
    account: &AccountId,
    rt: ResponseType,
    format: Option<AdFormat>,
    request: AdRequest,
    described: Described,
) -> UseCaseResult<Inspection> {
    let Loaded { snapshot, pace, viewer } = load_as_of(st, account, &request, true).await?;
    let mut notes = notes(&snapshot, &request);
    if let Some(why) = st.delivery.refusal(account) {
        notes.insert(0, format!("the account's changes are not served: {why}"));
    }
    let mut r = request.clone();
    let seed = r.seed;
    let mut out = Vec::new();
    let list = breaks(rt, format, &request);
    for (i, b) in list.iter().enumerate() {
        set_break(&mut r, seed, i, *b);
        out.push((b.0, b.1, explain(&snapshot, &r, &viewer, &pace)));
    }
    let mut auctions = Vec::new();
    if out.iter().any(|(_, _, e)| e.decision.picks.iter().any(|p| p.is_auction())) {
        let mut decisions: Vec<_> = out.iter().map(|(_, _, e)| e.decision.clone()).collect();
        let c = Rounds {
            snapshot: &snapshot,
            viewer: &viewer,
            pace: &pace,
            seed,
            breaks: &list,
            signals: &described.signals,
            ip: described.ip,
            described: true,
        };
        let run = run_rounds(st, &c, &mut r, &mut decisions).await;
        // Each break explained again without the goals that had no valid bid.
        for (i, ((f, n, e), d)) in out.iter_mut().zip(decisions).enumerate() {
            set_break(&mut r, seed, i, (*f, *n));
            r.no_bid = run.no_bid.get(i).cloned().unwrap_or_default();
            *e = explain(&snapshot, &r, &viewer, &pace);
            e.decision = d;
        }
        auctions = run.all;
    }
    Ok(Inspection { snapshot, request, notes, breaks: out, auctions })
}

/// What about the request itself no rule can match: values the account does not know.
fn notes(s: &Snapshot, r: &AdRequest) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(c) = &r.category {
        if !s.lineage.contains_key(&s.syms.get(c)) {
            notes.push(format!(
                "category {c:?} is not in the account's categories (reference data): content rules cannot match it, and goals with \
                 an ALL_OF or AT_LEAST_ONE_OF content rule refuse the request"
            ));
        }
    }
    if let Some(dc) = &r.device_container {
        if s.syms.get(dc) == UNKNOWN {
            notes.push(format!("device container {dc:?} is named by no ad of the account: ads that list device containers refuse it"));
        }
    }
    if r.viewer.is_none() && s.needs_viewer {
        notes.push("the request names no viewer (pid): goals with frequency caps refuse it and audience rules see no segment".into());
    }
    if s.goals.is_empty() {
        notes.push("the account has no goal that can deliver (see notServing)".into());
    }
    notes
}
