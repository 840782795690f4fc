//! The ad-request inspector (docs/inspector.md): the decision of an ad request, explained.
//! It loads exactly what serving loads (`ad_request::load`), runs the same decision per
//! break (`delivery::explain`), and has no side effect: no traffic sample, no frequency
//! record, no signed link.

use std::sync::Arc;

use super::UseCaseResult;
use crate::delivery::explain::{explain, Explanation};
use crate::delivery::request::AdRequest;
use crate::delivery::snapshot::{AdFormat, Snapshot, UNKNOWN};
use crate::delivery::vast::ResponseType;
use crate::state::AppState;
use crate::usecases::ad_request::{breaks, load, set_break, Loaded};

/// What the inspector answers: the snapshot it read, notes on the request, and each break.
pub struct Inspection {
    pub snapshot: Arc<Snapshot>,
    pub request: AdRequest,
    pub notes: Vec<String>,
    pub breaks: Vec<(AdFormat, u32, Explanation)>,
}

pub async fn inspect(
    st: &AppState,
    account: &str,
    rt: ResponseType,
    format: Option<AdFormat>,
    request: AdRequest,
) -> UseCaseResult<Inspection> {
    let Loaded { snapshot, pace, viewer } = load(st, account, &request).await?;
    let notes = notes(&snapshot, &request);
    let mut r = request.clone();
    let seed = r.seed;
    let mut out = Vec::new();
    for (i, b) in breaks(rt, format, &request).into_iter().enumerate() {
        set_break(&mut r, seed, i, b);
        out.push((b.0, b.1, explain(&snapshot, &r, &viewer, &pace)));
    }
    Ok(Inspection { snapshot, request, notes, breaks: out })
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
