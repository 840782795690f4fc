//! Bidders' notices (docs/programmatic.md, "Win records and notices"): queued off the
//! response path, fired by the notices worker once each (a marker after a success), with
//! the queue's retries. A notice URL obeys the endpoints' address rule.

use std::time::Duration;

use super::UseCaseResult;
use crate::demand::client::{Call, CallError};
use crate::jobs::Notice;
use crate::queue::QueueName;
use crate::repo;
use crate::state::AppState;

/// How long a notice call may take.
pub const NOTICE_TIMEOUT: Duration = Duration::from_secs(2);
/// The most of a notice's answer read (the rest is not waited for).
pub const NOTICE_MAX_BYTES: usize = 4096;

/// Queues a notice (a queue that cannot take it loses it, and says so: notices are the
/// bidder's bookkeeping, never a reason to fail an ad request or an event).
/// Queues an answer's notices in batches (those whose URL is not allowed left out).
pub async fn queue_all(st: &AppState, notices: Vec<Notice>) {
    let allowed = |n: &Notice| {
        n.url.len() <= crate::limits::URL_MAX && crate::download::check_endpoint(&n.url, st.settings.demand_allow_private_urls).is_ok()
    };
    let bodies: Vec<String> = notices
        .iter()
        .filter(|n| {
            let ok = allowed(n);
            if !ok {
                tracing::info!(kind = %n.kind, partner = %n.partner, "a notice URL that is not allowed was left out");
            }
            ok
        })
        .filter_map(|n| serde_json::to_string(n).map_err(|e| tracing::warn!(error = %e, "a notice could not be written")).ok())
        .collect();
    if let Err(e) = st.queue.send_batch(QueueName::Notices, bodies).await {
        tracing::warn!(error = %e, "notices were not queued");
    }
}

/// Queues one notice (a win's billing notice, when its impression counts).
pub async fn queue(st: &AppState, n: Notice) {
    queue_all(st, vec![n]).await;
}

/// How firing a notice ended.
#[derive(Debug, PartialEq)]
pub enum Fired {
    /// Called (or called before: a redelivery).
    Done,
    /// The bidder refused it for good (a 4xx): not tried again.
    Refused(u16),
    /// Its URL is not allowed (an internal address): never called.
    NotAllowed(String),
}

/// Fires one notice (the worker's job); an error is a retry.
pub async fn fire(st: &AppState, n: &Notice) -> UseCaseResult<Fired> {
    if repo::notices::fired(st.store.as_ref(), n).await? {
        return Ok(Fired::Done);
    }
    let allow_private = st.settings.demand_allow_private_urls;
    if let Err(e) = crate::download::check_endpoint(&n.url, allow_private) {
        return Ok(Fired::NotAllowed(format!("the URL {e}")));
    }
    match crate::download::resolve_checked(st.resolver.as_ref(), &n.url, allow_private).await {
        Err(e @ (crate::download::DownloadError::InternalAddress(_) | crate::download::DownloadError::Forbidden(_))) => {
            return Ok(Fired::NotAllowed(e.to_string()))
        }
        // A name that does not resolve now may later: the queue tries again.
        Err(e) => return Err(super::UseCaseError::internal_msg(format!("the {} notice to {}: {e}", n.kind, n.partner))),
        Ok(_) => {}
    }
    let call = Call { url: &n.url, json: None, headers: &[], timeout: NOTICE_TIMEOUT, max_bytes: NOTICE_MAX_BYTES, allow_private };
    let status = match st.bidders.call(call).await {
        Ok(a) => a.status,
        // The bidder took the call; its answer's length is its own business.
        Err(CallError::TooLarge(_)) => 200,
        Err(e) => return Err(super::UseCaseError::internal_msg(format!("the {} notice to {} failed: {e}", n.kind, n.partner))),
    };
    match status {
        200..=399 => {
            repo::notices::mark_fired(st.store.as_ref(), n, st.clock.now().timestamp()).await?;
            Ok(Fired::Done)
        }
        400..=499 => Ok(Fired::Refused(status)),
        s => Err(super::UseCaseError::internal_msg(format!("the {} notice to {} answered HTTP {s}", n.kind, n.partner))),
    }
}
